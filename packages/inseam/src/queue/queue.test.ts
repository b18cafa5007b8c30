/**
 * The queue on a real PostgreSQL: starting it from several processes at once, deduplicated syncs,
 * jobs committed (or rolled back) with the transaction that caused them, host leases that follow
 * their worker's heartbeat, events routed to the worker holding the host, and the checks on job
 * data and on the schedule's decisions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlRunRecord } from '../store/index.js';
import { ZERO_COUNTERS } from '../store/index.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { QueueDatabase, isDeadlock } from './database.js';
import { DEAD_QUEUE, EVENTS_QUEUE, SYNC_QUEUE, SYNC_REMOTE_QUEUE, TICK_QUEUE, inboxQueue, parseHostJob } from './jobs.js';
import { PostgresStore } from '../store/postgres/store.js';
import { addHostWithFirstCrawl } from './hosts.js';
import { acquireLease, beat, claimDeadWorker, leaseHolder, markStopped, registerWorker, releaseLease } from './leases.js';
import { HostQueue } from './queue.js';
import { dueSync, resolveSchedule, type HostSyncFacts } from './schedule.js';
import { QUEUE_SCHEMA, migrateQueueSchema } from './schema.js';

let server: TestPostgres;
const open: { database: QueueDatabase; queue?: HostQueue }[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await server.stop();
});

afterEach(async () => {
  for (const item of open.splice(0)) {
    await item.queue?.stop();
    await item.database.close();
  }
});

async function startQueue(url: string): Promise<HostQueue> {
  const database = new QueueDatabase({ url });
  const item: { database: QueueDatabase; queue?: HostQueue } = { database };
  open.push(item);
  item.queue = await HostQueue.start({ database, retry: { limit: 1, delaySeconds: 1 } });
  return item.queue;
}

const REF = { network: 'home', host: 'notes' };

describe('HostQueue', () => {
  it('starts from several processes at once on an empty database, and again on a prepared one', async () => {
    const url = await server.createDatabase();
    const queues = await Promise.all([startQueue(url), startQueue(url), startQueue(url)]);
    const names = (await queues[0].database.query<{ name: string }>('SELECT name FROM pgboss.queue ORDER BY name')).map((row) => row.name);
    expect(names).toEqual(expect.arrayContaining([DEAD_QUEUE, EVENTS_QUEUE, SYNC_QUEUE, TICK_QUEUE]));
    const versions = await queues[0].database.query(`SELECT version FROM ${QUEUE_SCHEMA}.migrations`);
    expect(versions).toEqual([{ version: 1 }]);
    const schedules = await queues[0].database.query<{ name: string; cron: string }>('SELECT name, cron FROM pgboss.schedule');
    expect(schedules).toEqual([{ name: TICK_QUEUE, cron: '* * * * *' }]);
    await startQueue(url);
  });

  it('keeps one waiting sync per host, mode and restart', async () => {
    const queue = await startQueue(await server.createDatabase());
    const first = await queue.requestSync(REF);
    expect(first).toEqual(expect.any(String));
    expect(await queue.requestSync(REF, { reason: 'interval' })).toBeNull();
    expect(await queue.requestSync(REF, { mode: 'full' })).toEqual(expect.any(String));
    expect(await queue.requestSync(REF, { restart: true })).toEqual(expect.any(String));
    expect(await queue.requestSync({ network: 'home', host: 'other' })).toEqual(expect.any(String));
    // Once the waiting one is taken, the next request queues again.
    const taken = await queue.database.transaction((tx) => queue.fetch(SYNC_QUEUE, 10, tx));
    expect(taken.map((job) => job.id)).toContain(first);
    expect(await queue.requestSync(REF)).toEqual(expect.any(String));
  });

  it('commits a job with the transaction that caused it, and drops it with one rolled back', async () => {
    const queue = await startQueue(await server.createDatabase());
    const { database } = queue;
    await database.executeSql('CREATE TABLE added (slug text PRIMARY KEY)');
    await database.transaction(async (tx) => {
      await tx.executeSql("INSERT INTO added VALUES ('kept')");
      await queue.requestSync({ network: 'home', host: 'kept' }, { reason: 'added' }, { db: tx });
    });
    await expect(
      database.transaction(async (tx) => {
        await queue.requestSync({ network: 'home', host: 'lost' }, { reason: 'added' }, { db: tx });
        await tx.executeSql("INSERT INTO added VALUES ('kept')"); // a duplicate: the transaction fails
      }),
    ).rejects.toMatchObject({ code: 'unavailable', details: { postgres: '23505' } });
    const jobs = await queue.waiting(SYNC_QUEUE);
    expect(jobs.map((job) => (job.data as { host: string }).host)).toEqual(['kept']);
    expect(await database.query('SELECT slug FROM added')).toEqual([{ slug: 'kept' }]);
  });

  it('routes events to the inbox of the live worker holding the host, else to the shared queue', async () => {
    const queue = await startQueue(await server.createDatabase());
    const { database } = queue;
    await registerWorker(database, { id: 'wa', machine: 'm', pid: 1, concurrency: 1, leaseMs: 60_000 });
    await queue.createInbox('wa');
    const events = [{ type: 'delete' as const, path: 'a.md' }];
    await queue.deliverEvents(REF, events);
    expect(await queue.waiting(EVENTS_QUEUE)).toHaveLength(1);
    expect(await acquireLease(database, REF, 'wa', 'watch')).toEqual({ acquired: true });
    await queue.deliverEvents(REF, events);
    await queue.deliverWebhook(REF, new Request('https://inseam.example/hook', { method: 'POST', headers: { 'x-signature': 'abc' }, body: '{"events":[]}' }));
    const inbox = await queue.waiting(inboxQueue('wa'));
    expect(inbox.map((job) => parseHostJob(job.data).type)).toEqual(['events', 'webhook']);
    const webhook = parseHostJob(inbox[1]!.data);
    expect(webhook.type === 'webhook' && Buffer.from(webhook.request.body!, 'base64').toString()).toBe('{"events":[]}');
    expect(webhook.type === 'webhook' && webhook.request.headers).toContainEqual(['x-signature', 'abc']);
    // A holder that stopped holds nothing.
    await markStopped(database, 'wa', 'stopped');
    await queue.deliverEvents(REF, events);
    expect(await queue.waiting(EVENTS_QUEUE)).toHaveLength(2);
  });

  it('refuses a webhook body over the limit', async () => {
    const queue = await startQueue(await server.createDatabase());
    const body = new Uint8Array(1024 * 1024 + 1);
    await expect(queue.deliverWebhook(REF, new Request('https://inseam.example/hook', { method: 'POST', body }))).rejects.toMatchObject({ code: 'too_large' });
  });

  it('refuses a retry policy out of range and a URL that is not PostgreSQL', async () => {
    const database = new QueueDatabase({ url: await server.createDatabase() });
    open.push({ database });
    await expect(HostQueue.start({ database, retry: { limit: -1, delaySeconds: 1 } })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(() => new QueueDatabase({ url: 'file:///tmp/inseam.db' })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('answers unavailable, without the URL or its password, when PostgreSQL cannot be reached', async () => {
    const database = new QueueDatabase({ url: 'postgres://inseam:s3cret@127.0.0.1:1/none' });
    open.push({ database });
    const error = await HostQueue.start({ database }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'unavailable', details: { postgres: 'ECONNREFUSED' } });
    expect(String((error as Error).message)).not.toContain('s3cret');
    expect(String((error as Error).message)).not.toContain('127.0.0.1');
  });
});

describe('addHostWithFirstCrawl', () => {
  it('commits an auto host with its first crawl, and a refused host with no job', async () => {
    const url = await server.createDatabase();
    const queue = await startQueue(url);
    const store = await PostgresStore.open({ url });
    try {
      await store.networks.create({ slug: 'home' });
      const added = await addHostWithFirstCrawl(store, queue, 'home', { slug: 'notes', kind: 'fs', config: { root: '/srv/notes' }, sync: { trigger: 'auto' } });
      expect(added.slug).toBe('notes');
      await addHostWithFirstCrawl(store, queue, 'home', { slug: 'archive', kind: 'fs', sync: { trigger: 'manual' } });
      await expect(addHostWithFirstCrawl(store, queue, 'home', { slug: 'notes', kind: 'fs', sync: { trigger: 'auto' } })).rejects.toMatchObject({ code: 'already_exists' });
      await expect(addHostWithFirstCrawl(store, queue, 'nowhere', { slug: 'notes', kind: 'fs', sync: { trigger: 'auto' } })).rejects.toMatchObject({ code: 'not_found' });
      // Preparing the host (its credentials, its folders) happens inside the transaction: when it fails, neither host nor job is left.
      const refused = new Error('credentials could not be stored');
      await expect(
        addHostWithFirstCrawl(store, queue, 'home', { slug: 'api', kind: 'notes-api', sync: { trigger: 'auto' } }, undefined, async () => {
          throw refused;
        }),
      ).rejects.toBe(refused);
      const prepared: string[] = [];
      await addHostWithFirstCrawl(store, queue, 'home', { slug: 'tickets', kind: 'tickets', sync: { trigger: 'auto' } }, undefined, async (host) => void prepared.push(host.slug));
      expect(prepared).toEqual(['tickets']);
      // A folder host's crawl goes to the queue only workers that see the folders take; an API host's to the one every worker takes.
      const jobs = (await queue.waiting(SYNC_QUEUE)).map((job) => parseHostJob(job.data));
      expect(jobs).toEqual([{ type: 'sync', network: 'home', host: 'notes', placement: 'local', mode: 'auto', reason: 'added' }]);
      expect((await queue.waiting(SYNC_REMOTE_QUEUE)).map((job) => parseHostJob(job.data))).toEqual([{ type: 'sync', network: 'home', host: 'tickets', placement: 'remote', mode: 'auto', reason: 'added' }]);
      expect((await store.hosts.list('home')).map((host) => host.slug)).toEqual(['archive', 'notes', 'tickets']);
    } finally {
      await store.close();
    }
  });
});

describe('leases', () => {
  it('are held while their worker beats, pass on when it dies, and are refused to a dead worker', async () => {
    const database = new QueueDatabase({ url: await server.createDatabase() });
    open.push({ database });
    await migrateQueueSchema(database);
    await registerWorker(database, { id: 'wa', machine: 'm', pid: 1, concurrency: 1, leaseMs: 300 });
    await registerWorker(database, { id: 'wb', machine: 'm', pid: 2, concurrency: 1, leaseMs: 60_000 });
    expect(await acquireLease(database, REF, 'wa', 'crawl')).toEqual({ acquired: true });
    expect(await acquireLease(database, REF, 'wa', 'watch')).toEqual({ acquired: true });
    expect(await acquireLease(database, REF, 'wb', 'crawl')).toEqual({ acquired: false, holder: 'wa' });
    expect(await leaseHolder(database, REF)).toBe('wa');
    // wa stops beating: a lease timeout later its lease is free, and it cannot take one again.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await leaseHolder(database, REF)).toBeNull();
    expect(await beat(database, 'wa')).toBe(false);
    expect(await acquireLease(database, REF, 'wb', 'crawl')).toEqual({ acquired: true });
    expect(await acquireLease(database, { network: 'home', host: 'other' }, 'wa', 'crawl')).toEqual({ acquired: false, holder: null });
    expect(await releaseLease(database, REF, 'wa')).toBe(false);
    expect(await releaseLease(database, REF, 'wb')).toBe(true);
    // The dead worker is claimed for reaping exactly once.
    expect(await claimDeadWorker(database)).toBe('wa');
    expect(await claimDeadWorker(database)).toBeNull();
    expect(await beat(database, 'wb')).toBe(true);
  });

  it('let exactly one of many workers racing for a host take it', async () => {
    const database = new QueueDatabase({ url: await server.createDatabase(), max: 20 });
    open.push({ database });
    await migrateQueueSchema(database);
    const ids = Array.from({ length: 12 }, (_, index) => `w${index}`);
    for (const [index, id] of ids.entries()) await registerWorker(database, { id, machine: 'm', pid: index, concurrency: 1, leaseMs: 60_000 });
    const attempts = await Promise.all(ids.map((id) => acquireLease(database, REF, id, 'crawl')));
    const winners = attempts.filter((attempt) => attempt.acquired);
    expect(winners).toHaveLength(1);
    const holder = await leaseHolder(database, REF);
    for (const attempt of attempts) if (!attempt.acquired && attempt.holder !== null) expect(attempt.holder).toBe(holder);
  });
});

describe('isDeadlock', () => {
  it('knows a deadlock victim as the driver throws it and as the store wraps it, and nothing else', () => {
    expect(isDeadlock(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(true);
    expect(isDeadlock(new UnavailableError('The inseam database could not queue a job (40P01).', { details: { postgres: '40P01' } }))).toBe(true);
    expect(isDeadlock(new UnavailableError('down', { details: { postgres: 'ECONNREFUSED' } }))).toBe(false);
    expect(isDeadlock(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDeadlock(null)).toBe(false);
  });
});

describe('parseHostJob', () => {
  it('accepts the three job types and refuses malformed data, naming what is wrong', () => {
    expect(parseHostJob({ type: 'sync', network: 'n', host: 'h', mode: 'full', reason: 'interval', hops: 1 })).toEqual({ type: 'sync', network: 'n', host: 'h', mode: 'full', reason: 'interval', hops: 1 });
    expect(parseHostJob({ type: 'events', network: 'n', host: 'h', events: [] })).toEqual({ type: 'events', network: 'n', host: 'h', events: [] });
    const bad = [
      [null, 'not an object'],
      [{ type: 'sync', host: 'h', mode: 'auto', reason: 'added' }, 'no network or host'],
      [{ type: 'sync', network: 'n', host: 'h', mode: 'sometimes', reason: 'added' }, 'mode'],
      [{ type: 'sync', network: 'n', host: 'h', mode: 'auto', reason: 'because' }, 'unknown reason'],
      [{ type: 'sync', network: 'n', host: 'h', mode: 'auto', reason: 'added', hops: -1 }, 'hops'],
      [{ type: 'events', network: 'n', host: 'h', events: 'all' }, 'events is not an array'],
      [{ type: 'webhook', network: 'n', host: 'h', request: { method: 'POST', url: 'u', headers: [['a']], body: null } }, 'headers'],
      [{ type: 'drop-tables', network: 'n', host: 'h' }, 'unknown type'],
    ] as const;
    for (const [data, why] of bad) {
      expect(() => parseHostJob(data), why).toThrow(expect.objectContaining({ code: 'invalid_argument', message: expect.stringContaining(why) }));
    }
  });
});

describe('dueSync', () => {
  const MINUTE = 60_000;
  const schedule = resolveSchedule({ defaultInterval: 'PT15M', rescanInterval: 'PT1H' }, 0);
  const now = 10 * 60 * MINUTE;
  const run = (patch: Partial<CrawlRunRecord>): CrawlRunRecord => ({
    id: 1,
    hostId: 1,
    host: REF,
    mode: 'incremental',
    state: 'completed',
    phase: 'done',
    cursor: null,
    since: null,
    watermark: null,
    owner: null,
    heartbeatAt: null,
    totalEstimate: null,
    counters: ZERO_COUNTERS,
    scopeTally: null,
    error: null,
    startedAt: now - 20 * MINUTE,
    updatedAt: now - 20 * MINUTE,
    finishedAt: now - 20 * MINUTE,
    elapsedMs: 0,
    ...patch,
  });
  const facts = (patch: Partial<HostSyncFacts>): HostSyncFacts => ({
    sync: { trigger: 'auto' },
    lastRun: run({}),
    lastFullAt: now - 30 * MINUTE,
    pending: false,
    leased: false,
    watchOrphaned: false,
    ...patch,
  });

  it('follows the embedded scheduler: first crawl, interval, rescan, resume, rehome', () => {
    expect(dueSync(facts({ lastRun: null }), schedule, now)).toEqual({ mode: 'auto', reason: 'added' });
    expect(dueSync(facts({}), schedule, now)).toEqual({ mode: 'auto', reason: 'interval' });
    expect(dueSync(facts({ lastFullAt: now - 61 * MINUTE }), schedule, now)).toEqual({ mode: 'full', reason: 'rescan' });
    expect(dueSync(facts({ lastFullAt: null }), schedule, now)).toEqual({ mode: 'full', reason: 'rescan' });
    expect(dueSync(facts({ lastRun: run({ finishedAt: now - 5 * MINUTE }) }), schedule, now)).toBeNull();
    expect(dueSync(facts({ sync: { trigger: 'auto', interval: 'PT1M' }, lastRun: run({ finishedAt: now - 5 * MINUTE }) }), schedule, now)).toEqual({ mode: 'auto', reason: 'interval' });
    expect(dueSync(facts({ lastRun: run({ state: 'paused', finishedAt: null }) }), schedule, now)).toEqual({ mode: 'auto', reason: 'resume' });
    expect(dueSync(facts({ lastRun: run({ state: 'running', finishedAt: null }), leased: true }), schedule, now)).toBeNull();
    expect(dueSync(facts({ lastRun: run({ finishedAt: now - MINUTE }), watchOrphaned: true }), schedule, now)).toEqual({ mode: 'auto', reason: 'rehome' });
    // A failed run is tried again at the interval.
    expect(dueSync(facts({ lastRun: run({ state: 'failed', finishedAt: now - MINUTE }) }), schedule, now)).toBeNull();
    expect(dueSync(facts({ lastRun: run({ state: 'failed', finishedAt: now - 16 * MINUTE }) }), schedule, now)).toEqual({ mode: 'auto', reason: 'interval' });
  });

  it('leaves a dead-lettered host alone until its interval has passed since it was dead-lettered', () => {
    const unfinished = run({ state: 'running', finishedAt: null });
    expect(dueSync(facts({ lastRun: unfinished, deadLetteredAt: now - 22_000 }), schedule, now)).toBeNull();
    expect(dueSync(facts({ lastRun: null, deadLetteredAt: now - 14 * MINUTE }), schedule, now)).toBeNull();
    expect(dueSync(facts({ lastRun: unfinished, deadLetteredAt: now - 15 * MINUTE }), schedule, now)).toEqual({ mode: 'auto', reason: 'resume' });
    expect(dueSync(facts({ sync: { trigger: 'auto', interval: 'PT1M' }, lastRun: unfinished, deadLetteredAt: now - 2 * MINUTE }), schedule, now)).toEqual({ mode: 'auto', reason: 'resume' });
    expect(dueSync(facts({ lastRun: unfinished, deadLetteredAt: null }), schedule, now)).toEqual({ mode: 'auto', reason: 'resume' });
  });

  it('leaves manual hosts, hosts without settings and hosts with a sync waiting alone', () => {
    expect(dueSync(facts({ sync: { trigger: 'manual' }, lastRun: null }), schedule, now)).toBeNull();
    expect(dueSync(facts({ sync: null, lastRun: null }), schedule, now)).toBeNull();
    expect(dueSync(facts({ pending: true, lastRun: null }), schedule, now)).toBeNull();
    expect(dueSync(facts({ sync: { trigger: 'manual' }, lastRun: run({ finishedAt: now - 16 * MINUTE }) }), schedule, now)).toBeNull();
    expect(dueSync(facts({ sync: { trigger: 'manual' }, lastRun: run({ state: 'failed', finishedAt: now - 16 * MINUTE }) }), schedule, now)).toBeNull();
  });

  it('resumes a manual host\'s unfinished crawl (a person started it; a restart must not drop it), unless a worker holds it', () => {
    expect(dueSync(facts({ sync: { trigger: 'manual' }, lastRun: run({ state: 'paused', finishedAt: null }) }), schedule, now)).toEqual({ mode: 'auto', reason: 'resume' });
    expect(dueSync(facts({ sync: null, lastRun: run({ state: 'running', finishedAt: null }) }), schedule, now)).toEqual({ mode: 'auto', reason: 'resume' });
    expect(dueSync(facts({ sync: { trigger: 'manual' }, lastRun: run({ state: 'running', finishedAt: null }), leased: true }), schedule, now)).toBeNull();
    expect(dueSync(facts({ sync: { trigger: 'manual' }, pending: true, lastRun: run({ state: 'paused', finishedAt: null }) }), schedule, now)).toBeNull();
  });

  it('refuses a schedule duration that is not ISO 8601', () => {
    expect(() => resolveSchedule({ defaultInterval: 'every hour' })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});
