/**
 * QuickJS's binary serialisation (`JS_WriteObject`/`JS_ReadObject`, which
 * `QuickJSContext.encodeBinaryJSON`/`decodeBinaryJSON` run) as the fast way data crosses the
 * QuickJS boundary. Strings and JSON otherwise cross as text, copied by emscripten's JavaScript
 * loops and stringified or parsed by QuickJS's interpreter, which costs several times more on a
 * large listing.
 *
 * Out of QuickJS — `planBinaryJson` (sandbox process) and `decodeBinaryJson` (platform).
 * `JSON.stringify` inside QuickJS costs about 2 µs an entry of a listing, its binary writer a tenth
 * of that. The bytes go to the platform as they are, and the platform builds from them the value
 * `JSON.parse` (as `parseUntrustedJson` runs it) would have built from `JSON.stringify`'s text. The
 * binary form records each object's own enumerable data properties and each array's elements (read
 * as `JSON.stringify` reads them) but not prototypes, so it cannot see a `toJSON`. Hence the
 * `plan`: a preorder walk over the value's objects and arrays that the prelude runs to look up
 * `toJSON` on each, own or inherited, as `JSON.stringify` does (`plainData` in prelude.ts). Only
 * when none is a function are the bytes sent; otherwise the result goes through `JSON.stringify`
 * as text. The planner gives up on anything `JSON.stringify` may
 * treat differently or that these readers do not know: another format version, a Date, a boxed
 * primitive, a BigInt, a typed array or ArrayBuffer, a repeated or cyclic reference, an
 * array-index property name (whose order `JSON.stringify` changes), undefined at the top, trailing
 * bytes. `JS_WriteObject` itself fails first on accessors, functions, symbols, proxies, Maps and
 * other exotic objects.
 *
 * The decoder refuses exactly what the planner gives up on, so a value the module sends reads the
 * same whichever way it crossed; the bytes it reads come from a process that may have been taken
 * over, so every length is checked against the input, nesting is walked without recursion, and
 * nothing it builds is other than JSON data: plain objects and arrays, strings, finite numbers
 * (−0 as 0), booleans and null, with no `__proto__`, `constructor` or `prototype` key (dropped, as
 * `parseUntrustedJson` drops them).
 *
 * Into QuickJS — `encodeBinaryJson`: what `JSON.parse` made of a response body (parsed by V8) or a
 * long decoded text, written for `JS_ReadObject` to rebuild inside the runtime.
 */
import { POISON_KEYS } from './results.js';

/** The format version these readers know (`BC_VERSION` of the bundled QuickJS). */
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

export interface BinaryPlan {
  /**
   * The walk the prelude checks, in preorder. Each object or array contributes the number of its
   * children that are objects or arrays, then for each such child a selector — an array index
   * (≥ 0), or −(k + 1) for property name `names[k]` — followed by that child's own entries. An
   * array of n ≥ 1 elements that are all objects or arrays with none of their own (a listing's
   * entries) contributes −n alone. Empty when the value is not an object.
   */
  readonly plan: Int32Array;
  readonly names: readonly string[];
  /** The top-level object's `cursor` property when it is a string (a list page's next cursor). */
  readonly cursor?: string;
}

/** Thrown by the readers and writers here for anything they do not handle; never escapes their entry points. */
export class GiveUp extends Error {}

export function giveUp(): never {
  throw new GiveUp();
}

/** Reading the bytes: every length and count is checked against what is left of the input. */
class BinaryReader {
  protected readonly input: Uint8Array;
  protected readonly view: DataView;
  protected at = 0;

  constructor(input: Uint8Array) {
    this.input = input;
    this.view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  }

  /** The version byte and the atom table (property names). */
  protected header(): string[] {
    if (this.u8() !== BINARY_JSON_VERSION) giveUp();
    const count = this.leb();
    if (count > this.input.length - this.at) giveUp();
    const names: string[] = [];
    for (let i = 0; i < count; i++) names.push(this.string());
    return names;
  }

  /** The property name index an object member's atom reference stands for (QuickJS's 2 × (index + 1)). */
  protected atom(names: readonly string[]): number {
    const atom = this.leb();
    // An odd reference is an integer-keyed property; 0 is no name at all.
    if ((atom & 1) === 1 || atom === 0) giveUp();
    const index = atom / 2 - 1;
    if (index >= names.length) giveUp();
    return index;
  }

