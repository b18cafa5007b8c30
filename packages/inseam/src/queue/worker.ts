/**
 * A crawl worker: takes host jobs from the queue and runs them with the platform's crawler, on
 * any machine pointed at the shared database.
 *
 * - **Leases.** A job runs only under its host's lease (leases.ts), so no host is crawled by two
 *   workers at once. A job for a host another live worker holds is forwarded to that worker's
 *   inbox — so syncs, change events and webhook deliveries all reach whichever worker holds the
 *   host — or, after `maxHops` forwards, deferred. The crawl run's own owner check (claimRun) stays
 *   underneath: a worker that lost its lease can no longer commit to the run.
 * - **Concurrency.** At most `concurrency` jobs at once; the worker fetches only as many as it has
 *   free slots, from its inbox first, then shared events, then shared syncs.
 * - **Placement.** A worker that `serves: "remote"` (no folders on its machine) fetches only the
 *   `-remote` queues, so it never takes a folder host's job; one that reaches it anyway is sent
 *   back to the folder queues unrun (jobs.ts).
 * - **Outcomes.** A completed crawl completes its job; a failed one fails it, so pg-boss retries it
 *   with exponential backoff and, out of retries, moves it to the dead letter. The next attempt
 *   resumes the failed run from its checkpoint. A crawl that finds the host's run busy in another
 *   process is deferred (sent again a little later), not failed.
 * - **Watches.** After crawling an auto host whose connector can watch, the worker keeps its lease
 *   and its watch; the lease's purpose becomes `watch`.
 * - **Heartbeat.** Every lease timeout / 3 the worker records that it is alive and reaps workers that
 *   are not: their claimed jobs are cancelled and sent again (the crawl resumes from its last
 *   checkpoint elsewhere; after `maxLosses` deaths a job goes to the dead letter), their inbox
 *   moves to the shared queues. A worker that finds its own heartbeat lapsed pauses everything
 *   (its leases may be others' now) and joins again under a new id.
 * - **Stop.** Pauses crawls at their next checkpoint and queues their resumption, stops watches,
 *   hands its inbox to the shared queues and marks itself stopped.
 *
 * Every step is reported as an `activity` event (the CLI prints them; tests read them).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { InvalidArgumentError, isConnectorError } from '@neuralis/package-system/contracts';
import type { CrawlTarget, Crawler, EventOutcome, SyncMode, Watcher } from '../crawl/index.js';
import type { CrawlMode, CrawlRunRecord, CrawlRunState, HostRecord, HostRef, Store } from '../store/index.js';
import type { SqlExecutor } from './database.js';
import {
  DEAD_QUEUE,
  TICK_QUEUE,
  WORKER_HOSTS_FILTERS,
  hostPlacement,
  inboxQueue,
  parseHostJob,
  refOf,
  sharedQueueOf,
  sharedQueuesFor,
  type HostJob,
  type SyncJob,
  type SyncReason,
  type WorkerHostsFilter,
} from './jobs.js';
import {
  acquireLease,
  beat,
  claimDeadWorker,
  dropClaim,
  forgetStoppedWorkers,
  markStopped,
  recordClaims,
  registerWorker,
  releaseLease,
  releaseLeasesOf,
  setLeasePurpose,
  takeClaims,
  workerAlive,
  type LeaseAttempt,
} from './leases.js';
import type { FetchedJob, HostQueue } from './queue.js';
import { enqueueDueSyncs, resolveSchedule, type ResolvedSchedule, type ScheduleSettings } from './schedule.js';

/** How a worker reaches hosts: the platform's store and host kinds. */
export interface WorkerHosts {
  /** The stored host, or null when it is gone. */
  record(ref: HostRef): Promise<HostRecord | null>;
  /** Opens the host for the crawler. Throws the kind's errors (`kind_not_registered`, `invalid_config`, …). */
  crawlTarget(record: HostRecord): Promise<CrawlTarget>;
  /** Drops what was opened for the host; called when the worker lets it go. */
  forget(ref: HostRef): void;
}

