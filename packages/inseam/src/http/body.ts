/** Reading a streamed request body with a byte limit. */
import type { Readable } from 'node:stream';
import { InvalidArgumentError, TooLargeError } from '@neuralis/package-system/contracts';

/**
 * The whole body, refused with `too_large` (`details.cap`) as soon as it is known to exceed
 * `limit` bytes: from `Content-Length` before a byte is read, else while it streams in. The
 * stream is left open on refusal, so the 413 answer still reaches the client (Node discards the
 * rest of the body once the answer is sent).
 */
export function readBody(stream: Readable, limit: number, contentLength: string | undefined): Promise<Buffer> {
  const declared = contentLength === undefined ? undefined : Number(contentLength);
  if (declared !== undefined && Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buffer.length;
      if (total > limit) {
        stop();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    // A client that goes away mid-body: nothing is written.
    const onClose = (): void => {
      stop();
      reject(new InvalidArgumentError('The request body ended before it was complete; nothing was written.', { details: { argument: 'body' } }));
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}

function tooLarge(limit: number): TooLargeError {
  return new TooLargeError(`The body is larger than the ${limit} bytes a write accepts here; write it in smaller objects, or start the server with a larger --max-write-bytes.`, {
    details: { cap: limit },
  });
}
