/** What applying a batch of change events did: the crawler reports it, the watcher passes it on. */
import type { CrawlHandle } from './handle.js';

export interface EventOutcome {
  /** Entries written (puts and moves). */
  readonly written: number;
  readonly moved: number;
  readonly deleted: number;
  /** Events that were not well-formed (no type, no path, a move without `from`). */
  readonly ignored: number;
  /** Entries that could not be stat'ed, encoded or read. */
  readonly errors: number;
  /** The full sync a `rescan` event started (or the run already going), else null. */
  readonly rescan: CrawlHandle | null;
}
