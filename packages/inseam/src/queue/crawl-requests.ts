/**
 * Requested crawls through the queue: what a server on the shared PostgreSQL store puts in place of
 * the platform's in-process crawls (`platform.routeCrawls(new QueuedCrawlRequests(…))`, see
 * platform/crawl-requests.ts). A request is a sync job for whichever worker takes it; a host and
 * its first crawl commit together; and the crawl's status comes from the queue (a job still
 * waiting) and the leases (a run really held by a live worker), not from this process.
 */
import { NotFoundError } from '@neuralis/package-system/contracts';
import type { SyncOptions } from '../crawl/index.js';
import type { CrawlRequests, CrawlTicket, PrepareHost, QueuedCrawl, WebhookReceipt } from '../platform/crawl-requests.js';
import type { HostInput, HostRecord, HostRef, HostStore } from '../store/index.js';
import { rowsOf } from './database.js';
import { addHostWithFirstCrawl, type TransactionalHostStore } from './hosts.js';
import { INBOX_QUEUE_PATTERN, SYNC_QUEUE, SYNC_REMOTE_QUEUE, hostPlacement } from './jobs.js';
import { leaseHolder } from './leases.js';
import { BOSS_SCHEMA, type HostQueue } from './queue.js';

export interface QueuedCrawlRequestsOptions {
  /** The shared store (a PostgresStore). */
  readonly store: TransactionalHostStore & { readonly hosts: HostStore };
  readonly queue: HostQueue;
}

const MODES: ReadonlySet<string> = new Set(['auto', 'full', 'incremental']);

export class QueuedCrawlRequests implements CrawlRequests {
  readonly where = 'queue';
  readonly #store: QueuedCrawlRequestsOptions['store'];
  readonly #queue: HostQueue;

  constructor(options: QueuedCrawlRequestsOptions) {
    this.#store = options.store;
    this.#queue = options.queue;
  }

  /** Queues a sync of the host (deduplicated: `job` is null when an equal one waits). Rejects with `not_found` and `unavailable`. */
  async request(ref: HostRef, options: SyncOptions = {}): Promise<CrawlTicket> {
    const record = await this.#store.hosts.get(ref);
    if (record === null) throw new NotFoundError(`Network "${ref.network}" has no host "${ref.host}".`, { details: { network: ref.network, host: ref.host } });
    const job = await this.#queue.requestSync(ref, {
      mode: options.mode ?? 'auto',
      ...(options.restart === true ? { restart: true } : {}),
      placement: hostPlacement(record),
    });
    return { where: 'queue', job };
  }

  createHost(network: string, input: HostInput, prepare: PrepareHost): Promise<HostRecord> {
    return addHostWithFirstCrawl(this.#store, this.#queue, network, input, undefined, prepare);
  }

  /** Queues the delivery for the worker holding the host (or whichever takes it next). Rejects with `too_large` and `unavailable`. */
  async webhook(host: HostRecord, request: Request): Promise<WebhookReceipt> {
    const job = await this.#queue.deliverWebhook({ network: host.network, host: host.slug }, request, { placement: hostPlacement(host) });
    return { where: 'queue', job };
  }

  /** The oldest sync job of the host not finished yet: in a shared sync queue or a worker's inbox. Rejects with `unavailable`. */
  async queued(ref: HostRef): Promise<QueuedCrawl | null> {
    const rows = rowsOf(
      await this.#queue.database.executeSql(
        `SELECT id, state, data->>'mode' AS mode, (extract(epoch FROM created_on) * 1000)::bigint AS queued_at FROM ${BOSS_SCHEMA}.job
         WHERE (name IN ($1, $2) OR name LIKE $3) AND state < 'completed' AND data->>'type' = 'sync' AND data->>'network' = $4 AND data->>'host' = $5
         ORDER BY created_on, id LIMIT 1`,
        [SYNC_QUEUE, SYNC_REMOTE_QUEUE, INBOX_QUEUE_PATTERN, ref.network, ref.host],
      ),
    );
    const row = rows[0];
    if (row === undefined) return null;
    const mode = String(row['mode']);
    return {
      job: String(row['id']),
      state: row['state'] === 'active' ? 'taken' : 'waiting',
      queuedAt: Number(row['queued_at']),
      mode: MODES.has(mode) ? (mode as QueuedCrawl['mode']) : 'auto',
    };
  }

  /** Whether a live worker holds the host's lease. Rejects with `unavailable`. */
  async heldElsewhere(ref: HostRef): Promise<boolean> {
    return (await leaseHolder(this.#queue.database, ref)) !== null;
  }
}
