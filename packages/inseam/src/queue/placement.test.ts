/**
 * Pinning hosts to the workers that can serve them, on a real PostgreSQL queue: a worker started
 * with `serves: "remote"` (no folders on its machine) never fetches a folder host's job — it stays
 * queued until a worker with the folders (`serves: "all"`) takes it — and a folder job that reached
 * it anyway (queued before its placement was known) goes back unrun. And a worker whose folder is
 * missing fails the crawl as `unavailable` instead of crawling the host as empty.
 */
import { rename } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '@inseam/connector';
import { MemoryHost, memoryDescription, object } from '../crawl/__fixtures__/hosts.js';
import { Crawler, type CrawlTarget } from '../crawl/index.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import { SqliteStore, type HostRef } from '../store/index.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { SYNC_QUEUE, SYNC_REMOTE_QUEUE, hostPlacement, parseHostJob, sharedQueuesFor } from './jobs.js';
import { HostQueue } from './queue.js';
import { QueueWorker, type WorkerActivity, type WorkerHosts } from './worker.js';
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

async function openQueue(url: string): Promise<HostQueue> {
  const opened = await openTestQueue(url);
  cleanups.push(opened.close);
  return opened.queue;
}


function crawled(activity: readonly WorkerActivity[], worker: QueueWorker): string[] {
  return activity.filter((event) => event.type === 'crawl-started' && event.worker === worker.id).map((event) => (event as { host: string }).host);
}

