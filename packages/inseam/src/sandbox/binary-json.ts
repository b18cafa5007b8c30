/**
 * QuickJS's binary serialisation (`JS_WriteObject`/`JS_ReadObject`, which
 * `QuickJSContext.encodeBinaryJSON`/`decodeBinaryJSON` run) as the fast way data crosses the
 * QuickJS boundary in the sandbox process. Strings and JSON otherwise cross as text, copied by
 * emscripten's JavaScript loops and stringified or parsed by QuickJS's interpreter, which costs
 * several times more on a large listing.
 *
 * Out of QuickJS — `transcodeBinaryJson`. `JSON.stringify` inside QuickJS costs about 2 µs an
 * entry of a listing, its binary writer a tenth of that; this turns those bytes into the JSON text
 * `JSON.stringify` would have produced, or gives up and the caller uses `JSON.stringify`. The
 * binary form records each object's own enumerable data properties and each array's elements
 * (read as `JSON.stringify` reads them) but not prototypes, so it cannot see a `toJSON`. Hence the
 * `plan`: a preorder walk over the value's objects and arrays that the prelude runs to confirm that
 * none has a `toJSON` of its own or a prototype other than `Object.prototype`, `Array.prototype` or
 * null (`plainData` in prelude.ts). Only when that holds is the text used. It gives up on anything
 * `JSON.stringify` may treat differently or that this reader does not know: another format
 * version, a Date, a boxed primitive, a BigInt, a typed array or ArrayBuffer, a repeated or cyclic
 * reference, an array-index property name (whose order `JSON.stringify` changes), undefined at the
 * top, trailing bytes. `JS_WriteObject` itself fails first on accessors, functions, symbols,
 * proxies, Maps and other exotic objects. The bytes come from QuickJS's writer, not from the
 * module, but are read defensively all the same (every length is checked against the input).
 *
 * Into QuickJS — `encodeBinaryJson`: what `JSON.parse` made of a response body (parsed by V8) or a
 * long decoded text, written for `JS_ReadObject` to rebuild inside the runtime.
 */

/** The format version this reader knows (`BC_VERSION` of the bundled QuickJS). */
export const BINARY_JSON_VERSION = 5;

const TAG_NULL = 1;
const TAG_UNDEFINED = 2;
const TAG_FALSE = 3;
const TAG_TRUE = 4;
const TAG_INT32 = 5;
const TAG_FLOAT64 = 6;
const TAG_STRING = 7;
const TAG_OBJECT = 8;
const TAG_ARRAY = 9;

/** Property names `JSON.stringify` orders first (canonical array indices below 2^32 − 1). */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const MAX_ARRAY_INDEX = 2 ** 32 - 2;

export interface TranscodedValue {
  /** The JSON text, exactly as `JSON.stringify` would write the value if the plan holds (between `before` and `after`). */
  readonly json: string;
  /**
   * The walk the prelude checks, in preorder. Each object or array contributes the number of its
   * children that are objects or arrays, then for each such child a selector — an array index
   * (≥ 0), or −(k + 1) for property name `names[k]` — followed by that child's own entries. Empty
   * when the value is not an object.
   */
  readonly plan: Int32Array;
  readonly names: readonly string[];
}

const encoder = new TextEncoder();

class GiveUp extends Error {}