  /** An object's or array's entry count; every entry takes at least one byte, so a count beyond the input is a lie. */
  protected count(): number {
    const count = this.leb();
    if (count > this.input.length - this.at) giveUp();
    return count;
  }

  protected u8(): number {
    if (this.at >= this.input.length) giveUp();
    return this.input[this.at++] as number;
  }

  /** Unsigned LEB128, at most 32 bits (QuickJS's bc_get_leb128). */
  protected leb(): number {
    const first = this.u8();
    if (first < 0x80) return first;
    let value = first & 0x7f;
    for (let shift = 7; shift < 35; shift += 7) {
      const byte = this.u8();
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) {
        if (value > 0xffffffff) giveUp();
        return value;
      }
    }
    return giveUp();
  }

  /** Zig-zag signed LEB128 (bc_get_sleb128). */
  protected sleb(): number {
    const value = this.leb();
    return (value >>> 1) ^ -(value & 1);
  }

  protected float64(): number {
    if (this.at + 8 > this.input.length) giveUp();
    const value = this.view.getFloat64(this.at, true);
    this.at += 8;
    return value;
  }

  /** A string's header, checked against the input: its length in bytes and whether its units are 16-bit. */
  protected stringBytes(): { readonly size: number; readonly wide: boolean } {
    const header = this.leb();
    const wide = (header & 1) === 1;
    const size = wide ? Math.floor(header / 2) * 2 : Math.floor(header / 2);
    if (this.at + size > this.input.length) giveUp();
    return { size, wide };
  }

  /** A string, one-byte (latin1) or 16-bit units (lone surrogates kept, as `JSON.parse` of `JSON.stringify`'s escapes gives them back). */
  protected string(): string {
    const { size, wide } = this.stringBytes();
    const text = Buffer.from(this.input.buffer, this.input.byteOffset + this.at, size).toString(wide ? 'utf16le' : 'latin1');
    this.at += size;
    return text;
  }

  /** Past a string, unread. */
  protected skipString(): void {
    const { size } = this.stringBytes();
    this.at += size;
  }

  protected end(): void {
    if (this.at !== this.input.length) giveUp();
  }
}

/** Whether a property name is an array index, which `JSON.parse` (V8's objects) orders before the other names. */
export function isArrayIndex(name: string): boolean {
  return ARRAY_INDEX.test(name) && Number(name) <= MAX_ARRAY_INDEX;
}

interface PlanFrame {
  readonly array: boolean;
  /** Entries still to read. */
  left: number;
  /** Elements read so far (arrays), for the plan's selectors. */
  index: number;
  /** Where the count of its object/array children sits in the plan. */
  readonly countAt: number;
  children: number;
  /** Children that are objects or arrays with no object or array of their own. */
  leaves: number;
}

/** The sandbox process's walk: checks the bytes as the decoder will and writes the plan, without building the value. */
class Planner extends BinaryReader {
  #plan = new Int32Array(256);
  #planLength = 0;

  run(): BinaryPlan {
    const names = this.header();
    const refused = names.map(isArrayIndex);
    const cursorIndex = names.indexOf('cursor');
    let cursor: string | undefined;
    const frames: PlanFrame[] = [];
    const top = this.u8();
    if (top === TAG_OBJECT || top === TAG_ARRAY) this.#open(top, frames);
    else if (top === TAG_UNDEFINED) giveUp();
    else this.#scalar(top);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as PlanFrame;
      if (frame.left === 0) {
        this.#close(frame);
        frames.pop();
        const parent = frames[frames.length - 1];
        if (parent !== undefined && frame.children === 0) parent.leaves += 1;
        continue;
      }
      frame.left -= 1;
      let selector: number;
      let name = -1;
      if (frame.array) {
        selector = frame.index++;
      } else {
        name = this.atom(names);
        if (refused[name] === true) giveUp();
        selector = -(name + 1);
      }
      const tag = this.u8();
      if (tag === TAG_OBJECT || tag === TAG_ARRAY) {
        frame.children += 1;
        this.#push(selector);
        this.#open(tag, frames);
      } else if (tag === TAG_STRING && cursorIndex >= 0 && name === cursorIndex && frames.length === 1) {
        cursor = this.string();
      } else if (tag !== TAG_UNDEFINED) {
        this.#scalar(tag);
      }
    }
    this.end();
    return { plan: this.#plan.slice(0, this.#planLength), names, ...(cursor === undefined ? {} : { cursor }) };
  }

