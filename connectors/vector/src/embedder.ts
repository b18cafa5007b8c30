/**
 * The one interface every embedder implements, and what callers may rely on.
 *
 * An embedder turns texts into vectors of one fixed `dimension` in one vector space, named by
 * `model`. Vectors of two models are never compared: the store keeps them apart by `model`, so a
 * change of model (or of anything that changes the space: a new version of the default's
 * weighting) must change `model`.
 *
 * Errors are typed (`ConnectorError` codes, docs/errors.md):
 * - `invalid_argument`: more than `maxBatch` texts, or a text that is not a string;
 * - `timeout`: the signal fired, or the service did not answer in time;
 * - `unavailable`: the service cannot be reached or answered 5xx, or the default's word vectors
 *   cannot be read or converted;
 * - `rate_limited`: the service still answered 429 after the egress gate's retries;
 * - `permission_denied`: the service refused the key (401, 403), or no key is stored;
 * - `invalid_config`: the service answered vectors of another dimension than configured, or a
 *   malformed answer for the configured model;
 * - `egress_refused`: the egress gate refused the request (an undeclared or forbidden origin).
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';

export interface EmbedOptions {
  /** Aborting rejects the pending call with `timeout`. */
  readonly signal?: AbortSignal;
}

export interface Embedder {
  /** Names the vector space, e.g. `wink-sg100d-v1-sif-a0.0003-w200000` or `openai:https://api.openai.com/v1#text-embedding-3-small@1536`. */
  readonly model: string;
  readonly dimension: number;
  /** The most texts one `embed` call takes; `embedAll` batches longer lists. */
  readonly maxBatch: number;
  /**
   * One vector per text, in order, each of unit length — or all zeros for a text in which the
   * model found nothing to embed (no known word, for the default). Throws the codes listed in
   * the module comment.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** Embeds any number of texts, `maxBatch` at a time, in order. Throws what `embed` throws. */
export async function embedAll(embedder: Embedder, texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
  const vectors: Float32Array[] = [];
  for (let offset = 0; offset < texts.length; offset += embedder.maxBatch) {
    vectors.push(...(await embedder.embed(texts.slice(offset, offset + embedder.maxBatch), options)));
  }
  return vectors;
}

/** Throws `invalid_argument` unless `texts` is an array of at most `maxBatch` strings. */
export function checkBatch(texts: readonly unknown[], maxBatch: number): asserts texts is readonly string[] {
  if (!Array.isArray(texts)) throw new InvalidArgumentError('texts must be an array of strings.', { details: { argument: 'texts' } });
  if (texts.length > maxBatch) {
    throw new InvalidArgumentError(`At most ${maxBatch} texts can be embedded in one call; this call has ${texts.length}. Use embedAll to batch them.`, {
      details: { argument: 'texts' },
    });
  }
  const bad = texts.findIndex((text) => typeof text !== 'string');
  if (bad >= 0) throw new InvalidArgumentError(`texts[${bad}] is not a string.`, { details: { argument: 'texts' } });
}

/** Scales `vector` to unit length in place; an all-zero vector stays zero. Returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let index = 0; index < vector.length; index += 1) sum += vector[index]! * vector[index]!;
  if (sum === 0 || !Number.isFinite(sum)) return vector.fill(0);
  const scale = 1 / Math.sqrt(sum);
  for (let index = 0; index < vector.length; index += 1) vector[index]! *= scale;
  return vector;
}

/** True when every component is zero (the embedder found nothing to embed). */
export function isZeroVector(vector: Float32Array): boolean {
  return vector.every((value) => value === 0);
}
