import { beforeEach, describe, expect, it } from 'vitest';
import type { EntryPut, EntryRow } from '../types.js';
import { SqliteStore } from './store.js';

let store: SqliteStore;
let hostId: number;
const OWNER = 'test-owner';

function row(path: string, fields: Partial<EntryRow> = {}): EntryRow {
  return {
    path,
    size: 10,
    mtime: '2024-01-01T00:00:00Z',
    etag: `"${path}"`,
    mime: null,
    nativeHash: null,
    nativeId: null,
    decision: 'include',
    dimensions: JSON.stringify({ path }),
    extra: null,
    envelope: null,
    ...fields,
  };
}

function indexed(text: string, key = 'k'): EntryPut['content'] {
  return { state: 'indexed', key, text, bytes: Buffer.byteLength(text) };
}

function ftsRows(): { rowid: number; path: string; body: string }[] {
  return store.database.prepare('SELECT rowid, path, body FROM catalog_content ORDER BY rowid').all() as { rowid: number; path: string; body: string }[];
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

beforeEach(async () => {
  store = SqliteStore.open({ path: ':memory:' });
  await store.networks.create({ slug: 'home' });
  hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
});

describe('commit', () => {
  it('inserts, then updates idempotently: a repeat changes only seen_run, and updated_at only on a real change', async () => {
    const catalog = store.catalog;
    const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 1 });
    const first = await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md'), content: indexed('alpha words') }, { row: row('b.md') }], now: 100, checkpoint: { runId: run.id, owner: OWNER, cursor: 'c1', now: 100 } });
    expect(first).toEqual({ inserted: 2, updated: 0, moved: 0, deleted: 0, newlySeen: 2 });
    const again = await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md') }, { row: row('b.md') }], now: 200, checkpoint: { runId: run.id, owner: OWNER, cursor: 'c2', now: 200 } });
    expect(again).toMatchObject({ inserted: 0, updated: 2, newlySeen: 0 });
    expect((await catalog.getEntry(hostId, 'a.md'))?.updatedAt).toBe(100);
    // The stored content is kept when no content is given.
    expect(await catalog.contentText(hostId, 'a.md')).toBe('alpha words');
    await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md', { etag: '"v2"' }) }], now: 300 });
    expect((await catalog.getEntry(hostId, 'a.md'))?.updatedAt).toBe(300);
    const after = await catalog.getRun(run.id);
    expect(after).toMatchObject({ cursor: 'c2', counters: expect.objectContaining({ entries: 2, bytes: 20 }) });
    expect(await catalog.countEntries(hostId)).toBe(2);
  });

  it('refuses a batch for a run this owner does not hold, writing nothing', async () => {
    const catalog = store.catalog;
    const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 1 });
    const code = await codeOf(catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md'), content: indexed('x') }], now: 2, checkpoint: { runId: run.id, owner: 'someone-else', cursor: 'c', now: 2 } }));
    expect(code).toBe('binding_conflict');
    expect(await catalog.countEntries(hostId)).toBe(0);
    expect(ftsRows()).toEqual([]);
    expect((await catalog.getRun(run.id))?.cursor).toBeNull();
    expect(await codeOf(catalog.sweep({ hostId, runId: run.id, owner: 'someone-else', limit: 10, now: 3 }))).toBe('binding_conflict');
  });

  it('replaces and removes content in the index with the entry', async () => {
    const catalog = store.catalog;
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('first version') }], now: 1 });
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('second version') }], now: 2 });
    expect(ftsRows().map((r) => r.body)).toEqual(['second version']);
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md', { decision: 'index' }), content: { state: 'none', key: null } }], now: 3 });
    expect(ftsRows()).toEqual([]);
    expect((await catalog.getEntry(hostId, 'a.md'))?.contentState).toBe('none');
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('b.md'), content: indexed('bee') }], deletes: ['b.md', 'missing.md'], now: 4 });
    expect(await catalog.getEntry(hostId, 'b.md')).not.toBeNull();
    await catalog.commit({ hostId, marker: null, puts: [], deletes: ['b.md'], now: 5 });
    expect(await catalog.getEntry(hostId, 'b.md')).toBeNull();
    expect(ftsRows()).toEqual([]);
  });

  it('moves an entry with its id and content, replacing what was at the new path', async () => {
    const catalog = store.catalog;
    await catalog.commit({
      hostId,
      marker: null,
      puts: [
        { row: row('old/a%20report.md', { nativeId: 'n1' }), content: indexed('quarterly numbers') },
        { row: row('new/a.md'), content: indexed('stale copy') },
      ],
      now: 1,
    });
    const before = await catalog.getEntry(hostId, 'old/a%20report.md');
    const outcome = await catalog.commit({ hostId, marker: null, puts: [{ row: row('new/a.md', { nativeId: 'n1' }), movedFrom: 'old/a%20report.md' }], now: 2 });
    expect(outcome).toMatchObject({ moved: 1, inserted: 0, updated: 1 });
    const after = await catalog.getEntry(hostId, 'new/a.md');
    expect(after?.id).toBe(before?.id);
    expect(await catalog.getEntry(hostId, 'old/a%20report.md')).toBeNull();
    expect(ftsRows()).toEqual([{ rowid: before!.id, path: 'new/a.md', body: 'quarterly numbers' }]);
    expect(await catalog.lookupNativeIds(hostId, ['n1', 'n2'])).toEqual(new Map([['n1', expect.objectContaining({ path: 'new/a.md' })]]));
    // A move whose source is gone is a plain insert.
    const plain = await catalog.commit({ hostId, marker: null, puts: [{ row: row('c.md'), movedFrom: 'nowhere.md' }], now: 3 });
    expect(plain).toMatchObject({ moved: 0, inserted: 1 });
  });

  it('keeps the index exact when one batch writes a path twice and then moves another entry onto it', async () => {
    const catalog = store.catalog;
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('q.md'), content: indexed('from q') }], now: 1 });
    await catalog.commit({
      hostId,
      marker: null,
      puts: [
        { row: row('p.md'), content: indexed('first p') },
        { row: row('p.md'), content: indexed('second p') },
        { row: row('p.md'), movedFrom: 'q.md' },
      ],
      now: 2,
    });
    const entry = await catalog.getEntry(hostId, 'p.md');
    expect(ftsRows()).toEqual([{ rowid: entry!.id, path: 'p.md', body: 'from q' }]);
    expect(await catalog.countEntries(hostId)).toBe(1);
  });

  it('stamps event writes with the running full crawl, and keeps the stamp otherwise', async () => {
    const catalog = store.catalog;
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('event.md') }], now: 1 });
    expect((await catalog.getEntry(hostId, 'event.md'))?.seenRun).toBe(0);
    const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 2 });
    await catalog.commit({ hostId, marker: null, puts: [{ row: row('during.md') }], now: 3 });
    expect((await catalog.getEntry(hostId, 'during.md'))?.seenRun).toBe(run.id);
    await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('listed.md') }], now: 4, checkpoint: { runId: run.id, owner: OWNER, cursor: null, phase: 'sweep', now: 4 } });
    expect(await catalog.sweep({ hostId, runId: run.id, owner: OWNER, limit: 10, now: 5 })).toBe(1);
    expect(await catalog.sweep({ hostId, runId: run.id, owner: OWNER, limit: 10, now: 5 })).toBe(0);
    expect((await catalog.listEntries(hostId)).map((e) => e.path)).toEqual(['during.md', 'listed.md']);
    expect((await catalog.getRun(run.id))?.counters.deleted).toBe(1);
  });
});

