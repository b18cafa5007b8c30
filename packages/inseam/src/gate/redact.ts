/**
 * Secret redaction. A `Redactor` knows a request's secret values and removes them, in the forms
 * they travel in, from every string and byte stream the gate hands back or writes down: response
 * headers, response bodies, error messages, records and log lines.
 *
 * Forms covered for each secret: as is, lower-cased, percent-encoded (`encodeURIComponent`), form-encoded
 * (space as `+`), JSON-string-escaped and base64. Strings get `[redacted]`; bodies get the same
 * number of `*` bytes, so a `content-length` and byte ranges stay true. Empty secrets are ignored.
 */

export const REDACTED = '[redacted]';
const MASK_BYTE = 0x2a; // '*'

function variants(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  // Lower case too: a secret pushed into a URL's hostname comes back lower-cased.
  return [secret, secret.toLowerCase(), encoded, encoded.replace(/%20/g, '+'), JSON.stringify(secret).slice(1, -1), Buffer.from(secret, 'utf8').toString('base64')];
}

function asBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

export class Redactor {
  private readonly patterns = new Set<string>();
  private byteCache: Buffer[] | null = null;

  constructor(secrets: Iterable<string> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Adds a secret (and its encoded forms). Streams already wrapped keep the set they started with. */
  add(secret: string): void {
    if (secret === '') return;
    for (const form of variants(secret)) if (form !== '') this.patterns.add(form);
    this.byteCache = null;
  }

  get empty(): boolean {
    return this.patterns.size === 0;
  }

  /** Longest patterns first, so a secret that contains another is removed whole. */
  private ordered(): string[] {
    return [...this.patterns].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const pattern of this.ordered()) if (out.includes(pattern)) out = out.split(pattern).join(REDACTED);
    return out;
  }

  redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) out[this.redact(name)] = this.redact(value);
    return out;
  }

  private bytePatterns(): Buffer[] {
    this.byteCache ??= this.ordered().map((pattern) => Buffer.from(pattern, 'utf8'));
    return this.byteCache;
  }

  /**
   * Wraps a byte stream so no secret form reaches the reader, even one split across chunks. It
   * pulls from the source only when its reader pulls (backpressure is kept) and holds back at
   * most the longest pattern's length minus one byte.
   */
  redactStream(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    if (this.empty) return source;
    const patterns = this.bytePatterns();
    const keep = Math.max(...patterns.map((pattern) => pattern.length)) - 1;
    const reader = source.getReader();
    let pending: Buffer = Buffer.alloc(0);
    // Leading bytes of `pending` that belong to a match found in an earlier round.
    let carriedMask = 0;

    const scan = (buffer: Buffer, final: boolean): Buffer => {
      const masked = Buffer.from(buffer);
      masked.fill(MASK_BYTE, 0, Math.min(carriedMask, buffer.length));
      const emitEnd = final ? buffer.length : Math.max(0, buffer.length - keep);
      let reach = 0;
      for (const pattern of patterns) {
        for (let at = buffer.indexOf(pattern); at !== -1; at = buffer.indexOf(pattern, at + 1)) {
          masked.fill(MASK_BYTE, at, at + pattern.length);
          if (at < emitEnd) reach = Math.max(reach, at + pattern.length);
        }
      }
      carriedMask = Math.max(0, reach - emitEnd, carriedMask - emitEnd);
      pending = buffer.subarray(emitEnd);
      return masked.subarray(0, emitEnd);
    };

    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) {
              const rest = scan(pending, true);
              if (rest.length > 0) controller.enqueue(asBytes(rest));
              controller.close();
              return;
            }
            const out = scan(Buffer.concat([pending, value]), false);
            if (out.length > 0) {
              controller.enqueue(asBytes(out));
              return;
            }
          }
        },
        async cancel(reason) {
          await reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }
}
