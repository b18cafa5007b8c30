/**
 * Where the crawls people and agents ask for run: the one seam between "start a crawl" (the API's
 * POST …/crawl, a connector install's first crawl, an added host's first crawl) and the machinery
 * that runs it.
 *
 * - On the embedded store the platform's own `InProcessCrawlRequests` runs them in this process,
 *   exactly as `platform.sync` does.
 * - On the shared PostgreSQL store the server swaps in the queue's implementation
 *   (`QueuedCrawlRequests` in inseam/queue) at startup: a request becomes a sync job, a host and its
 *   first crawl commit in one transaction, and whichever worker takes the job runs it.
 *
 * Webhook deliveries take the same seam: applied to the host's catalog here, or queued for the
 * worker holding the host, whose connector verifies and parses them.
 *
 * Status readers (GET …/crawl) ask the same seam whether a crawl is waiting in a queue and whether
 * a host's running run is really held by a live process, so the answer is honest wherever it runs.
 */
import type { CrawlHandle, SyncOptions } from '../crawl/index.js';
import type { HostInput, HostRecord, HostRef } from '../store/index.js';

/** The largest webhook body a delivery carries (bytes); the HTTP route and the queue both refuse more. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

/** What handing over a webhook delivery did: applied here (with the counts), or queued (`job`). */
export type WebhookReceipt =
  | {
      readonly where: 'process';
      readonly written: number;
      readonly moved: number;
      readonly deleted: number;
      readonly ignored: number;
      readonly errors: number;
      /** The connector asked for a rescan, which started. */
      readonly rescan: boolean;
    }
  | { readonly where: 'queue'; readonly job: string };

/** What asking for a crawl did: started it here (`handle`), or queued it (`job`). */
export type CrawlTicket =
  | { readonly where: 'process'; readonly handle: CrawlHandle }
  /** `job` is null when an equal sync was already waiting: that one will do. */
  | { readonly where: 'queue'; readonly job: string | null };

/** A crawl job waiting for, or just taken by, a worker. */
export interface QueuedCrawl {
  /** The queue's job id. */
  readonly job: string;
  /** `waiting` (not taken yet, or waiting to retry) or `taken` (a worker fetched it). */
  readonly state: 'waiting' | 'taken';
  /** When it was queued (epoch ms). */
  readonly queuedAt: number;
  readonly mode: 'auto' | 'full' | 'incremental';
}

/** Finishes an added host (credentials, folders) before it is committed; throwing undoes the add. */
export type PrepareHost = (host: HostRecord) => Promise<void>;

export interface CrawlRequests {
  /** `process` runs crawls here; `queue` hands them to workers. */
  readonly where: 'process' | 'queue';
  /**
   * Starts or queues a crawl of a stored host. Throws `not_found` for an unknown host, the kind's
   * errors when it cannot be opened (in process), `unavailable` when the queue cannot be reached.
   */
  request(ref: HostRef, options?: SyncOptions): Promise<CrawlTicket>;
  /**
   * Stores a host, runs `prepare`, and — on the queue, for a `sync.trigger: "auto"` host — queues
   * its first crawl, all or nothing. Rejects as `HostStore.create` does, or with what `prepare` threw
   * (the host is then not stored).
   */
  createHost(network: string, input: HostInput, prepare: PrepareHost): Promise<HostRecord>;
  /**
   * Hands a webhook delivery for a stored host to its connector's `webhook()` (which verifies any
   * signature on the request as it came): applied in process, or queued for the worker holding the
   * host. Throws `unsupported` when the connector has no webhook (in process; a queued delivery
   * fails on the worker), the connector's typed error when it refuses the request, `too_large`
   * for a body over MAX_WEBHOOK_BYTES, `unavailable`.
   */
  webhook(host: HostRecord, request: Request): Promise<WebhookReceipt>;
  /** The host's crawl job waiting in a queue, or null (always null in process). */
  queued(ref: HostRef): Promise<QueuedCrawl | null>;
  /**
   * Whether a run recorded as `running` for the host belongs to a live process elsewhere (a worker
   * holding the host's lease). In process there is no elsewhere: false.
   */
  heldElsewhere(ref: HostRef): Promise<boolean>;
}