describe('runs', () => {
  it('allows one unfinished run per host, claims by compare-and-set, and records the end in the sync state', async () => {
    const catalog = store.catalog;
    const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: 'a', totalEstimate: 5, now: 1 });
    expect(await codeOf(catalog.createRun({ hostId, mode: 'incremental', since: null, owner: 'b', totalEstimate: null, now: 2 }))).toBe('binding_conflict');
    expect(await catalog.syncState(hostId)).toEqual({ hostId, watermark: null, lastFullRun: null, lastRun: run.id, activeFullRun: run.id });
    expect(await catalog.claimRun(run.id, 'x', 'b', 3)).toBe(false);
    expect(await catalog.claimRun(run.id, 'a', 'b', 3)).toBe(true);
    expect(await catalog.heartbeat(run.id, 'a', 4)).toBe(false);
    expect(await catalog.heartbeat(run.id, 'b', 4)).toBe(true);
    expect(await codeOf(catalog.finishRun(run.id, { state: 'completed', owner: 'a', now: 5 }))).toBe('binding_conflict');
    const paused = await catalog.finishRun(run.id, { state: 'paused', owner: 'b', now: 5, elapsedMs: 40 });
    expect(paused).toMatchObject({ state: 'paused', owner: null, finishedAt: null, elapsedMs: 40 });
    expect((await catalog.unfinishedRun(hostId))?.id).toBe(run.id);
    expect(await catalog.claimRun(run.id, null, 'c', 6)).toBe(true);
    const done = await catalog.finishRun(run.id, { state: 'completed', owner: 'c', watermark: '2024-01-01T00:00:00.000Z', now: 7 });
    expect(done).toMatchObject({ state: 'completed', phase: 'done', finishedAt: 7 });
    expect(await catalog.unfinishedRun(hostId)).toBeNull();
    expect(await catalog.syncState(hostId)).toEqual({ hostId, watermark: '2024-01-01T00:00:00.000Z', lastFullRun: run.id, lastRun: run.id, activeFullRun: null });
    const next = await catalog.createRun({ hostId, mode: 'incremental', since: 'x', owner: 'c', totalEstimate: null, now: 8 });
    expect(next.id).toBeGreaterThan(run.id);
    expect((await catalog.listRuns(hostId)).map((r) => r.id)).toEqual([next.id, run.id]);
  });
});

