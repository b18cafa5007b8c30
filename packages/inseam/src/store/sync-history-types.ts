/**
 * The history of a host's syncs: one record per crawl run, written when the run stops (completes,
 * pauses or fails), newest first, and bounded — the store keeps a host's newest
 * `SYNC_HISTORY_KEEP` records and drops older ones as it writes. It answers "when did this host
 * last sync, for how long, what changed and what went wrong", which a host's crawl runs alone do
 * not: they count entries seen, not which of them were new or changed.
 *
 * A run that stops and is resumed later (a pause, a failure, the platform restarting) keeps its
 * one record: each stop adds what that stretch of work added and changed, and takes the run's own
 * totals (entries, removed, moved, errors, elapsed time, state) and the catalog's size as they
 * then stand.
 */
import type { CatalogSize, CrawlMode, CrawlRunState } from './refs.js';

/** How many sync records a host keeps. */
export const SYNC_HISTORY_KEEP = 50;

export interface SyncRecord {
  /** The crawl run. */
  readonly runId: number;
  readonly mode: CrawlMode;
  /** How the run stood when it last stopped: `completed`, `paused`, `failed` (or `abandoned`). */
  readonly state: CrawlRunState;
  readonly startedAt: number;
  /** When the run last stopped. */
  readonly endedAt: number;
  /** Time spent working, across resumes. */
  readonly elapsedMs: number;
  /** Entries the run stored (seen), new or not. */
  readonly entries: number;
  /** Entries that were not in the catalog before. */
  readonly added: number;
  /** Entries in the catalog before whose size, validator or content changed. */
  readonly changed: number;
  /** Entries removed because they are gone from the host. */
  readonly removed: number;
  /** Entries followed to a new path. */
  readonly moved: number;
  /** Entries that could not be stored or read. */
  readonly errors: number;
  /** Why the run failed, when it did. */
  readonly error: { readonly code: string; readonly message: string } | null;
  /**
   * The host's catalog when the run last stopped: entries and the sum of their sizes (bytes).
   * Null in records written before the store kept it.
   */
  readonly catalog: CatalogSize | null;
}

/** What a run's stop records: `added` and `changed` are this stretch's, the rest the run's totals. */
export type SyncStop = SyncRecord;

export interface SyncHistoryStore {
  /**
   * Records a stop of run `stop.runId` of host `hostId` (see the module comment), then drops the
   * host's records beyond its newest `keep` (default SYNC_HISTORY_KEEP). Resolves with the
   * record as stored. Rejects with `not_found` when there is no such host.
   */
  record(hostId: number, stop: SyncStop, keep?: number): Promise<SyncRecord>;
  /** The host's newest records, newest first (at most `limit`, default 10). */
  list(hostId: number, limit?: number): Promise<SyncRecord[]>;
}
