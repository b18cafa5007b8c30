/**
 * The API on the shared PostgreSQL store with crawls routed through the queue, as `inseam up
 * --store postgres://…` runs it: an added host and its first crawl commit together, a requested
 * crawl is a queued job (not run in the server), GET …/crawl shows it queued and then the run a
 * worker — with a crawler the server knows nothing of — recorded in the store, and a webhook
 * delivery is queued (202) for the worker, whose connector verifies and applies it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { Crawler } from '../crawl/index.js';
import { call } from '../http/__fixtures__/api.js';
import { registerHooked, signed } from '../http/__fixtures__/hooked-connector.js';
import { ADMIN_FEATURES, TokenService, createServer } from '../http/index.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { PostgresStore } from '../store/index.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { QueuedCrawlRequests } from './crawl-requests.js';
import { QueueDatabase } from './database.js';
import { EVENTS_REMOTE_QUEUE, SYNC_QUEUE, SYNC_REMOTE_QUEUE, inboxQueue, parseHostJob } from './jobs.js';
import { acquireLease, markStopped, registerWorker } from './leases.js';
import { HostQueue } from './queue.js';
import { QueueWorker } from './worker.js';
import { waitFor } from './__fixtures__/waiting.js';

let server: TestPostgres;
let dataDir: string;
let folder: string;
let platform: Platform;
let database: QueueDatabase;
let queue: HostQueue;
let app: FastifyInstance;
let api: { url: string };
let admin: string;
let worker: QueueWorker | undefined;

beforeAll(async () => {
  server = await startTestPostgres();
  const url = await server.createDatabase();
  dataDir = await tempDir('queued-api');
  folder = await tempDir('queued-api-files');
  await writeFiles(folder, { 'a.txt': 'alpha\n', 'docs/b.md': '# Beta\n' });
  platform = await openTestPlatform(dataDir, { storeUrl: url, env: {} });
  database = new QueueDatabase({ url });
  queue = await HostQueue.start({ database, retry: { limit: 1, delaySeconds: 1 } });
  platform.routeCrawls(new QueuedCrawlRequests({ store: platform.store as PostgresStore, queue }));
  await platform.networks.init('home');
  await registerHooked(platform);
  const tokens = new TokenService(platform.store.tokens);
  admin = (await tokens.create({ name: 'admin', userId: 'ann', features: ADMIN_FEATURES })).token;
  app = await createServer({ platform, tokens, mcp: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  api = { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` };
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await queue?.stop();
  await database?.close();
  await platform?.close();
  await server?.stop();
  await removeDir(dataDir);
  await removeDir(folder);
});


/** A worker as on another machine: its own crawler, so the server's crawler never sees its runs. */
async function startWorker(): Promise<QueueWorker> {
  const started = new QueueWorker({
    queue,
    store: platform.store,
    crawler: new Crawler({ store: platform.store.catalog, leaseMs: 750 }),
    hosts: { record: (ref) => platform.store.hosts.get(ref), crawlTarget: (record) => platform.kinds.crawlTarget(record), forget: () => undefined },
    leaseMs: 1500,
    pollMs: 50,
  });
  await started.start();
  return started;
}