export interface QueueWorkerOptions {
  readonly queue: HostQueue;
  /** The shared store (the schedule reads hosts and runs from it). */
  readonly store: Store;
  /** The crawler, on the shared store's catalog; its `leaseMs` should be at most half the worker's. */
  readonly crawler: Crawler;
  readonly hosts: WorkerHosts;
  /**
   * Which hosts this worker crawls: `all` (default; this machine sees the folders of `fs`/`local`
   * hosts and the pads, at the same paths as the server) or `remote` (it does not: it takes only
   * jobs of hosts that need no folder). See jobs.ts for how the queues keep them apart.
   */
  readonly serves?: WorkerHostsFilter;
  /** Jobs at once. Default 4. */
  readonly concurrency?: number;
  /** How long after its last heartbeat a worker counts as dead and loses its leases (ms). Default 30,000. */
  readonly leaseMs?: number;
  /** Time between looks at the queues when idle (ms). Default 2000. */
  readonly pollMs?: number;
  readonly schedule?: ScheduleSettings;
  /** Forwards to a holder before a job is deferred instead. Default 3. */
  readonly maxHops?: number;
  /** Worker deaths a job survives before it goes to the dead letter. Default 3. */
  readonly maxLosses?: number;
}

interface Stamp {
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/** One thing a worker did. `host` is `network/host`; `job` is the pg-boss job id. */
export type WorkerActivity = Stamp &
  (
    | { readonly type: 'started'; readonly worker: string; readonly machine: string; readonly pid: number; readonly concurrency: number; readonly serves: WorkerHostsFilter }
    | { readonly type: 'crawl-started'; readonly worker: string; readonly host: string; readonly job: string; readonly mode: SyncMode; readonly reason: SyncReason }
    | {
        readonly type: 'crawl-ended';
        readonly worker: string;
        readonly host: string;
        readonly job: string;
        readonly run: number;
        readonly mode: CrawlMode;
        readonly state: CrawlRunState;
        readonly entries: number;
        readonly error: { readonly code: string; readonly message: string } | null;
      }
    | { readonly type: 'events-applied'; readonly worker: string; readonly host: string; readonly job: string; readonly written: number; readonly moved: number; readonly deleted: number; readonly errors: number }
    | { readonly type: 'forwarded'; readonly worker: string; readonly host: string; readonly job: string; readonly to: string }
    | { readonly type: 'deferred'; readonly worker: string; readonly host: string; readonly job: string; readonly why: string }
    | { readonly type: 'job-failed'; readonly worker: string; readonly host: string; readonly job: string; readonly code: string; readonly message: string }
    | { readonly type: 'watching'; readonly worker: string; readonly host: string }
    | { readonly type: 'reaped'; readonly worker: string; readonly dead: string; readonly resumed: number; readonly deadLettered: number }
    | { readonly type: 'scheduled'; readonly worker: string; readonly queued: number }
    | { readonly type: 'lease-lost'; readonly worker: string; readonly next: string }
    | { readonly type: 'warning'; readonly worker: string; readonly message: string }
    | { readonly type: 'stopped'; readonly worker: string }
  );

/** Distributes Omit over the union, so each activity keeps its own fields. */
type ActivityInput = WorkerActivity extends infer A ? (A extends WorkerActivity ? Omit<A, 'at' | 'worker'> : never) : never;

export interface QueueWorkerEvents {
  activity: [WorkerActivity];
}

interface Holding {
  readonly generation: number;
  crawl: number;
  events: number;
  watcher: Watcher | null;
}

const TRANSIENT: ReadonlySet<string> = new Set(['unavailable', 'timeout', 'rate_limited']);
/** Stopped workers stay listed (by `inseam status`) this long. */
const KEEP_STOPPED_MS = 24 * 3600_000;

/** Runs work one at a time per key, in the order asked. */
class KeyedChain {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    const tail = next.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }
}

function hostKey(ref: HostRef): string {
  return `${ref.network}/${ref.host}`;
}

