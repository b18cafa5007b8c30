/**
 * Turns a store GET into a ConnectorReadResult. Text types come back decoded; images, videos and
 * PDFs come back as base64 within their inline cap and as a short marker over it; other binary
 * types come back as a marker only. An object whose type is unknown (no telling extension, no
 * stored type) is sniffed: valid UTF-8 without NUL bytes counts as text.
 *
 * Only what a result returns is gathered in memory, and never more than the applicable cap: an
 * over-cap body is cancelled without being read.
 */
import { TooLargeError, formatByteSize } from '@neuralis/package-system/contracts';
import type { ConnectorReadResult } from '@neuralis/package-system/contracts';
import { collectBytes, discard } from './body.js';
import type { ReadCaps } from './config.js';
import { effectiveMime, readClassOf } from './mime.js';
import type { ReadClass } from './mime.js';
import type { GetResult } from './store.js';

export async function readResultOf(got: GetResult, caps: ReadCaps): Promise<ConnectorReadResult> {
  const mime = effectiveMime(got.info.mime, got.contentType);
  const length = got.range?.length ?? got.info.size;
  const base = {
    mime,
    size: got.info.size,
    etag: got.info.etag,
    ...(got.range === undefined ? {} : { range: got.range }),
  };
  const readClass = readClassOf(mime);
  if (readClass === 'image' || readClass === 'video' || readClass === 'pdf') {
    const cap = caps[readClass];
    if (length > cap) {
      await discard(got.body);
      return { ...base, text: `[${mime}, ${formatByteSize(length)}: over the ${formatByteSize(cap)} inline cap; not included]`, omitted: { reason: 'over_inline_cap', cap } };
    }
    const bytes = await collectBytes(got.body, cap);
    return { ...base, text: '', bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
  }
  if (readClass === 'binary') {
    await discard(got.body);
    return { ...base, text: binaryMarker(mime, length) };
  }
  if (length > caps.text) {
    await discard(got.body);
    if (got.range !== undefined) {
      throw new TooLargeError(`A ranged read returns at most ${formatByteSize(caps.text)} of text; ask for a shorter range.`, {
        details: { cap: caps.text },
      });
    }
    throw new TooLargeError(
      `The object is ${formatByteSize(length)}, over the ${formatByteSize(caps.text)} text cap; read it in ranges.`,
      { details: { cap: caps.text, size: got.info.size } },
    );
  }
  const bytes = await collectBytes(got.body, caps.text);
  return { ...base, ...decodeText(bytes, readClass, mime, length) };
}

function decodeText(bytes: Uint8Array, readClass: ReadClass, mime: string, length: number): { text: string } {
  if (readClass === 'text') return { text: new TextDecoder('utf-8').decode(bytes) };
  if (bytes.includes(0)) return { text: binaryMarker(mime, length) };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { text: binaryMarker(mime, length) };
  }
}

/** True when `bytes` read as text (for scanContent): valid UTF-8 without NUL bytes. */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function binaryMarker(mime: string, length: number): string {
  return `[${mime}, ${formatByteSize(length)}: binary content; not included as text]`;
}

