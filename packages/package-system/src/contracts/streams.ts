/**
 * Gathering a port stream whole. Ports stream their bytes; the few places that need them in
 * memory (a capped inline read, a document to extract, a JSON answer, a small write) gather them
 * here, so the cap is enforced while reading — a body past it is cancelled, never buffered first.
 */

/** How `collectCapped` refuses a stream. */
export interface CollectLimits {
  /** The most bytes accepted; past it the stream is cancelled and `tooLarge()` thrown. */
  readonly maxBytes: number;
  readonly tooLarge: () => Error;
  /** When set, a chunk that is not a Uint8Array cancels the stream and throws this. */
  readonly notBytes?: () => Error;
}

/** Reads `stream` to its end into one buffer, refusing as soon as it passes `limits.maxBytes`. */
export async function collectCapped(stream: ReadableStream<Uint8Array>, limits: CollectLimits): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (limits.notBytes !== undefined && !((value as unknown) instanceof Uint8Array)) {
        void reader.cancel().catch(ignore);
        throw limits.notBytes();
      }
      total += value.byteLength;
      if (total > limits.maxBytes) {
        void reader.cancel().catch(ignore);
        throw limits.tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return concatBytes(chunks, total);
}

/** One buffer of `chunks`, whose lengths add up to `total`; a single chunk is returned as it is. */
export function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === total) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function ignore(): void {}