  #open(tag: number, frames: PlanFrame[]): void {
    const count = this.count();
    frames.push({ array: tag === TAG_ARRAY, left: count, index: 0, countAt: this.#push(0), children: 0, leaves: 0 });
  }

  /** Writes a finished object's or array's count; an array of leaves only becomes −n, its pairs dropped. */
  #close(frame: PlanFrame): void {
    if (frame.array && frame.index > 0 && frame.leaves === frame.index) {
      this.#plan[frame.countAt] = -frame.index;
      this.#planLength = frame.countAt + 1;
      return;
    }
    this.#plan[frame.countAt] = frame.children;
  }

  #scalar(tag: number): void {
    if (tag === TAG_STRING) this.skipString();
    else if (tag === TAG_INT32) this.leb();
    else if (tag === TAG_FLOAT64) this.float64();
    else if (tag !== TAG_NULL && tag !== TAG_FALSE && tag !== TAG_TRUE) giveUp();
  }

  #push(value: number): number {
    if (this.#planLength === this.#plan.length) {
      const grown = new Int32Array(this.#plan.length * 2);
      grown.set(this.#plan);
      this.#plan = grown;
    }
    this.#plan[this.#planLength] = value;
    return this.#planLength++;
  }
}

interface DecodeFrame {
  readonly target: unknown[] | Record<string, unknown>;
  readonly array: boolean;
  left: number;
}

/** Property names the decoder refuses (array indices) or drops (the poison keys). */
const REFUSED = 1;
const DROPPED = 2;

/** The platform's reader: builds the value, JSON data only. */
class Decoder extends BinaryReader {
  /** The whole input as one-byte text: a one-byte string is then a slice of it, not a native call. */
  #latin1 = '';

  run(): unknown {
    const names = this.header();
    const kinds = names.map((name) => (isArrayIndex(name) ? REFUSED : POISON_KEYS.has(name) ? DROPPED : 0));
    this.#latin1 = Buffer.from(this.input.buffer, this.input.byteOffset, this.input.byteLength).toString('latin1');
    const frames: DecodeFrame[] = [];
    const top = this.u8();
    if (top === TAG_UNDEFINED) giveUp();
    const root = this.#value(top, frames);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1] as DecodeFrame;
      if (frame.left === 0) {
        frames.pop();
        continue;
      }
      frame.left -= 1;
      if (frame.array) {
        const tag = this.u8();
        (frame.target as unknown[]).push(tag === TAG_UNDEFINED ? null : this.#value(tag, frames));
        continue;
      }
      const name = this.atom(names);
      const kind = kinds[name];
      if (kind === REFUSED) giveUp();
      const tag = this.u8();
      if (tag === TAG_UNDEFINED) continue;
      const value = this.#value(tag, frames);
      // A dropped key's value is still read (its bytes must be well-formed), then left out.
      if (kind !== DROPPED) (frame.target as Record<string, unknown>)[names[name] as string] = value;
    }
    this.end();
    return root;
  }

  /** A scalar, or a new empty object or array whose entries the loop then reads. */
  #value(tag: number, frames: DecodeFrame[]): unknown {
    switch (tag) {
      case TAG_NULL:
        return null;
      case TAG_FALSE:
        return false;
      case TAG_TRUE:
        return true;
      case TAG_INT32:
        return this.sleb();
      case TAG_FLOAT64: {
        const value = this.float64();
        // JSON.stringify writes −0 as 0 and NaN and the infinities as null.
        return Number.isFinite(value) ? value + 0 : null;
      }
      case TAG_STRING:
        return this.#text();
      case TAG_OBJECT:
      case TAG_ARRAY: {
        const left = this.count();
        const target = tag === TAG_ARRAY ? [] : {};
        frames.push({ target, array: tag === TAG_ARRAY, left });
        return target;
      }
      default:
        return giveUp();
    }
  }

  #text(): string {
    const { size, wide } = this.stringBytes();
    const start = this.at;
    this.at += size;
    if (!wide) return this.#latin1.slice(start, start + size);
    return Buffer.from(this.input.buffer, this.input.byteOffset + start, size).toString('utf16le');
  }
}

