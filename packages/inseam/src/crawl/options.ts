import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { DocumentExtractor } from '../extract/index.js';
import type { CatalogStore, HostMemoStore, HostRef, SyncHistoryStore } from '../store/index.js';
import { newOwner } from './owner.js';

export interface CrawlerOptions {
  /** The catalog the crawler writes; the only way it reaches the store. */
  readonly store: CatalogStore;
  /** Where each run's stops are recorded for the host's sync history; absent records none. */
  readonly history?: SyncHistoryStore;
  /** Where hosts keep what makes their names listing cheap in the next process (target.ts's `NamesMemo`); absent keeps none. */
  readonly memos?: HostMemoStore;
  /** Entries per transaction. Default 1000. */
  readonly batchSize?: number;
  /** Content a batch may hold before it is committed (bytes). Default 32 MiB. */
  readonly batchBytes?: number;
  /** Content reads in flight. Default 8. */
  readonly readConcurrency?: number;
  /** Content larger than this is not indexed when the scope sets no `maxEntryBytes`. Default 8 MiB. */
  readonly maxContentBytes?: number;
  /** One content read, start to end (a document's text extraction included). Default 120 s. */
  readonly readTimeoutMs?: number;
  /** Where documents (PDF, DOCX, XLSX, PPTX, HTML) get their text. Default the process's shared extraction pool. */
  readonly extractor?: DocumentExtractor;
  /** A run whose owner's heartbeat is older than this may be taken over (owners on other machines). Default 30 s. */
  readonly leaseMs?: number;
  /** How far an incremental sync steps back from a datetime watermark. Default 1 s. */
  readonly overlapMs?: number;
  /** Entries removed per transaction by the rescan diff. Default 1000. */
  readonly sweepBatch?: number;
  /** Retries of a listing page that failed `rate_limited`, `unavailable` or `timeout`. Default 3 from 500 ms, doubling, at most 30 s. */
  readonly retry?: { readonly attempts: number; readonly baseMs: number; readonly maxMs: number };
  /** Watch events waiting to be applied before the queue is dropped for a rescan. Default 10,000. */
  readonly watchQueueLimit?: number;
  /** This crawler's owner id in crawl runs. Default: pid, machine and a nonce. */
  readonly owner?: string;
  /**
   * Told that the crawler wrote entries of a host: after a crawl run ends completed or paused, and
   * after change events (a watch's, a webhook's, the fs service's own writes) stored or moved
   * any. The platform starts embedding there, so a change is searchable by meaning without
   * waiting for the next crawl. Must not throw; it is not awaited.
   */
  readonly onWritten?: (ref: HostRef) => void;
  readonly now?: () => number;
}

export interface ResolvedCrawlerOptions {
  readonly store: CatalogStore;
  readonly memos: HostMemoStore | undefined;
  readonly batchSize: number;
  readonly batchBytes: number;
  readonly readConcurrency: number;
  readonly maxContentBytes: number;
  readonly readTimeoutMs: number;
  readonly extractor: DocumentExtractor | undefined;
  readonly leaseMs: number;
  readonly overlapMs: number;
  readonly sweepBatch: number;
  readonly retry: { readonly attempts: number; readonly baseMs: number; readonly maxMs: number };
  readonly watchQueueLimit: number;
  readonly owner: string;
  readonly onWritten: (ref: HostRef) => void;
  readonly now: () => number;
}

const MiB = 1024 * 1024;

/** Fills in defaults. Throws `invalid_argument` naming a setting that is not a positive whole number. */
export function resolveOptions(options: CrawlerOptions): ResolvedCrawlerOptions {
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(`The crawler setting ${name} must be a positive whole number; it is ${String(value)}.`);
    return value;
  };
  const retry = options.retry ?? { attempts: 3, baseMs: 500, maxMs: 30_000 };
  if (!Number.isSafeInteger(retry.attempts) || retry.attempts < 0) throw new InvalidArgumentError('The crawler setting retry.attempts must be a whole number of 0 or more.');
  return {
    store: options.store,
    memos: options.memos,
    batchSize: positive('batchSize', options.batchSize, 1000),
    batchBytes: positive('batchBytes', options.batchBytes, 32 * MiB),
    readConcurrency: positive('readConcurrency', options.readConcurrency, 8),
    maxContentBytes: positive('maxContentBytes', options.maxContentBytes, 8 * MiB),
    readTimeoutMs: positive('readTimeoutMs', options.readTimeoutMs, 120_000),
    extractor: options.extractor,
    leaseMs: positive('leaseMs', options.leaseMs, 30_000),
    overlapMs: options.overlapMs === 0 ? 0 : positive('overlapMs', options.overlapMs, 1000),
    sweepBatch: positive('sweepBatch', options.sweepBatch, 1000),
    retry: { attempts: retry.attempts, baseMs: positive('retry.baseMs', retry.baseMs, 500), maxMs: positive('retry.maxMs', retry.maxMs, 30_000) },
    watchQueueLimit: positive('watchQueueLimit', options.watchQueueLimit, 10_000),
    owner: options.owner ?? newOwner(),
    onWritten: options.onWritten ?? (() => undefined),
    now: options.now ?? Date.now,
  };
}