function newWorkerId(): string {
  return `w${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

function errorFacts(error: unknown): { code: string; message: string } {
  if (isConnectorError(error)) return { code: error.code, message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

function canWatch(target: CrawlTarget): boolean {
  return target.sync?.trigger === 'auto' && target.description.capabilities.includes('watch') && typeof target.connector.watch === 'function';
}

function positive(name: string, value: number | undefined, fallback: number, minimum = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < minimum) throw new InvalidArgumentError(`The worker setting ${name} must be a whole number of at least ${minimum}; it is ${String(value)}.`, { details: { argument: name } });
  return value;
}

export class QueueWorker extends EventEmitter<QueueWorkerEvents> {
  readonly #queue: HostQueue;
  readonly #store: Store;
  readonly #crawler: Crawler;
  readonly #hosts: WorkerHosts;
  readonly #concurrency: number;
  readonly #serves: WorkerHostsFilter;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #maxHops: number;
  readonly #maxLosses: number;
  readonly #schedule: ResolvedSchedule;
  readonly #held = new Map<string, Holding>();
  readonly #leaseOps = new KeyedChain();
  readonly #eventOrder = new KeyedChain();
  readonly #active = new Set<Promise<void>>();
  #id = newWorkerId();
  /** Bumped when the worker finds its leases lapsed: work of an older generation is others' now. */
  #generation = 0;
  #registered = false;
  #started = false;
  #stopping = false;
  #stopped: Promise<void> | undefined;
  #polling: Promise<void> | undefined;
  #ticking: Promise<void> | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #beating = false;
  #lastBeat = 0;
  #lastForget = 0;
  #wake: (() => void) | undefined;

  /** Throws `invalid_argument` for a setting out of range and `invalid_config` for a bad schedule duration. */
  constructor(options: QueueWorkerOptions) {
    super();
    this.#queue = options.queue;
    this.#store = options.store;
    this.#crawler = options.crawler;
    this.#hosts = options.hosts;
    this.#concurrency = positive('concurrency', options.concurrency, 4);
    this.#serves = options.serves ?? 'all';
    if (!(WORKER_HOSTS_FILTERS as readonly string[]).includes(this.#serves)) {
      throw new InvalidArgumentError(`The worker setting serves must be one of ${WORKER_HOSTS_FILTERS.join(', ')}; it is ${JSON.stringify(this.#serves)}.`, { details: { argument: 'serves' } });
    }
    this.#leaseMs = positive('leaseMs', options.leaseMs, 30_000, 500);
    this.#pollMs = positive('pollMs', options.pollMs, 2000, 10);
    this.#maxHops = positive('maxHops', options.maxHops, 3, 0);
    this.#maxLosses = positive('maxLosses', options.maxLosses, 3, 0);
    this.#schedule = resolveSchedule(options.schedule);
  }

  /** This worker's id (it changes when the worker joins again after losing its leases). */
  get id(): string {
    return this.#id;
  }

  /** Hosts this worker holds now. */
  get hosts(): string[] {
    return [...this.#held.keys()];
  }

  /** Registers the worker and starts taking jobs. Rejects with `unavailable` when the database fails. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#register();
    this.#lastBeat = Date.now();
    this.#heartbeat = setInterval(() => void this.#beat(), Math.max(100, Math.floor(this.#leaseMs / 3)));
    this.#polling = this.#poll();
  }

  /** Runs the schedule once now (the tick does it every minute): queues the syncs that are due. */
  async scheduleNow(): Promise<number> {
    const queued = await enqueueDueSyncs(this.#store, this.#queue, this.#schedule);
    const count = queued.filter((sync) => sync.queued).length;
    this.#report({ type: 'scheduled', queued: count });
    return count;
  }

  /**
   * Stops cleanly (see the module comment); idempotent. Crawls pause at their next checkpoint and
   * are queued again, so another worker resumes them.
   */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#polling;
    await this.#ticking;
    for (const key of this.#held.keys()) this.#crawler.running(refFromKey(key))?.pause();
    await Promise.allSettled([...this.#active]);
    for (const holding of this.#held.values()) await holding.watcher?.stop().catch(() => undefined);
    const id = this.#id;
    try {
      if (this.#registered) {
        await this.#queue.database.transaction(async (tx) => {
          await releaseLeasesOf(tx, id);
          await markStopped(tx, id, 'stopped');
          await this.#handOver(tx, id, false);
        });
        await this.#queue.deleteInbox(id).catch(() => undefined);
      }
    } finally {
      clearInterval(this.#heartbeat);
      this.#held.clear();
      this.#report({ type: 'stopped' });
    }
  }

  async #register(): Promise<void> {
    const id = this.#id;
    // The row first: an inbox without a live worker is swept away as abandoned.
    await registerWorker(this.#queue.database, { id, machine: hostname(), pid: process.pid, concurrency: this.#concurrency, leaseMs: this.#leaseMs });
    await this.#queue.createInbox(id);
    this.#registered = true;
    this.#report({ type: 'started', machine: hostname(), pid: process.pid, concurrency: this.#concurrency, serves: this.#serves });
  }

  #report(activity: ActivityInput): void {
    this.emit('activity', { ...activity, worker: this.#id, at: Date.now() });
  }

  #warn(message: string, error?: unknown): void {
    this.#report({ type: 'warning', message: error === undefined ? message : `${message}: ${errorFacts(error).message}` });
  }

  /* ---------------------------------------------------------------- taking jobs */

  async #poll(): Promise<void> {
    while (!this.#stopping) {
      let fetched = 0;
      try {
        if (this.#registered) {
          for (const queue of [inboxQueue(this.#id), ...sharedQueuesFor(this.#serves)]) {
            const free = this.#concurrency - this.#active.size;
            if (free <= 0 || this.#stopping) break;
            fetched += await this.#take(queue, free);
          }
          if (this.#ticking === undefined && !this.#stopping) this.#ticking = this.#tick().finally(() => (this.#ticking = undefined));
        }
      } catch (error) {
        this.#warn('Taking jobs failed', error);
      }
      if (this.#stopping) break;
      // More may be waiting when a full batch came and slots are free; otherwise wait (a freed slot wakes the loop).
      if (fetched > 0 && this.#active.size < this.#concurrency) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#pollMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /** Fetches and claims up to `limit` jobs in one transaction, and starts them. */
  async #take(queue: string, limit: number): Promise<number> {
    const generation = this.#generation;
    const id = this.#id;
    const jobs = await this.#queue.database.transaction(async (tx) => {
      const fetched = await this.#queue.fetch(queue, limit, tx);
      await recordClaims(
        tx,
        id,
        fetched.map((job) => {
          const data = (typeof job.data === 'object' && job.data !== null ? job.data : {}) as Record<string, unknown>;
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a job's data is JSON the platform wrote: the network and host are strings
          return { jobId: job.id, queue, network: String(data['network'] ?? ''), host: String(data['host'] ?? '') };
        }),
      );
      return fetched;
    });
    for (const job of jobs) {
      const work = this.#run(job, generation)
        .catch((error: unknown) => this.#warn(`Job ${job.id} ended unexpectedly`, error))
        .finally(() => {
          this.#active.delete(work);
          this.#wake?.();
        });
      this.#active.add(work);
    }
    return jobs.length;
  }

  async #tick(): Promise<void> {
    try {
      const [job] = await this.#queue.fetch(TICK_QUEUE, 1);
      if (job === undefined) return;
      try {
        const queued = await this.scheduleNow();
        await this.#queue.complete(TICK_QUEUE, job.id, { queued });
      } catch (error) {
        await this.#queue.fail(TICK_QUEUE, job.id, errorFacts(error)).catch(() => undefined);
        this.#warn('The schedule could not run', error);
      }
    } catch (error) {
      this.#warn('Taking the schedule tick failed', error);
    }
  }

  /* ---------------------------------------------------------------- running jobs */

  async #run(fetched: FetchedJob, generation: number): Promise<void> {
    let job: HostJob;
    try {
      job = parseHostJob(fetched.data);
    } catch (error) {
      const facts = errorFacts(error);
      await this.#settle(fetched, generation, (tx) => this.#queue.fail(fetched.queue, fetched.id, facts, tx));
      this.#report({ type: 'job-failed', host: '', job: fetched.id, ...facts });
      return;
    }
    if (job.type === 'sync') await this.#sync(fetched, job, generation);
    else await this.#applyEvents(fetched, job, generation);
  }

  async #sync(fetched: FetchedJob, job: SyncJob, generation: number): Promise<void> {
    const ref = refOf(job);
    const host = hostKey(ref);
    const lease = await this.#acquire(ref, 'crawl', generation);
    if (!lease.acquired) return this.#redirect(fetched, job, lease.holder, generation);
    try {
      const record = await this.#hosts.record(ref);
      if (record === null) {
        await this.#settle(fetched, generation, (tx) => this.#queue.complete(fetched.queue, fetched.id, { outcome: 'host_gone' }, tx));
        return;
      }
      if (!this.#canServe(record)) return await this.#reroute(fetched, job, record, generation);
      const target = await this.#hosts.crawlTarget(record);
      this.#report({ type: 'crawl-started', host, job: fetched.id, mode: job.mode, reason: job.reason });
      const run = await this.#crawl(target, job);
      this.#report({ type: 'crawl-ended', host, job: fetched.id, run: run.id, mode: run.mode, state: run.state, entries: run.counters.entries, error: run.error });
      if (generation !== this.#generation) return;
      const output = { outcome: run.state, run: run.id, mode: run.mode, entries: run.counters.entries, error: run.error };
      if (run.state === 'failed') {
        await this.#settle(fetched, generation, (tx) => this.#queue.fail(fetched.queue, fetched.id, output, tx));
        this.#report({ type: 'job-failed', host, job: fetched.id, code: run.error?.code ?? 'connector_failed', message: run.error?.message ?? 'The crawl failed.' });
      } else if (run.state === 'paused') {
        // Paused by this worker's stop: another worker resumes it from the checkpoint.
        await this.#settle(fetched, generation, async (tx) => {
          await this.#queue.complete(fetched.queue, fetched.id, output, tx);
          const resume: SyncJob = { type: 'sync', network: job.network, host: job.host, ...(job.placement === undefined ? {} : { placement: job.placement }), mode: 'auto', reason: 'stopped' };
          await this.#queue.sendJob(sharedQueueOf(resume), resume, { db: tx });
        });
      } else {
        // A completed crawl ends what the dead letter recorded about the host: status shows the newest run.
        await this.#settle(fetched, generation, async (tx) => {
          await this.#queue.complete(fetched.queue, fetched.id, output, tx);
          if (run.state === 'completed') await this.#queue.resolveDead(ref, tx);
        });
        if (run.state === 'completed' && !this.#stopping) await this.#keepWatch(ref, target, generation);
      }
    } catch (error) {
      if (generation !== this.#generation) return;
      if (isConnectorError(error) && error.code === 'binding_conflict' && error.details['reason'] === 'run_in_progress') {
        await this.#defer(fetched, job, generation, 'its crawl run is busy in another process');
        return;
      }
      const facts = errorFacts(error);
      await this.#settle(fetched, generation, (tx) => this.#queue.fail(fetched.queue, fetched.id, facts, tx));
      this.#report({ type: 'job-failed', host, job: fetched.id, ...facts });
    } finally {
      await this.#release(ref, 'crawl', generation);
    }
  }

  /** Runs the sync; a crawl of the host already running here is waited for (and followed by the requested one when it asked for more). */
  async #crawl(target: CrawlTarget, job: SyncJob): Promise<CrawlRunRecord> {
    const running = this.#crawler.running(target.ref);
    if (running !== undefined) {
      const run = await running.result;
      if (job.mode !== 'full' && job.restart !== true) return run;
    }
    return this.#crawler.sync(target, { mode: job.mode, ...(job.restart === true ? { restart: true } : {}) }).result;
  }

  async #applyEvents(fetched: FetchedJob, job: Exclude<HostJob, SyncJob>, generation: number): Promise<void> {
    const ref = refOf(job);
    const host = hostKey(ref);
    const lease = await this.#acquire(ref, 'events', generation);
    if (!lease.acquired) return this.#redirect(fetched, job, lease.holder, generation);
    try {
      const record = await this.#hosts.record(ref);
      if (record === null) {
        await this.#settle(fetched, generation, (tx) => this.#queue.complete(fetched.queue, fetched.id, { outcome: 'host_gone' }, tx));
        return;
      }
      if (!this.#canServe(record)) return await this.#reroute(fetched, job, record, generation);
      const target = await this.#hosts.crawlTarget(record);
      // Deliveries for one host apply in the order this worker took them.
      const outcome: EventOutcome = await this.#eventOrder.run(host, () =>
        job.type === 'events' ? this.#crawler.applyEvents(target, job.events) : this.#crawler.applyWebhook(target, webhookRequest(job.request)),
      );
      // A rescan event's crawl runs under this lease; it is held until the crawl ends.
      const rescan = outcome.rescan === null ? null : await outcome.rescan.result.catch(() => null);
      const output = { outcome: 'applied', written: outcome.written, moved: outcome.moved, deleted: outcome.deleted, errors: outcome.errors, ignored: outcome.ignored, rescan: rescan?.id ?? null };
      await this.#settle(fetched, generation, (tx) => this.#queue.complete(fetched.queue, fetched.id, output, tx));
      this.#report({ type: 'events-applied', host, job: fetched.id, written: outcome.written, moved: outcome.moved, deleted: outcome.deleted, errors: outcome.errors });
    } catch (error) {
      if (generation !== this.#generation) return;
      const facts = errorFacts(error);
      // A delivery the connector refused (a bad signature, say) will not get better by retrying.
      const refused = job.type === 'webhook' && isConnectorError(error) && !TRANSIENT.has(error.code);
      await this.#settle(fetched, generation, (tx) =>
        refused ? this.#queue.complete(fetched.queue, fetched.id, { outcome: 'refused', ...facts }, tx) : this.#queue.fail(fetched.queue, fetched.id, facts, tx),
      );
      this.#report({ type: 'job-failed', host, job: fetched.id, ...facts });
    } finally {
      await this.#release(ref, 'events', generation);
    }
  }

  /** Whether this worker can crawl the host: a `remote` worker has no folders. */
  #canServe(record: HostRecord): boolean {
    return this.#serves === 'all' || hostPlacement(record) === 'remote';
  }

  /**
   * A job for a folder host that reached a worker without folders (queued before its placement
   * was known): back to the queue the workers that have them take, never crawled here — where the
   * folder is missing it would fail, or worse, look empty.
   */
  async #reroute(fetched: FetchedJob, job: HostJob, record: HostRecord, generation: number): Promise<void> {
    const placed: HostJob = { ...job, placement: hostPlacement(record), hops: 0 };
    await this.#settle(fetched, generation, async (tx) => {
      await this.#queue.sendJob(sharedQueueOf(placed), placed, { db: tx });
      await this.#queue.complete(fetched.queue, fetched.id, { outcome: 'rerouted', to: sharedQueueOf(placed) }, tx);
    });
    this.#report({ type: 'deferred', host: hostKey(refOf(job)), job: fetched.id, why: 'its host needs a folder this worker does not serve' });
  }

  /** A job for a host another worker holds: to that worker's inbox, or (too many hops, or it just left) a little later. */
  async #redirect(fetched: FetchedJob, job: HostJob, holder: string | null, generation: number): Promise<void> {
    const hops = job.hops ?? 0;
    if (holder === null || hops >= this.#maxHops) return this.#defer(fetched, job, generation, holder === null ? 'its lease changed hands' : 'it was forwarded too often');
    let forwarded = false;
    await this.#settle(fetched, generation, async (tx) => {
      // The holder's row stays locked until commit: it cannot leave (and hand its inbox over) in between.
      forwarded = (await workerAlive(tx, holder, { lock: true })) && (await this.#queue.sendJob(inboxQueue(holder), { ...job, hops: hops + 1 }, { db: tx })) !== null;
      if (!forwarded) await this.#queue.sendJob(sharedQueueOf(job), { ...job, hops: 0 }, { db: tx, delayMs: this.#deferMs });
      await this.#queue.complete(fetched.queue, fetched.id, forwarded ? { outcome: 'forwarded', to: holder } : { outcome: 'deferred' }, tx);
    });
    if (forwarded) this.#report({ type: 'forwarded', host: hostKey(refOf(job)), job: fetched.id, to: holder });
    else this.#report({ type: 'deferred', host: hostKey(refOf(job)), job: fetched.id, why: 'its holder just left' });
  }

  async #defer(fetched: FetchedJob, job: HostJob, generation: number, why: string): Promise<void> {
    await this.#settle(fetched, generation, async (tx) => {
      await this.#queue.sendJob(sharedQueueOf(job), { ...job, hops: 0 }, { db: tx, delayMs: this.#deferMs });
      await this.#queue.complete(fetched.queue, fetched.id, { outcome: 'deferred', why }, tx);
    });
    this.#report({ type: 'deferred', host: hostKey(refOf(job)), job: fetched.id, why });
  }

  get #deferMs(): number {
    return Math.max(1000, Math.floor(this.#leaseMs / 2));
  }

  /**
   * Ends a job's claim together with `work` (completing, failing or replacing the job) in one
   * transaction; tried three times. A job of an earlier generation is left alone: it was handed
   * to others when this worker's leases lapsed.
   */
  async #settle(fetched: FetchedJob, generation: number, work: (tx: SqlExecutor) => Promise<void>): Promise<void> {
    for (let attempt = 1; generation === this.#generation; attempt++) {
      try {
        await this.#queue.database.transaction(async (tx) => {
          await work(tx);
          await dropClaim(tx, fetched.id);
        });
        return;
      } catch (error) {
        if (attempt >= 3) {
          this.#warn(`Job ${fetched.id} could not be recorded as finished (it is handed to another worker if this one goes)`, error);
          return;
        }
        await delay(attempt * 500);
      }
    }
  }

  /* ---------------------------------------------------------------- leases and watches */

  async #acquire(ref: HostRef, purpose: 'crawl' | 'events', generation: number): Promise<LeaseAttempt> {
    const key = hostKey(ref);
    return this.#leaseOps.run(key, async () => {
      if (generation !== this.#generation) return { acquired: false, holder: null };
      const held = this.#held.get(key);
      if (held !== undefined) {
        held[purpose] += 1;
        if (purpose === 'crawl') await setLeasePurpose(this.#queue.database, ref, this.#id, 'crawl').catch(() => undefined);
        return { acquired: true };
      }
      const attempt = await acquireLease(this.#queue.database, ref, this.#id, purpose);
      if (attempt.acquired) this.#held.set(key, { generation, crawl: purpose === 'crawl' ? 1 : 0, events: purpose === 'events' ? 1 : 0, watcher: null });
      return attempt;
    });
  }

  async #release(ref: HostRef, purpose: 'crawl' | 'events', generation: number): Promise<void> {
    const key = hostKey(ref);
    await this.#leaseOps
      .run(key, async () => {
        const held = this.#held.get(key);
        if (held === undefined || held.generation !== generation) return;
        held[purpose] -= 1;
        if (held.crawl + held.events > 0) return;
        if (held.watcher !== null) {
          await setLeasePurpose(this.#queue.database, ref, this.#id, 'watch');
          return;
        }
        this.#held.delete(key);
        this.#hosts.forget(ref);
        await releaseLease(this.#queue.database, ref, this.#id);
      })
      .catch((error: unknown) => this.#warn(`Releasing ${key} failed (it frees itself when this worker stops)`, error));
  }

  /** After a completed crawl: watch the host while it is auto and watchable, else stop watching it. */
  async #keepWatch(ref: HostRef, target: CrawlTarget, generation: number): Promise<void> {
    const key = hostKey(ref);
    await this.#leaseOps.run(key, async () => {
      const held = this.#held.get(key);
      if (held === undefined || held.generation !== generation || this.#stopping) return;
      if (!canWatch(target)) {
        const watcher = held.watcher;
        held.watcher = null;
        await watcher?.stop().catch(() => undefined);
        return;
      }
      if (held.watcher !== null) return;
      try {
        const watcher = await this.#crawler.watch(target);
        watcher.on('failed', (error) => this.#warn(`Applying watched changes of ${key} failed`, error));
        held.watcher = watcher;
        this.#report({ type: 'watching', host: key });
      } catch (error) {
        this.#warn(`Watching ${key} failed`, error);
      }
    });
  }

  /* ---------------------------------------------------------------- heartbeat, fencing, reaping */

  async #beat(): Promise<void> {
    if (this.#beating || this.#stopping) return;
    this.#beating = true;
    try {
      if (!this.#registered) {
        await this.#register();
        this.#lastBeat = Date.now();
        return;
      }
      let alive: boolean;
      try {
        alive = await beat(this.#queue.database, this.#id);
      } catch (error) {
        this.#warn('The heartbeat failed', error);
        // Unheard for a whole lease timeout: others may hold our hosts now.
        if (Date.now() - this.#lastBeat > this.#leaseMs) await this.#fence();
        return;
      }
      if (!alive) {
        await this.#fence();
        return;
      }
      this.#lastBeat = Date.now();
      await this.#reap();
      if (Date.now() - this.#lastForget > 60_000) {
        this.#lastForget = Date.now();
        await forgetStoppedWorkers(this.#queue.database, KEEP_STOPPED_MS);
        // Inboxes a departing worker could not drop (the database was busy or down then).
        for (const owner of await this.#queue.abandonedInboxes()) await this.#queue.deleteInbox(owner);
      }
    } catch (error) {
      this.#warn('Heartbeat work failed', error);
    } finally {
      this.#beating = false;
    }
  }

  /** This worker's leases lapsed: stop everything it did under them and join again as a new worker. */
  async #fence(): Promise<void> {
    this.#generation += 1;
    this.#registered = false;
    const holdings = [...this.#held.entries()];
    this.#held.clear();
    for (const [key] of holdings) this.#crawler.running(refFromKey(key))?.pause();
    for (const [, holding] of holdings) await holding.watcher?.stop().catch(() => undefined);
    const next = newWorkerId();
    this.#report({ type: 'lease-lost', next });
    this.#id = next;
    try {
      await this.#register();
      this.#lastBeat = Date.now();
    } catch (error) {
      this.#warn('Joining again failed; retrying at the next heartbeat', error);
    }
  }

  /** Hands every dead worker's jobs to the others, one dead worker per transaction. */
  async #reap(): Promise<void> {
    for (;;) {
      const reaped = await this.#queue.database.transaction(async (tx) => {
        const dead = await claimDeadWorker(tx);
        if (dead === null) return null;
        const moved = await this.#handOver(tx, dead, true);
        return { dead, ...moved };
      });
      if (reaped === null) return;
      await this.#queue.deleteInbox(reaped.dead).catch(() => undefined);
      this.#report({ type: 'reaped', dead: reaped.dead, resumed: reaped.resumed, deadLettered: reaped.deadLettered });
    }
  }

  /**
   * Moves a departing worker's work to the shared queues: its claimed jobs (cancelled and sent
   * again; counted as lost when it died) and its inbox's waiting jobs. Runs inside the transaction
   * that marked it stopped.
   */
  async #handOver(tx: SqlExecutor, workerId: string, died: boolean): Promise<{ resumed: number; deadLettered: number }> {
    let resumed = 0;
    let deadLettered = 0;
    const resend = async (data: unknown, lost: boolean): Promise<void> => {
      let job: HostJob;
      try {
        job = parseHostJob(data);
      } catch {
        return;
      }
      const losses = (job.lost ?? 0) + (lost ? 1 : 0);
      const again: HostJob = { ...(job.type === 'sync' && lost ? { ...job, reason: 'lost' as const } : job), hops: 0, lost: losses };
      if (losses > this.#maxLosses) {
        await this.#queue.sendJob(DEAD_QUEUE, again, { db: tx });
        deadLettered += 1;
      } else {
        await this.#queue.sendJob(sharedQueueOf(job), again, { db: tx });
        resumed += 1;
      }
    };
    for (const claim of await takeClaims(tx, workerId)) {
      const job = await this.#queue.job(claim.queue, claim.jobId, tx);
      if (job === null || !['created', 'retry', 'active'].includes(job.state)) continue;
      await this.#queue.cancel(claim.queue, [claim.jobId], tx);
      await resend(job.data, died && job.state === 'active');
    }
    const inbox = inboxQueue(workerId);
    const waiting = await this.#queue.waiting(inbox, tx);
    await this.#queue.cancel(
      inbox,
      waiting.map((job) => job.id),
      tx,
    );
    for (const job of waiting) await resend(job.data, false);
    return { resumed, deadLettered };
  }
}

function refFromKey(key: string): HostRef {
  const slash = key.indexOf('/');
  return { network: key.slice(0, slash), host: key.slice(slash + 1) };
}


function webhookRequest(data: { readonly method: string; readonly url: string; readonly headers: readonly (readonly [string, string])[]; readonly body: string | null }): Request {
  const hasBody = data.body !== null && data.method !== 'GET' && data.method !== 'HEAD';
  return new Request(data.url, { method: data.method, headers: data.headers.map(([name, value]) => [name, value] as [string, string]), ...(hasBody ? { body: Buffer.from(data.body, 'base64') } : {}) });
}
