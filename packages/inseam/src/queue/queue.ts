/**
 * The crawl queue on pg-boss: what an API server or a CLI command uses to ask for work, and what
 * workers fetch from. See jobs.ts for the queues and their policies.
 *
 *   const queue = await HostQueue.start({ database });
 *   await queue.requestSync({ network: 'home', host: 'notes' }, { mode: 'full' });
 *   await queue.deliverEvents(ref, events);          // reaches the worker holding the host
 *   await database.transaction(async (tx) => {       // a state change and its job commit together
 *     await tx.executeSql('UPDATE …');
 *     await queue.requestSync(ref, { reason: 'added' }, { db: tx });
 *   });
 */
import PgBoss from 'pg-boss';
import { InvalidArgumentError, TooLargeError } from '@neuralis/package-system/contracts';
import type { ChangeEvent } from '@inseam/connector';
import type { SyncMode } from '../crawl/index.js';
import { MAX_WEBHOOK_BYTES } from '../platform/crawl-requests.js';
import type { HostRef } from '../store/index.js';
import { attemptPostgres as attempt, postgresStoreError } from '../store/index.js';
import { isDeadlock, rowsOf, type QueueDatabase, type SqlExecutor } from './database.js';
import {
  DEAD_QUEUE,
  EVENTS_QUEUE,
  EVENTS_REMOTE_QUEUE,
  INBOX_PREFIX,
  INBOX_QUEUE_PATTERN,
  SYNC_QUEUE,
  SYNC_REMOTE_QUEUE,
  TICK_QUEUE,
  inboxOwner,
  inboxQueue,
  parseHostJob,
  sharedQueueOf,
  syncKey,
  type EventsJob,
  type HostJob,
  type Placement,
  type SyncJob,
  type SyncReason,
  type WebhookJob,
} from './jobs.js';
import { aliveSql, leaseHolder } from './leases.js';
import { QUEUE_SCHEMA, migrateQueueSchema } from './schema.js';

/** The schema pg-boss keeps its tables in. */
export const BOSS_SCHEMA = 'pgboss';
/** Serialises changes to pg-boss's schema and queues (partitions of its job table) across processes. */
const DDL_LOCK = `${BOSS_SCHEMA}.ddl`;
/** The schedule of the tick that enqueues due syncs: every minute (cron's finest step). */
export const TICK_CRON = '* * * * *';

export interface RetryPolicy {
  /** Retries after the first failure before a job goes to the dead letter. Default 5. */
  readonly limit: number;
  /** Seconds before the first retry; doubled (with jitter) for each later one. Default 30. */
  readonly delaySeconds: number;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ limit: 5, delaySeconds: 30 });

export interface HostQueueOptions {
  readonly database: QueueDatabase;
  /**
   * Run pg-boss's maintenance (expiring, archiving) and its clock (sending scheduled jobs).
   * Workers do; a process that only sends may leave it to them. Default true.
   */
  readonly maintain?: boolean;
  /** For queues this start creates; queues that exist keep their settings. */
  readonly retry?: RetryPolicy;
}

export interface SyncRequest {
  /** Default `auto`. */
  readonly mode?: SyncMode;
  /** Abandon an unfinished run instead of resuming it. */
  readonly restart?: boolean;
  /** Default `requested`. */
  readonly reason?: SyncReason;
  /** Not before this long from now (ms). */
  readonly delayMs?: number;
  /** Where the host can be crawled (`hostPlacement(record)`); absent: only workers that see every folder take it. */
  readonly placement?: Placement;
}

export interface DeliverOptions extends SendOptions {
  /** As SyncRequest.placement, for when no worker holds the host. */
  readonly placement?: Placement;
}

export interface SendOptions {
  /** Send inside this transaction (see QueueDatabase.transaction). */
  readonly db?: SqlExecutor;
}

/** A pg-boss job as the queue fetches it. */
export interface FetchedJob {
  readonly id: string;
  readonly queue: string;
  readonly data: unknown;
}

/** Sync jobs live at most this long in `active` before pg-boss's maintenance fails them (its ceiling is 24 h). */
const SYNC_EXPIRE_SECONDS = 23 * 3600;
const EVENTS_EXPIRE_SECONDS = 3600;
const TICK_EXPIRE_SECONDS = 600;

export class HostQueue {
  readonly database: QueueDatabase;
  readonly #boss: PgBoss;
  readonly #retry: RetryPolicy;
  #stopped = false;

