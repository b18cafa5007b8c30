/**
 * The names the store's record types and its components' types (sync history, vectors) share:
 * a leaf, so those component types need not import the Store they are part of.
 */

/** A host named by its network slug and its own slug. */
export interface HostRef {
  readonly network: string;
  readonly host: string;
}

export type CrawlMode = 'full' | 'incremental';
export const CRAWL_MODES = ['full', 'incremental'] as const satisfies readonly CrawlMode[];

/**
 * - `running`: in progress (or its process died; the owner and heartbeat tell);
 * - `paused`: stopped on request, resumable;
 * - `failed`: stopped by an error, resumable from its checkpoint;
 * - `completed`: done;
 * - `abandoned`: replaced by a new run before it finished.
 */
export type CrawlRunState = 'running' | 'paused' | 'failed' | 'completed' | 'abandoned';
export const CRAWL_RUN_STATES = ['running', 'paused', 'failed', 'completed', 'abandoned'] as const satisfies readonly CrawlRunState[];

/** A host's catalog by count: its entries, and the sum of their declared sizes (bytes; folders and unsized entries add none). */
export interface CatalogSize {
  readonly entries: number;
  readonly bytes: number;
}
