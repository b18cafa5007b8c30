/**
 * Secret redaction. A `Redactor` knows a request's secret values and finds them, in every
 * spelling spellings.ts describes (any letter case; percent-, form-, JSON- and HTML-escaped, in
 * whole or in part, and escaped twice; hex; base64 and base64url at any alignment), in every
 * string and byte stream the gate hands back or writes down — response headers, response bodies,
 * error messages, records, log lines — and in what a connector tries to send (`finds`,
 * `guardStream`).
 *
 * Strings get `[redacted]`; bodies get the same number of `*` bytes, so byte ranges stay true.
 * All spellings of all secrets are one automaton (automaton.ts), compiled once per secret set.
 * Empty secrets are ignored.
 */
import { SpellingAutomaton } from './automaton.js';
import type { MatchSpan } from './automaton.js';
import { spellText, textsOf } from './spellings.js';

export const REDACTED = '[redacted]';
const MASK_BYTE = 0x2a; // '*'

/** Compiled automata by secret set: a host's values rarely change, and compiling is the costly part. */
const COMPILED = new Map<string, SpellingAutomaton>();
const MAX_COMPILED = 64;

function build(secrets: readonly string[], full: boolean): SpellingAutomaton {
  const texts = secrets.flatMap((secret) => textsOf(secret).map((text) => ({ spell: spellText(text.text, full && text.full), raw: Buffer.from(text.text, 'utf8') })));
  return new SpellingAutomaton(texts);
}

function compile(secrets: readonly string[]): SpellingAutomaton {
  const key = secrets.join('\0');
  const known = COMPILED.get(key);
  if (known !== undefined) {
    COMPILED.delete(key);
    COMPILED.set(key, known);
    return known;
  }
  const automaton = build(secrets, true);
  COMPILED.set(key, automaton);
  if (COMPILED.size > MAX_COMPILED) COMPILED.delete(COMPILED.keys().next().value as string);
  return automaton;
}

function asBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly transient = new Set<string>();
  private compiled: SpellingAutomaton[] | null = null;

  constructor(secrets: Iterable<string> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Adds a secret (and so all its spellings). Streams already wrapped keep the set they started with. */
  add(secret: string): void {
    if (secret === '' || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.compiled = null;
  }

  /**
   * Adds a value the gate derived for this request alone (a SigV4 signature): matched raw, in hex
   * and in base64 at any alignment, with only its punctuation escapable — it is new on every
   * request, so its automaton is compiled per request and kept small.
   */
  addTransient(value: string): void {
    if (value === '' || this.transient.has(value)) return;
    this.transient.add(value);
    this.compiled = null;
  }

  get empty(): boolean {
    return this.secrets.size === 0 && this.transient.size === 0;
  }

  private automata(): SpellingAutomaton[] {
    this.compiled ??= [
      ...(this.secrets.size === 0 ? [] : [compile([...this.secrets].sort())]),
      ...(this.transient.size === 0 ? [] : [build([...this.transient], false)]),
    ];
    return this.compiled;
  }

  /** Match spans in `bytes`, merged where they overlap or touch, in order. */
  private spans(bytes: Uint8Array): MatchSpan[] {
    const found: MatchSpan[] = [];
    for (const automaton of this.automata()) automaton.scanner().scan(bytes, 0, true, (span) => found.push(span));
    found.sort((a, b) => a.start - b.start);
    const merged: { start: number; end: number }[] = [];
    for (const span of found) {
      const last = merged.at(-1);
      if (last !== undefined && span.start <= last.end) last.end = Math.max(last.end, span.end);
      else merged.push({ start: span.start, end: span.end });
    }
    return merged;
  }

  /** Whether any spelling of any secret occurs in `value`. */
  finds(value: string | Uint8Array): boolean {
    if (this.empty) return false;
    return this.spans(typeof value === 'string' ? Buffer.from(value, 'utf8') : value).length > 0;
  }

  redact(text: string): string {
    if (this.empty) return text;
    const bytes = Buffer.from(text, 'utf8');
    const spans = this.spans(bytes);
    if (spans.length === 0) return text;
    const parts: string[] = [];
    let at = 0;
    for (const span of spans) {
      parts.push(bytes.subarray(at, span.start).toString('utf8'), REDACTED);
      at = span.end;
    }
    parts.push(bytes.subarray(at).toString('utf8'));
    return parts.join('');
  }

  redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) out[this.redact(name)] = this.redact(value);
    return out;
  }

  /**
   * Runs `source` through the automaton, holding back only the bytes an open partial match may
   * include, so no byte of a match is passed on before the match is seen, even one split across
   * chunks. `mask`: matches become `*`; otherwise the first match errors the stream with
   * `stop()` and cancels the source. Pulls from the source only when its reader pulls.
   */
  private windowed(source: ReadableStream<Uint8Array>, mask: boolean, stop: () => unknown): ReadableStream<Uint8Array> {
    return this.automata().reduce((stream, automaton) => windowedBy(automaton, stream, mask, stop), source);
  }

  /** Masks every match with `*`, keeping the length. */
  redactStream(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    return this.windowed(source, true, () => undefined);
  }

  /**
   * Passes `source` on until a match is seen, then errors with `refusal()` and cancels the source:
   * no byte of the match, nor any after it, is passed on.
   */
  guardStream(source: ReadableStream<Uint8Array>, refusal: () => Error): ReadableStream<Uint8Array> {
    return this.windowed(source, false, refusal);
  }
}

/** One automaton's stage of `Redactor.windowed`. */
function windowedBy(automaton: SpellingAutomaton, source: ReadableStream<Uint8Array>, mask: boolean, stop: () => unknown): ReadableStream<Uint8Array> {
  const scanner = automaton.scanner();
  // Taken on the first read, so a stream never read leaves its source unlocked (its owner can cancel it).
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // Held bytes stay as they came (a match's start is found in them); masks apply as bytes leave.
  let held: Buffer = Buffer.alloc(0);
  let spans: { start: number; end: number }[] = [];

  const emit = (buffer: Buffer, end: number): Uint8Array => {
    let out = buffer.subarray(0, end);
    if (spans.some((span) => span.start < end)) out = Buffer.from(out);
    const carried: { start: number; end: number }[] = [];
    for (const span of spans) {
      if (span.start < end) out.fill(MASK_BYTE, span.start, Math.min(span.end, end));
      if (span.end > end) carried.push({ start: Math.max(0, span.start - end), end: span.end - end });
    }
    spans = carried;
    return asBytes(out);
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          reader ??= source.getReader();
          const { value, done } = await reader.read();
          if (done) {
            // The end: a partial match left open is no match.
            if (held.length > 0) controller.enqueue(emit(held, held.length));
            controller.close();
            return;
          }
          const buffer = held.length > 0 ? Buffer.concat([held, value]) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
          let found = false;
          scanner.scan(buffer, held.length, false, (span) => {
            found = true;
            if (mask) spans.push({ start: span.start, end: span.end });
          });
          if (found && !mask) {
            held = Buffer.alloc(0);
            void reader.cancel().catch(() => undefined);
            controller.error(stop());
            return;
          }
          const emitEnd = scanner.openFrom(buffer);
          const out = emit(buffer, emitEnd);
          // A copy, so the source's buffer (which its owner may reuse) is not kept.
          held = Buffer.from(buffer.subarray(emitEnd));
          if (out.byteLength > 0) {
            controller.enqueue(out);
            return;
          }
        }
      },
      async cancel(reason) {
        await (reader === undefined ? source.cancel(reason) : reader.cancel(reason));
      },
    },
    { highWaterMark: 0 },
  );
}
