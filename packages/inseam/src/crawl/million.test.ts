/**
 * Flat memory: a million entries, generated page by page, crawled into a SQLite file. Memory is
 * sampled (after a full garbage collection, so garbage not yet collected does not count) every
 * few batches and must stay within a fixed budget above where it started: nothing of the listing
 * may accumulate (no set of seen paths, no unbounded batch). Time is not asserted; the run takes
 * some tens of seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
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
      const baseline = process.memoryUsage();
      let peakRss = baseline.rss;
      let peakHeap = baseline.heapUsed;
      let reports = 0;
      handle.on('progress', () => {
        reports += 1;
        if (reports % 25 !== 0) return;
        gc();
        const usage = process.memoryUsage();
        peakRss = Math.max(peakRss, usage.rss);
        peakHeap = Math.max(peakHeap, usage.heapUsed);
      });
      const run = await handle.result;
      expect(run.state).toBe('completed');
      expect(run.counters.entries).toBe(COUNT);
      expect(await store.catalog.countEntries(run.hostId)).toBe(COUNT);
      expect(run.counters.indexed).toBeGreaterThan(5000);
      expect(reports).toBeGreaterThan(900);
      const growth = { rssMiB: (peakRss - baseline.rss) / MiB, heapMiB: (peakHeap - baseline.heapUsed) / MiB };
      console.log(`1M entries in ${(run.elapsedMs / 1000).toFixed(1)} s (${Math.round(run.counters.entries / (run.elapsedMs / 1000))}/s); peak growth RSS ${growth.rssMiB.toFixed(1)} MiB, heap ${growth.heapMiB.toFixed(1)} MiB`);
      expect(growth.rssMiB).toBeLessThan(100);
      expect(growth.heapMiB).toBeLessThan(32);
      await store.close();
    },
    120_000,
  );
});
