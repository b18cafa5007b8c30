/**
 * A crawl run's progress as a person sees it: counts, rate and, when the total is known or can be
 * estimated, time left. Computed from the run record alone, so the same numbers come from the
 * store (any process) and from the live view of the process running the crawl.
 */
import type { CrawlMode, CrawlPhase, CrawlRunRecord, CrawlRunState, HostRef, RunCounters } from '../store/index.js';

export interface CrawlProgress extends RunCounters {
  readonly runId: number;
  readonly host: HostRef;
  readonly mode: CrawlMode;
  readonly state: CrawlRunState;
  readonly phase: CrawlPhase;
  /** Entries the run is expected to store; null when unknown (a first crawl without limits, an incremental sync). */
  readonly total: number | null;
  /** Entries stored per second of working time. */
  readonly rate: number;
  /** Content bytes read per second of working time. */
  readonly bytesRate: number;
  /** Estimated time left (ms); null without a total, before a rate is known, or once past the estimate. */
  readonly etaMs: number | null;
  /** 0–1 when a total is known; null otherwise. */
  readonly fraction: number | null;
  readonly elapsedMs: number;
  readonly startedAt: number;
  readonly updatedAt: number;
  readonly finishedAt: number | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

export function progressOf(run: CrawlRunRecord): CrawlProgress {
  const seconds = run.elapsedMs / 1000;
  const { entries } = run.counters;
  const rate = seconds > 0 ? entries / seconds : 0;
  const bytesRate = seconds > 0 ? run.counters.contentBytes / seconds : 0;
  const done = run.state === 'completed';
  const total = run.totalEstimate;
  let etaMs: number | null = null;
  let fraction: number | null = null;
  if (done) {
    etaMs = 0;
    fraction = 1;
  } else if (total !== null && total > 0) {
    fraction = Math.min(1, entries / total);
    if (rate > 0 && entries < total) etaMs = Math.round(((total - entries) / rate) * 1000);
  }
  return {
    runId: run.id,
    host: run.host,
    mode: run.mode,
    state: run.state,
    phase: run.phase,
    ...run.counters,
    total,
    rate,
    bytesRate,
    etaMs,
    fraction,
    elapsedMs: run.elapsedMs,
    startedAt: run.startedAt,
    updatedAt: run.updatedAt,
    finishedAt: run.finishedAt,
    error: run.error,
  };
}