describe('reading', () => {
  it('lists by path under a prefix with keyset paging', async () => {
    const paths = ['a/1', 'a/2', 'a/3', 'a0', 'b/1', 'a/\u{10FFFF}x'];
    await store.catalog.commit({ hostId, marker: null, puts: paths.map((path) => ({ row: row(path) })), now: 1 });
    const first = await store.catalog.listEntries(hostId, { prefix: 'a/', limit: 2 });
    expect(first.map((e) => e.path)).toEqual(['a/1', 'a/2']);
    const second = await store.catalog.listEntries(hostId, { prefix: 'a/', after: 'a/2', limit: 10 });
    expect(second.map((e) => e.path)).toEqual(['a/3', 'a/\u{10FFFF}x']);
    expect((await store.catalog.listEntries(hostId)).length).toBe(6);
    expect(await codeOf(store.catalog.listEntries(hostId, { limit: 0 }))).toBe('invalid_argument');
  });

  it('searches with bm25 ranking, snippets with highlight ranges, and host and network filters', async () => {
    await store.hosts.create('home', { slug: 'mail', kind: 'imap' });
    const mailId = (await store.catalog.resolveHost({ network: 'home', host: 'mail' }))!;
    await store.catalog.commit({
      hostId,
      marker: null,
      puts: [
        { row: row('garden.md'), content: indexed('The garden needs water. Water the tomatoes and water the roses every morning.') },
        { row: row('kitchen.md'), content: indexed('Boil water for tea.') },
        { row: row('water-bill.txt'), content: indexed('Invoice for March.') },
      ],
      now: 1,
    });
    await store.catalog.commit({ hostId: mailId, marker: null, puts: [{ row: row('m1'), content: indexed('water damage claim') }], now: 1 });
    const hits = await store.catalog.search({ text: 'water' });
    expect(hits.map((h) => h.path).sort()).toEqual(['garden.md', 'kitchen.md', 'm1', 'water-bill.txt']);
    const rank = (path: string): number => hits.findIndex((h) => h.path === path);
    // Three mentions in the text outrank one; scores are ascending (bm25 as SQLite reports it).
    expect(rank('garden.md')).toBeLessThan(rank('kitchen.md'));
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => a - b));
    const snippet = hits[rank('garden.md')]!;
    expect(snippet.highlights.length).toBeGreaterThan(0);
    for (const [start, end] of snippet.highlights) expect(snippet.snippet.slice(start, end).toLowerCase()).toBe('water');
    expect((await store.catalog.search({ text: 'water', hostIds: [mailId] })).map((h) => h.host)).toEqual([{ network: 'home', host: 'mail' }]);
    expect(await store.catalog.search({ text: 'water', network: 'elsewhere' })).toEqual([]);
    expect((await store.catalog.search({ text: 'tom*' })).map((h) => h.path)).toEqual(['garden.md']);
    expect((await store.catalog.search({ text: '"water the roses"' })).map((h) => h.path)).toEqual(['garden.md']);
    expect((await store.catalog.search({ text: 'bill' })).map((h) => h.path)).toEqual(['water-bill.txt']);
  });

  it('takes query text literally: FTS5 operators and syntax are words, never errors', async () => {
    await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('near or and not') }], now: 1 });
    for (const text of ['NEAR(a b)', 'path:a', 'x OR', '"unterminated', '^start', '(a', 'a AND NOT b', 'a*b', 'body : near']) {
      await expect(store.catalog.search({ text })).resolves.toBeInstanceOf(Array);
    }
    expect((await store.catalog.search({ text: 'near OR' })).map((h) => h.path)).toEqual(['a.md']);
    expect(await codeOf(store.catalog.search({ text: '  !!! ' }))).toBe('invalid_argument');
    expect(await codeOf(store.catalog.search({ text: 'x'.repeat(2000) }))).toBe('invalid_argument');
  });
});