  private constructor(database: QueueDatabase, boss: PgBoss, retry: RetryPolicy) {
    this.database = database;
    this.#boss = boss;
    this.#retry = retry;
  }

  /**
   * Prepares the database (the queue's tables and pg-boss's, each migrated under a lock), creates
   * the queues and the tick's schedule, and starts pg-boss. Rejects with `unavailable` when the
   * database cannot be reached and `invalid_argument` for a retry policy out of range.
   */
  static async start(options: HostQueueOptions): Promise<HostQueue> {
    const retry = options.retry ?? DEFAULT_RETRY;
    if (!Number.isSafeInteger(retry.limit) || retry.limit < 0 || !Number.isSafeInteger(retry.delaySeconds) || retry.delaySeconds < 1) {
      throw new InvalidArgumentError('The retry policy needs a whole number of retries (0 or more) and a delay of at least one second.', { details: { argument: 'retry' } });
    }
    const { database } = options;
    await migrateQueueSchema(database);
    const maintain = options.maintain ?? true;
    const boss = new PgBoss({ db: database.raw, schema: BOSS_SCHEMA, supervise: maintain, schedule: maintain, migrate: true });
    // pg-boss reports maintenance failures as events; an unhandled 'error' event would end the process.
    boss.on('error', () => undefined);
    try {
      // pg-boss creates its schema without a lock of its own; the first start must not race another.
      await database.withAdvisoryLock(DDL_LOCK, async () => {
        await boss.start();
        await boss.createQueue(DEAD_QUEUE, { name: DEAD_QUEUE, policy: 'standard' });
        const retries = { retryLimit: retry.limit, retryDelay: retry.delaySeconds, retryBackoff: true, deadLetter: DEAD_QUEUE };
        for (const name of [SYNC_QUEUE, SYNC_REMOTE_QUEUE]) await boss.createQueue(name, { name, policy: 'short', expireInSeconds: SYNC_EXPIRE_SECONDS, ...retries });
        for (const name of [EVENTS_QUEUE, EVENTS_REMOTE_QUEUE]) await boss.createQueue(name, { name, policy: 'standard', expireInSeconds: EVENTS_EXPIRE_SECONDS, ...retries });
        await boss.createQueue(TICK_QUEUE, { name: TICK_QUEUE, policy: 'short', retryLimit: 0, expireInSeconds: TICK_EXPIRE_SECONDS });
        await boss.schedule(TICK_QUEUE, TICK_CRON, {}, { tz: 'UTC' });
      });
    } catch (error) {
      await boss.stop({ graceful: false, close: false }).catch(() => undefined);
      throw postgresStoreError('start the queue', error);
    }
    return new HostQueue(database, boss, retry);
  }

  /**
   * Asks for a crawl of the host. Resolves with the job's id, or null when the same sync (host,
   * mode, restart) is waiting already — that one will do. Rejects with `unavailable`.
   */
  async requestSync(ref: HostRef, request: SyncRequest = {}, options: SendOptions = {}): Promise<string | null> {
    const job: SyncJob = {
      type: 'sync',
      network: ref.network,
      host: ref.host,
      mode: request.mode ?? 'auto',
      reason: request.reason ?? 'requested',
      ...(request.restart === true ? { restart: true } : {}),
      ...(request.placement === undefined ? {} : { placement: request.placement }),
    };
    return this.sendJob(sharedQueueOf(job), job, { ...options, ...(request.delayMs === undefined ? {} : { delayMs: request.delayMs }) });
  }

  /**
   * Hands change events to the worker holding the host (its inbox), or to whichever worker takes
   * the host next. Resolves with the job's id. Rejects with `unavailable`.
   */
  async deliverEvents(ref: HostRef, events: readonly ChangeEvent[], options: DeliverOptions = {}): Promise<string> {
    const job: EventsJob = { type: 'events', network: ref.network, host: ref.host, ...placed(options), events };
    return this.#deliver(job, options);
  }

  /**
   * Hands a webhook delivery to the worker holding the host, whose connector parses it (see
   * deliverEvents). Rejects with `too_large` for a body over MAX_WEBHOOK_BYTES, and `unavailable`.
   */
  async deliverWebhook(ref: HostRef, request: Request, options: DeliverOptions = {}): Promise<string> {
    const body = request.body === null ? null : Buffer.from(await request.arrayBuffer());
    if (body !== null && body.length > MAX_WEBHOOK_BYTES) {
      throw new TooLargeError(`A webhook delivery is at most ${MAX_WEBHOOK_BYTES} bytes; this one is ${body.length}.`, { details: { limit: MAX_WEBHOOK_BYTES } });
    }
    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    const job: WebhookJob = {
      type: 'webhook',
      network: ref.network,
      host: ref.host,
      ...placed(options),
      request: { method: request.method, url: request.url, headers, body: body === null ? null : body.toString('base64') },
    };
    return this.#deliver(job, options);
  }

