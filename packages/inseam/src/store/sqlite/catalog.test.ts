// The catalog's behaviour is asserted for every store by the conformance suite (store/conformance);
// these tests check what only the SQLite store has: its FTS5 table stays exact, one row per
// indexed entry with the entry's id as rowid, through every kind of write.
import { beforeEach, describe, expect, it } from 'vitest';
import type { EntryPut, EntryRow } from '../types.js';
import { SqliteStore } from './store.js';

let store: SqliteStore;
let hostId: number;

function row(path: string): EntryRow {
  return { path, size: 10, mtime: null, etag: null, mime: null, nativeHash: null, nativeId: null, decision: 'include', dimensions: '{}', extra: null, envelope: null };
}

function indexed(text: string): EntryPut['content'] {
  return { state: 'indexed', key: 'k', text, bytes: Buffer.byteLength(text) };
}

function ftsRows(): { rowid: number; path: string; body: string }[] {
  return store.database.prepare('SELECT rowid, path, body FROM catalog_content ORDER BY rowid').all() as { rowid: number; path: string; body: string }[];
}

async function idOf(path: string): Promise<number> {
  return (await store.catalog.getEntry(hostId, path))!.id;
}

beforeEach(async () => {
  store = SqliteStore.open({ path: ':memory:' });
  await store.networks.create({ slug: 'home' });
  hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
});

describe('the FTS5 content table', () => {
  it('holds one row per indexed entry, replaced and removed with the entry', async () => {
    const catalog = store.catalog;
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('first version') }, { row: row('b.md') }], now: 1 });
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('second version') }], now: 2 });
    expect(ftsRows()).toEqual([{ rowid: await idOf('a.md'), path: 'a.md', body: 'second version' }]);
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: { state: 'none', key: null } }], now: 3 });
    expect(ftsRows()).toEqual([]);
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('c.md'), content: indexed('sea') }], now: 4 });
    await catalog.commit({ hostId, marker: null, puts: [], deletes: ['c.md'], now: 5 });
    expect(ftsRows()).toEqual([]);
  });

  it('moves a row with its entry, its path as words decoded, and stays exact when one batch writes a path twice', async () => {
    const catalog = store.catalog;
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('old/a%20report.md'), content: indexed('quarterly numbers') }, { row: row('new/a.md'), content: indexed('stale copy') }], now: 1 });
    const moved = await idOf('old/a%20report.md');
    expect(ftsRows().map((fts) => fts.path)).toEqual(['old/a report.md', 'new/a.md']);
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('new/a.md'), movedFrom: 'old/a%20report.md' }], now: 2 });
    expect(ftsRows()).toEqual([{ rowid: moved, path: 'new/a.md', body: 'quarterly numbers' }]);
    await catalog.commit({
      hostId,
      marker: null,
      puts: [{ row: row('p.md'), content: indexed('first p') }, { row: row('p.md'), content: indexed('second p') }, { row: row('p.md'), movedFrom: 'new/a.md' }],
      now: 3,
    });
    expect(ftsRows()).toEqual([{ rowid: moved, path: 'p.md', body: 'quarterly numbers' }]);
    // Deleting the host takes its rows along (a trigger, since FTS5 tables have no foreign keys).
    await store.hosts.delete({ network: 'home', host: 'notes' });
    expect(ftsRows()).toEqual([]);
  });
});
