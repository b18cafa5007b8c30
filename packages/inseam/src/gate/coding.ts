/**
 * Content coding is the gate's, not the connector's: a body the redactor cannot read is a body
 * it cannot redact. The gate drops the connector's `accept-encoding` (headers.ts) and sends its
 * own — `gzip, deflate, br` for a whole-body request, `identity` for HEAD and for a ranged one
 * (a range of coded bytes cannot be decoded) — decodes what comes back itself, and refuses an
 * answer in any coding it did not ask for (`unrequested_content_encoding`).
 *
 * A decoded body reaches the connector without `content-encoding` and without `content-length`
 * (that was the coded length). Decoding streams through node:zlib, pulled as the connector reads,
 * so a decompression bomb never inflates ahead of the reader; past DECODE_FREE_BYTES, output more
 * than DECODE_RATIO_LIMIT times the input ends the body (`decompression_limit`).
 */
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';

export type Coding = 'gzip' | 'deflate' | 'br';

export const ACCEPT_ALL = 'gzip, deflate, br';
export const ACCEPT_IDENTITY = 'identity';
/** Decoded bytes allowed before the ratio limit applies. */
export const DECODE_FREE_BYTES = 8 * 1024 * 1024;
/** Decoded bytes per coded byte past DECODE_FREE_BYTES (deflate's own limit is about 1032). */
export const DECODE_RATIO_LIMIT = 200;

/** The `accept-encoding` the gate sends. `headers`: the hop's, lower-case names. */
export function acceptEncodingFor(method: string, headers: Readonly<Record<string, string>>): string {
  return method === 'HEAD' || headers['range'] !== undefined ? ACCEPT_IDENTITY : ACCEPT_ALL;
}

/**
 * What an answer's `content-encoding` means: `identity` (none), one coding the gate can decode,
 * or `unrequested` — several codings, one it does not know, or any when it asked for identity.
 */
export function codingOf(contentEncoding: string | undefined, accepted: string): 'identity' | Coding | 'unrequested' {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '' && token !== 'identity');
  if (codings.length === 0) return 'identity';
  if (codings.length > 1 || accepted === ACCEPT_IDENTITY) return 'unrequested';
  const [coding] = codings;
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip';
  if (coding === 'deflate' || coding === 'br') return coding;
  return 'unrequested';
}

/** Headers the connector sees for a body the gate decoded. */
export function decodedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const { 'content-encoding': _coding, 'content-length': _length, ...rest } = headers;
  return rest;
}

/** Thrown into a decoded body past the ratio limit. */
export class DecodeLimitError extends Error {
  constructor() {
    super('the decoded body outgrew its coded size past the gate\'s limit');
    this.name = 'DecodeLimitError';
  }
}

/** Whether `error` came from the decoder (corrupt or truncated coded data), not from the connection. */
export function isDecodeError(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error).code) : '';
  return code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR_ZLIB_INITIALIZATION_FAILED';
}

/** HTTP's `deflate` is zlib-wrapped; some servers send raw deflate. The first two bytes tell. */
function isZlibHeader(first: Buffer): boolean {
  return first.length >= 2 && (first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0;
}

/**
 * The decoded body as an async iterator of chunks, pulled from `coded` only as it is read. The
 * iterator throws `DecodeLimitError` past the ratio limit, and the decoder's or the connection's
 * error otherwise; `destroy` stops both.
 */
export function decode(coded: Readable, coding: Coding): { chunks: AsyncIterator<Buffer>; destroy(): void } {
  let decoder: (Transform & { readonly bytesWritten: number }) | undefined;
  const source = coded[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let output: AsyncIterator<Buffer> | undefined;
  let decodedBytes = 0;

  const start = async (): Promise<AsyncIterator<Buffer>> => {
    const first = await source.next();
    const head = first.done === true ? Buffer.alloc(0) : first.value;
    decoder = coding === 'gzip' ? createGunzip() : coding === 'br' ? createBrotliDecompress() : isZlibHeader(head) ? createInflate() : createInflateRaw();
    const feed = Readable.from(
      (async function* () {
        if (head.length > 0) yield head;
        for (let next = await source.next(); next.done !== true; next = await source.next()) yield next.value;
      })(),
      { objectMode: false },
    );
    feed.on('error', (error) => decoder?.destroy(error));
    feed.pipe(decoder);
    return decoder[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  };

  return {
    chunks: {
      async next(): Promise<IteratorResult<Buffer>> {
        output ??= await start();
        const next = await output.next();
        if (next.done !== true) {
          decodedBytes += next.value.byteLength;
          if (decodedBytes > DECODE_FREE_BYTES && decodedBytes > DECODE_RATIO_LIMIT * Math.max(1, decoder?.bytesWritten ?? 0)) {
            decoder?.destroy();
            coded.destroy();
            throw new DecodeLimitError();
          }
        }
        return next;
      },
    },
    destroy() {
      decoder?.destroy();
      coded.destroy();
    },
  };
}
