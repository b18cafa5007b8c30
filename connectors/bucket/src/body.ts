/**
 * Stream helpers. Bodies stream; the only places bytes are gathered whole are reads under an
 * inline or text cap (collectBytes, with the cap enforced while reading) and small S3 writes
 * (spoolBody keeps at most `memoryLimit` bytes in memory and moves larger bodies to a temp file).
 */
import { createHash, randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectCapped, concatBytes, TooLargeError, UnavailableError } from '@neuralis/package-system/contracts';

/** Reads a whole stream, refusing with `too_large` as soon as it passes `maxBytes`. */
export async function collectBytes(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  return collectCapped(stream, {
    maxBytes,
    tooLarge: () => new TooLargeError(`The content is larger than the ${maxBytes}-byte limit for this read.`),
  });
}

/** Reads at most `maxBytes` of a stream as UTF-8 and cancels the rest (for error bodies). */
export async function readTextPrefix(stream: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (stream === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  try {
    while (total < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
    await reader.cancel().catch(ignore);
  } catch {
    // A body cut short still tells us what arrived.
  } finally {
    reader.releaseLock();
  }
  return new TextDecoder().decode(concatBytes(chunks, total).subarray(0, maxBytes));
}

/** Reads a stream to its end and drops the bytes (to free a connection). */
export async function discard(stream: ReadableStream<Uint8Array> | null): Promise<void> {
  if (stream === null) return;
  await stream.cancel().catch(ignore);
}

export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

export function emptyStream(): ReadableStream<Uint8Array> {
  return bytesStream(new Uint8Array(0));
}

/** Chunk size for file-backed streams: large enough to keep syscalls few, small enough to stay flat. */
export const FILE_CHUNK_BYTES = 256 * 1024;

/**
 * A pull stream over `length` bytes of an open file from `position`; closes the handle when done,
 * on error and on cancel.
 */
export function fileStream(handle: FileHandle, position: number, length: number): ReadableStream<Uint8Array> {
  let offset = position;
  let remaining = length;
  let closed = false;
  const closeOnce = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close().catch(ignore);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (remaining <= 0) {
          await closeOnce();
          controller.close();
          return;
        }
        const buffer = new Uint8Array(Math.min(FILE_CHUNK_BYTES, remaining));
        let bytesRead: number;
        try {
          ({ bytesRead } = await handle.read(buffer, 0, buffer.byteLength, offset));
        } catch {
          await closeOnce();
          controller.error(new UnavailableError('Reading the object from disk failed.'));
          return;
        }
        if (bytesRead === 0) {
          // The file shrank under us; end where the data ends.
          remaining = 0;
          await closeOnce();
          controller.close();
          return;
        }
        offset += bytesRead;
        remaining -= bytesRead;
        controller.enqueue(bytesRead === buffer.byteLength ? buffer : buffer.subarray(0, bytesRead));
      },
      async cancel() {
        await closeOnce();
      },
    },
    { highWaterMark: 0 },
  );
}

/** A request body whose size and MD5 are known, held in memory or in a private temp file. */
export type SpooledBody =
  | { readonly kind: 'memory'; readonly bytes: Uint8Array; readonly size: number; readonly md5: Buffer; dispose(): Promise<void> }
  | {
      readonly kind: 'file';
      readonly size: number;
      readonly md5: Buffer;
      /** A fresh stream of the spooled bytes. */
      open(): Promise<ReadableStream<Uint8Array>>;
      dispose(): Promise<void>;
    };

/**
 * Consumes `stream`, learning its size and MD5 (S3 needs a length up front and checks the MD5).
 * Up to `memoryLimit` bytes stay in memory; past that everything goes to a 0600 temp file in
 * `spoolDir` (default the OS temp dir), removed by `dispose()`. Over `maxBytes` it stops and
 * throws `too_large`.
 */
export async function spoolBody(
  stream: ReadableStream<Uint8Array>,
  options: { readonly memoryLimit: number; readonly maxBytes: number; readonly spoolDir?: string },
): Promise<SpooledBody> {
  const md5 = createHash('md5');
  const chunks: Uint8Array[] = [];
  let size = 0;
  let file: { handle: FileHandle; path: string } | undefined;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > options.maxBytes) {
        await reader.cancel().catch(ignore);
        throw new TooLargeError(`The body is larger than the ${options.maxBytes}-byte limit for one upload.`);
      }
      md5.update(value);
      if (file === undefined && size <= options.memoryLimit) {
        chunks.push(value);
        continue;
      }
      if (file === undefined) {
        file = await openSpoolFile(options.spoolDir ?? tmpdir());
        for (const chunk of chunks) await spoolWrite(file.handle, chunk);
        chunks.length = 0;
      }
      await spoolWrite(file.handle, value);
    }
  } catch (error) {
    if (file !== undefined) await discardSpool(file);
    throw error;
  } finally {
    reader.releaseLock();
  }
  const digest = md5.digest();
  if (file === undefined) {
    const bytes = concatBytes(chunks, size);
    return { kind: 'memory', bytes, size, md5: digest, dispose: async () => {} };
  }
  const spool = file;
  await spool.handle.close();
  return {
    kind: 'file',
    size,
    md5: digest,
    async open() {
      const handle = await open(spool.path, 'r');
      return fileStream(handle, 0, size);
    },
    async dispose() {
      await rm(spool.path, { force: true });
    },
  };
}

/** A body already in memory, as a SpooledBody. Throws `too_large` over `maxBytes`. */
export function spooledBytes(bytes: Uint8Array, maxBytes: number): SpooledBody {
  if (bytes.byteLength > maxBytes) throw new TooLargeError(`The body is larger than the ${maxBytes}-byte limit for one upload.`);
  return { kind: 'memory', bytes, size: bytes.byteLength, md5: createHash('md5').update(bytes).digest(), dispose: async () => {} };
}

async function openSpoolFile(dir: string): Promise<{ handle: FileHandle; path: string }> {
  const path = join(dir, `inseam-bucket-${randomBytes(12).toString('hex')}.spool`);
  try {
    return { handle: await open(path, 'wx', 0o600), path };
  } catch {
    throw new UnavailableError('Could not create a temporary file to stage the upload; check the temp directory has space.');
  }
}

async function spoolWrite(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  try {
    await writeAll(handle, bytes);
  } catch {
    // The system error names the temp path; the message must not.
    throw new UnavailableError('Staging the upload in a temporary file failed; check the temp directory has space.');
  }
}

async function discardSpool(file: { handle: FileHandle; path: string }): Promise<void> {
  await file.handle.close().catch(ignore);
  await rm(file.path, { force: true }).catch(ignore);
}

/** Writes all of `bytes` at the handle's current position. */
export async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.byteLength - written);
    written += bytesWritten;
  }
}

function ignore(): void {}
