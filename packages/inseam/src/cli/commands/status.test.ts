/**
 * `inseam status` on the embedded store (running and failed crawls) and on the shared PostgreSQL
 * store (workers, queue depths, leases, the dead letter), as text and as JSON; on both, the vector
 * index's backend and per network what is indexed, pending and failed for its model.
 */
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { HostQueue, QueueDatabase, SYNC_QUEUE } from '../../queue/index.js';
import { acquireLease, registerWorker } from '../../queue/leases.js';
import { PostgresStore } from '../../store/index.js';
import { startTestPostgres, type TestPostgres } from '../../store/postgres/__fixtures__/test-postgres.js';
import { cli } from './__fixtures__/cli.js';

let dataDir: string;
let server: TestPostgres;

beforeAll(async () => {
  dataDir = await tempDir('cli-status');
  server = await startTestPostgres();
});

afterAll(async () => {
  await removeDir(dataDir);
  await server.stop();
});

interface StatusJson {
  store: string;
  workers: { id: string; alive: boolean; jobs: number; hosts: string[]; stopReason: string | null }[];
  queues: { queue: string; waiting: number; active: number; retrying: number }[];
  leases: { host: string; worker: string; purpose: string; alive: boolean }[];
  running: { host: string; run: number; owner: string | null }[];
  failing: { host: string; kind: string; code: string; message: string }[];
  vectors: { backend: string; version: string | null; networks: { network: string; vectorHost: string | null; model: string | null; indexed: number; pending: number; failed: number }[] };
}

