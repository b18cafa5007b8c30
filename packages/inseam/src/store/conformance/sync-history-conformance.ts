/**
 * The sync history's conformance suite (sync-history-types.ts), registered beside the store suite
 * by each backend's test file: a run's stops merge into one record, the history is bounded and
 * newest first, it keeps the catalog's size at each stop, and it goes with its host.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SyncStop } from '../sync-history-types.js';
import type { Store } from '../types.js';
import type { ConformanceStore } from './store-conformance.js';

function stop(runId: number, fields: Partial<SyncStop> = {}): SyncStop {
  return {
    runId,
    mode: 'full',
    state: 'completed',
    startedAt: runId * 100,
    endedAt: runId * 100 + 50,
    elapsedMs: 50,
    entries: 10,
    added: 3,
    changed: 2,
    removed: 1,
    moved: 0,
    errors: 0,
    error: null,
    catalog: { entries: 40, bytes: 4096 },
    ...fields,
  };
}

export function runSyncHistoryConformance(name: string, open: () => Promise<ConformanceStore>): void {
  describe(`sync history conformance (${name})`, () => {
    let opened: ConformanceStore;
    let store: Store;
    let hostId: number;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
      await store.networks.create({ slug: 'home' });
      hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'fs' })).id;
    });

    afterEach(async () => {
      await store.close();
      await opened.cleanup();
    });

    it('keeps one record per run: each stop adds its added and changed, and takes the run\'s totals', async () => {
      await store.syncHistory.record(hostId, stop(7, { state: 'paused', added: 4, changed: 1, entries: 5, elapsedMs: 20, endedAt: 720 }));
      const merged = await store.syncHistory.record(hostId, stop(7, { state: 'failed', added: 6, changed: 2, entries: 11, removed: 3, elapsedMs: 45, endedAt: 790, error: { code: 'unavailable', message: 'gone' } }));
      expect(merged).toEqual({ ...stop(7), state: 'failed', added: 10, changed: 3, entries: 11, removed: 3, elapsedMs: 45, endedAt: 790, error: { code: 'unavailable', message: 'gone' } });
      expect(await store.syncHistory.list(hostId)).toEqual([merged]);
    });

    it('keeps the catalog\'s size as of the run\'s newest stop, and takes a stop without one as null', async () => {
      await store.syncHistory.record(hostId, stop(3, { state: 'paused', catalog: { entries: 12, bytes: 1200 } }));
      expect((await store.syncHistory.record(hostId, stop(3, { catalog: { entries: 30, bytes: 9_000_000_000 } }))).catalog).toEqual({ entries: 30, bytes: 9_000_000_000 });
      await store.syncHistory.record(hostId, stop(4, { catalog: null }));
      expect((await store.syncHistory.list(hostId)).map((record) => record.catalog)).toEqual([null, { entries: 30, bytes: 9_000_000_000 }]);
    });

    it('lists newest first and keeps only the newest records', async () => {
      for (let runId = 1; runId <= 6; runId++) await store.syncHistory.record(hostId, stop(runId), 4);
      expect((await store.syncHistory.list(hostId)).map((record) => record.runId)).toEqual([6, 5, 4, 3]);
      expect((await store.syncHistory.list(hostId, 2)).map((record) => record.runId)).toEqual([6, 5]);
      const other = (await store.hosts.create('home', { slug: 'other', kind: 'fs' })).id;
      await store.syncHistory.record(other, stop(9), 4);
      expect((await store.syncHistory.list(hostId)).map((record) => record.runId)).toEqual([6, 5, 4, 3]);
    });

    it('goes with its host, and refuses a host that is not there', async () => {
      await store.syncHistory.record(hostId, stop(1));
      await store.hosts.delete({ network: 'home', host: 'notes' });
      expect(await store.syncHistory.list(hostId)).toEqual([]);
      await expect(store.syncHistory.record(hostId, stop(2))).rejects.toMatchObject({ code: 'not_found' });
    });
  });
}
