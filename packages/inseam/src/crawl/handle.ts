/**
 * A crawl in progress, for a live view: `progress` events (and an async iterator of them), the
 * final run record, and a way to pause it. The iterator keeps only the newest snapshot, so a slow
 * consumer never makes the crawl hold more than one.
 */
import { EventEmitter } from 'node:events';
import type { CrawlProgress } from '../catalog/index.js';
import type { CrawlRunRecord } from '../store/index.js';

export interface CrawlHandleEvents {
  progress: [CrawlProgress];
  done: [CrawlRunRecord];
}

export class CrawlHandle extends EventEmitter<CrawlHandleEvents> {
  /**
   * The run as it ended: `completed`, `paused` (after `pause()`), or `failed` with its error
   * (the connector failed; the next sync resumes from the checkpoint). Rejects only when the run
   * could not be recorded: `unavailable` (the store), `not_found` (no such host),
   * `binding_conflict` (another process is crawling the host), `scope_invalid`.
   */
  readonly result: Promise<CrawlRunRecord>;
  #latest: CrawlProgress | null = null;
  #ended = false;
  #pauseRequested = false;
  readonly #waiting = new Set<() => void>();

  constructor(work: (handle: CrawlHandle) => Promise<CrawlRunRecord>) {
    super();
    this.result = work(this).then(
      (run) => {
        this.#end();
        this.emit('done', run);
        return run;
      },
      (error: unknown) => {
        this.#end();
        throw error;
      },
    );
    // Callers that only watch events must not get an unhandled rejection; awaiting `result` still throws.
    this.result.catch(() => undefined);
  }

  /** The newest progress, or null before the first. */
  get progress(): CrawlProgress | null {
    return this.#latest;
  }

  /** Asks the crawl to stop at the next batch boundary, committing what it has; it ends `paused`. */
  pause(): void {
    this.#pauseRequested = true;
  }

  get pauseRequested(): boolean {
    return this.#pauseRequested;
  }

  /** For the crawler: publishes a snapshot. */
  report(progress: CrawlProgress): void {
    this.#latest = progress;
    this.emit('progress', progress);
    this.#wakeAll();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<CrawlProgress> {
    let seen: CrawlProgress | null = null;
    for (;;) {
      if (this.#latest !== null && this.#latest !== seen) {
        seen = this.#latest;
        yield seen;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => this.#waiting.add(resolve));
    }
  }

  #end(): void {
    this.#ended = true;
    this.#wakeAll();
  }

  #wakeAll(): void {
    for (const wake of this.#waiting) wake();
    this.#waiting.clear();
  }
}