describe('inseam status', () => {
  it('shows crawls in progress and failing hosts on the embedded store', async () => {
    const platform = await openTestPlatform(dataDir);
    try {
      await platform.store.networks.create({ slug: 'home' });
      const broken = await platform.store.hosts.create('home', { slug: 'broken', kind: 'fs' });
      const busy = await platform.store.hosts.create('home', { slug: 'busy', kind: 'fs' });
      const now = Date.now();
      const failed = await platform.store.catalog.createRun({ hostId: broken.id, mode: 'full', since: null, owner: 'cli', totalEstimate: null, now });
      await platform.store.catalog.finishRun(failed.id, { state: 'failed', owner: 'cli', error: { code: 'permission_denied', message: 'The folder is not readable.' }, now });
      await platform.store.catalog.createRun({ hostId: busy.id, mode: 'full', since: null, owner: '4242@elsewhere#abc', totalEstimate: null, now });
    } finally {
      await platform.close();
    }
    const text = await cli(dataDir, ['status']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Store: embedded (SQLite)');
    expect(text.stdout).toMatch(/Crawls running: 1\n[\s\S]*home\/busy +\d+ +full +0 +4242@elsewhere#abc/);
    expect(text.stdout).toMatch(/Failing hosts: 1\n[\s\S]*home\/broken +crawl failed .*The folder is not readable\. \[permission_denied\]/);
    const json = JSON.parse((await cli(dataDir, ['status', '--json'])).stdout) as StatusJson;
    expect(json).toMatchObject({ store: 'sqlite', workers: [], queues: [], leases: [] });
    expect(json.running).toEqual([expect.objectContaining({ host: 'home/busy', owner: '4242@elsewhere#abc' })]);
    expect(json.failing).toEqual([expect.objectContaining({ host: 'home/broken', kind: 'run_failed', code: 'permission_denied' })]);
  });

  it('says which vector backend the store uses and how many entries are indexed, pending and failed', async () => {
    const data = await tempDir('cli-status-vectors');
    const folder = await tempDir('cli-status-vectors-files');
    try {
      await writeFiles(folder, { 'a.md': 'The harbour crane ships on Tuesday.\n', 'b.md': 'Quarterly revenue rose in Europe.\n' });
      const platform = await openTestPlatform(data);
      try {
        await platform.networks.init('home');
        await platform.networks.init('work');
        await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: folder } });
        await (await platform.sync({ network: 'home', host: 'notes' })).result;
        await platform.vectors.idle();
        // Two more files catalogued with indexing held back; the embedder fails on one of them.
        await platform.vectors.close();
        await writeFiles(folder, { 'c.md': 'The dentist moved to Thursday.\n', 'd.md': 'The basement flooded.\n' });
        const record = await platform.networks.hostRecord({ network: 'home', host: 'notes' });
        await platform.crawler.sync(await platform.kinds.crawlTarget(record), { mode: 'full' }).result;
        const model = (await platform.store.vectors.models())[0]!.model;
        const [pending] = await platform.store.vectors.pending({ model, hostIds: [record.id], limit: 1 });
        await platform.store.vectors.markFailed({ entryId: pending!.entryId, model, expect: { contentKey: pending!.contentKey, updatedAt: pending!.updatedAt }, error: { code: 'unavailable', message: 'The embeddings server answered 503.' }, now: Date.now() });
      } finally {
        await platform.close();
      }
      const json = JSON.parse((await cli(data, ['status', '--json'])).stdout) as StatusJson;
      expect(json.vectors).toEqual({
        backend: 'sqlite-vec',
        version: expect.stringMatching(/\d/),
        networks: [
          { network: 'home', vectorHost: 'vector', model: 'wink-sg100d-v1-sif-a0.0003-w200000', indexed: 2, pending: 1, failed: 1, chunks: 2 },
          { network: 'work', vectorHost: 'vector', model: 'wink-sg100d-v1-sif-a0.0003-w200000', indexed: 0, pending: 0, failed: 0, chunks: 0 },
        ],
      });
      const text = await cli(data, ['status']);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/Vector index: sqlite-vec v?\d/);
      expect(text.stdout).toMatch(/home +vector +wink-sg100d-v1-sif-a0\.0003-w200000 +2 +1 +1\n/);
    } finally {
      await removeDir(data);
      await removeDir(folder);
    }
  }, 120_000);

  it('shows workers, queue depths, leases and dead-lettered hosts on the shared store', async () => {
    const url = await server.createDatabase();
    const empty = await cli(dataDir, ['--store', url, 'status']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('No worker has started on it yet');

    const store = await PostgresStore.open({ url });
    const database = new QueueDatabase({ url });
    const queue = await HostQueue.start({ database });
    try {
      await store.networks.create({ slug: 'home' });
      for (const slug of ['notes', 'mail', 'later']) await store.hosts.create('home', { slug, kind: 'fs' });
      await registerWorker(database, { id: 'wlive', machine: hostname(), pid: process.pid, concurrency: 3, leaseMs: 60_000 });
      await registerWorker(database, { id: 'wdead', machine: 'gone', pid: 1, concurrency: 1, leaseMs: 1000 });
      await database.executeSql(`UPDATE inseam_queue.workers SET heartbeat_at = now() - interval '1 hour' WHERE id = 'wdead'`);
      await acquireLease(database, { network: 'home', host: 'notes' }, 'wlive', 'crawl');
      await queue.requestSync({ network: 'home', host: 'later' });
      await queue.sendJob('inseam-dead', { type: 'sync', network: 'home', host: 'mail', mode: 'auto', reason: 'lost', lost: 4 });
    } finally {
      await queue.stop();
      await database.close();
      await store.close();
    }
    const json = JSON.parse((await cli(dataDir, ['--store', url, 'status', '--json'])).stdout) as StatusJson;
    expect(json.store).toBe('postgres');
    expect(json.workers).toEqual([
      expect.objectContaining({ id: 'wlive', alive: true, jobs: 0, hosts: ['home/notes'] }),
      expect.objectContaining({ id: 'wdead', alive: false, hosts: [] }),
    ]);
    expect(json.queues.find((depth) => depth.queue === SYNC_QUEUE)).toMatchObject({ waiting: 1, active: 0 });
    expect(json.leases).toEqual([expect.objectContaining({ host: 'home/notes', worker: 'wlive', purpose: 'crawl', alive: true })]);
    expect(json.failing).toEqual([expect.objectContaining({ host: 'home/mail', kind: 'dead_letter', code: 'worker_lost' })]);
    // pgvector cannot be installed here: the exact scan, and no vector host in a network made without one.
    expect(json.vectors).toMatchObject({ backend: 'exact', version: null, networks: [{ network: 'home', vectorHost: null, indexed: 0, pending: 0 }] });

    const text = await cli(dataDir, ['--store', url, 'status']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Workers: 1 alive, 1 stopped or lost');
    expect(text.stdout).toMatch(/wlive +\S+ +\d+ +0\/3 +.* alive +home\/notes/);
    expect(text.stdout).toMatch(/inseam-sync +1 +0 +0 +0 +0/);
    expect(text.stdout).toMatch(/home\/mail +dead letter .*\[worker_lost\]/);
    expect(text.stdout).not.toContain(url);
    expect(text.stdout).toMatch(/Vector index: exact scan \(PostgreSQL without pgvector\)\n[\s\S]*home +- \(no semantic search\)/);

    const retried = await cli(dataDir, ['--store', url, 'status', '--retry-dead', '--json']);
    expect(retried.stderr).toContain('Sent 1 dead-lettered job back to its queue.');
    const after = JSON.parse(retried.stdout) as StatusJson;
    expect(after.failing).toEqual([]);
    expect(after.queues.find((depth) => depth.queue === SYNC_QUEUE)).toMatchObject({ waiting: 2 });
    expect(after.queues.find((depth) => depth.queue === 'inseam-dead')).toMatchObject({ waiting: 0 });
    expect((await cli(dataDir, ['status', '--retry-dead'])).code).toBe(2);
  });
});
