/**
 * Writing a command's output as Unix tools do: waiting for the stream when it asks to, copying
 * bytes in large chunks through two reused buffers (one filled while the other is written), and
 * stopping quietly when the reader went away (`inseam cat big | head` exits 0, not with EPIPE).
 */

/** The reader of the command's output closed it; the command stops and exits 0, saying nothing. */
export class OutputClosedError extends Error {
  constructor() {
    super('The output was closed by its reader.');
    this.name = 'OutputClosedError';
  }
}

/** The size of each read and write when copying bytes to the output. */
export const COPY_CHUNK_BYTES = 1024 * 1024;

/** The first write error seen on each stream, so the next write reports it instead of hanging. */
const failures = new WeakMap<NodeJS.WritableStream, unknown>();

const CLOSED_CODES: ReadonlySet<unknown> = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * Whether a command's failure means only that the reader of `out` went away: OutputClosedError,
 * or a write's own EPIPE from code that wrote without `write` below — but only when `out` is the
 * stream that broke, so an EPIPE from a host's connection still fails the command.
 */
export function isClosedOutput(error: unknown, out: NodeJS.WritableStream): boolean {
  if (error instanceof OutputClosedError) return true;
  if (!CLOSED_CODES.has((error as { code?: unknown } | null)?.code)) return false;
  const stream = out as { destroyed?: boolean; writableErrored?: unknown };
  return failures.has(out) || stream.destroyed === true || (stream.writableErrored ?? null) !== null;
}

function outputError(error: unknown): unknown {
  return CLOSED_CODES.has((error as { code?: unknown } | null)?.code) ? new OutputClosedError() : error;
}

/**
 * Writes, waiting for the stream to drain when it asks to. Throws OutputClosedError once the
 * reader closed the stream, and any other write error as it is.
 */
export function write(stream: NodeJS.WritableStream, chunk: string | Uint8Array): Promise<void> {
  if (failures.has(stream)) return Promise.reject(outputError(failures.get(stream)));
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      stream.off('drain', onDrain);
      if (error === undefined) resolve();
      else reject(outputError(error));
    };
    const onDrain = (): void => settle();
    const ready = stream.write(chunk, (error?: Error | null) => {
      if (error === undefined || error === null) return;
      if (!failures.has(stream)) failures.set(stream, error);
      settle(error);
    });
    if (ready) settle();
    else if (!settled) stream.on('drain', onDrain);
  });
}

/** Resolves with the chunk's buffer once the stream is done with it (so it can be read into again). */
function writeOwned(stream: NodeJS.WritableStream, chunk: Uint8Array): Promise<ArrayBuffer> {
  if (failures.has(stream)) return Promise.reject(outputError(failures.get(stream)));
  return new Promise<ArrayBuffer>((resolve, reject) => {
    stream.write(chunk, (error?: Error | null) => {
      if (error === undefined || error === null) return resolve(chunk.buffer as ArrayBuffer);
      if (!failures.has(stream)) failures.set(stream, error);
      reject(outputError(error));
    });
  });
}

function byobReader(source: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return source.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream: it hands out its own chunks.
    return undefined;
  }
}

/**
 * Whether a write's callback means the bytes have left the process (a file, pipe or terminal:
 * process.stdout), so the buffer may be read into again. An in-process stream (a PassThrough)
 * keeps the very chunk it was given and hands it on later.
 */
function writesThrough(out: NodeJS.WritableStream): boolean {
  return typeof (out as { fd?: unknown }).fd === 'number';
}

/**
 * Copies a byte stream to `out`. A byte stream (the fs host's) written to a file descriptor is
 * read straight into two reused buffers, so no chunk is allocated or copied per read; to any other
 * output each read gets a fresh buffer, and any other stream is copied chunk by chunk. Cancels the
 * source when the output fails; throws OutputClosedError when its reader went away.
 */
export async function copyToOutput(source: ReadableStream<Uint8Array>, out: NodeJS.WritableStream): Promise<void> {
  const reader = byobReader(source);
  if (reader !== undefined && !writesThrough(out)) {
    try {
      for (;;) {
        const { done, value } = await reader.read(new Uint8Array(COPY_CHUNK_BYTES));
        if (done) return;
        await write(out, value);
      }
    } catch (error) {
      await reader.cancel().catch(() => undefined);
      throw error;
    }
  }
  if (reader === undefined) {
    const chunks = source.getReader();
    try {
      for (let next = await chunks.read(); !next.done; next = await chunks.read()) await write(out, next.value);
    } catch (error) {
      await chunks.cancel().catch(() => undefined);
      throw error;
    }
    return;
  }
  const free: ArrayBuffer[] = [new ArrayBuffer(COPY_CHUNK_BYTES), new ArrayBuffer(COPY_CHUNK_BYTES)];
  // At most one write in flight, overlapping the next read; it resolves with its buffer.
  let inFlight: Promise<ArrayBuffer> | undefined;
  try {
    for (;;) {
      let buffer = free.pop();
      if (buffer === undefined) {
        buffer = await inFlight!;
        inFlight = undefined;
      }
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (done) break;
      if (inFlight !== undefined) free.push(await inFlight);
      inFlight = writeOwned(out, value);
      // Handled when awaited; marked handled now so a failure during the next read is not "unhandled".
      inFlight.catch(() => undefined);
    }
    await inFlight;
  } catch (error) {
    // The source stops sending when the output went away or a write failed.
    await inFlight?.catch(() => undefined);
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}
