/**
 * Turning a host read (a byte stream) into a ConnectorReadResult: text decoded within the text cap,
 * image/*, video/* and application/pdf as base64 within their per-MIME inline cap (a marker and
 * `omitted` over it), and any other binary type as a marker without bytes. Streams are read only
 * as far as a cap needs and then cancelled, so an oversized object is never held whole.
 */

const MIB = 1024 * 1024;

export interface ReadCaps {
  /** Largest text a read returns without a range; larger is `too_large`. Default 1 MiB. */
  readonly textBytes: number;
  /** Per-MIME inline caps for binary reads, keyed by exact type or `type/*`. */
  readonly inline: Readonly<Record<string, number>>;
}

export const DEFAULT_READ_CAPS: ReadCaps = Object.freeze({
  textBytes: MIB,
  inline: Object.freeze({ 'image/*': 5 * MIB, 'video/*': 20 * MIB, 'application/pdf': 10 * MIB }),
});

const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  eml: 'message/rfc822',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  webm: 'video/webm',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** The MIME type for a name by its extension; `application/octet-stream` when unknown. */
export function guessMime(name: string): string {
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}

function essence(mime: string): string {
  return mime.split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

export function isTextMime(mime: string): boolean {
  const e = essence(mime);
  return (
    e.startsWith('text/') ||
    e === 'message/rfc822' ||
    e === 'application/json' ||
    e === 'application/xml' ||
    e === 'application/yaml' ||
    e === 'application/javascript' ||
    e.endsWith('+json') ||
    (e.endsWith('+xml') && !e.startsWith('image/'))
  );
}

export function isInlineBinaryMime(mime: string): boolean {
  const e = essence(mime);
  return e.startsWith('image/') || e.startsWith('video/') || e === 'application/pdf';
}

/** The inline cap for a binary type: the exact type's, else its `type/*`, else 0. */
export function inlineCapFor(mime: string, caps: ReadCaps): number {
  const e = essence(mime);
  return caps.inline[e] ?? caps.inline[`${e.split('/', 1)[0] ?? ''}/*`] ?? 0;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** `67 B`, `12.4 MiB`: sizes for the markers a model reads. */
export function formatSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = unit === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${rounded} ${UNITS[unit]}`;
}

/**
 * Reads at most `limit` bytes. `overflowed` is true when the stream had more; the stream is then
 * cancelled rather than drained.
 */
export async function readUpTo(stream: ReadableStream<Uint8Array>, limit: number): Promise<{ bytes: Uint8Array; overflowed: boolean }> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { bytes: Buffer.concat(parts, total), overflowed: false };
      if (total + value.byteLength > limit) {
        parts.push(value.subarray(0, limit - total));
        total = limit;
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(parts, total), overflowed: true };
      }
      parts.push(value);
      total += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
}