function giveUp(): never {
  throw new GiveUp();
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX_DIGITS = new Uint8Array([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102]);
/** The short escape letter for a control character (`\b \t \n \f \r`), else 0. */
const SHORT_ESCAPE = new Uint8Array(32);
SHORT_ESCAPE[0x08] = 0x62;
SHORT_ESCAPE[0x09] = 0x74;
SHORT_ESCAPE[0x0a] = 0x6e;
SHORT_ESCAPE[0x0c] = 0x66;
SHORT_ESCAPE[0x0d] = 0x72;

interface Frame {
  readonly array: boolean;
  /** Entries still to read. */
  left: number;
  /** Elements read so far (arrays), for the plan's selectors. */
  index: number;
  /** Whether nothing has been written inside it yet (no comma before the next member). */
  empty: boolean;
  /** Where the count of its object/array children sits in the plan. */
  readonly countAt: number;
  children: number;
}

interface PropertyName {
  /** `"name":` as UTF-8. */
  readonly literal: Uint8Array;
  readonly ascii: boolean;
  readonly arrayIndex: boolean;
}

/**
 * One pass over the bytes, writing UTF-8 as it goes. Tight loops over typed arrays and no
 * allocation per value: it runs over every byte of every result.
 */
class Transcoder {
  readonly #input: Uint8Array;
  readonly #view: DataView;
  #at = 0;
  #out: Uint8Array;
  #length = 0;
  #ascii = true;
  #plan = new Int32Array(256);
  #planLength = 0;

  constructor(input: Uint8Array) {
    this.#input = input;
    this.#view = new DataView(input.buffer, input.byteOffset, input.byteLength);
    this.#out = new Uint8Array(Math.max(256, Math.ceil(input.length * 1.5)));
  }

  run(before: string, after: string): TranscodedValue {
    const input = this.#input;
    if (this.#u8() !== BINARY_JSON_VERSION) giveUp();
    const nameCount = this.#leb();
    if (nameCount > input.length) giveUp();
    const names: string[] = [];
    const properties: PropertyName[] = [];
    for (let i = 0; i < nameCount; i++) {
      const name = this.#name();
      names.push(name);
      const literal = encoder.encode(`${JSON.stringify(name)}:`);
      properties.push({ literal, ascii: literal.every((byte) => byte < 0x80), arrayIndex: ARRAY_INDEX.test(name) && Number(name) <= MAX_ARRAY_INDEX });
    }
    this.#text(before);
    const frames: Frame[] = [];
    const top = this.#u8();
    if (top === TAG_OBJECT || top === TAG_ARRAY) this.#open(top, frames);
    else if (top === TAG_UNDEFINED) giveUp();
    else this.#scalar(top);

    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as Frame;
      if (frame.left === 0) {
        this.#byte(frame.array ? 0x5d : 0x7d);
        this.#plan[frame.countAt] = frame.children;
        frames.pop();
        continue;
      }
      frame.left -= 1;
      let selector: number;
      let property: PropertyName | undefined;
      if (frame.array) {
        selector = frame.index++;
      } else {
        const atom = this.#leb();
        // An odd reference is an integer-keyed property; 0 is no name at all.
        if ((atom & 1) === 1 || atom === 0) giveUp();
        const index = atom / 2 - 1;
        property = properties[index];
        if (property === undefined || property.arrayIndex) giveUp();
        selector = -(index + 1);
      }
      const tag = this.#u8();
      if (tag === TAG_UNDEFINED && property !== undefined) continue;
      if (!frame.empty) this.#byte(0x2c);
      frame.empty = false;
      if (property !== undefined) {
        this.#bytes(property.literal);
        if (!property.ascii) this.#ascii = false;
      }
      if (tag === TAG_UNDEFINED) {
        this.#text('null');
      } else if (tag === TAG_OBJECT || tag === TAG_ARRAY) {
        frame.children += 1;
        this.#planPush(selector);
        this.#open(tag, frames);
      } else {
        this.#scalar(tag);
      }
    }
    if (this.#at !== input.length) giveUp();
    this.#text(after);
    const output = Buffer.from(this.#out.buffer, this.#out.byteOffset, this.#length);
    return {
      // Results are nearly always ASCII; a one-byte string is a plain copy.
      json: output.toString(this.#ascii ? 'latin1' : 'utf8'),
      plan: this.#plan.slice(0, this.#planLength),
      names,
    };
  }

  #open(tag: number, frames: Frame[]): void {
    const count = this.#leb();
    // Every entry takes at least one byte, so a count beyond the input is a lie.
    if (count > this.#input.length - this.#at) giveUp();
    this.#byte(tag === TAG_ARRAY ? 0x5b : 0x7b);
    frames.push({ array: tag === TAG_ARRAY, left: count, index: 0, empty: true, countAt: this.#planPush(0), children: 0 });
  }

  #scalar(tag: number): void {
    switch (tag) {
      case TAG_NULL:
        this.#text('null');
        return;
      case TAG_FALSE:
        this.#text('false');
        return;
      case TAG_TRUE:
        this.#text('true');
        return;
      case TAG_INT32:
        this.#integer(this.#sleb());
        return;
      case TAG_FLOAT64: {
        if (this.#at + 8 > this.#input.length) giveUp();
        const value = this.#view.getFloat64(this.#at, true);
        this.#at += 8;
        this.#text(Number.isFinite(value) ? String(value) : 'null');
        return;
      }
      case TAG_STRING:
        this.#string();
        return;
      default:
        giveUp();
    }
  }

  #u8(): number {
    if (this.#at >= this.#input.length) giveUp();
    return this.#input[this.#at++] as number;
  }

  /** Unsigned LEB128, at most 32 bits (QuickJS's bc_get_leb128). */
  #leb(): number {
    const first = this.#u8();
    if (first < 0x80) return first;
    let value = first & 0x7f;
    for (let shift = 7; shift < 35; shift += 7) {
      const byte = this.#u8();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) {
        if (value > 0xffffffff) giveUp();
        return value;
      }
    }
    return giveUp();
  }

  /** Zig-zag signed LEB128 (bc_get_sleb128). */
  #sleb(): number {
    const value = this.#leb();
    return (value >>> 1) ^ -(value & 1);
  }

  #reserve(count: number): void {
    if (this.#length + count <= this.#out.length) return;
    let size = this.#out.length * 2;
    while (size < this.#length + count) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#out.subarray(0, this.#length));
    this.#out = grown;
  }

  #byte(value: number): void {
    this.#reserve(1);
    this.#out[this.#length++] = value;
  }

  #bytes(source: Uint8Array): void {
    this.#reserve(source.length);
    const out = this.#out;
    let length = this.#length;
    for (let i = 0; i < source.length; i++) out[length++] = source[i] as number;
    this.#length = length;
  }

  /** ASCII text of our own (literals, numbers). */
  #text(text: string): void {
    this.#reserve(text.length);
    const out = this.#out;
    let length = this.#length;
    for (let i = 0; i < text.length; i++) out[length++] = text.charCodeAt(i);
    this.#length = length;
  }

  #integer(value: number): void {
    this.#reserve(11);
    const out = this.#out;
    let rest = value;
    if (rest < 0) {
      out[this.#length++] = 0x2d;
      // -2^31 has no positive int32; as a float its digits come out right all the same.
      rest = -rest;
    }
    let digits = 1;
    for (let bound = 10; rest >= bound && digits < 10; bound *= 10) digits++;
    for (let i = this.#length + digits - 1; i >= this.#length; i--) {
      out[i] = 48 + (rest % 10);
      rest = Math.floor(rest / 10);
    }
    this.#length += digits;
  }

  #planPush(value: number): number {
    if (this.#planLength === this.#plan.length) {
      const grown = new Int32Array(this.#plan.length * 2);
      grown.set(this.#plan);
      this.#plan = grown;
    }
    this.#plan[this.#planLength] = value;
    return this.#planLength++;
  }

  /** A string's header: its length in code units, and (in the low bit of the answer) whether they are 16-bit. */
  #stringHeader(): number {
    const header = this.#leb();
    const length = Math.floor(header / 2);
    if (this.#at + ((header & 1) === 1 ? length * 2 : length) > this.#input.length) giveUp();
    return header;
  }

  /** A property name as a JavaScript string. */
  #name(): string {
    const header = this.#stringHeader();
    const wide = (header & 1) === 1;
    const size = wide ? Math.floor(header / 2) * 2 : Math.floor(header / 2);
    const text = Buffer.from(this.#input.buffer, this.#input.byteOffset + this.#at, size).toString(wide ? 'utf16le' : 'latin1');
    this.#at += size;
    return text;
  }

  /** A string value, written as a JSON string literal in UTF-8. */
  #string(): void {
    const header = this.#stringHeader();
    const count = Math.floor(header / 2);
    if ((header & 1) === 1) {
      this.#wideString(count);
      return;
    }
    // At most 6 output bytes a unit (\u00XX), plus the quotes.
    this.#reserve(count * 6 + 2);
    const input = this.#input;
    const out = this.#out;
    let length = this.#length;
    out[length++] = QUOTE;
    const end = this.#at + count;
    for (let at = this.#at; at < end; at++) {
      const unit = input[at] as number;
      if (unit >= 0x20 && unit < 0x80) {
        if (unit === QUOTE || unit === BACKSLASH) out[length++] = BACKSLASH;
        out[length++] = unit;
      } else if (unit >= 0x80) {
        this.#ascii = false;
        out[length++] = 0xc0 | (unit >> 6);
        out[length++] = 0x80 | (unit & 0x3f);
      } else {
        length = escapeControl(out, length, unit);
      }
    }
    out[length++] = QUOTE;
    this.#length = length;
    this.#at = end;
  }

  #wideString(count: number): void {
    this.#ascii = false;
    // At most 6 output bytes a unit (\uXXXX; a surrogate pair is 4 bytes for 2 units).
    this.#reserve(count * 6 + 2);
    const input = this.#input;
    const out = this.#out;
    let length = this.#length;
    out[length++] = QUOTE;
    const end = this.#at + count * 2;
    for (let at = this.#at; at < end; at += 2) {
      const unit = (input[at] as number) | ((input[at + 1] as number) << 8);
      if (unit < 0x80) {
        if (unit >= 0x20) {
          if (unit === QUOTE || unit === BACKSLASH) out[length++] = BACKSLASH;
          out[length++] = unit;
        } else {
          length = escapeControl(out, length, unit);
        }
      } else if (unit < 0x800) {
        out[length++] = 0xc0 | (unit >> 6);
        out[length++] = 0x80 | (unit & 0x3f);
      } else if (unit < 0xd800 || unit > 0xdfff) {
        out[length++] = 0xe0 | (unit >> 12);
        out[length++] = 0x80 | ((unit >> 6) & 0x3f);
        out[length++] = 0x80 | (unit & 0x3f);
      } else {
        const next = unit <= 0xdbff && at + 2 < end ? (input[at + 2] as number) | ((input[at + 3] as number) << 8) : 0;
        if (next >= 0xdc00 && next <= 0xdfff) {
          const point = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
          out[length++] = 0xf0 | (point >> 18);
          out[length++] = 0x80 | ((point >> 12) & 0x3f);
          out[length++] = 0x80 | ((point >> 6) & 0x3f);
          out[length++] = 0x80 | (point & 0x3f);
          at += 2;
        } else {
          // A lone surrogate: JSON.stringify escapes it rather than write invalid UTF-16.
          length = unicodeEscape(out, length, unit);
        }
      }
    }
    out[length++] = QUOTE;
    this.#length = length;
    this.#at = end;
  }
}

