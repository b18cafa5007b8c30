/**
 * Flat memory: a million entries, generated page by page, crawled into a SQLite file. Memory is
 * sampled (after a full garbage collection, so garbage not yet collected does not count) every
 * few batches and must stay within a fixed budget above where it started: nothing of the listing
 * may accumulate (no set of seen paths, no unbounded batch). Time is not asserted; the run takes
 * some tens of seconds.
 *
 * The resident size counted leaves out V8's young generation: V8 sizes it by the allocation rate
 * up to a ceiling that differs by Node line, and it holds nothing after a full collection, so it
 * says nothing about what the crawl keeps. (On Node 24 it stayed at up to 105 MiB resident after
 * collections, most of the 133 MiB the whole process grew by there, against 80 and 48 MiB of
 * growth in all on Node 20 and 22.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/index.js';
import { SyntheticHost, memoryDescription } from './__fixtures__/hosts.js';
import { Crawler } from './index.js';

const COUNT = 1_000_000;
const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'inseam-million-'));
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The process's resident size less V8's young generation (its new spaces' resident pages). */
function residentOutsideYoung(): number {
  const young = getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith('new_'))
    .reduce((sum, space) => sum + space.physical_space_size, 0);
  return process.memoryUsage().rss - young;
}

describe('crawling a million entries', () => {
  it(
    'stores them all with memory flat over the run',
    async () => {
      const store = SqliteStore.open({ path: join(dir, 'million.db') });
      await store.networks.create({ slug: 'home' });
      await store.hosts.create('home', { slug: 'big', kind: 'memory' });
      const connector = new SyntheticHost({ count: COUNT, pageSize: 1000, recentEvery: 100 });
      const crawler = new Crawler({ store: store.catalog });
      const handle = crawler.sync({
        ref: { network: 'home', host: 'big' },
        connector,
        description: memoryDescription,
        // Content for the recent 1%, metadata for the rest.
        scope: { window: { from: '2024-06-01T00:00:00Z', outside: 'index' } },
      });
      gc();
      const baseline = { rss: residentOutsideYoung(), heapUsed: process.memoryUsage().heapUsed };
      let peakRss = baseline.rss;
      let peakHeap = baseline.heapUsed;
      let reports = 0;
      handle.on('progress', () => {
        reports += 1;
        if (reports % 25 !== 0) return;
        gc();
        peakRss = Math.max(peakRss, residentOutsideYoung());
        peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      });
      const run = await handle.result;
      expect(run.state).toBe('completed');
      expect(run.counters.entries).toBe(COUNT);
      expect(await store.catalog.countEntries(run.hostId)).toBe(COUNT);
      expect(run.counters.indexed).toBeGreaterThan(5000);
      expect(reports).toBeGreaterThan(900);
      const growth = { rssMiB: (peakRss - baseline.rss) / MiB, heapMiB: (peakHeap - baseline.heapUsed) / MiB };
      console.log(`1M entries in ${(run.elapsedMs / 1000).toFixed(1)} s (${Math.round(run.counters.entries / (run.elapsedMs / 1000))}/s); peak growth RSS (young generation aside) ${growth.rssMiB.toFixed(1)} MiB, heap ${growth.heapMiB.toFixed(1)} MiB`);
      expect(growth.rssMiB).toBeLessThan(100);
      expect(growth.heapMiB).toBeLessThan(32);
      await store.close();
    },
    120_000,
  );
});