describe('placement', () => {
  it('is local for folder hosts and pads, remote for the rest; a remote worker looks only at remote queues', () => {
    expect(hostPlacement({ kind: 'fs', config: { root: '/srv' } })).toBe('local');
    expect(hostPlacement({ kind: 'local', config: { root: 'data/x' } })).toBe('local');
    expect(hostPlacement({ kind: 'bucket', config: { provider: 'pad' } })).toBe('local');
    expect(hostPlacement({ kind: 'bucket', config: { provider: 's3' } })).toBe('remote');
    expect(hostPlacement({ kind: 'notion', config: {} })).toBe('remote');
    expect(sharedQueuesFor('remote')).not.toContain(SYNC_QUEUE);
    expect(sharedQueuesFor('all')).toEqual(expect.arrayContaining([SYNC_QUEUE, SYNC_REMOTE_QUEUE]));
    expect(() => parseHostJob({ type: 'sync', network: 'home', host: 'x', mode: 'auto', reason: 'requested', placement: 'moon' })).toThrow(/placement/);
  });

  it('keeps a folder host\'s jobs from a worker without folders: they wait for one that has them', async () => {
    const url = await server.createDatabase();
    const store = SqliteStore.open({ path: ':memory:' });
    cleanups.push(() => store.close());
    await store.networks.create({ slug: 'home' });
    const connectors = new Map<string, Connector>([
      ['notes', new MemoryHost([object('a.md', 'alpha')])],
      ['legacy', new MemoryHost([object('b.md', 'beta')])],
      ['tickets', new MemoryHost([object('t1.json', '{}'), object('t2.json', '{}')])],
    ]);
    const records = [
      await store.hosts.create('home', { slug: 'notes', kind: 'fs', config: { root: '/srv/notes' } }),
      await store.hosts.create('home', { slug: 'legacy', kind: 'fs', config: { root: '/srv/legacy' } }),
      await store.hosts.create('home', { slug: 'tickets', kind: 'tickets' }),
    ];
    const hosts: WorkerHosts = {
      record: (ref) => store.hosts.get(ref),
      crawlTarget: async (record): Promise<CrawlTarget> => ({ ref: { network: record.network, host: record.slug }, connector: connectors.get(record.slug)!, description: memoryDescription, sync: record.sync }),
      forget: () => undefined,
    };
    const activity: WorkerActivity[] = [];
    const start = async (serves: 'all' | 'remote'): Promise<QueueWorker> => {
      const worker = new QueueWorker({ queue: await openQueue(url), store, crawler: new Crawler({ store: store.catalog, leaseMs: 750 }), hosts, serves, concurrency: 2, leaseMs: 1500, pollMs: 50 });
      worker.on('activity', (event) => activity.push(event));
      await worker.start();
      cleanups.push(() => worker.stop());
      return worker;
    };
    const queue = await openQueue(url);
    const ref = (slug: string): HostRef => ({ network: 'home', host: slug });
    for (const record of records) if (record.slug !== 'legacy') await queue.requestSync(ref(record.slug), { placement: hostPlacement(record) });
    // A folder host's job in the remote queue, as one queued with a wrong placement would be.
    await queue.sendJob(SYNC_REMOTE_QUEUE, { type: 'sync', network: 'home', host: 'legacy', mode: 'auto', reason: 'requested', placement: 'remote' });

    const remote = await start('remote');
    const runs = async (slug: string) => store.catalog.listRuns((await store.catalog.resolveHost(ref(slug)))!, 10);
    await waitFor('the API host crawled by the remote worker', async () => (await runs('tickets')).some((run) => run.state === 'completed'));
    await waitFor('the wrongly placed folder job sent back', async () => (await queue.waiting(SYNC_QUEUE)).length === 2);
    expect(crawled(activity, remote)).toEqual(['home/tickets']);
    expect((await queue.waiting(SYNC_QUEUE)).map((job) => parseHostJob(job.data).host).sort()).toEqual(['legacy', 'notes']);
    expect(activity).toContainEqual(expect.objectContaining({ type: 'deferred', worker: remote.id, host: 'home/legacy', why: expect.stringContaining('folder') }));
    expect(await runs('notes')).toEqual([]);
    expect(await runs('legacy')).toEqual([]);

    const local = await start('all');
    await waitFor('the folder hosts crawled by the worker that has them', async () => (await runs('notes')).some((run) => run.state === 'completed') && (await runs('legacy')).some((run) => run.state === 'completed'));
    expect(crawled(activity, local).sort()).toEqual(['home/legacy', 'home/notes']);
    expect(crawled(activity, remote)).toEqual(['home/tickets']);
    expect(activity.find((event) => event.type === 'started' && event.worker === remote.id)).toMatchObject({ serves: 'remote' });
  });

  it('fails the crawl of a folder host whose folder is missing as unavailable, leaving its catalog as it was', async () => {
    const url = await server.createDatabase();
    const dataDir = await tempDir('placement');
    const folder = await tempDir('placement-folder');
    cleanups.push(() => removeDir(dataDir));
    cleanups.push(() => removeDir(`${folder}.away`));
    cleanups.push(() => removeDir(folder));
    await writeFiles(folder, { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    const platform = await openTestPlatform(dataDir);
    cleanups.push(() => platform.close());
    await platform.networks.init('home');
    await platform.networks.addHost({ network: 'home', slug: 'files', kind: 'fs', config: { root: folder } });
    const ref = { network: 'home', host: 'files' };
    expect(await (await platform.sync(ref)).result).toMatchObject({ state: 'completed' });
    const hostId = (await platform.store.catalog.resolveHost(ref))!;
    // This worker's machine does not have the folder (an unmounted share).
    await rename(folder, `${folder}.away`);
    const queue = await openQueue(url);
    const activity: WorkerActivity[] = [];
    const worker = new QueueWorker({
      queue: await openQueue(url),
      store: platform.store,
      crawler: platform.crawler,
      hosts: { record: (at) => platform.store.hosts.get(at), crawlTarget: (record) => platform.kinds.crawlTarget(record), forget: (at) => platform.kinds.forget(at) },
      leaseMs: 1500,
      pollMs: 50,
    });
    worker.on('activity', (event) => activity.push(event));
    await worker.start();
    cleanups.push(() => worker.stop());
    await queue.requestSync(ref, { mode: 'full', placement: 'local' });
    const failed = await waitFor('the crawl failing', async () => activity.find((event) => event.type === 'job-failed'));
    expect(failed).toMatchObject({ code: 'unavailable' });
    expect((await platform.store.catalog.listEntries(hostId, { limit: 10 })).map((entry) => entry.path)).toEqual(['a.txt', 'b.txt']);
  });
});