describe('crawls and webhooks through the queue', () => {
  it('queues an added host\'s first crawl with it, and a requested crawl instead of running it here', async () => {
    const added = await call(api, 'POST', '/v1/hosts', { token: admin, body: { slug: 'files', kind: 'fs', config: { root: folder }, sync: { trigger: 'auto' } } });
    expect(added.status, added.text).toBe(201);
    const waiting = (await queue.waiting(SYNC_QUEUE)).map((job) => parseHostJob(job.data));
    expect(waiting).toEqual([{ type: 'sync', network: 'home', host: 'files', placement: 'local', mode: 'auto', reason: 'added' }]);
    const status = await call(api, 'GET', '/v1/hosts/home/files/crawl', { token: admin });
    expect(status.json()).toMatchObject({ state: 'queued', running: false, queued: { state: 'waiting', mode: 'auto' }, progress: null, entries: 0 });
    // Asking again while the same crawl waits queues nothing more.
    const requested = await call(api, 'POST', '/v1/hosts/home/files/crawl', { token: admin, body: {} });
    expect(requested.status).toBe(202);
    expect(requested.json()).toMatchObject({ state: 'queued', queued: { job: status.json().queued.job } });
    expect(platform.crawler.running({ network: 'home', host: 'files' })).toBeUndefined();
    const full = await call(api, 'POST', '/v1/hosts/home/files/crawl', { token: admin, body: { mode: 'full' } });
    expect(full.json().state).toBe('queued');
    expect((await queue.waiting(SYNC_QUEUE)).map((job) => parseHostJob(job.data)).map((job) => job.type === 'sync' && job.mode)).toEqual(['auto', 'full']);
  });

  it('reports the run a worker recorded, whichever worker ran it', async () => {
    worker = await startWorker();
    const done = await waitFor('the worker\'s crawls', async () => {
      const answer = (await call(api, 'GET', '/v1/hosts/home/files/crawl', { token: admin })).json();
      return answer.state === 'idle' && answer.progress?.state === 'completed' && answer.progress.mode === 'full' ? answer : undefined;
    });
    expect(done).toMatchObject({ running: false, queued: null, entries: 2, lastSync: expect.any(Number) });
  });

  it('counts a run as running only while a live worker holds its host', async () => {
    const requests = platform.crawls;
    // The files host stays held: the worker watches it after its crawl.
    expect(await requests.heldElsewhere({ network: 'home', host: 'files' })).toBe(true);
    const ref = { network: 'home', host: 'pad' };
    expect(await requests.heldElsewhere(ref)).toBe(false);
    await registerWorker(database, { id: 'wother', machine: 'elsewhere', pid: 1, concurrency: 1, leaseMs: 60_000 });
    expect(await acquireLease(database, ref, 'wother', 'crawl')).toEqual({ acquired: true });
    expect(await requests.heldElsewhere(ref)).toBe(true);
    await markStopped(database, 'wother', 'stopped');
    expect(await requests.heldElsewhere(ref)).toBe(false);
  });

  it('queues a webhook delivery for the worker holding the host, whose connector verifies and applies it', async () => {
    await platform.networks.addHost({ network: 'home', slug: 'hooked', kind: 'hooked', config: {} });
    // The worker started above polls every 50 ms, so the host's first crawl (queued with it) may already be its run.
    const requested = await call(api, 'POST', '/v1/hosts/home/hooked/crawl', { token: admin, body: {} });
    expect(requested.status).toBe(202);
    expect(['queued', 'running']).toContain(requested.json().state);
    expect(platform.crawler.running({ network: 'home', host: 'hooked' })).toBeUndefined();
    const id = (await platform.store.catalog.resolveHost({ network: 'home', host: 'hooked' }))!;
    const entries = async (): Promise<string[]> => (await platform.store.catalog.listEntries(id, { limit: 10 })).map((entry) => entry.path);
    await waitFor('the hooked host crawled', async () => (await entries()).length === 3);
    const minted = (await call(api, 'POST', '/v1/hosts/home/hooked/webhook-url', { token: admin })).json();
    const body = JSON.stringify({ deleted: ['a.txt'] });
    const delivered = await call(api, 'POST', minted.path, { body, headers: signed(body) });
    expect(delivered.status, delivered.text).toBe(202);
    expect(delivered.json()).toEqual({ state: 'queued', job: expect.any(String) });
    await waitFor('the delivery applied by the worker', async () => (await entries()).join() === 'b.txt,c.txt');
    const rows = await waitFor('the delivery job completed', async () => {
      const found = await database.query<{ name: string; state: string; data: unknown }>('SELECT name, state, data FROM pgboss.job WHERE id = $1', [delivered.json().job]);
      return found[0]?.state === 'completed' ? found : undefined;
    });
    // To the worker still holding the host after its crawl, else to the shared queue of hosts that need no folder.
    expect([EVENTS_REMOTE_QUEUE, inboxQueue(worker!.id)]).toContain(rows[0]!.name);
    // The key never went into the queue: the job holds the URL without it.
    expect(JSON.stringify(rows[0]!.data)).not.toContain('whk_');
    expect(await queue.waiting(SYNC_REMOTE_QUEUE)).toEqual([]);
  });
});
