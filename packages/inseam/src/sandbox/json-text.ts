/**
 * JSON text, as UTF-8 bytes, straight into QuickJS's binary form (binary-json.ts): how a response
 * body reaches a module that calls `Response.json()`, the common case of an HTTP connector. The
 * long way parses the text in V8 and walks the parsed value with `encodeBinaryJson`; this reads
 * the bytes once and builds no V8 value at all, so it is faster and leaves no garbage behind.
 *
 * It writes exactly the bytes `encodeBinaryJson(JSON.parse(new TextDecoder().decode(bytes)))`
 * writes, or gives up, and the caller then takes the long way. It gives up on everything that way
 * handles in a way of its own or refuses: text that is not JSON (V8 then says why), a byte
 * sequence that is not UTF-8 outside a string, numbers that are not finite, nesting deeper than
 * `maxDepth`, and two kinds of property names whose order `JSON.parse` changes: a name repeated
 * within one object (its first place, its last value) and an array index (listed first). Its work
 * stays linear in the input: it also gives up on text shaped to make it move the same bytes again
 * and again (see #close), since host work is not bounded by the call's deadline.
 */
import { BinaryWriter, GiveUp, giveUp, isArrayIndex, MAX_ENCODED_DEPTH } from './binary-json.js';

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const PLUS = 0x2b;

/** Objects with more names than this check for a repeated one with a set instead of a scan. */
const SCANNED_NAMES = 16;
/** Bytes moved for counts, at most, per byte of input (see #close). */
const MOVED_PER_INPUT_BYTE = 4;
/** Integers of at most this many digits are read digit by digit; longer numbers go through Number(). */
const SHORT_INTEGER_DIGITS = 9;

const utf8 = new TextDecoder('utf-8');