  /** Asks for a tick now (the schedule sends one a minute). Null when one is waiting already. Rejects with `unavailable`. */
  async tickNow(): Promise<string | null> {
    return attempt('queue a tick', () => this.#boss.send(TICK_QUEUE, {}, { singletonKey: 'tick' }));
  }

  /**
   * Sends a job to a queue (sync jobs with their dedupe key). Resolves with its id, or null when
   * deduplicated. For the worker and tests; callers use requestSync and deliver*.
   */
  async sendJob(queue: string, job: HostJob, options: SendOptions & { readonly delayMs?: number } = {}): Promise<string | null> {
    const send: PgBoss.SendOptions = {
      ...(job.type === 'sync' ? { singletonKey: syncKey(job) } : {}),
      ...(options.delayMs === undefined || options.delayMs <= 0 ? {} : { startAfter: Math.max(1, Math.ceil(options.delayMs / 1000)) }),
      ...(options.db === undefined ? {} : { db: options.db }),
    };
    return attempt('queue a job', () => this.#boss.send(queue, job as unknown as object, send));
  }

  /**
   * Takes up to `limit` waiting jobs of a queue, setting them active (through `db` when given).
   * pg-boss answers none when the database fails; inside a transaction, its next statement fails.
   */
  async fetch(queue: string, limit: number, db?: SqlExecutor): Promise<FetchedJob[]> {
    const jobs = await this.#boss.fetch<unknown>(queue, { batchSize: limit, ...(db === undefined ? {} : { db }) });
    return jobs.map((job) => ({ id: job.id, queue, data: job.data }));
  }

  /** Marks an active job done, with `output` for `inseam status`. Rejects with `unavailable`. */
  async complete(queue: string, id: string, output: object, db?: SqlExecutor): Promise<void> {
    await attempt('complete a job', () => this.#boss.complete(queue, id, output, db === undefined ? {} : { db }));
  }

  /** Fails an active job: it retries after the backoff, or goes to the dead letter when out of retries. Rejects with `unavailable`. */
  async fail(queue: string, id: string, output: object, db?: SqlExecutor): Promise<void> {
    await attempt('fail a job', () => this.#boss.fail(queue, id, output, db === undefined ? {} : { db }));
  }

  /** Cancels jobs (waiting or active); cancelled jobs never run. Rejects with `unavailable`. */
  async cancel(queue: string, ids: readonly string[], db?: SqlExecutor): Promise<void> {
    if (ids.length === 0) return;
    await attempt('cancel a job', () => this.#boss.cancel(queue, [...ids], db === undefined ? {} : { db }));
  }

  /** A job's data and state (`created`, `retry`, `active`, `completed`, `cancelled`, `failed`), or null when it is gone. Rejects with `unavailable`. */
  async job(queue: string, id: string, db?: SqlExecutor): Promise<{ readonly data: unknown; readonly state: string } | null> {
    const job = await attempt('read a job', () => this.#boss.getJobById<unknown>(queue, id, db === undefined ? { includeArchive: false } : { db, includeArchive: false }));
    return job === null ? null : { data: job.data, state: job.state };
  }

  /** The jobs of a queue that have not started (waiting or waiting to retry). */
  async waiting(queue: string, db?: SqlExecutor): Promise<{ readonly id: string; readonly data: unknown }[]> {
    const rows = rowsOf(await (db ?? this.database).executeSql(`SELECT id, data FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND state < 'active' ORDER BY created_on, id`, [queue]));
    return rows.map((row) => ({ id: String(row['id']), data: row['data'] }));
  }

  /**
   * Sends every dead-lettered job back to its queue (syncs deduplicated as usual), with its
   * retries and losses counted afresh: for after the cause is fixed (a credential renewed, a
   * folder mounted again). Resolves with how many went back. Rejects with `unavailable`.
   */
  async retryDead(): Promise<number> {
    return this.database.transaction(async (tx) => {
      const dead = await this.waiting(DEAD_QUEUE, tx);
      let count = 0;
      for (const job of dead) {
        let parsed: HostJob;
        try {
          parsed = parseHostJob(job.data);
        } catch {
          continue;
        }
        const again: HostJob = parsed.type === 'sync' ? { ...parsed, reason: 'requested', hops: 0, lost: 0 } : { ...parsed, hops: 0, lost: 0 };
        await this.sendJob(sharedQueueOf(again), again, { db: tx });
        count += 1;
      }
      await this.cancel(DEAD_QUEUE, dead.map((job) => job.id), tx);
      return count;
    });
  }

  /**
   * Cancels the host's sync jobs waiting in the dead letter: a crawl of it has completed since, so
   * what they record is over. Resolves with how many. Rejects with `unavailable`.
   */
  async resolveDead(ref: HostRef, db?: SqlExecutor): Promise<number> {
    const rows = rowsOf(
      await (db ?? this.database).executeSql(
        `SELECT id FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND state < 'active' AND data->>'type' = 'sync' AND data->>'network' = $2 AND data->>'host' = $3`,
        [DEAD_QUEUE, ref.network, ref.host],
      ),
    );
    await this.cancel(DEAD_QUEUE, rows.map((row) => String(row['id'])), db);
    return rows.length;
  }

  /** Creates a worker's inbox (idempotent). Rejects with `unavailable`. */
  async createInbox(workerId: string): Promise<void> {
    const queue = inboxQueue(workerId);
    await this.#ddl('create a worker inbox', () =>
      this.#boss.createQueue(queue, { name: queue, policy: 'standard', expireInSeconds: SYNC_EXPIRE_SECONDS, retryLimit: this.#retry.limit, retryDelay: this.#retry.delaySeconds, retryBackoff: true, deadLetter: DEAD_QUEUE }),
    );
  }

  /** Drops a worker's inbox with whatever it still holds (move its jobs first). Rejects with `unavailable`. */
  async deleteInbox(workerId: string): Promise<void> {
    await this.#ddl('drop a worker inbox', () => this.#boss.deleteQueue(inboxQueue(workerId)));
  }

  /** The inboxes of workers that are not alive and hold no job: left over from workers long gone. */
  async abandonedInboxes(): Promise<string[]> {
    const rows = rowsOf(
      await this.database.executeSql(
        `SELECT q.name FROM ${BOSS_SCHEMA}.queue q
         WHERE q.name LIKE $1
           AND NOT EXISTS (SELECT 1 FROM ${QUEUE_SCHEMA}.workers w WHERE '${INBOX_PREFIX}' || w.id = q.name AND ${aliveSql('w')})
           AND NOT EXISTS (SELECT 1 FROM ${BOSS_SCHEMA}.job j WHERE j.name = q.name AND j.state < 'completed')`,
        [INBOX_QUEUE_PATTERN],
      ),
    );
    return rows.map((row) => inboxOwner(String(row['name']))).filter((owner): owner is string => owner !== null);
  }

  /**
   * Creating or dropping a queue changes pg-boss's partitioned job table; two at once deadlock on
   * its locks, so every inseam process does them one at a time (and again when picked as a victim).
   */
  async #ddl(action: string, work: () => Promise<void>): Promise<void> {
    try {
      await this.database.withAdvisoryLock(DDL_LOCK, async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await work();
          } catch (error) {
            if (attempt >= 3 || !isDeadlock(error)) throw error;
          }
        }
      });
    } catch (error) {
      throw postgresStoreError(action, error);
    }
  }

  /** Stops pg-boss (maintenance, clock); the database stays open for its owner to close. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#boss.stop({ graceful: false, close: false, wait: true });
  }

  /**
   * Events go straight to the holder's inbox, so a busy shared queue never delays a held host's
   * events; without a holder (or when its inbox is gone already) they go to the shared queue.
   */
  async #deliver(job: EventsJob | WebhookJob, options: DeliverOptions): Promise<string> {
    const send = async (tx: SqlExecutor): Promise<string> => {
      const holder = await leaseHolder(tx, { network: job.network, host: job.host }, { lock: true });
      const id = holder === null ? null : await this.sendJob(inboxQueue(holder), job, { db: tx });
      return id ?? (await this.sendJob(sharedQueueOf(job), job, { db: tx }))!;
    };
    return options.db === undefined ? this.database.transaction(send) : send(options.db);
  }
}

function placed(options: DeliverOptions): { readonly placement?: Placement } {
  return options.placement === undefined ? {} : { placement: options.placement };
}
