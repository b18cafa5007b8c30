/**
 * The seams between the vector kind and the platform. The kind keeps no state of its own: the
 * platform hands each binding
 * - a `VectorIndex`: what is indexed in the binding's network and the nearest chunks to a vector
 *   (inseam implements it over its store's vector index, on SQLite or PostgreSQL);
 * - a `VectorAccess`: whether an entry may be read on its own host, by that host's permission
 *   tree — so the vector source never shows what the entry's own host would refuse;
 * - an `Embedder`, to turn a query's text into a vector of the index's model.
 *
 * The kind never holds content: a record says what was embedded (model, state, content key,
 * time) and where the chunks are (spans into the entry's indexed text), never the text itself.
 * A caller who wants the passage reads it from the entry's host, under that host's rules.
 */
export type IndexState = 'pending' | 'indexed' | 'failed';

/** One model's record of one entry. */
export interface IndexRecord {
  readonly model: string;
  readonly state: IndexState;
  /** The content key the chunks were embedded at (null while pending, or when the entry has none). */
  readonly contentKey: string | null;
  readonly attempts: number;
  readonly error: { readonly code: string; readonly message: string } | null;
  /** Milliseconds since the epoch; null unless indexed. */
  readonly indexedAt: number | null;
  readonly updatedAt: number;
  /** `[start, end)` UTF-16 offsets into the entry's indexed text, in order. */
  readonly chunks: readonly { readonly start: number; readonly end: number }[];
}

export interface IndexedEntry {
  /** The entry's host slug, in the binding's network. */
  readonly host: string;
  /** The entry's canonical path on its host. */
  readonly path: string;
  /** One per model, by model id. */
  readonly records: readonly IndexRecord[];
}

export interface IndexHit {
  readonly host: string;
  readonly path: string;
  readonly span: { readonly start: number; readonly end: number };
  /** Cosine similarity, higher is better. */
  readonly score: number;
  readonly contentKey: string | null;
}

export interface IndexSearch {
  readonly model: string;
  readonly vector: Float32Array;
  /** 1 … 1000. */
  readonly k: number;
  /** Only these host slugs; absent: every host of the network. */
  readonly hosts?: readonly string[];
}

export interface VectorIndex {
  /** The slugs of the network's hosts that have any record, sorted. */
  hosts(): Promise<readonly string[]>;
  /**
   * Paths of the host's entries that have records, sorted, starting with `prefix`, after `after`
   * when given, at most `limit`. A host it does not know has none.
   */
  paths(host: string, options: { readonly prefix: string; readonly after?: string; readonly limit: number }): Promise<readonly string[]>;
  /** The entry's records, or null when it has none. */
  entry(host: string, path: string): Promise<IndexedEntry | null>;
  /** The nearest chunks, best first. Throws `invalid_argument` for a model the index does not have. */
  search(request: IndexSearch): Promise<readonly IndexHit[]>;
}

export interface VectorAccess {
  /** Whether the entry at `path` of `host` may be read there (its host's permission tree). */
  readable(host: string, path: string): boolean | Promise<boolean>;
}
