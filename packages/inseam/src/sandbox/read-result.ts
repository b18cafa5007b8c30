/**
 * Turning a host read (a byte stream) into a ConnectorReadResult: text decoded within the text cap,
 * image/*, video/* and application/pdf as base64 within their per-MIME inline cap (a marker and
 * `omitted` over it), and any other binary type as a marker without bytes. Which type is which,
 * and the default inline caps, come from `@neuralis/package-system/contracts` (mime.ts). Streams
 * are read only as far as a cap needs and then cancelled, so an oversized object is never held whole.
 */
import { DEFAULT_INLINE_MIME_CAPS } from '@neuralis/package-system/contracts';

export interface ReadCaps {
  /** Largest text a read returns without a range; larger is `too_large`. Default 1 MiB. */
  readonly textBytes: number;
  /** Per-MIME inline caps for binary reads, keyed by exact type or `type/*` (see inlineCapFor). */
  readonly inline: Readonly<Record<string, number>>;
}

export const DEFAULT_READ_CAPS: ReadCaps = Object.freeze({
  textBytes: 1024 * 1024,
  inline: DEFAULT_INLINE_MIME_CAPS,
});

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
