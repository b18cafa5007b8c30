/**
 * Checks both vector stores apply to their input before anything is written, and the bounded
 * top-k both exact paths use. Pure.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { MAX_VECTOR_DIMENSION, MAX_VECTOR_K, type ChunkSpan, type VectorChunkInput } from './vector-types.js';

export function checkModelId(model: unknown): string {
  if (typeof model !== 'string' || model === '' || model.length > 1000) {
    throw new InvalidArgumentError('The model id must be a non-empty string of at most 1,000 characters.', { details: { argument: 'model' } });
  }
  return model;
}

export function checkDimension(dimension: unknown): number {
  if (!Number.isInteger(dimension) || (dimension as number) < 1 || (dimension as number) > MAX_VECTOR_DIMENSION) {
    throw new InvalidArgumentError(`The dimension must be a whole number from 1 to ${MAX_VECTOR_DIMENSION}; it is ${String(dimension)}.`, { details: { argument: 'dimension' } });
  }
  return dimension as number;
}

export function checkK(k: unknown): number {
  if (!Number.isInteger(k) || (k as number) < 1 || (k as number) > MAX_VECTOR_K) {
    throw new InvalidArgumentError(`k must be a whole number from 1 to ${MAX_VECTOR_K}; it is ${String(k)}.`, { details: { argument: 'k' } });
  }
  return k as number;
}

/** Throws `invalid_argument` unless `vector` is a Float32Array of `dimension` finite numbers, not all zero. */
export function checkVector(vector: unknown, dimension: number, argument = 'vector'): Float32Array {
  if (!(vector instanceof Float32Array) || vector.length !== dimension) {
    throw new InvalidArgumentError(`The ${argument} must be a Float32Array of ${dimension} numbers (the model's dimension).`, { details: { argument } });
  }
  let nonZero = false;
  for (const value of vector) {
    if (!Number.isFinite(value)) throw new InvalidArgumentError(`The ${argument} has a value that is not a finite number.`, { details: { argument } });
    if (value !== 0) nonZero = true;
  }
  if (!nonZero) throw new InvalidArgumentError(`The ${argument} is all zeros, so it has no direction to compare; leave such a chunk out.`, { details: { argument } });
  return vector;
}

export function checkSpan(span: ChunkSpan, argument: string): ChunkSpan {
  const { start, end } = span ?? ({} as ChunkSpan);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start) {
    throw new InvalidArgumentError(`The ${argument} span must have whole numbers 0 ≤ start < end.`, { details: { argument } });
  }
  return { start, end };
}

export function checkChunks(chunks: readonly VectorChunkInput[], dimension: number): void {
  if (!Array.isArray(chunks)) throw new InvalidArgumentError('chunks must be an array.', { details: { argument: 'chunks' } });
  chunks.forEach((chunk, index) => {
    checkSpan(chunk?.span, `chunks[${index}]`);
    checkVector(chunk.vector, dimension, `chunks[${index}].vector`);
  });
}

/** The vector's bytes as stored: float32, little-endian (the platforms inseam runs on). */
export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** The unit vector of `vector` (a copy). */
export function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const scale = 1 / Math.sqrt(sum);
  return vector.map((value) => value * scale);
}

/**
 * The `k` best (highest score) of the items offered, in memory bounded by `k`: a min-heap whose
 * root is the worst item kept.
 */
export class TopK<T> {
  readonly #k: number;
  readonly #scores: number[] = [];
  readonly #items: T[] = [];

  constructor(k: number) {
    this.#k = k;
  }

  /** The score an item must beat to be kept (−∞ until k are kept). */
  get floor(): number {
    return this.#scores.length < this.#k ? Number.NEGATIVE_INFINITY : this.#scores[0]!;
  }

  offer(score: number, item: T): void {
    if (this.#scores.length < this.#k) {
      this.#scores.push(score);
      this.#items.push(item);
      this.#up(this.#scores.length - 1);
    } else if (score > this.#scores[0]!) {
      this.#scores[0] = score;
      this.#items[0] = item;
      this.#down(0);
    }
  }

  /** Best first. */
  sorted(): { score: number; item: T }[] {
    return this.#scores.map((score, index) => ({ score, item: this.#items[index]! })).sort((a, b) => b.score - a.score);
  }

  #up(index: number): void {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.#scores[parent]! <= this.#scores[index]!) return;
      this.#swap(index, parent);
      index = parent;
    }
  }

  #down(index: number): void {
    const size = this.#scores.length;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < size && this.#scores[left]! < this.#scores[smallest]!) smallest = left;
      if (right < size && this.#scores[right]! < this.#scores[smallest]!) smallest = right;
      if (smallest === index) return;
      this.#swap(index, smallest);
      index = smallest;
    }
  }

  #swap(a: number, b: number): void {
    [this.#scores[a], this.#scores[b]] = [this.#scores[b]!, this.#scores[a]!];
    [this.#items[a], this.#items[b]] = [this.#items[b]!, this.#items[a]!];
  }
}
