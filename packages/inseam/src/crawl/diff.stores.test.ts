/**
 * The sync diff on both stores: it merges the host's names with the catalog's paths in one
 * ordered pass, so it relies on each store keeping paths in code-unit order (SQLite BINARY,
 * PostgreSQL COLLATE "C") — paths chosen so a locale's collation would order them otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore, type Store } from '../store/index.js';
import { PostgresStore } from '../store/postgres/store.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { MemoryHost, memoryDescription, object } from './__fixtures__/hosts.js';
import { Crawler } from './index.js';

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const stores: [string, () => Promise<Store>][] = [
  ['SQLite', async () => SqliteStore.open({ path: ':memory:' })],
  ['PostgreSQL', async () => PostgresStore.open({ url: await server.createSchema() })],
];

// Under en_US collation "a-b" sorts with "ab", "B" with "b" and "_x" after "x"; by code unit they do not.
const PATHS = ['B.md', 'a-b.md', 'a/x.md', 'a0.md', 'ab.md', 'b.md', '_x.md', 'x.md', '%C3%A9t%C3%A9.md', 'z/%20space.md'];

describe.each(stores)('the sync diff on %s', (_name, open) => {
  it('removes what is gone and moves what was renamed, touching nothing else', async () => {
    const store = await open();
    try {
      await store.networks.create({ slug: 'home' });
      const hostId = (await store.hosts.create('home', { slug: 'mem', kind: 'memory' })).id;
      const host = new MemoryHost(
        PATHS.map((path, i) => object(path, `body of ${path} ${'x'.repeat(i)}`, { mtime: '2024-01-01T00:00:00.000Z' })),
        { pageSize: 3 },
      );
      const crawler = new Crawler({ store: store.catalog, batchSize: 2 });
      const target = { ref: { network: 'home', host: 'mem' }, connector: host, description: memoryDescription };
      await crawler.sync(target).result;
      const before = new Map((await store.catalog.listEntries(hostId, { limit: 100 })).map((entry) => [entry.path, entry.id]));
      host.remove('a-b.md');
      host.remove('_x.md');
      host.rename('B.md', 'renamed/B.md');
      host.rename('a/x.md', 'c/x.md');
      host.calls.stat.length = 0;
      const run = await crawler.sync(target).result;
      expect(run).toMatchObject({ mode: 'incremental', state: 'completed', counters: { deleted: 2, moved: 2 } });
      const after = await store.catalog.listEntries(hostId, { limit: 100 });
      expect(after.map((entry) => entry.path)).toEqual([...host.objects.keys()].sort());
      expect(after.find((entry) => entry.path === 'renamed/B.md')?.id).toBe(before.get('B.md'));
      expect(after.find((entry) => entry.path === 'c/x.md')?.id).toBe(before.get('a/x.md'));
      // Unchanged paths were never stat'ed: the merge found them equal on both sides.
      expect(host.calls.stat.sort()).toEqual(['B.md', '_x.md', 'a-b.md', 'a/x.md', 'c/x.md', 'renamed/B.md'].sort());
    } finally {
      await store.close();
    }
  });
});
