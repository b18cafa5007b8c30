/**
 * ConnectorPort read over SFTP: text for text types, base64 bytes for binary types within their
 * inline cap, a marker over it, ranges, and a text cap past which the caller pages with ranges.
 * The file is read through the handle RemoteFiles.openFile checked.
 */
import { TooLargeError, UNKNOWN_MIME, formatByteSize, mimeFromName, mimeReadClass } from '@neuralis/package-system/contracts';
import type { ConnectorReadResult } from '@neuralis/package-system/contracts';
import type { RequestedRange } from '@inseam/connector-fs';
import type { MachineConfig } from './config.js';
import { etagOf } from './entry.js';
import type { RemoteFiles } from './remote.js';

const SNIFF_BYTES = 8192;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** No NUL and valid UTF-8 (a character cut off at the end of a partial sample is allowed). */
export function looksLikeText(sample: Buffer, whole: boolean): boolean {
  if (sample.includes(0)) return false;
  try {
    utf8.decode(whole ? sample : sample.subarray(0, Math.max(0, sample.length - 3)));
    return true;
  } catch {
    return false;
  }
}

export async function readObject(files: RemoteFiles, names: readonly string[], range: RequestedRange | undefined, config: MachineConfig): Promise<ConnectorReadResult> {
  const { sftp, handle, attrs } = await files.openFile(names);
  try {
    const size = attrs.size;
    const etag = etagOf(attrs);
    let mime = mimeFromName(names[names.length - 1] ?? '');
    if (mime === UNKNOWN_MIME && size > 0) {
      const sample = await files.readAt(sftp, handle, 0, Math.min(size, SNIFF_BYTES));
      if (looksLikeText(sample, sample.length === size)) mime = 'text/plain';
    }
    const readClass = mimeReadClass(mime);
    const start = range?.offset ?? 0;
    let end = Math.max(start, range?.length === undefined ? size : Math.min(size, start + range.length));
    const base = { mime, size, etag };
    if (readClass === 'text') {
      const cap = config.textCapBytes;
      if (range === undefined && size > cap) {
        throw new TooLargeError(
          `The file is ${formatByteSize(size)}, over the ${formatByteSize(cap)} text cap for a whole read; read it in ranges of at most ${cap} bytes (range.offset, range.length).`,
          { details: { size, cap } },
        );
      }
      end = Math.min(end, start + cap);
      const bytes = await files.readAt(sftp, handle, start, end - start);
      const text = bytes.toString('utf8');
      return range === undefined ? { ...base, text } : { ...base, text, range: { offset: start, length: bytes.length } };
    }
    const cap = config.inlineCaps[readClass];
    const length = end - start;
    const rangeResult = range === undefined ? {} : { range: { offset: start, length } };
    if (length > cap) {
      const what = range === undefined ? 'the file' : 'the range';
      return {
        ...base,
        ...rangeResult,
        text: `[${mime}, ${formatByteSize(size)}: ${what} is over the ${formatByteSize(cap)} inline cap for this type; bytes not included. Read a range of at most ${cap} bytes to get bytes.]`,
        omitted: { reason: 'over_inline_cap', cap },
      };
    }
    const bytes = await files.readAt(sftp, handle, start, length);
    return { ...base, ...rangeResult, text: `[${mime}, ${formatByteSize(size)}${range === undefined ? '' : `, bytes ${start}-${start + bytes.length}`}]`, bytes: bytes.toString('base64') };
  } finally {
    await files.close(sftp, handle);
  }
}

/** Requests in flight while streaming a file: SFTP is request/response, so one at a time would wait out every round trip. */
const STREAM_WINDOW = 16;

/**
 * The bytes [start, end) of a file as a web stream, read ahead STREAM_WINDOW requests deep and
 * delivered in order. Cancelling closes the handle.
 */
export async function fileStream(files: RemoteFiles, names: readonly string[], range?: readonly [number, number]): Promise<{ stream: ReadableStream<Uint8Array>; size: number }> {
  const { sftp, handle, attrs } = await files.openFile(names);
  const size = attrs.size;
  const start = Math.min(range?.[0] ?? 0, size);
  const end = Math.max(start, Math.min(range?.[1] ?? size, size));
  const chunk = 255 * 1024;
  let next = start;
  const inFlight: Promise<Buffer>[] = [];
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await Promise.allSettled(inFlight);
    await files.close(sftp, handle);
  };
  const fill = (): void => {
    while (inFlight.length < STREAM_WINDOW && next < end) {
      const length = Math.min(chunk, end - next);
      inFlight.push(files.readAt(sftp, handle, next, length));
      next += length;
    }
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        fill();
        const head = inFlight.shift();
        if (head === undefined) {
          await close();
          controller.close();
          return;
        }
        try {
          const bytes = await head;
          if (bytes.length > 0) controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
          fill();
          if (inFlight.length === 0) {
            await close();
            controller.close();
          }
        } catch (error) {
          await close();
          controller.error(error);
        }
      },
      cancel: () => close(),
    },
    { highWaterMark: 0 },
  );
  return { stream, size };
}
