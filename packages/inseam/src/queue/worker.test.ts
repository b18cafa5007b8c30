/**
 * Workers in one process against a real PostgreSQL queue and one shared catalog: leases,
 * forwarding to the holder, retries into the dead letter, reaping a dead worker (its crawl resumes
 * from its checkpoint elsewhere), fencing a worker whose heartbeat lapsed, watches that keep a
 * host's events on its worker, a clean stop, deferral when the run is busy, and the schedule.
 * (Separate processes killed with SIGKILL are cluster.test.ts's.)
 */
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PermissionDeniedError } from '@neuralis/package-system/contracts';
import type { SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { Connector } from '@inseam/connector';
import { MemoryHost, SyntheticHost, memoryDescription, object } from '../crawl/__fixtures__/hosts.js';
import { Crawler, type CrawlTarget } from '../crawl/index.js';
import { SqliteStore, type HostRef } from '../store/index.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { DEAD_QUEUE, SYNC_QUEUE, inboxQueue, parseHostJob } from './jobs.js';
import { acquireLease, recordClaims, registerWorker } from './leases.js';
import { HostQueue } from './queue.js';
import { QUEUE_SCHEMA } from './schema.js';
import { catalogStatus, currentFailures, queueStatus } from './status.js';
import { QueueWorker, type WorkerActivity } from './worker.js';
import { openTestQueue, waitFor } from './__fixtures__/waiting.js';

let server: TestPostgres;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await server.stop();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

interface Cluster {
  readonly url: string;
  readonly store: SqliteStore;
  readonly connectors: Map<string, Connector>;
  readonly activity: WorkerActivity[];
  /** A queue handle for the test itself. */
  readonly queue: HostQueue;
  addHost(slug: string, connector: Connector, sync?: SourceSyncSettings | null): Promise<HostRef>;
  worker(options?: { concurrency?: number; leaseMs?: number; maxLosses?: number; crawlerOwner?: string }): Promise<QueueWorker>;
}

async function openQueue(url: string): Promise<HostQueue> {
  const opened = await openTestQueue(url);
  cleanups.push(opened.close);
  return opened.queue;
}

async function cluster(): Promise<Cluster> {
  const url = await server.createDatabase();
  const store = SqliteStore.open({ path: ':memory:' });
  cleanups.push(() => store.close());
  await store.networks.create({ slug: 'home' });
  const connectors = new Map<string, Connector>();
  const activity: WorkerActivity[] = [];
  const queue = await openQueue(url);
  return {
    url,
    store,
    connectors,
    activity,
    queue,
    async addHost(slug, connector, sync = null) {
      connectors.set(slug, connector);
      await store.hosts.create('home', { slug, kind: 'memory', sync });
      return { network: 'home', host: slug };
    },
    async worker(options = {}) {
      const workerQueue = await openQueue(url);
      const leaseMs = options.leaseMs ?? 1500;
      const crawler = new Crawler({ store: store.catalog, batchSize: 20, leaseMs: Math.ceil(leaseMs / 2), ...(options.crawlerOwner === undefined ? {} : { owner: options.crawlerOwner }) });
      const worker = new QueueWorker({
        queue: workerQueue,
        store,
        crawler,
        hosts: {
          record: (ref) => store.hosts.get(ref),
          crawlTarget: async (record): Promise<CrawlTarget> => ({ ref: { network: record.network, host: record.slug }, connector: connectors.get(record.slug)!, description: memoryDescription, sync: record.sync }),
          forget: () => undefined,
        },
        concurrency: options.concurrency ?? 2,
        leaseMs,
        pollMs: 50,
        maxLosses: options.maxLosses ?? 3,
      });
      worker.on('activity', (event) => activity.push(event));
      await worker.start();
      cleanups.push(() => worker.stop());
      return worker;
    },
  };
}


async function runsOf(store: SqliteStore, ref: HostRef) {
  const hostId = (await store.catalog.resolveHost(ref))!;
  return store.catalog.listRuns(hostId, 50);
}

async function completedRun(store: SqliteStore, ref: HostRef) {
  return waitFor(`a completed crawl of ${ref.host}`, async () => (await runsOf(store, ref)).find((run) => run.state === 'completed'));
}

async function jobStates(queue: HostQueue, name: string): Promise<string[]> {
  return (await queue.database.query<{ state: string }>('SELECT state FROM pgboss.job WHERE name = $1 ORDER BY created_on', [name])).map((row) => row.state);
}

/** Checks no host was crawled by two workers at once, from the crawl-started/ended activity. */
function overlaps(activity: readonly WorkerActivity[]): string[] {
  const open = new Map<string, { worker: string; at: number }[]>();
  const found: string[] = [];
  for (const event of activity) {
    if (event.type === 'crawl-started') {
      const current = open.get(event.host) ?? [];
      if (current.some((other) => other.worker !== event.worker)) found.push(`${event.host}: ${event.worker} started while ${current.map((other) => other.worker).join(', ')} crawled`);
      open.set(event.host, [...current, { worker: event.worker, at: event.at }]);
    } else if (event.type === 'crawl-ended') {
      const current = open.get(event.host) ?? [];
      const index = current.findIndex((other) => other.worker === event.worker);
      if (index >= 0) current.splice(index, 1);
    }
  }
  return found;
}

describe('QueueWorker', () => {
  it('crawls each queued host once, under its lease, and completes the jobs', async () => {
    const c = await cluster();
    const refs = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((slug) => c.addHost(slug, new SyntheticHost({ count: 120, pageSize: 20, pageDelayMs: 5 }))));
    for (const ref of refs) await c.queue.requestSync(ref);
    await Promise.all([c.worker(), c.worker()]);
    for (const ref of refs) {
      const run = await completedRun(c.store, ref);
      expect(run.counters.entries).toBe(120);
      expect(await runsOf(c.store, ref)).toHaveLength(1);
    }
    await waitFor('every job completed', async () => (await jobStates(c.queue, SYNC_QUEUE)).every((state) => state === 'completed') || undefined);
    expect(overlaps(c.activity)).toEqual([]);
    expect(new Set(c.activity.filter((event) => event.type === 'crawl-ended').map((event) => event.worker)).size).toBe(2);
    const leases = await c.queue.database.query(`SELECT * FROM ${QUEUE_SCHEMA}.leases`);
    expect(leases).toEqual([]);
  });

  it('starts and stops many workers at once without tripping over each other', async () => {
    const c = await cluster();
    for (let round = 0; round < 2; round++) {
      const workers = await Promise.all(Array.from({ length: 5 }, () => c.worker({ concurrency: 1 })));
      const inboxes = await c.queue.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.queue WHERE name LIKE 'inseam-inbox-%'`);
      expect(inboxes[0]!.n).toBe(5);
      await Promise.all(workers.map((worker) => worker.stop()));
      const left = await c.queue.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.queue WHERE name LIKE 'inseam-inbox-%'`);
      expect(left[0]!.n).toBe(0);
    }
    expect(c.activity.filter((event) => event.type === 'warning')).toEqual([]);
    expect(c.activity.filter((event) => event.type === 'stopped')).toHaveLength(10);
  });

  it('forwards a job for a host another worker holds to that worker, which runs it after its crawl', async () => {
    const c = await cluster();
    const ref = await c.addHost('slow', new SyntheticHost({ count: 400, pageSize: 10, pageDelayMs: 20 }));
    // One slot, busy with the first crawl: the second request can only be taken by the other worker.
    const holder = await c.worker({ concurrency: 1 });
    await c.queue.requestSync(ref);
    await waitFor('the first crawl to start', () => c.activity.find((event) => event.type === 'crawl-started'));
    const other = await c.worker();
    await c.queue.requestSync(ref, { mode: 'full' });
    const forwarded = await waitFor('the forward', () => c.activity.find((event) => event.type === 'forwarded'));
    expect(forwarded).toMatchObject({ worker: other.id, to: holder.id, host: 'home/slow' });
    await waitFor('two crawls', async () => (await runsOf(c.store, ref)).filter((run) => run.state === 'completed').length === 2);
    expect(c.activity.filter((event) => event.type === 'crawl-ended').every((event) => event.worker === holder.id)).toBe(true);
    expect((await runsOf(c.store, ref)).map((run) => run.mode)).toEqual(['full', 'full']);
    expect(overlaps(c.activity)).toEqual([]);
  });

  it('retries a failing crawl with backoff, resuming its run, then moves the job to the dead letter', async () => {
    const c = await cluster();
    const host = new MemoryHost([object('a.md', 'alpha'), object('b.md', 'beta')], { pageSize: 1 });
    host.beforePage = (page) => {
      if (page === 1) throw new PermissionDeniedError('token revoked');
    };
    const ref = await c.addHost('flaky', host);
    await c.worker();
    const started = Date.now();
    await c.queue.requestSync(ref);
    const dead = await waitFor('the dead letter', async () => (await c.queue.waiting(DEAD_QUEUE))[0]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(parseHostJob(dead.data)).toMatchObject({ type: 'sync', network: 'home', host: 'flaky' });
    const failures = c.activity.filter((event) => event.type === 'job-failed');
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({ code: 'permission_denied' });
    // The retry resumed the failed run from its checkpoint instead of starting another.
    const runs = await runsOf(c.store, ref);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ state: 'failed', error: { code: 'permission_denied' } });
    expect(await jobStates(c.queue, SYNC_QUEUE)).toEqual(['failed']);
    const status = await queueStatus(c.queue.database);
    expect(status.failing).toEqual([{ host: 'home/flaky', kind: 'dead_letter', code: 'permission_denied', message: 'token revoked', attempts: null, at: expect.any(Number) }]);
    expect(status.queues.find((queue) => queue.queue === DEAD_QUEUE)).toMatchObject({ waiting: 1 });
    expect(status.queues.find((queue) => queue.queue === SYNC_QUEUE)).toMatchObject({ waiting: 0, active: 0, failed: 1 });
    expect((await catalogStatus(c.store)).failing).toEqual([expect.objectContaining({ host: 'home/flaky', kind: 'run_failed', code: 'permission_denied' })]);
  });

  it('shows its workers, queue depths, leases and running crawls in the status', async () => {
    const c = await cluster();
    const ref = await c.addHost('slow', new SyntheticHost({ count: 400, pageSize: 10, pageDelayMs: 20 }));
    await c.addHost('later', new MemoryHost([object('a.md', 'alpha')]));
    const worker = await c.worker({ concurrency: 1 });
    await c.queue.requestSync(ref);
    await waitFor('the crawl', () => c.activity.find((event) => event.type === 'crawl-started'));
    await c.queue.requestSync({ network: 'home', host: 'later' });
    const status = await queueStatus(c.queue.database);
    expect(status.workers).toEqual([
      expect.objectContaining({ id: worker.id, alive: true, concurrency: 1, jobs: 1, hosts: ['home/slow'], stoppedAt: null, pid: process.pid, machine: hostname() }),
    ]);
    expect(status.leases).toEqual([{ host: 'home/slow', worker: worker.id, purpose: 'crawl', since: expect.any(Number), alive: true }]);
    expect(status.queues.find((queue) => queue.queue === SYNC_QUEUE)).toMatchObject({ waiting: 1, active: 1 });
    expect(status.queues.find((queue) => queue.worker === worker.id)).toMatchObject({ queue: inboxQueue(worker.id), waiting: 0 });
    expect(status.failing).toEqual([]);
    const catalog = await catalogStatus(c.store);
    expect(catalog.running).toEqual([expect.objectContaining({ host: 'home/slow', mode: 'full', owner: expect.any(String) })]);
    await worker.stop();
    const after = await queueStatus(c.queue.database);
    expect(after.workers).toEqual([expect.objectContaining({ id: worker.id, alive: false, stopReason: 'stopped', jobs: 0, hosts: [] })]);
    expect(after.queues.some((queue) => queue.worker === worker.id)).toBe(false);
  });

  it("hands a dead worker's jobs to another, which resumes the crawl from its checkpoint", async () => {
    const c = await cluster();
    const ref = await c.addHost('big', new SyntheticHost({ count: 300, pageSize: 20 }));
    const other = await c.addHost('other', new MemoryHost([object('x.md', 'x')]));
    // A worker that crawls a few pages, then stops answering and never beats again (as if killed).
    const { database } = c.queue;
    await registerWorker(database, { id: 'wdead', machine: hostname(), pid: 999_999, concurrency: 1, leaseMs: 300 });
    await c.queue.createInbox('wdead');
    await c.queue.requestSync(ref);
    const [job] = await database.transaction(async (tx) => {
      const fetched = await c.queue.fetch(SYNC_QUEUE, 1, tx);
      await recordClaims(tx, 'wdead', [{ jobId: fetched[0]!.id, queue: SYNC_QUEUE, ...ref }]);
      return fetched;
    });
    expect(await acquireLease(database, ref, 'wdead', 'crawl')).toEqual({ acquired: true });
    await c.queue.deliverEvents(other, [{ type: 'delete', path: 'x.md' }]);
    expect(await c.queue.waiting(inboxQueue('wdead'))).toHaveLength(0);
    await acquireLease(database, other, 'wdead', 'watch');
    await c.queue.deliverEvents(other, [{ type: 'put', path: 'x.md' }]);
    expect(await c.queue.waiting(inboxQueue('wdead'))).toHaveLength(1);
    const hung = new SyntheticHost({ count: 300, pageSize: 20 });
    let pages = 0;
    const stuck: Connector = {
      describe: () => hung.describe(),
      stat: (path) => hung.stat(path),
      read: (path) => hung.read(path),
      list: (options) => (++pages > 3 ? new Promise(() => undefined) : hung.list(options)),
    };
    const dying = new Crawler({ store: c.store.catalog, batchSize: 20, owner: `999999@${hostname()}#dead` });
    void dying.sync({ ref, connector: stuck, description: memoryDescription }).result.catch(() => undefined);
    const checkpoint = await waitFor('a checkpoint', async () => (await runsOf(c.store, ref)).find((run) => run.counters.entries >= 40));
    const survivor = await c.worker({ leaseMs: 1500 });
    const reaped = await waitFor('the reaping', () => c.activity.find((event) => event.type === 'reaped'));
    // The claimed sync and the inbox's event (two, when the survivor forwarded the shared one to wdead before it was found dead).
    expect(reaped).toMatchObject({ worker: survivor.id, dead: 'wdead', resumed: expect.any(Number), deadLettered: 0 });
    expect(reaped.type === 'reaped' && reaped.resumed).toBeGreaterThanOrEqual(2);
    const run = await completedRun(c.store, ref);
    // The same run, resumed from its checkpoint, with every entry once.
    expect(run.id).toBe(checkpoint.id);
    expect(run.counters.entries).toBe(300);
    expect(await c.store.catalog.countEntries(run.hostId)).toBe(300);
    const resumed = c.activity.find((event) => event.type === 'crawl-started');
    expect(resumed).toMatchObject({ worker: survivor.id, reason: 'lost' });
    expect((await c.queue.job(SYNC_QUEUE, job!.id))?.state).toBe('cancelled');
    // The event that waited in the dead worker's inbox was applied too.
    await waitFor('the moved event', () => c.activity.find((event) => event.type === 'events-applied' && event.host === 'home/other'));
    expect(await c.queue.database.query(`SELECT stop_reason FROM ${QUEUE_SCHEMA}.workers WHERE id = 'wdead'`)).toEqual([{ stop_reason: 'lost' }]);
  });

  it('sends a job whose workers keep dying to the dead letter', async () => {
    const c = await cluster();
    const ref = await c.addHost('poison', new MemoryHost([object('a.md', 'alpha')]));
    const { database } = c.queue;
    await registerWorker(database, { id: 'wgone', machine: hostname(), pid: 999_998, concurrency: 1, leaseMs: 300 });
    await c.queue.createInbox('wgone');
    await c.queue.sendJob(SYNC_QUEUE, { type: 'sync', ...ref, mode: 'auto', reason: 'lost', lost: 2 });
    await database.transaction(async (tx) => {
      const fetched = await c.queue.fetch(SYNC_QUEUE, 1, tx);
      await recordClaims(tx, 'wgone', [{ jobId: fetched[0]!.id, queue: SYNC_QUEUE, ...ref }]);
    });
    await c.worker({ maxLosses: 2 });
    const reaped = await waitFor('the reaping', () => c.activity.find((event) => event.type === 'reaped'));
    expect(reaped).toMatchObject({ dead: 'wgone', resumed: 0, deadLettered: 1 });
    const [dead] = await c.queue.waiting(DEAD_QUEUE);
    expect(parseHostJob(dead!.data)).toMatchObject({ host: 'poison', lost: 3 });
    expect(await runsOf(c.store, ref)).toEqual([]);
  });

  it('leaves a host dead-lettered after its workers died to a person, and status follows its newest run', async () => {
    const c = await cluster();
    const ref = await c.addHost('poison', new MemoryHost([object('a.md', 'alpha'), object('b.md', 'beta')]), { trigger: 'auto', interval: 'PT1H' });
    const { database } = c.queue;
    // Its crawl was left running by a worker that died, and the job's workers kept dying: a job with
    // two losses, claimed by a dead worker, goes to the dead letter when that one is reaped.
    const hung = new MemoryHost([object('a.md', 'alpha'), object('b.md', 'beta')], { pageSize: 1 });
    let pages = 0;
    const stuck: Connector = { describe: () => hung.describe(), stat: (path) => hung.stat(path), read: (path) => hung.read(path), list: (options) => (++pages > 1 ? new Promise(() => undefined) : hung.list(options)) };
    const dying = new Crawler({ store: c.store.catalog, batchSize: 1, owner: `999997@${hostname()}#dead` });
    void dying.sync({ ref, connector: stuck, description: memoryDescription }).result.catch(() => undefined);
    await waitFor('the dying run', async () => (await runsOf(c.store, ref)).find((run) => run.state === 'running'));
    await registerWorker(database, { id: 'wkilled', machine: hostname(), pid: 999_997, concurrency: 1, leaseMs: 300 });
    await c.queue.createInbox('wkilled');
    await c.queue.sendJob(SYNC_QUEUE, { type: 'sync', ...ref, mode: 'auto', reason: 'lost', lost: 3 });
    await database.transaction(async (tx) => {
      const fetched = await c.queue.fetch(SYNC_QUEUE, 1, tx);
      await recordClaims(tx, 'wkilled', [{ jobId: fetched[0]!.id, queue: SYNC_QUEUE, ...ref }]);
    });
    await c.worker({ maxLosses: 3 });
    expect(await waitFor('the reaping', () => c.activity.find((event) => event.type === 'reaped'))).toMatchObject({ dead: 'wkilled', deadLettered: 1 });
    expect(await c.queue.waiting(DEAD_QUEUE)).toHaveLength(1);

    // The minute's tick: the host is auto and its run unfinished, but it waits for a person.
    await c.queue.tickNow();
    expect(await waitFor('the tick', () => c.activity.find((event) => event.type === 'scheduled'))).toMatchObject({ queued: 0 });
    expect(await c.queue.waiting(SYNC_QUEUE)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(c.activity.filter((event) => event.type === 'crawl-started')).toEqual([]);
    const before = await queueStatus(database);
    expect(currentFailures(before.failing, await catalogStatus(c.store))).toEqual([expect.objectContaining({ host: 'home/poison', kind: 'dead_letter', code: 'worker_lost' })]);

    // A person asks (what `inseam crawl` and the web page's Sync send): it runs, and then the host is not failing.
    await c.queue.requestSync(ref);
    await completedRun(c.store, ref);
    await waitFor('the dead letter resolved', async () => ((await c.queue.waiting(DEAD_QUEUE)).length === 0 ? true : undefined));
    const after = await queueStatus(database);
    expect(after.failing).toEqual([]);
    expect(currentFailures(after.failing, await catalogStatus(c.store))).toEqual([]);
    expect(after.queues.find((queue) => queue.queue === DEAD_QUEUE)).toMatchObject({ waiting: 0 });

    // A dead-letter record older than a crawl that completed elsewhere (in a process of its own) is not shown either.
    const other = await c.addHost('elsewhere', new MemoryHost([object('x.md', 'x')]));
    await c.queue.sendJob(DEAD_QUEUE, { type: 'sync', ...other, mode: 'auto', reason: 'lost', lost: 4 });
    expect(currentFailures((await queueStatus(database)).failing, await catalogStatus(c.store))).toEqual([expect.objectContaining({ host: 'home/elsewhere', kind: 'dead_letter' })]);
    const local = new Crawler({ store: c.store.catalog, batchSize: 20 });
    expect((await local.sync({ ref: other, connector: c.connectors.get('elsewhere')!, description: memoryDescription }).result).state).toBe('completed');
    expect(currentFailures((await queueStatus(database)).failing, await catalogStatus(c.store))).toEqual([]);
  });

  it('pauses everything when its own heartbeat lapsed, joins again as a new worker, and the crawl resumes', async () => {
    const c = await cluster();
    const ref = await c.addHost('long', new SyntheticHost({ count: 400, pageSize: 10, pageDelayMs: 10 }));
    const worker = await c.worker({ leaseMs: 900 });
    const first = worker.id;
    await c.queue.requestSync(ref);
    await waitFor('a checkpoint', async () => (await runsOf(c.store, ref)).find((run) => run.counters.entries >= 30));
    // As if the worker had been frozen longer than its lease timeout.
    await c.queue.database.executeSql(`UPDATE ${QUEUE_SCHEMA}.workers SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [first]);
    const lost = await waitFor('the fence', () => c.activity.find((event) => event.type === 'lease-lost'));
    expect(lost).toMatchObject({ worker: first });
    expect(worker.id).not.toBe(first);
    const run = await completedRun(c.store, ref);
    expect(run.counters.entries).toBe(400);
    expect(await runsOf(c.store, ref)).toHaveLength(1);
    expect(c.activity.find((event) => event.type === 'reaped')).toMatchObject({ dead: first });
  });

  it('keeps watching an auto host it crawled, so its events reach that worker; a stopped watcher is replaced', async () => {
    const c = await cluster();
    const host = new MemoryHost([object('a.md', 'alpha')]);
    const ref = await c.addHost('watched', host, { trigger: 'auto' });
    const first = await c.worker();
    expect(await first.scheduleNow()).toBe(1);
    await waitFor('the watch', () => c.activity.find((event) => event.type === 'watching'));
    expect(await c.queue.database.query(`SELECT worker_id, purpose FROM ${QUEUE_SCHEMA}.leases`)).toEqual([{ worker_id: first.id, purpose: 'watch' }]);
    expect(first.hosts).toEqual(['home/watched']);
    // Its connector's own watch events, and a delivery through the queue (routed to its inbox).
    host.put(object('b.md', 'beta'), true);
    host.put(object('c.md', 'gamma'));
    await c.queue.deliverEvents(ref, [{ type: 'put', path: 'c.md' }]);
    const applied = await waitFor('the delivery', () => c.activity.find((event) => event.type === 'events-applied'));
    expect(applied).toMatchObject({ worker: first.id, written: 1 });
    const hostId = (await c.store.catalog.resolveHost(ref))!;
    await waitFor('both entries', async () => (await c.store.catalog.getEntry(hostId, 'c.md')) !== null && (await c.store.catalog.getEntry(hostId, 'b.md')) !== null);
    await first.stop();
    expect(host.watching).toBe(0);
    const second = await c.worker();
    expect(await second.scheduleNow()).toBe(1);
    await waitFor('a new watcher', () => c.activity.find((event) => event.type === 'watching' && event.worker === second.id));
    expect(c.activity.find((event) => event.type === 'crawl-started' && event.worker === second.id)).toMatchObject({ reason: 'rehome' });
    expect(host.watching).toBe(1);
  });

  it('pauses its crawls when it stops, and another worker resumes them from the checkpoint', async () => {
    const c = await cluster();
    const ref = await c.addHost('paused', new SyntheticHost({ count: 300, pageSize: 10, pageDelayMs: 10 }));
    const first = await c.worker();
    await c.queue.requestSync(ref);
    const checkpoint = await waitFor('a checkpoint', async () => (await runsOf(c.store, ref)).find((run) => run.counters.entries >= 30));
    await first.stop();
    expect((await runsOf(c.store, ref))[0]).toMatchObject({ id: checkpoint.id, state: 'paused' });
    expect(await c.queue.database.query(`SELECT stop_reason FROM ${QUEUE_SCHEMA}.workers WHERE id = $1`, [first.id])).toEqual([{ stop_reason: 'stopped' }]);
    const second = await c.worker();
    const run = await completedRun(c.store, ref);
    expect(run.id).toBe(checkpoint.id);
    expect(run.counters.entries).toBe(300);
    expect(c.activity.find((event) => event.type === 'crawl-started' && event.worker === second.id)).toMatchObject({ reason: 'stopped' });
  });

  it('defers a crawl whose run another process is busy with, and runs it once that one ends', async () => {
    const c = await cluster();
    // The outside crawl stops after its first page until the worker has deferred, so it is still
    // running however slowly the worker starts, and it heartbeats every second (its 3 s lease),
    // well inside the worker's crawler lease (3 s of the worker's 6 s): a run whose heartbeat looks
    // stale is taken over, not deferred. (A crawl that merely took a while, with the default 30 s
    // lease beating every 10 s, looked stale to a worker that took over 750 ms to start.)
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const host = new MemoryHost(['a.md', 'b.md', 'c.md'].map((name) => object(name, name)), { pageSize: 1 });
    host.beforePage = (page) => (page > 0 ? held : undefined);
    const ref = await c.addHost('shared', host);
    const cli = new Crawler({ store: c.store.catalog, leaseMs: 3000 });
    const outside = cli.sync({ ref, connector: host, description: memoryDescription });
    await waitFor('the outside crawl', async () => (await runsOf(c.store, ref)).length === 1);
    await c.worker({ leaseMs: 6000 });
    await c.queue.requestSync(ref);
    await waitFor('the deferral', () => c.activity.find((event) => event.type === 'deferred'));
    release();
    expect((await outside.result).state).toBe('completed');
    await waitFor('the deferred sync', async () => (await runsOf(c.store, ref)).filter((run) => run.state === 'completed').length === 2);
    expect((await runsOf(c.store, ref)).map((run) => run.mode)).toEqual(['incremental', 'full']);
  });

  it('runs the schedule from the tick: first crawls of auto hosts, nothing for manual ones', async () => {
    const c = await cluster();
    const auto = await c.addHost('auto', new MemoryHost([object('a.md', 'alpha')]), { trigger: 'auto', interval: 'PT1H' });
    const manual = await c.addHost('manual', new MemoryHost([object('m.md', 'manual')]), { trigger: 'manual' });
    await c.worker();
    expect(await c.queue.tickNow()).toEqual(expect.any(String));
    const scheduled = await waitFor('the tick', () => c.activity.find((event) => event.type === 'scheduled'));
    expect(scheduled).toMatchObject({ queued: 1 });
    await completedRun(c.store, auto);
    expect(await runsOf(c.store, manual)).toEqual([]);
    expect(c.activity.find((event) => event.type === 'crawl-started')).toMatchObject({ host: 'home/auto', reason: 'added' });
  });
});
