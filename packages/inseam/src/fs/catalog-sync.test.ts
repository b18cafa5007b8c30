import { describe, expect, it } from 'vitest';
import { UnavailableError } from '@neuralis/package-system/contracts';
import type { ChangeEvent } from '@inseam/connector';
import type { CrawlTarget } from '../crawl/index.js';
import type { EntryRecord, HostRecord, HostRef } from '../store/index.js';
import { CatalogSync, type CatalogSyncParts } from './catalog-sync.js';

const record = { id: 7, network: 'home', slug: 'files' } as HostRecord;

function parts(overrides: Partial<CatalogSyncParts> = {}): { parts: CatalogSyncParts; applied: ChangeEvent[][]; resynced: HostRef[] } {
  const applied: ChangeEvent[][] = [];
  const resynced: HostRef[] = [];
  const stored = Array.from({ length: 1200 }, (_, i) => ({ path: `dir/f${String(i).padStart(4, '0')}` }) as EntryRecord);
  return {
    applied,
    resynced,
    parts: {
      crawler: { applyEvents: async (_target, events) => (applied.push([...events]), { written: 0, moved: 0, deleted: events.length, ignored: 0, errors: 0, rescan: null }) },
      kinds: { crawlTarget: async () => ({}) as CrawlTarget },
      catalog: {
        resolveHost: async () => 7,
        listEntries: async (_hostId, options = {}) => stored.filter((entry) => entry.path.startsWith(options.prefix ?? '') && (options.after === undefined || entry.path > options.after)).slice(0, options.limit ?? 100),
      },
      resync: async (ref) => resynced.push(ref),
      ...overrides,
    },
  };
}

describe('CatalogSync', () => {
  it('removes a folder\'s entries page by page after a recursive delete, and not the neighbours of its name', async () => {
    const { parts: p, applied } = parts();
    await new CatalogSync(p).removed(record, 'dir', true);
    const paths = applied.flat().map((event) => event.path);
    expect(paths[0]).toBe('dir');
    expect(paths).toHaveLength(1201);
    expect(new Set(paths).size).toBe(1201);
    expect(applied.every((events) => events.every((event) => event.type === 'delete'))).toBe(true);
  });

  it('asks for a sync instead of failing the operation when the catalog cannot be updated', async () => {
    const { parts: p, resynced } = parts({ crawler: { applyEvents: async () => Promise.reject(new UnavailableError('The store is gone.')) } });
    await expect(new CatalogSync(p).written(record, 'a.md')).resolves.toBeUndefined();
    expect(resynced).toEqual([{ network: 'home', host: 'files' }]);
  });
});
