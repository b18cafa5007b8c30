/**
 * ConnectorPort read: text for text types, base64 bytes for binary types within their inline cap,
 * a short marker over it, byte ranges, and a text cap past which the caller must page with ranges.
 * The file is read through the descriptor openContainedDescriptor checked, so check and use are one
 * open.
 */
import { closeSync, fstatSync, read, readSync } from 'node:fs';
import { InvalidArgumentError, TooLargeError, UNKNOWN_MIME, formatByteSize, mimeFromName, mimeReadClass } from '@neuralis/package-system/contracts';
import type { ConnectorReadResult, ReadOptions } from '@neuralis/package-system/contracts';
import { openContainedDescriptor } from '@neuralis/package-system/paths';
import type { Address } from './address.js';
import type { FolderSettings } from './config.js';
import { etagOf } from './etag.js';
import { refuseHardLink } from './links.js';
import { SNIFF_BYTES, inlineCapOf, looksLikeText } from './mime.js';

/** A validated byte range: [start, start + length) clipped to the object later. */
export interface RequestedRange {
  readonly offset: number;
  readonly length?: number;
}

/** Throws `invalid_argument` unless `range` has a non-negative integer offset and length. */
export function checkRange(range: ReadOptions['range']): RequestedRange | undefined {
  if (range === undefined) return undefined;
  const { offset, length } = range;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new InvalidArgumentError('range.offset must be a non-negative integer byte offset.', { details: { argument: 'range.offset' } });
  }
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
    throw new InvalidArgumentError('range.length must be a non-negative integer number of bytes.', { details: { argument: 'range.length' } });
  }
  return length === undefined ? { offset } : { offset, length };
}

export async function readObject(
  rootPath: string,
  address: Address,
  range: RequestedRange | undefined,
  settings: FolderSettings,
): Promise<ConnectorReadResult> {
  const fd = await openContainedDescriptor(rootPath, address.relative, { expect: 'file' });
  try {
    // fstat of a descriptor already open is a few microseconds in the kernel; synchronously it
    // saves a trip through the libuv pool, which small reads are bound by (as in walker.ts).
    const stats = fstatSync(fd);
    refuseHardLink(stats, settings.allowHardLinks);
    const size = stats.size;
    const etag = etagOf(stats);
    let mime = mimeFromName(address.names[address.names.length - 1] ?? '');
    if (mime === UNKNOWN_MIME && size > 0) {
      const sample = await readAt(fd, 0, Math.min(size, SNIFF_BYTES), 'small-here');
      if (looksLikeText(sample, sample.length === size)) mime = 'text/plain';
    }
    const readClass = mimeReadClass(mime);
    // A range starting at or past the end is empty, reported at the offset asked for.
    const start = range?.offset ?? 0;
    let end = Math.max(start, range?.length === undefined ? size : Math.min(size, start + range.length));
    const base = { mime, size, etag };

    if (readClass === 'text') {
      const cap = settings.textCapBytes;
      if (range === undefined && size > cap) {
        throw new TooLargeError(
          `The file is ${formatByteSize(size)}, over the ${formatByteSize(cap)} text cap for a whole read; read it in ranges of at most ${cap} bytes (range.offset, range.length).`,
          { details: { size, cap } },
        );
      }
      // A range wider than the cap is clipped; `range.length` reports what came back.
      end = Math.min(end, start + cap);
      const bytes = await readAt(fd, start, end - start, 'small-here');
      const text = bytes.toString('utf8');
      return range === undefined ? { ...base, text } : { ...base, text, range: { offset: start, length: bytes.length } };
    }

    const cap = inlineCapOf(readClass, settings.inlineCaps);
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
    const bytes = await readAt(fd, start, length, 'small-here');
    return { ...base, ...rangeResult, text: `[${mime}, ${formatByteSize(size)}${range === undefined ? '' : `, bytes ${start}-${start + bytes.length}`}]`, bytes: bytes.toString('base64') };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads this small or less are made on this thread. A page-cache read of a few KiB is a
 * microsecond or two in the kernel, while the trip through the libuv pool costs 20–40 µs of this
 * thread's CPU (measured on the 2-core gVisor machine of docs/performance.md) and a wake-up of
 * latency; small reads over MCP are bound by it. The contained open before it is synchronous
 * already (openContainedDescriptor), so a small read blocks no longer than the open does; larger
 * reads, which a cold or remote disk could hold up, keep to the pool. Only a caller's own read
 * asks for it (`small-here`); the crawl's content scan, many files in a row, stays on the pool.
 */
const SYNC_READ_BYTES = 64 * 1024;

/**
 * Reads up to `length` bytes at `position`, stopping early at end of file; on this thread when
 * `where` is `small-here` and the read is at most SYNC_READ_BYTES, else through the pool.
 */
export async function readAt(fd: number, position: number, length: number, where: 'pool' | 'small-here' = 'pool'): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  const sync = where === 'small-here' && length <= SYNC_READ_BYTES;
  let filled = 0;
  while (filled < length) {
    const bytesRead = sync ? readSync(fd, buffer, filled, length - filled, position + filled) : await readInto(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

// The callback form: FileHandle.read allocates a result object and a promise chain per call.
function readInto(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, offset, length, position, (error, bytesRead) => (error === null ? resolve(bytesRead) : reject(error)));
  });
}
