/**
 * Sending a host's byte stream as a response body without a fresh buffer per chunk.
 *
 * Fastify reads a web stream with a default reader, so every chunk of a 1 GiB download is new
 * memory the garbage collector frees again (docs/performance.md, "fs-read"). Here a byte stream
 * (the fs host's) is read with a BYOB reader into two reused buffers: one is filled while the
 * other is written, and a buffer is read into again only after its write's callback, when the
 * socket is done with it (as the CLI's `copyToOutput` does for `inseam cat`).
 *
 * That means writing the raw response (`reply.hijack()`), so what Fastify would do is done here:
 *
 * - the headers: those already on the reply (set by hooks before the handler), the route's, and
 *   the server's own (`serverHeaders`, what its onSend hook adds — `Connection: close` while it
 *   shuts down), taken when the headers are written, as onSend would;
 * - HEAD, 304 and errors before the first byte stay Fastify's: the first chunk is read before the
 *   reply is hijacked, so a stream that fails at once is answered with the error envelope;
 * - a stream failing after the headers went out destroys the response, so the client sees a
 *   broken body and never a complete-looking one, and so does a body shorter than its
 *   Content-Length;
 * - a client that goes away cancels the stream at once, releasing the host's reader and file —
 *   unread when it left before the first chunk was asked for.
 */
import type { FastifyReply } from 'fastify';
import { validateHeaderName, validateHeaderValue, type ServerResponse } from 'node:http';
import type { ReadableStreamReadResult } from 'node:stream/web';

/** The size of each read (and write) of a byte stream; two such buffers per response. */
export const BODY_CHUNK_BYTES = 1024 * 1024;

export interface ByteBody {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly stream: ReadableStream<Uint8Array>;
  /** The body's length when known (it is then also the Content-Length header). */
  readonly length?: number;
}

/** The response closed before the body was written whole: its client went away. */
class ResponseClosedError extends Error {
  constructor() {
    super('The response was closed before its body was sent.');
    this.name = 'ResponseClosedError';
  }
}

function byobReader(stream: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return stream.getReader({ mode: 'byob' });
  } catch {
    // Not a byte stream: it hands out its own chunks.
    return undefined;
  }
}

/** What reads the next chunk: into `buffer` for a byte stream (the chunk is a view of it), or the stream's own. */
type ReadNext = (buffer: ArrayBuffer | undefined) => Promise<ReadableStreamReadResult<Uint8Array>>;

/**
 * Sends `body` on `reply`; resolves once it was sent whole, failed or was abandoned by its client
 * (never rejects after the headers went out). `serverHeaders` is asked for the server's headers
 * when they are written.
 */
export async function sendByteBody(reply: FastifyReply, body: ByteBody, serverHeaders: () => Readonly<Record<string, string>>): Promise<FastifyReply> {
  if (reply.request.method === 'HEAD') {
    // The headers alone, through Fastify (its hooks run): its HEAD route cancels a web stream
    // unread and keeps the Content-Length it was given (an empty payload would be `0`).
    return reply.code(body.status).headers(body.headers).send(body.stream);
  }
  if (reply.raw.destroyed) {
    // The client went away while the stream was opened: release it unread.
    reply.hijack();
    await body.stream.cancel().catch(() => undefined);
    return reply;
  }
  const byob = byobReader(body.stream);
  const reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array> = byob ?? body.stream.getReader();
  const readNext: ReadNext =
    byob === undefined ? () => (reader as ReadableStreamDefaultReader<Uint8Array>).read() : (buffer) => byob.read(new Uint8Array(buffer!));
  // Two buffers for a byte stream: one being written, one being read into.
  const free: ArrayBuffer[] = byob === undefined ? [] : [new ArrayBuffer(BODY_CHUNK_BYTES), new ArrayBuffer(BODY_CHUNK_BYTES)];
  let first: ReadableStreamReadResult<Uint8Array>;
  try {
    first = await readNext(free.pop());
  } catch (error) {
    // Nothing was sent yet: the error handler answers with the envelope.
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  const headers = { ...headersOf(reply), ...body.headers, ...serverHeaders() };
  try {
    // A value writeHead would refuse (a host's odd mime) is refused while the envelope can still be sent.
    for (const [name, value] of Object.entries(headers)) {
      validateHeaderName(name);
      for (const each of Array.isArray(value) ? value : [value]) validateHeaderValue(name, each);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  reply.hijack();
  const res = reply.raw;
  if (res.destroyed) {
    // The client went away while the first chunk was read.
    await reader.cancel().catch(() => undefined);
    return reply;
  }
  res.writeHead(body.status, headers);
  await copyBody(res, reader, readNext, free, first, body.length);
  return reply;
}

/** The headers set on the reply so far (by hooks), as strings. */
function headersOf(reply: FastifyReply): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return headers;
}

async function copyBody(
  res: ServerResponse,
  reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>,
  readNext: ReadNext,
  free: ArrayBuffer[],
  first: ReadableStreamReadResult<Uint8Array>,
  length: number | undefined,
): Promise<void> {
  const reuse = free.length > 0;
  let closed = false;
  let onClosed: (() => void) | undefined;
  // Settles every wait once the response closed early: a write to a destroyed socket may never call back.
  const whenClosed = new Promise<never>((_resolve, reject) => {
    onClosed = () => reject(new ResponseClosedError());
  });
  whenClosed.catch(() => undefined);
  const close = (): void => {
    closed = true;
    onClosed?.();
    // The client went away: release the host's stream now, even mid-read.
    reader.cancel().catch(() => undefined);
  };
  res.once('close', close);
  // At most one write in flight, overlapping the next read; it resolves with its chunk once the socket is done with it.
  let inFlight: Promise<Uint8Array> | undefined;
  let sent = 0;
  try {
    for (let next = first; !next.done; ) {
      const chunk = next.value;
      sent += chunk.byteLength;
      if (length !== undefined && sent > length) throw new Error(`The body grew past the ${length} bytes announced.`);
      if (inFlight !== undefined) {
        const written = await inFlight;
        // Its buffer is free again: the socket holds no reference to it any more.
        if (reuse) free.push(written.buffer as ArrayBuffer);
      }
      inFlight = Promise.race([writeChunk(res, chunk), whenClosed]);
      inFlight.catch(() => undefined);
      next = await Promise.race([readNext(free.pop()), whenClosed]);
    }
    if (inFlight !== undefined) await inFlight;
    if (closed) throw new ResponseClosedError();
    // The object shrank while it was read: a body short of its Content-Length must not look complete.
    if (length !== undefined && sent !== length) throw new Error(`The body ended after ${sent} of the ${length} bytes announced.`);
    res.off('close', close);
    res.end();
  } catch (error) {
    res.off('close', close);
    await reader.cancel().catch(() => undefined);
    // The headers went out: the only honest answer left is a broken connection. The buffers are
    // not read into again, so a write still in flight may keep its chunk.
    if (!(error instanceof ResponseClosedError) && !res.destroyed) res.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/** Writes a chunk; resolves with it once the response's socket no longer needs its bytes. */
function writeChunk(res: ServerResponse, chunk: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    res.write(chunk, (error?: Error | null) => {
      if (error === undefined || error === null) resolve(chunk);
      else reject(error);
    });
  });
}