/** `\b \t \n \f \r` or `\u00XX` for a control character; returns the new length. */
function escapeControl(out: Uint8Array, length: number, unit: number): number {
  const short = SHORT_ESCAPE[unit] as number;
  if (short === 0) return unicodeEscape(out, length, unit);
  out[length++] = BACKSLASH;
  out[length++] = short;
  return length;
}

/** `\uXXXX` in lower-case hex, as JSON.stringify writes it; returns the new length. */
function unicodeEscape(out: Uint8Array, length: number, unit: number): number {
  out[length++] = BACKSLASH;
  out[length++] = 0x75;
  out[length++] = HEX_DIGITS[(unit >> 12) & 0xf] as number;
  out[length++] = HEX_DIGITS[(unit >> 8) & 0xf] as number;
  out[length++] = HEX_DIGITS[(unit >> 4) & 0xf] as number;
  out[length++] = HEX_DIGITS[unit & 0xf] as number;
  return length;
}

/**
 * The JSON text of a value from its binary form — between `before` and `after`, so a caller that
 * wraps it gets one flat string — and the plan that must hold for the text to be what
 * `JSON.stringify` produces; undefined when the value needs `JSON.stringify` itself. `before` and
 * `after` must be ASCII.
 */
export function transcodeBinaryJson(bytes: Uint8Array, before = '', after = ''): TranscodedValue | undefined {
  try {
    return new Transcoder(bytes).run(before, after);
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

/** Deeper values go through QuickJS's own parser (which has its own stack limit). */
export const MAX_ENCODED_DEPTH = 512;
const NOT_LATIN1 = /[^\x00-\xff]/;
const MAX_TAGGED_INDEX = 2 ** 31 - 1;

/**
 * Writes JSON data (what `JSON.parse` returns: plain objects and arrays, strings, finite numbers,
 * booleans, null) in QuickJS's binary form, for `QuickJSContext.decodeBinaryJSON` to rebuild inside
 * a runtime at native speed — the fast way parsed JSON and long strings enter QuickJS. Property
 * names become atoms (canonical array indices up to 2^31 − 1 as integer atoms, as QuickJS keeps
 * them); QuickJS defines each as an own data property, so a `__proto__` name stays a name.
 * Returns undefined for anything else, or when the value is nested deeper than `maxDepth`.
 */
export function encodeBinaryJson(value: unknown, maxDepth = MAX_ENCODED_DEPTH): Uint8Array | undefined {
  try {
    return new Encoder().run(value, maxDepth);
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

class Encoder {
  #out = Buffer.allocUnsafe(4096);
  #length = 0;
  /** Property name → the atom reference written for it. */
  readonly #references = new Map<string, number>();
  /** Names in the atom table, in table order. */
  readonly #table: string[] = [];

  run(value: unknown, maxDepth: number): Uint8Array {
    this.#value(value, maxDepth);
    const body = this.#out.subarray(0, this.#length);
    // The atom table goes first; it is known only once the body is written.
    this.#out = Buffer.allocUnsafe(64);
    this.#length = 0;
    this.#byte(BINARY_JSON_VERSION);
    this.#leb(this.#table.length);
    for (const name of this.#table) this.#string(name);
    const head = this.#out.subarray(0, this.#length);
    const whole = new Uint8Array(head.length + body.length);
    whole.set(head, 0);
    whole.set(body, head.length);
    return whole;
  }

  #value(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        this.#byte(TAG_STRING);
        this.#string(value);
        return;
      case 'number':
        if ((value | 0) === value && !Object.is(value, -0)) {
          this.#byte(TAG_INT32);
          this.#leb(((value << 1) ^ (value >> 31)) >>> 0);
        } else if (Number.isFinite(value)) {
          this.#byte(TAG_FLOAT64);
          this.#reserve(8);
          this.#out.writeDoubleLE(value, this.#length);
          this.#length += 8;
        } else {
          giveUp();
        }
        return;
      case 'boolean':
        this.#byte(value ? TAG_TRUE : TAG_FALSE);
        return;
      case 'object':
        break;
      default:
        giveUp();
    }
    if (value === null) {
      this.#byte(TAG_NULL);
      return;
    }
    if (depth === 0) giveUp();
    if (Array.isArray(value)) {
      this.#byte(TAG_ARRAY);
      this.#leb(value.length);
      for (let i = 0; i < value.length; i++) this.#value(value[i], depth - 1);
      return;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) giveUp();
    const keys = Object.keys(value);
    this.#byte(TAG_OBJECT);
    this.#leb(keys.length);
    for (const key of keys) {
      this.#atom(key);
      this.#value((value as Record<string, unknown>)[key], depth - 1);
    }
  }

  #atom(name: string): void {
    let reference = this.#references.get(name);
    if (reference === undefined) {
      if (ARRAY_INDEX.test(name) && Number(name) <= MAX_TAGGED_INDEX) {
        reference = Number(name) * 2 + 1;
      } else {
        this.#table.push(name);
        reference = this.#table.length * 2;
      }
      this.#references.set(name, reference);
    }
    this.#leb(reference);
  }

  #string(text: string): void {
    const length = text.length;
    if (length < 64) {
      // Short strings byte by byte (a native call costs more); start over as 16-bit on the first unit over 0xff.
      this.#reserve(length + 5);
      const out = this.#out;
      const start = this.#length;
      let at = start + 1;
      out[start] = length * 2;
      for (let i = 0; i < length; i++) {
        const unit = text.charCodeAt(i);
        if (unit > 0xff) {
          this.#wide(text);
          return;
        }
        out[at++] = unit;
      }
      this.#length = at;
      return;
    }
    if (NOT_LATIN1.test(text)) {
      this.#wide(text);
      return;
    }
    this.#leb(length * 2);
    this.#reserve(length);
    this.#out.write(text, this.#length, length, 'latin1');
    this.#length += length;
  }

  #wide(text: string): void {
    this.#leb(text.length * 2 + 1);
    const size = text.length * 2;
    this.#reserve(size);
    this.#out.write(text, this.#length, size, 'utf16le');
    this.#length += size;
  }

  #reserve(count: number): void {
    if (this.#length + count <= this.#out.length) return;
    let size = this.#out.length * 2;
    while (size < this.#length + count) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.#out.copy(grown, 0, 0, this.#length);
    this.#out = grown;
  }

  #byte(value: number): void {
    this.#reserve(1);
    this.#out[this.#length++] = value;
  }

  #leb(value: number): void {
    this.#reserve(5);
    let rest = value;
    while (rest >= 0x80) {
      this.#out[this.#length++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
    }
    this.#out[this.#length++] = rest;
  }
}