/**
 * The plan (and a list page's cursor) of a value's binary form, for the prelude to check before
 * the bytes are sent; undefined when the value needs `JSON.stringify` instead. Never throws on bad bytes.
 */
export function planBinaryJson(bytes: Uint8Array): BinaryPlan | undefined {
  try {
    return new Planner(bytes).run();
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

/**
 * The value a result's binary form stands for, as `parseUntrustedJson(JSON.stringify(value))`
 * would give it: JSON data only, `__proto__`, `constructor` and `prototype` keys dropped. Undefined
 * for bytes the planner would not have passed — truncated, trailing, forged or unknown. Never
 * throws on bad bytes, and needs no stack for deep nesting.
 */
export function decodeBinaryJson(bytes: Uint8Array): unknown {
  try {
    return new Decoder(bytes).run();
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

/**
 * Writes QuickJS's binary form: values into a body, property names into the atom table that
 * precedes it, known only once the body is written. An object's or array's entry count comes
 * before its entries; a writer that learns it only after them (json-text.ts) opens the container
 * with `open` and gives the count with `close`.
 */
export class BinaryWriter {
  #out = Buffer.allocUnsafe(4096);
  /** Bytes of the body written so far. */
  length = 0;
  /** Property name → the atom reference written for it. */
  readonly #references = new Map<string, number>();
  /** Names in the atom table, in table order. */
  readonly #table: string[] = [];

  /** The version byte and the atom table, then the body. */
  finish(): Uint8Array {
    const body = this.#out.subarray(0, this.length);
    this.#out = Buffer.allocUnsafe(64);
    this.length = 0;
    this.byte(BINARY_JSON_VERSION);
    this.leb(this.#table.length);
    for (const name of this.#table) this.string(name);
    const whole = new Uint8Array(this.length + body.length);
    whole.set(this.#out.subarray(0, this.length), 0);
    whole.set(body, this.length);
    return whole;
  }

  /**
   * Starts an object or an array whose entry count `close` gives once its entries are written;
   * returns where the count goes. One byte is kept for it: a count over 127 moves the entries up.
   */
  open(array: boolean): number {
    this.reserve(2);
    this.#out[this.length++] = array ? TAG_ARRAY : TAG_OBJECT;
    this.#out[this.length] = 0;
    return this.length++;
  }

  close(countAt: number, count: number): void {
    const extra = lebSize(count) - 1;
    if (extra > 0) {
      this.reserve(extra);
      this.#out.copyWithin(countAt + 1 + extra, countAt + 1, this.length);
      this.length += extra;
    }
    writeLeb(this.#out, countAt, count);
  }

  /** A string, number (see `number`), boolean or null, tagged. */
  scalar(value: string | number | boolean | null): void {
    if (typeof value === 'string') {
      this.byte(TAG_STRING);
      this.string(value);
    } else if (typeof value === 'number') {
      this.number(value);
    } else {
      this.byte(value === null ? TAG_NULL : value ? TAG_TRUE : TAG_FALSE);
    }
  }


  /** An int32 as QuickJS tags it, any other finite number as a float64 (−0 too); gives up on the rest. */
  number(value: number): void {
    if ((value | 0) === value && !Object.is(value, -0)) {
      this.byte(TAG_INT32);
      this.leb(((value << 1) ^ (value >> 31)) >>> 0);
    } else if (Number.isFinite(value)) {
      this.byte(TAG_FLOAT64);
      this.reserve(8);
      this.#out.writeDoubleLE(value, this.length);
      this.length += 8;
    } else {
      giveUp();
    }
  }

  atom(name: string): void {
    this.leb(this.reference(name));
  }

  /**
   * The reference an object member writes for its name, the name entering the atom table the
   * first time: canonical array indices up to 2^31 − 1 are integer atoms, as QuickJS keeps them.
   */
  reference(name: string): number {
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
    return reference;
  }

  /** A string: one byte a unit when every unit fits (QuickJS's 8-bit strings), else 16-bit units. */
  string(text: string): void {
    const length = text.length;
    if (length < 64) {
      // Short strings byte by byte (a native call costs more); start over as 16-bit on the first unit over 0xff.
      this.reserve(length + 5);
      const out = this.#out;
      const start = this.length;
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
      this.length = at;
      return;
    }
    if (NOT_LATIN1.test(text)) {
      this.#wide(text);
      return;
    }
    this.leb(length * 2);
    this.reserve(length);
    this.#out.write(text, this.length, length, 'latin1');
    this.length += length;
  }

  /**
   * A string value copied from `bytes` at `start` while its bytes are printable ASCII, up to the
   * quote that ends it; returns the position of that quote. Undefined, with nothing written, when
   * a byte before it is anything else (an escape, a control or a non-ASCII byte) or there is no
   * quote: the caller then decodes the string itself.
   */
  asciiText(bytes: Uint8Array, start: number): number | undefined {
    const limit = bytes.length;
    // The tag and a one-byte length, then the units; a length over 127 moves them up.
    this.reserve(2 + Math.min(limit - start, 64));
    let out = this.#out;
    const head = this.length;
    let at = head + 2;
    for (let i = start; i < limit; i++) {
      const byte = bytes[i] as number;
      if (byte === 0x22) {
        this.length = at;
        const size = at - head - 2;
        out[head] = TAG_STRING;
        if (size < 64) {
          out[head + 1] = size * 2;
        } else {
          const extra = lebSize(size * 2) - 1;
          this.reserve(extra);
          out = this.#out;
          out.copyWithin(head + 2 + extra, head + 2, at);
          this.length += extra;
          writeLeb(out, head + 1, size * 2);
        }
        return i;
      }
      if (byte === 0x5c || byte < 0x20 || byte >= 0x80) break;
      if (at === out.length) {
        this.length = at;
        this.reserve(64);
        out = this.#out;
      }
      out[at++] = byte;
    }
    this.length = head;
    return undefined;
  }

  #wide(text: string): void {
    this.leb(text.length * 2 + 1);
    const size = text.length * 2;
    this.reserve(size);
    this.#out.write(text, this.length, size, 'utf16le');
    this.length += size;
  }

  reserve(count: number): void {
    if (this.length + count <= this.#out.length) return;
    let size = this.#out.length * 2;
    while (size < this.length + count) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.#out.copy(grown, 0, 0, this.length);
    this.#out = grown;
  }

  byte(value: number): void {
    this.reserve(1);
    this.#out[this.length++] = value;
  }

  leb(value: number): void {
    if (value < 0x80 && this.length < this.#out.length) {
      this.#out[this.length++] = value;
      return;
    }
    this.reserve(5);
    this.length = writeLeb(this.#out, this.length, value);
  }
}

function lebSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 128)) size++;
  return size;
}

/** Unsigned LEB128 at `at`; returns the position after it. */
function writeLeb(out: Uint8Array, at: number, value: number): number {
  let rest = value;
  let to = at;
  while (rest >= 0x80) {
    out[to++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 128);
  }
  out[to++] = rest;
  return to;
}

class Encoder {
  readonly #writer = new BinaryWriter();

  run(value: unknown, maxDepth: number): Uint8Array {
    this.#value(value, maxDepth);
    return this.#writer.finish();
  }

  #value(value: unknown, depth: number): void {
    const writer = this.#writer;
    switch (typeof value) {
      case 'string':
      case 'number':
      case 'boolean':
        writer.scalar(value);
        return;
      case 'object':
        break;
      default:
        giveUp();
    }
    if (value === null) {
      writer.scalar(null);
      return;
    }
    if (depth === 0) giveUp();
    if (Array.isArray(value)) {
      writer.byte(TAG_ARRAY);
      writer.leb(value.length);
      for (let i = 0; i < value.length; i++) this.#value(value[i], depth - 1);
      return;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) giveUp();
    const keys = Object.keys(value);
    writer.byte(TAG_OBJECT);
    writer.leb(keys.length);
    for (const key of keys) {
      writer.atom(key);
      this.#value((value as Record<string, unknown>)[key], depth - 1);
    }
  }
}
