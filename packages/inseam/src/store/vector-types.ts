/**
 * The vector index of the store: for each catalog entry and each embedding model, the entry's
 * chunks (character spans into its indexed text) with one vector each, and whether its embedding
 * is indexed, pending or failed. Both stores implement it (SQLite through sqlite-vec; PostgreSQL
 * through pgvector when the extension is installed, else an exact scan), and one conformance
 * suite checks both (conformance/vector-conformance.ts).
 *
 * Invariants both stores keep by themselves, whatever the caller does:
 * - Vectors of two models never meet: each model has its own dimension and its own vectors, a
 *   query names one model and sees only its vectors.
 * - A hit never outlives its content. A catalog entry deleted (by a sweep, an event, its host or
 *   network removed) takes its vectors with it, in the same transaction. When the catalog writes
 *   new content for an entry (another content key, or any content write for an entry with no
 *   key), the entry's vectors go in that same transaction and its records turn `pending`; when
 *   its content stops being indexed text (binary, too large, an error), its records go too.
 * - An upsert is refused (`precondition_failed`, nothing written) unless the entry's content is
 *   still exactly what was embedded (`expect`: the content key and the entry's `updatedAt` the
 *   caller read with the text), so an embedding of text read before a change cannot land after it.
 *
 * Scores are cosine similarities (1 is the same direction), higher is better, comparable within
 * one query. Vectors must be finite and not all zero (`invalid_argument`).
 */
import type { HostRef } from './refs.js';
import type { HostSearchScope } from './search-scope.js';

/**
 * - `pending`: to be embedded (its content changed since, or it never was for this model);
 * - `indexed`: its chunks are stored, for the content key recorded;
 * - `failed`: the embedder failed on it; `error` says how, `attempts` how often.
 */
export type VectorState = 'pending' | 'indexed' | 'failed';
export const VECTOR_STATES = ['pending', 'indexed', 'failed'] as const satisfies readonly VectorState[];

/** Where the vectors live and how they are searched. */
export type VectorBackend = 'sqlite-vec' | 'pgvector' | 'exact';

export interface VectorBackendStatus {
  readonly backend: VectorBackend;
  /** The extension's version (`v0.1.9`), or null for the exact scan. */
  readonly version: string | null;
}

export interface VectorModelRecord {
  readonly id: number;
  /** The embedder's model id (Embedder.model). */
  readonly model: string;
  readonly dimension: number;
  readonly createdAt: number;
}

/** `[start, end)` UTF-16 offsets into the entry's indexed text. */
export interface ChunkSpan {
  readonly start: number;
  readonly end: number;
}

export interface VectorChunkInput {
  readonly span: ChunkSpan;
  readonly vector: Float32Array;
}

/** The entry's content as the caller read it for embedding: refused unless the catalog still has it. */
export interface ContentExpectation {
  readonly contentKey: string | null;
  /** The catalog entry's `updatedAt` when its text was read. */
  readonly updatedAt: number;
}

export interface VectorUpsert {
  readonly entryId: number;
  readonly model: string;
  readonly expect: ContentExpectation;
  /** The entry's chunks, in text order; none for text with nothing to embed (the entry is still indexed). */
  readonly chunks: readonly VectorChunkInput[];
  readonly now: number;
}

export interface VectorFailure {
  readonly entryId: number;
  readonly model: string;
  readonly expect: ContentExpectation;
  readonly error: { readonly code: string; readonly message: string };
  readonly now: number;
}

export interface VectorEntryRecord {
  readonly entryId: number;
  readonly hostId: number;
  readonly host: HostRef;
  /** The catalog entry's path now (a rename carries the vectors along). */
  readonly path: string;
  readonly model: string;
  readonly state: VectorState;
  /** The content key the chunks were embedded at; null while pending or when the entry has none. */
  readonly contentKey: string | null;
  readonly chunks: number;
  /** Failed attempts since the content last changed. */
  readonly attempts: number;
  readonly error: { readonly code: string; readonly message: string } | null;
  /** When the chunks were stored; null unless indexed. */
  readonly indexedAt: number | null;
  readonly updatedAt: number;
}

export interface VectorChunkRecord {
  readonly chunkId: number;
  readonly ordinal: number;
  readonly span: ChunkSpan;
}

export interface VectorEntriesOptions {
  /** Only this model's records; absent: every model's. */
  readonly model?: string;
  /** Only paths starting with this. */
  readonly prefix?: string;
  /** Keyset paging: only paths after this one. */
  readonly after?: string;
  /** At most 1000; default 100. Records of one path (several models) are never split across pages. */
  readonly limit?: number;
}