/** The binary form of the JSON value `bytes` hold, or undefined when the caller must parse it the long way. */
export function jsonTextToBinary(bytes: Uint8Array, maxDepth = MAX_ENCODED_DEPTH): Uint8Array | undefined {
  try {
    return new Transcoder(bytes).run(maxDepth);
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

/**
 * A property name at one place in the last object at some depth, as plain bytes of the input
 * (`start` −1: a name with escapes, never matched by bytes). The objects of a listing repeat
 * their names in order, so a name is mostly found by comparing bytes, not by a lookup.
 */
interface PlacedName {
  start: number;
  end: number;
  reference: number;
}

class Transcoder {
  readonly #input: Uint8Array;
  #at = 0;
  readonly #writer = new BinaryWriter();
  /**
   * Per depth, the names of the object being read there, by place, then left as they were once it
   * closes (cut to its length): so a later object there compares with the last complete one.
   */
  readonly #placed: PlacedName[][] = [];
  /** Bytes moved up so far to make room for counts over 127. */
  #moved = 0;

  constructor(input: Uint8Array) {
    this.#input = input;
  }

  run(maxDepth: number): Uint8Array {
    const input = this.#input;
    // TextDecoder drops one byte order mark.
    if (input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf) this.#at = 3;
    this.#space();
    this.#value(maxDepth);
    this.#space();
    if (this.#at !== input.length) giveUp();
    return this.#writer.finish();
  }

  #value(depth: number): void {
    const byte = this.#input[this.#at];
    if (byte === QUOTE) {
      this.#string();
    } else if (byte === OPEN_OBJECT) {
      if (depth === 0) giveUp();
      this.#object(depth);
    } else if (byte === OPEN_ARRAY) {
      if (depth === 0) giveUp();
      this.#array(depth);
    } else if (byte === MINUS || (byte !== undefined && byte >= ZERO && byte <= NINE)) {
      this.#number();
    } else if (this.#word('true')) {
      this.#writer.scalar(true);
    } else if (this.#word('false')) {
      this.#writer.scalar(false);
    } else if (this.#word('null')) {
      this.#writer.scalar(null);
    } else {
      giveUp();
    }
  }

  #array(depth: number): void {
    const writer = this.#writer;
    const countAt = writer.open(true);
    this.#at++;
    this.#space();
    let count = 0;
    if (this.#input[this.#at] === CLOSE_ARRAY) {
      this.#at++;
    } else {
      for (;;) {
        this.#value(depth - 1);
        count++;
        this.#space();
        const next = this.#input[this.#at++];
        if (next === CLOSE_ARRAY) break;
        if (next !== COMMA) giveUp();
        this.#space();
      }
    }
    this.#close(countAt, count);
  }

  #object(depth: number): void {
    const input = this.#input;
    const writer = this.#writer;
    const countAt = writer.open(false);
    this.#at++;
    this.#space();
    let placed = this.#placed[depth];
    if (placed === undefined) {
      placed = [];
      this.#placed[depth] = placed;
    }
    let count = 0;
    // While every name is the one the last object here had in the same place, the names are
    // distinct as that object's were; from the first that is not, each is checked against the
    // names before it (JSON.parse keeps a repeated name's first place and last value).
    let matching = true;
    let many: Set<number> | undefined;
    if (input[this.#at] === CLOSE_OBJECT) {
      this.#at++;
    } else {
      for (;;) {
        if (input[this.#at] !== QUOTE) giveUp();
        const matched = this.#name(placed, count);
        const reference = (placed[count] as PlacedName).reference;
        if (!matched || !matching) {
          matching = false;
          if (many !== undefined) {
            if (many.has(reference)) giveUp();
          } else {
            for (let i = 0; i < count; i++) if ((placed[i] as PlacedName).reference === reference) giveUp();
            if (count >= SCANNED_NAMES) many = new Set(placed.slice(0, count).map((name) => name.reference));
          }
          many?.add(reference);
        }
        count++;
        writer.leb(reference);
        this.#space();
        if (input[this.#at++] !== COLON) giveUp();
        this.#space();
        this.#value(depth - 1);
        this.#space();
        const next = input[this.#at++];
        if (next === CLOSE_OBJECT) break;
        if (next !== COMMA) giveUp();
        this.#space();
      }
    }
    // Setting an array's length is a runtime call; most objects are as long as the last one here.
    if (placed.length !== count) placed.length = count;
    this.#close(countAt, count);
  }

  /**
   * Gives an object's or array's count. One of 128 or more moves everything written since it
   * opened (BinaryWriter.close); nested deep, that could be moved again at every level, so past
   * four times the input's size in bytes moved it gives up and the long way, linear, runs instead.
   */
  #close(countAt: number, count: number): void {
    if (count >= 128) {
      this.#moved += this.#writer.length - countAt;
      if (this.#moved > MOVED_PER_INPUT_BYTE * this.#input.length) giveUp();
    }
    this.#writer.close(countAt, count);
  }

  /**
   * Reads the name at the cursor into `placed[position]`; returns whether it is the name that was
   * there (compared as plain bytes).
   */
  #name(placed: PlacedName[], position: number): boolean {
    const input = this.#input;
    const start = this.#at + 1;
    const last = placed[position];
    if (last !== undefined && last.start >= 0) {
      const size = last.end - last.start;
      if (input[start + size] === QUOTE && sameBytes(input, last.start, start, size)) {
        this.#at = start + size + 1;
        return true;
      }
    }
    const end = this.#plainEnd(start);
    const name = end === undefined ? this.#escapedText() : latin1(input, start, end);
    if (end !== undefined) this.#at = end + 1;
    if (isArrayIndex(name)) giveUp();
    const reference = this.#writer.reference(name);
    if (last === undefined) placed[position] = { start: end === undefined ? -1 : start, end: end ?? -1, reference };
    else {
      last.start = end === undefined ? -1 : start;
      last.end = end ?? -1;
      last.reference = reference;
    }
    return false;
  }

  #string(): void {
    const end = this.#writer.asciiText(this.#input, this.#at + 1);
    if (end === undefined) {
      this.#writer.scalar(this.#escapedText());
      return;
    }
    this.#at = end + 1;
  }

  /**
   * Where the string starting at `start` ends (its closing quote) when it is plain ASCII with no
   * escape, else undefined.
   */
  #plainEnd(start: number): number | undefined {
    const input = this.#input;
    const length = input.length;
    for (let at = start; at < length; at++) {
      const byte = input[at] as number;
      if (byte === QUOTE) return at;
      if (byte === BACKSLASH || byte < SPACE || byte >= 0x80) return undefined;
    }
    return giveUp();
  }

  /** The string at the cursor that has escapes or non-ASCII text, decoded and unescaped as JSON.parse would. */
  #escapedText(): string {
    const input = this.#input;
    const start = this.#at;
    let at = start + 1;
    for (;;) {
      const byte = input[at];
      if (byte === undefined || byte < SPACE) giveUp();
      if (byte === QUOTE) break;
      at += byte === BACKSLASH ? 2 : 1;
    }
    this.#at = at + 1;
    // UTF-8 resynchronises on the quotes, so decoding the string alone matches decoding the whole
    // text (a bad sequence becomes U+FFFD either way); JSON.parse checks and unescapes it.
    try {
      return JSON.parse(utf8.decode(input.subarray(start, at + 1))) as string;
    } catch {
      return giveUp();
    }
  }

  #number(): void {
    const input = this.#input;
    const start = this.#at;
    let at = start;
    const negative = input[at] === MINUS;
    if (negative) at++;
    const first = at;
    if (input[at] === ZERO) {
      at++;
    } else {
      at = digitsFrom(input, at);
      if (at === first) giveUp();
    }
    const integerEnd = at;
    let integral = true;
    if (input[at] === DOT) {
      integral = false;
      const fraction = at + 1;
      at = digitsFrom(input, fraction);
      if (at === fraction) giveUp();
    }
    if (input[at] === LOWER_E || input[at] === UPPER_E) {
      integral = false;
      at++;
      if (input[at] === PLUS || input[at] === MINUS) at++;
      const exponent = at;
      at = digitsFrom(input, exponent);
      if (at === exponent) giveUp();
    }
    this.#at = at;
    if (integral && integerEnd - first <= SHORT_INTEGER_DIGITS) {
      let value = 0;
      for (let i = first; i < integerEnd; i++) value = value * 10 + ((input[i] as number) - ZERO);
      this.#writer.number(negative ? -value : value);
      return;
    }
    this.#writer.number(Number(latin1(input, start, at)));
  }

  #word(word: string): boolean {
    const input = this.#input;
    for (let i = 0; i < word.length; i++) if (input[this.#at + i] !== word.charCodeAt(i)) return false;
    this.#at += word.length;
    return true;
  }

  #space(): void {
    const input = this.#input;
    let at = this.#at;
    // Compact JSON has none.
    if ((input[at] as number) > SPACE) return;
    for (;;) {
      const byte = input[at];
      if (byte !== SPACE && byte !== LF && byte !== CR && byte !== TAB) break;
      at++;
    }
    this.#at = at;
  }
}

function digitsFrom(input: Uint8Array, start: number): number {
  let at = start;
  for (;;) {
    const byte = input[at];
    if (byte === undefined || byte < ZERO || byte > NINE) return at;
    at++;
  }
}

function sameBytes(input: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (input[a + i] !== input[b + i]) return false;
  return true;
}


function latin1(input: Uint8Array, start: number, end: number): string {
  return Buffer.from(input.buffer, input.byteOffset + start, end - start).toString('latin1');
}
