/**
 * A names listing with etags (crawl/target.ts HostNamesPage): the diff stores again what changed
 * under an unchanged name, removes what the scope now leaves out, and the run skips its `since`
 * listing; without etags the diff is what it was, and the `since` listing runs.
 */
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/index.js';
import { MemoryHost, memoryDescription, object } from './__fixtures__/hosts.js';
import { Crawler } from './index.js';

/** A memory host whose names carry each object's etag. */
class EtagHost extends MemoryHost {
  override async names(options: { readonly cursor?: string } = {}): Promise<{ paths: string[]; etags: (string | null)[]; cursor?: string }> {
    const page = await super.names(options);
    return { ...page, etags: page.paths.map((path) => this.objects.get(path)!.entry.etag ?? null) };
  }
}

async function setUp(host: MemoryHost) {
  const store = SqliteStore.open({ path: ':memory:' });
  await store.networks.create({ slug: 'home' });
  const hostId = (await store.hosts.create('home', { slug: 'mem', kind: 'memory' })).id;
  const crawler = new Crawler({ store: store.catalog, batchSize: 2 });
  // Objects over 100 bytes are left out by a rule on a dimension the names alone do not show.
  const target = { ref: { network: 'home', host: 'mem' }, connector: host, description: memoryDescription, scope: { rules: [{ exclude: { dim: 'size', op: 'gt' as const, value: 100 } }] } };
  return { store, hostId, crawler, target };
}

const PATHS = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'];

describe('the sync diff with etags', () => {
  it('stores again the entries whose etag changed, removes one the scope now leaves out, and lists nothing since', async () => {
    const host = new EtagHost(PATHS.map((path) => object(path, `body of ${path}`)), { pageSize: 2 });
    const { store, hostId, crawler, target } = await setUp(host);
    try {
      await crawler.sync(target).result;
      host.put(object('b.md', 'new body of b.md'));
      host.put(object('d.md', 'x'.repeat(200)));
      host.calls.stat.length = 0;
      host.calls.list.length = 0;
      const run = await crawler.sync(target).result;
      expect(run).toMatchObject({ mode: 'incremental', state: 'completed' });
      expect(host.calls.stat.sort()).toEqual(['b.md', 'd.md']);
      expect(host.calls.list).toEqual([]);
      const after = await store.catalog.listEntries(hostId, { limit: 100 });
      expect(after.map((entry) => entry.path)).toEqual(['a.md', 'b.md', 'c.md', 'e.md']);
      expect(after.find((entry) => entry.path === 'b.md')?.etag).toBe(host.objects.get('b.md')!.entry.etag);
    } finally {
      await store.close();
    }
  });

  it('without etags a changed name is not stat\'ed by the diff and the since listing runs', async () => {
    const host = new MemoryHost(PATHS.map((path) => object(path, `body of ${path}`)), { pageSize: 2 });
    const { store, crawler, target } = await setUp(host);
    try {
      await crawler.sync(target).result;
      host.put(object('b.md', 'new body of b.md'));
      host.calls.stat.length = 0;
      host.calls.list.length = 0;
      expect(await crawler.sync(target).result).toMatchObject({ mode: 'incremental', state: 'completed' });
      expect(host.calls.stat).toEqual([]);
      expect(host.calls.list.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