export interface PendingQuery {
  readonly model: string;
  readonly hostIds: readonly number[];
  /** At most 1000; default 100. */
  readonly limit?: number;
  /** Keyset paging: only entries with a larger id. */
  readonly afterEntryId?: number;
  /** Failed records updated before this time are offered again; absent: failed ones are not. */
  readonly retryFailedBefore?: number;
}

/** An entry whose text has no current vectors for the model. */
export interface PendingEntry {
  readonly entryId: number;
  readonly hostId: number;
  readonly path: string;
  readonly contentKey: string | null;
  readonly updatedAt: number;
  /** `new`: no record for the model yet. */
  readonly state: 'new' | 'pending' | 'failed';
}

export interface VectorCounts {
  readonly indexed: number;
  readonly pending: number;
  readonly failed: number;
  readonly chunks: number;
}

export interface VectorQuery {
  readonly model: string;
  readonly vector: Float32Array;
  /** At most MAX_VECTOR_K (1000). */
  readonly k: number;
  /** Only these hosts (ids); absent: every host. */
  readonly hostIds?: readonly number[];
  /** Only these catalog entries (ids). */
  readonly entryIds?: readonly number[];
  /**
   * Only entries within one of these scopes (host, readable paths, dimension condition), applied
   * inside the query before the k are cut, as keyword search applies them (search-scope.ts).
   * An empty list matches nothing.
   */
  readonly scopes?: readonly HostSearchScope[];
}

export interface VectorHit {
  readonly chunkId: number;
  readonly entryId: number;
  readonly hostId: number;
  readonly host: HostRef;
  readonly path: string;
  readonly span: ChunkSpan;
  /** Cosine similarity, higher is better. */
  readonly score: number;
  /** The content key the chunk was embedded at (equal to the catalog's now, by the invariants). */
  readonly contentKey: string | null;
}

export const MAX_VECTOR_K = 1000;
export const MAX_VECTOR_DIMENSION = 8192;

export interface VectorStore {
  /** Which backend this store searches with. */
  backend(): Promise<VectorBackendStatus>;
  /**
   * Registers a model with its dimension (idempotent). Rejects with `invalid_argument` for a
   * dimension out of 1…8192, an empty id, or an id registered with another dimension.
   */
  ensureModel(model: string, dimension: number, now?: number): Promise<VectorModelRecord>;
  models(): Promise<VectorModelRecord[]>;
  /** Removes a model with every vector and record of it; false when it was not registered. */
  dropModel(model: string): Promise<boolean>;
  /**
   * Replaces the entry's chunks for the model in one transaction and marks it indexed. Rejects
   * with `not_found` (no such entry), `invalid_argument` (an unregistered model, a vector of
   * another dimension, not finite or all zeros, a span that is not `0 ≤ start < end`) and
   * `precondition_failed` (the content is no longer what `expect` says), writing nothing.
   */
  upsert(input: VectorUpsert): Promise<VectorEntryRecord>;
  /** Records a failed embedding (its chunks go); rejects as upsert does. */
  markFailed(input: VectorFailure): Promise<VectorEntryRecord>;
  /** Removes the entry's records and chunks (of one model, or all); how many records went. */
  remove(entryId: number, model?: string): Promise<number>;
  get(entryId: number, model: string): Promise<VectorEntryRecord | null>;
  /** The host's records, by path then model, keyset-paged. */
  entries(hostId: number, options?: VectorEntriesOptions): Promise<VectorEntryRecord[]>;
  /** The hosts of the network that have any record, by slug. */
  hosts(network: string): Promise<{ readonly hostId: number; readonly host: HostRef }[]>;
  /** The entry's chunks for the model, in order. */
  chunks(entryId: number, model: string): Promise<VectorChunkRecord[]>;
  /** Entries of the hosts with indexed text but no current vectors for the model, by entry id. */
  pending(query: PendingQuery): Promise<PendingEntry[]>;
  /** Records by state, and chunks, for a model (on the given hosts). */
  counts(model: string, hostIds?: readonly number[]): Promise<VectorCounts>;
  /**
   * The `k` chunks nearest to `vector` by cosine, best first. Rejects with `invalid_argument` for
   * an unregistered model, a vector of another dimension or all zeros, or k out of 1…1000.
   */
  query(query: VectorQuery): Promise<VectorHit[]>;
}
