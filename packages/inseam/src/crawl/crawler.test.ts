import { beforeEach, describe, expect, it } from 'vitest';
import { RateLimitedError, TimeoutError, PermissionDeniedError } from '@neuralis/package-system/contracts';
import type { Connector, Description, Entry, Scope } from '@inseam/connector';
import type { CrawlProgress } from '../catalog/index.js';
import { SqliteStore, type HostRef } from '../store/index.js';
import { MemoryHost, memoryDescription, object, type StoredObject } from './__fixtures__/hosts.js';
import { Crawler, type CrawlerOptions, type CrawlTarget } from './index.js';

const ref: HostRef = { network: 'home', host: 'mem' };
let store: SqliteStore;
let hostId: number;

beforeEach(async () => {
  store = SqliteStore.open({ path: ':memory:' });
  await store.networks.create({ slug: 'home' });
  hostId = (await store.hosts.create('home', { slug: 'mem', kind: 'memory' })).id;
});

function target(connector: MemoryHost, extra: Partial<CrawlTarget> = {}): CrawlTarget {
  return { ref, connector, description: memoryDescription, ...extra };
}

function crawler(options: Partial<CrawlerOptions> = {}): Crawler {
  return new Crawler({ store: store.catalog, retry: { attempts: 3, baseMs: 1, maxMs: 5 }, ...options });
}

/** What the catalog holds, by path: the fields a crawl decides (not run stamps or times). */
function catalog(): Record<string, { decision: string; content: string; etag: string | null; dimensions: unknown; extra: unknown; envelope: unknown }> {
  const rows = store.database
    .prepare('SELECT path, decision, content_state, etag, dimensions, extra, envelope FROM catalog_entries WHERE host_id = ? ORDER BY path')
    .all(hostId) as { path: string; decision: string; content_state: string; etag: string | null; dimensions: string; extra: string | null; envelope: string | null }[];
  return Object.fromEntries(
    rows.map((row) => [
      row.path,
      { decision: row.decision, content: row.content_state, etag: row.etag, dimensions: JSON.parse(row.dimensions), extra: row.extra === null ? null : JSON.parse(row.extra), envelope: row.envelope === null ? null : JSON.parse(row.envelope) },
    ]),
  );
}

function indexedText(): Record<string, string> {
  const rows = store.database.prepare('SELECT e.path, c.body FROM catalog_content c JOIN catalog_entries e ON e.id = c.rowid ORDER BY e.path').all() as { path: string; body: string }[];
  return Object.fromEntries(rows.map((row) => [row.path, row.body]));
}

function hostPaths(host: MemoryHost): string[] {
  return [...host.objects.keys()].sort();
}

describe('a first crawl', () => {
  it('stores every entry as the connector gave it, indexes text content and reports progress', async () => {
    const envelope = { direction: 'received', parties: [{ identity: 'ann@example.com', role: 'from' }], auth: { dkim: true } } as const;
    const host = new MemoryHost(
      [
        object('docs/a.md', 'The quick brown fox', { mtime: '2024-02-01T00:00:00.000Z' }),
        object('docs/b.txt', '\uFEFFcafé au lait', { mtime: '2024-02-02T00:00:00.000Z', envelope }),
        object('img/c.png', 'not really a png', { mime: 'image/png' }),
        object('bin/d.dat', new Uint8Array([0x89, 0, 0, 1])),
        object('bin/e.txt', new Uint8Array([0xff, 0xfe, 0xfd])),
      ],
      { pageSize: 2 },
    );
    const handle = crawler().sync(target(host));
    const seen: CrawlProgress[] = [];
    const iterated: Promise<CrawlProgress[]> = (async () => {
      const all: CrawlProgress[] = [];
      for await (const progress of handle) all.push(progress);
      return all;
    })();
    handle.on('progress', (progress) => seen.push(progress));
    const run = await handle.result;
    expect(run).toMatchObject({ state: 'completed', mode: 'full', phase: 'done', counters: { entries: 5, indexed: 2, skipped: 0, errors: 0, pages: 3, deleted: 0 } });
    expect(run.counters.bytes).toBe([...host.objects.values()].reduce((sum, item) => sum + item.content.byteLength, 0));
    const stored = catalog();
    expect(Object.keys(stored)).toEqual(hostPaths(host));
    expect(stored['docs/b.txt']).toMatchObject({ decision: 'include', content: 'indexed', envelope, extra: { folder: 'docs' } });
    expect(stored['docs/b.txt']!.dimensions).toEqual({ path: 'docs/b.txt', modified: '2024-02-02T00:00:00.000Z', size: host.objects.get('docs/b.txt')!.content.byteLength, folder: 'docs' });
    expect(stored['img/c.png']!.content).toBe('binary');
    expect(stored['bin/d.dat']!.content).toBe('binary');
    expect(stored['bin/e.txt']!.content).toBe('binary');
    // The image was never read: its type says it is not text.
    expect(host.calls.read).not.toContain('img/c.png');
    expect(indexedText()).toEqual({ 'docs/a.md': 'The quick brown fox', 'docs/b.txt': 'café au lait' });
    expect((await store.catalog.search({ text: 'cafe' })).map((hit) => hit.path)).toEqual(['docs/b.txt']);
    expect(seen.at(-1)).toMatchObject({ state: 'completed', entries: 5, etaMs: 0, fraction: 1 });
    expect(seen.map((p) => p.entries)).toEqual([...seen.map((p) => p.entries)].sort((a, b) => a - b));
    const iteratedAll = await iterated;
    expect(iteratedAll.at(-1)?.state).toBe('completed');
    expect(await store.catalog.syncState(hostId)).toMatchObject({ lastFullRun: run.id, activeFullRun: null, watermark: '2024-02-02T00:00:00.000Z' });
  });

  it('applies the scope and the sync excludes: rules skip, the window keeps metadata only, limits stop the listing', async () => {
    const items = Array.from({ length: 30 }, (_, i) => object(`${i % 2 === 0 ? 'keep' : 'tmp'}/f${String(i).padStart(2, '0')}.md`, `file ${i}`, { mtime: `2024-03-${String(i + 1).padStart(2, '0')}T00:00:00.000Z` }));
    const host = new MemoryHost([...items, object('keep/.cache/x.md', 'cached'), object('keep/huge.md', 'x'.repeat(500), { mtime: '2024-03-31T00:00:00.000Z' })], { pageSize: 4 });
    const scope: Scope = {
      window: { from: '2024-03-21T00:00:00Z', outside: 'index' },
      rules: [{ exclude: { dim: 'path', op: 'glob', value: 'tmp/**' } }],
      limits: { maxEntryBytes: 100 },
    };
    const run = await crawler().sync(target(host, { scope, sync: { trigger: 'manual', exclude: ['**/.cache/**'] } })).result;
    const stored = catalog();
    expect(Object.keys(stored).every((path) => path.startsWith('keep/') && !path.includes('.cache'))).toBe(true);
    expect(Object.keys(stored)).toHaveLength(16);
    expect(stored['keep/f28.md']).toMatchObject({ decision: 'include', content: 'indexed' });
    expect(stored['keep/f10.md']).toMatchObject({ decision: 'index', content: 'none' });
    expect(stored['keep/huge.md']).toMatchObject({ decision: 'index', content: 'none' });
    expect(run.counters.skipped).toBe(16);
    expect(host.calls.read.sort()).toEqual(['keep/f20.md', 'keep/f22.md', 'keep/f24.md', 'keep/f26.md', 'keep/f28.md']);

    // maxEntries with a host that honours newest-first: the newest are kept and listing stops early.
    const limited = new MemoryHost(items, { pageSize: 4 });
    await store.catalog.commit({ hostId, marker: null, puts: [], deletes: Object.keys(stored), now: 1 });
    const second = await crawler().sync(target(limited, { honoursOrder: true, scope: { limits: { maxEntries: 5 } } }), { mode: 'full' }).result;
    expect(second.totalEstimate).toBe(5);
    expect(Object.keys(catalog())).toEqual(['keep/f26.md', 'keep/f28.md', 'tmp/f25.md', 'tmp/f27.md', 'tmp/f29.md']);
    expect(limited.calls.list).toHaveLength(2);
    expect(limited.calls.list.every((call) => call.order === 'newest')).toBe(true);
  });

  it('stops at the lower bound of a skipped window when the host lists newest first, and lists with since when the window allows', async () => {
    const items = Array.from({ length: 40 }, (_, i) => object(`f${String(i).padStart(2, '0')}.md`, `file ${i}`, { mtime: new Date(Date.UTC(2024, 0, 1 + i)).toISOString() }));
    const host = new MemoryHost(items, { pageSize: 5, since: 'ignored' });
    await crawler().sync(target(host, { honoursOrder: true, scope: { window: { from: '2024-02-05T00:00:00Z', outside: 'skip' } } })).result;
    expect(Object.keys(catalog())).toEqual(items.slice(35).map((item) => item.entry.path));
    // The scope passes its bound as `since`; a host ignoring it is still cut off at the first older
    // entry (the first of the second page), so the other six pages are never asked for.
    expect(host.calls.list[0]).toMatchObject({ since: '2024-02-05T00:00:00.000Z', order: 'newest' });
    expect(host.calls.list).toHaveLength(2);
  });

  it('counts malformed entries as errors and goes on; a repeated cursor fails the run', async () => {
    const host = new MemoryHost([object('ok.md', 'fine')]);
    const original = host.list.bind(host);
    let calls = 0;
    host.list = async (options) => {
      calls += 1;
      if (calls === 1) return { entries: [{ path: '' }, { path: '/abs' }, { path: 'bad-size', size: -1 }, 'nope', { path: 'nul\u0000' }, { path: 'x', extra: [] }] as unknown as Entry[], cursor: 'next' };
      return original(options.cursor === 'next' ? {} : options);
    };
    const run = await crawler().sync(target(host)).result;
    expect(run).toMatchObject({ state: 'completed', counters: { entries: 1, errors: 6 } });
    expect(Object.keys(catalog())).toEqual(['ok.md']);

    const looping = new MemoryHost([object('a.md', 'a')]);
    looping.list = async () => ({ entries: [], cursor: 'same' });
    const failed = await crawler().sync(target(looping), { mode: 'full' }).result;
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'connector_failed' } });
  });
});

describe('checkpoints', () => {
  it('checkpoints completed pages every few seconds even when they store nothing', async () => {
    const host = new MemoryHost(Array.from({ length: 30 }, (_, i) => object(`f${i}.md`, `file ${i}`)), { pageSize: 5 });
    let clock = 0;
    const handle = crawler({ now: () => (clock += 3000) }).sync(target(host, { sync: { trigger: 'manual', exclude: ['**'] } }));
    const checkpointed: (string | null)[] = [];
    handle.on('progress', (progress) => checkpointed.push(`${progress.pages}/${progress.skipped}`));
    const run = await handle.result;
    expect(run.counters).toMatchObject({ entries: 0, skipped: 30, pages: 6 });
    // Each page was committed with its cursor as it completed, not all at the end.
    expect(checkpointed).toEqual(expect.arrayContaining(['1/5', '2/10', '3/15', '4/20', '5/25']));
  });
});

describe('reading ahead', () => {
  it('asks for the next page while the current one is being stored, and not where the scope can stop the listing', async () => {
    const host = new MemoryHost(Array.from({ length: 9 }, (_, i) => object(`f${i}.md`, `file ${i}`)), { pageSize: 3 });
    const log: string[] = [];
    host.beforePage = (page) => void log.push(`list ${page}`);
    const commit = store.catalog.commit.bind(store.catalog);
    store.catalog.commit = async (batch) => {
      if (batch.puts.length > 0) log.push('commit');
      return commit(batch);
    };
    const run = await crawler({ batchSize: 3 }).sync(target(host)).result;
    expect(run.counters).toMatchObject({ entries: 9, pages: 3 });
    // Page 1 was asked for before page 0 was committed, page 2 before page 1.
    const commits = log.flatMap((line, at) => (line === 'commit' ? [at] : []));
    expect(commits).toHaveLength(3);
    expect(log.indexOf('list 1')).toBeLessThan(commits[0]!);
    expect(log.indexOf('list 2')).toBeLessThan(commits[1]!);
    expect(host.calls.list).toHaveLength(3);

    log.length = 0;
    const limited = new MemoryHost(Array.from({ length: 9 }, (_, i) => object(`g${i}.md`, `file ${i}`)), { pageSize: 3 });
    const limitedRun = await crawler({ batchSize: 3 }).sync(target(limited, { scope: { limits: { maxEntries: 3 } } })).result;
    expect(limitedRun.counters.entries).toBe(3);
    // The limit is reached on the first page; nothing beyond it was requested.
    expect(limited.calls.list).toHaveLength(1);
  });
});

describe('incremental sync', () => {
  it('lists with since from the watermark, reads only changed content, and keeps boundary ties', async () => {
    const host = new MemoryHost([object('a.md', 'alpha', { mtime: '2024-05-01T10:00:00.000Z' }), object('b.md', 'beta', { mtime: '2024-05-02T10:00:00.000Z' })]);
    const c = crawler();
    await c.sync(target(host)).result;
    host.calls.read.length = 0;
    // Same second as the watermark (a tie), a newer one, and a changed one.
    host.put(object('tie.md', 'tied', { mtime: '2024-05-02T10:00:00.000Z' }));
    host.put(object('c.md', 'gamma', { mtime: '2024-05-03T10:00:00.000Z' }));
    host.put(object('b.md', 'beta two', { mtime: '2024-05-04T10:00:00.000Z' }));
    const run = await c.sync(target(host)).result;
    expect(run.mode).toBe('incremental');
    expect(host.calls.list.at(-1)?.since).toBe('2024-05-02T09:59:59.000Z');
    expect(host.calls.read.sort()).toEqual(['b.md', 'c.md', 'tie.md']);
    expect(indexedText()).toEqual({ 'a.md': 'alpha', 'b.md': 'beta two', 'c.md': 'gamma', 'tie.md': 'tied' });
    expect(await store.catalog.syncState(hostId)).toMatchObject({ watermark: '2024-05-04T10:00:00.000Z' });
  });

  // docs/connectors/authoring.md#listing-since: every incremental sync passes since, whatever the ordering type.
  it.each([
    ['an integer update sequence, its watermark less one', 'seq', '41'],
    ['a string, its watermark as it is', 'folder', 'b'],
  ])('passes since along %s', async (_, dimension, since) => {
    const dimensions = JSON.parse(JSON.stringify(memoryDescription.dimensions)) as Record<string, Record<string, unknown>>;
    delete dimensions['modified']!['ordering'];
    dimensions['seq'] = { type: 'integer', from: 'extra.seq', description: 'The update sequence.' };
    dimensions[dimension]!['ordering'] = true;
    const description = { ...memoryDescription, dimensions } as unknown as Description;
    const numbered = (item: StoredObject, seq: number): StoredObject => ({ ...item, entry: { ...item.entry, extra: { ...item.entry.extra, seq } } });
    const host = new MemoryHost([numbered(object('a/x.md', 'alpha'), 40), numbered(object('b/y.md', 'beta'), 42)], { since: 'ignored' });
    const c = crawler();
    await c.sync(target(host, { description })).result;
    host.put(numbered(object('a/z.md', 'gamma'), 43));
    const run = await c.sync(target(host, { description })).result;
    expect(run.mode).toBe('incremental');
    expect(host.calls.list.at(-1)?.since).toBe(since);
    expect(Object.keys(catalog()).sort()).toEqual(['a/x.md', 'a/z.md', 'b/y.md']);
  });

  it('loses nothing at the boundary when the host reads since as exclusive', async () => {
    const host = new MemoryHost([object('a.md', 'alpha', { mtime: '2024-05-01T10:00:00.000Z' })], { since: 'exclusive' });
    const c = crawler();
    await c.sync(target(host)).result;
    host.put(object('tie.md', 'tied', { mtime: '2024-05-01T10:00:00.000Z' }));
    await c.sync(target(host)).result;
    expect(Object.keys(catalog())).toEqual(['a.md', 'tie.md']);
  });
});

describe('rescans, moves and a listing that changes under the crawl', () => {
  it('removes what is gone by the rescan diff and follows moves by nativeId without reading again', async () => {
    const host = new MemoryHost([object('a.md', 'alpha text', { nativeId: 'id-a' }), object('b.md', 'beta text', { nativeId: 'id-b' }), object('c.md', 'gamma text')]);
    const c = crawler();
    await c.sync(target(host)).result;
    const before = await store.catalog.getEntry(hostId, 'a.md');
    host.calls.read.length = 0;
    host.rename('a.md', 'renamed/a.md');
    host.remove('c.md');
    const run = await c.sync(target(host), { mode: 'full' }).result;
    expect(run).toMatchObject({ state: 'completed', counters: { deleted: 1, moved: 1 } });
    expect(Object.keys(catalog())).toEqual(['b.md', 'renamed/a.md']);
    expect((await store.catalog.getEntry(hostId, 'renamed/a.md'))?.id).toBe(before?.id);
    expect(host.calls.read).toEqual([]);
    expect(indexedText()).toEqual({ 'b.md': 'beta text', 'renamed/a.md': 'alpha text' });
    expect((await store.catalog.search({ text: 'renamed' })).map((hit) => hit.path)).toEqual(['renamed/a.md']);
  });

  it('ends, after a later sync and a rescan, exactly as the host is, when entries come and go before and after the cursor', async () => {
    const items = Array.from({ length: 30 }, (_, i) => object(`m${String(i).padStart(2, '0')}.md`, `middle ${i}`, { mtime: '2024-01-01T00:00:00.000Z' }));
    const host = new MemoryHost(items, { pageSize: 5, ordered: false });
    host.beforePage = (page) => {
      if (page !== 3) return;
      host.put(object('a-before.md', 'inserted behind the cursor', { mtime: '2030-01-01T00:00:00.000Z' }));
      host.put(object('z-after.md', 'inserted ahead of the cursor', { mtime: '2030-01-01T00:00:00.000Z' }));
      host.remove('m02.md');
      host.remove('m25.md');
    };
    const c = crawler({ batchSize: 3 });
    const first = await c.sync(target(host)).result;
    host.beforePage = undefined;
    const afterFirst = Object.keys(catalog());
    expect(afterFirst).toContain('z-after.md');
    expect(afterFirst).not.toContain('a-before.md');
    expect(afterFirst).toContain('m02.md');
    expect(afterFirst).not.toContain('m25.md');
    expect(new Set(afterFirst).size).toBe(afterFirst.length);
    expect(first.counters.entries).toBe(afterFirst.length);
    // Entries created during the crawl are after its start, so the next incremental sync lists them.
    await c.sync(target(host)).result;
    expect(Object.keys(catalog())).toContain('a-before.md');
    await c.sync(target(host), { mode: 'full' }).result;
    expect(Object.keys(catalog())).toEqual(hostPaths(host));
    expect(Object.keys(indexedText())).toEqual(hostPaths(host));
  });
});

describe('resuming', () => {
  it('resumes a paused run from its checkpoint: same run, nothing lost or listed twice into the counts', async () => {
    const items = Array.from({ length: 50 }, (_, i) => object(`f${String(i).padStart(2, '0')}.md`, `file number ${i}`));
    const host = new MemoryHost(items, { pageSize: 5 });
    const c = crawler({ batchSize: 10 });
    const handle = c.sync(target(host));
    handle.on('progress', (progress) => {
      if (progress.entries >= 20) handle.pause();
    });
    const paused = await handle.result;
    expect(paused.state).toBe('paused');
    expect(paused.cursor).not.toBeNull();
    const storedAtPause = paused.counters.entries;
    expect(storedAtPause).toBeLessThan(50);
    const listCalls = host.calls.list.length;
    const resumed = await c.sync(target(host)).result;
    expect(resumed).toMatchObject({ id: paused.id, state: 'completed', counters: { entries: 50, indexed: 50, pages: 10 } });
    expect(host.calls.list[listCalls]?.cursor).toBe(paused.cursor);
    expect(Object.keys(catalog())).toEqual(hostPaths(host));
  });

  it('keeps maxEntries exact across a resume', async () => {
    const items = Array.from({ length: 40 }, (_, i) => object(`f${String(i).padStart(2, '0')}.md`, `file ${i}`));
    const host = new MemoryHost(items, { pageSize: 4 });
    const c = crawler({ batchSize: 4 });
    const handle = c.sync(target(host, { scope: { limits: { maxEntries: 22 } } }));
    handle.on('progress', (progress) => {
      if (progress.entries >= 8) handle.pause();
    });
    expect((await handle.result).state).toBe('paused');
    const done = await c.sync(target(host, { scope: { limits: { maxEntries: 22 } } })).result;
    expect(done.counters.entries).toBe(22);
    expect(Object.keys(catalog())).toHaveLength(22);
  });

  it('retries transient listing failures, fails on others, and resumes a failed run', async () => {
    const host = new MemoryHost(Array.from({ length: 12 }, (_, i) => object(`f${i}.md`, `file ${i}`)), { pageSize: 4 });
    host.listFailures.push(new RateLimitedError('slow down', 1), new TimeoutError());
    const c = crawler();
    const ok = await c.sync(target(host)).result;
    expect(ok.state).toBe('completed');

    const flaky = new MemoryHost(Array.from({ length: 12 }, (_, i) => object(`f${i}.md`, `file ${i}`)), { pageSize: 4 });
    const original = flaky.list.bind(flaky);
    let calls = 0;
    flaky.list = async (options) => {
      calls += 1;
      if (calls === 2) throw new PermissionDeniedError('token revoked');
      return original(options);
    };
    await store.catalog.commit({ hostId, marker: null, puts: [], deletes: Object.keys(catalog()), now: 1 });
    const failed = await c.sync(target(flaky), { mode: 'full' }).result;
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'permission_denied', message: 'token revoked' } });
    const resumed = await c.sync(target(flaky)).result;
    expect(resumed).toMatchObject({ id: failed.id, state: 'completed' });
    expect(Object.keys(catalog())).toHaveLength(12);
  });

  it('refuses to crawl a host another live process is crawling, and takes over from a dead one', async () => {
    const host = new MemoryHost([object('a.md', 'a')]);
    const run = await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: `${process.pid}@elsewhere#x`, totalEstimate: null, now: Date.now() });
    await expect(crawler().sync(target(host)).result).rejects.toMatchObject({ code: 'binding_conflict' });
    // The same owner seen from this machine with a pid that no longer exists.
    store.database.prepare('UPDATE crawl_runs SET owner = ? WHERE id = ?').run(`999999999@${(await import('node:os')).hostname()}#y`, run.id);
    const resumed = await crawler().sync(target(host)).result;
    expect(resumed).toMatchObject({ id: run.id, state: 'completed' });
  });

  it('abandons an unfinished run on restart', async () => {
    const host = new MemoryHost([object('a.md', 'a')]);
    const run = await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: 'old', totalEstimate: null, now: 0 });
    await store.catalog.finishRun(run.id, { state: 'paused', owner: 'old', now: 1 });
    const fresh = await crawler().sync(target(host), { restart: true }).result;
    expect(fresh.id).toBeGreaterThan(run.id);
    expect((await store.catalog.getRun(run.id))?.state).toBe('abandoned');
  });
});

describe('events', () => {
  it('applies puts, deletes and moves in order, reading only what changed', async () => {
    const host = new MemoryHost([object('a.md', 'alpha', { nativeId: 'na' }), object('b.md', 'beta')]);
    const c = crawler();
    await c.sync(target(host)).result;
    host.calls.read.length = 0;
    host.put(object('new.md', 'fresh words'));
    host.rename('a.md', 'moved/a.md');
    const outcome = await c.applyEvents(target(host), [
      { type: 'put', path: 'new.md' },
      { type: 'move', from: 'a.md', path: 'moved/a.md' },
      { type: 'delete', path: 'b.md' },
      { type: 'put', path: 'b.md', entry: object('b.md', 'beta again').entry },
      { type: 'delete', path: 'b.md' },
      { type: 'bogus', path: 'x' } as never,
      { type: 'move', path: 'y' } as never,
    ]);
    expect(outcome).toMatchObject({ moved: 1, ignored: 2, errors: 0, rescan: null });
    expect(Object.keys(catalog())).toEqual(['moved/a.md', 'new.md']);
    // The changed b.md is read for its put, though a later event deletes it; the move reads nothing.
    expect(host.calls.read.sort()).toEqual(['b.md', 'new.md']);
    expect(indexedText()).toEqual({ 'moved/a.md': 'alpha', 'new.md': 'fresh words' });
    // A put whose object is gone (stat answers null) removes it.
    host.remove('new.md');
    await c.applyEvents(target(host), [{ type: 'put', path: 'new.md' }]);
    expect(Object.keys(catalog())).toEqual(['moved/a.md']);
  });

  it('keeps event writes made during a full crawl through its rescan diff, and starts a rescan on request', async () => {
    const items = Array.from({ length: 20 }, (_, i) => object(`f${String(i).padStart(2, '0')}.md`, `file ${i}`));
    const host = new MemoryHost(items, { pageSize: 5 });
    const c = crawler();
    const t = target(host);
    host.beforePage = async (page) => {
      if (page !== 2) return;
      host.put(object('a-event.md', 'arrived by event'));
      await c.applyEvents(t, [{ type: 'put', path: 'a-event.md' }]);
    };
    await c.sync(t).result;
    host.beforePage = undefined;
    expect(Object.keys(catalog())).toContain('a-event.md');

    host.remove('f00.md');
    const outcome = await c.applyEvents(t, [{ type: 'rescan', path: '' }]);
    const rescan = await outcome.rescan!.result;
    expect(rescan).toMatchObject({ mode: 'full', counters: { deleted: 1 } });
    expect(Object.keys(catalog())).toEqual(hostPaths(host));
  });

  it('takes webhook deliveries and watch events', async () => {
    const host = new MemoryHost([object('a.md', 'alpha')]);
    const c = crawler();
    const t = target(host);
    await c.sync(t).result;
    host.put(object('hook.md', 'from a webhook'));
    const request = new Request('https://inseam.example/hooks/mem', { method: 'POST', body: JSON.stringify({ events: [{ type: 'put', path: 'hook.md' }] }) });
    expect((await c.applyWebhook(t, request)).written).toBe(1);

    const watcher = await c.watch(t);
    const applied = new Promise((resolve) => watcher.once('applied', resolve));
    host.put(object('watched.md', 'seen by watch'), true);
    host.remove('a.md', true);
    await applied;
    await watcher.stop();
    expect(host.watching).toBe(0);
    expect(Object.keys(catalog())).toEqual(['hook.md', 'watched.md']);

    const noWatch = { ...t, connector: Object.assign(new MemoryHost(), { watch: undefined, webhook: undefined }) };
    await expect(c.watch(noWatch)).rejects.toMatchObject({ code: 'unsupported' });
    await expect(c.applyWebhook(noWatch, request)).rejects.toMatchObject({ code: 'unsupported' });
  });

  it('drops an overflowing watch queue for a rescan', async () => {
    const host = new MemoryHost([object('a.md', 'alpha')]);
    const c = crawler({ watchQueueLimit: 3 });
    const t = target(host);
    await c.sync(t).result;
    const watcher = await c.watch(t);
    const overflow = new Promise<void>((resolve) => watcher.once('overflow', resolve));
    for (let i = 0; i < 5; i++) host.put(object(`burst${i}.md`, `burst ${i}`), true);
    await overflow;
    await c.running(ref)!.result;
    await watcher.stop();
    expect(Object.keys(catalog())).toEqual(hostPaths(host));
  });
});

describe('the sync diff: deletions and renames in every incremental sync', () => {
  const mtime = '2024-03-01T00:00:00.000Z';
  const thirty = (): StoredObject[] => Array.from({ length: 30 }, (_, i) => object(`notes/n${String(i).padStart(2, '0')}.md`, `note number ${i} word${i}`, { mtime }));

  it('after 10 deletions and 10 renames (mtime kept) the catalog equals the host, renamed rows keep their id and search follows', async () => {
    const host = new MemoryHost(thirty(), { pageSize: 7 });
    const c = crawler({ batchSize: 8 });
    expect((await c.sync(target(host)).result).mode).toBe('full');
    const ids = new Map<string, number>();
    for (let i = 10; i < 20; i++) ids.set(`notes/n${i}.md`, (await store.catalog.getEntry(hostId, `notes/n${i}.md`))!.id);
    for (let i = 0; i < 10; i++) host.remove(`notes/n0${i}.md`);
    // Renames keep the bytes and the mtime, so a `since` listing never shows them.
    for (let i = 10; i < 20; i++) host.rename(`notes/n${i}.md`, `moved/m${i}.md`);
    host.calls.stat.length = 0;
    host.calls.read.length = 0;
    const run = await c.sync(target(host)).result;
    expect(run).toMatchObject({ mode: 'incremental', state: 'completed', counters: { deleted: 10, moved: 10 } });
    expect(Object.keys(catalog())).toEqual(hostPaths(host));
    for (let i = 10; i < 20; i++) expect((await store.catalog.getEntry(hostId, `moved/m${i}.md`))?.id).toBe(ids.get(`notes/n${i}.md`));
    // Only changed names were stat'ed: 10 new, and 20 gone checked once more; nothing was read again.
    const changed = [...Array(20).keys()].map((i) => `notes/n${String(i).padStart(2, '0')}.md`).concat([...Array(10).keys()].map((i) => `moved/m${i + 10}.md`));
    expect(host.calls.stat.sort()).toEqual(changed.sort());
    expect(host.calls.read).toEqual([]);
    expect((await store.catalog.search({ text: 'word15' })).map((hit) => hit.path)).toEqual(['moved/m15.md']);
    expect(await store.catalog.search({ text: 'word5' })).toEqual([]);
  });

  it('moves by size and mtime when the validator changed (a folder rename changes ctime), reading the content again', async () => {
    const host = new MemoryHost([object('a.md', 'alpha body', { mtime, etag: '"v1"' }), object('b.md', 'bravo body!', { mtime, etag: '"v2"' })]);
    const c = crawler();
    c.sync(target(host));
    await c.running(ref)?.result;
    const id = (await store.catalog.getEntry(hostId, 'a.md'))!.id;
    host.remove('a.md');
    host.put(object('z/a.md', 'alpha body', { mtime, etag: '"v1-renamed"' }));
    host.calls.read.length = 0;
    const run = await c.sync(target(host)).result;
    expect(run.counters).toMatchObject({ moved: 1, deleted: 0 });
    expect((await store.catalog.getEntry(hostId, 'z/a.md'))?.id).toBe(id);
    expect(host.calls.read).toEqual(['z/a.md']);
    expect(indexedText()).toEqual({ 'b.md': 'bravo body!', 'z/a.md': 'alpha body' });
  });

  it('adds a new name whose mtime is older than the watermark, and leaves out what excludes and path rules skip without a stat', async () => {
    const host = new MemoryHost([object('a.md', 'alpha', { mtime: '2024-06-01T00:00:00.000Z' })]);
    const scope: Scope = { rules: [{ exclude: { dim: 'path', op: 'glob', value: 'cache/**' } }] };
    const t = target(host, { scope, sync: { trigger: 'manual', exclude: ['tmp/**'] } });
    const c = crawler();
    await c.sync(t).result;
    host.put(object('old.md', 'restored from a backup', { mtime: '2020-01-01T00:00:00.000Z' }));
    host.put(object('cache/x.md', 'cached'));
    host.put(object('tmp/y.md', 'temporary'));
    host.calls.stat.length = 0;
    await c.sync(t).result;
    expect(Object.keys(catalog())).toEqual(['a.md', 'old.md']);
    expect(host.calls.stat).toEqual(['old.md']);
  });

  it('does not remove an entry that reappeared after the names were read', async () => {
    const host = new MemoryHost([object('a.md', 'alpha'), object('b.md', 'bravo')]);
    const c = crawler();
    await c.sync(target(host)).result;
    const names = host.names.bind(host);
    host.names = async (options) => {
      const page = await names(options);
      return { paths: page.paths.filter((path) => path !== 'b.md') };
    };
    const run = await c.sync(target(host)).result;
    expect(run.counters.deleted).toBe(0);
    expect(Object.keys(catalog())).toEqual(['a.md', 'b.md']);
  });

  it('fails the run, removing nothing, when names() is out of order', async () => {
    const host = new MemoryHost([object('a.md', 'alpha'), object('b.md', 'bravo')]);
    const c = crawler();
    await c.sync(target(host)).result;
    host.names = async () => ({ paths: ['b.md', 'a.md'] });
    const run = await c.sync(target(host)).result;
    expect(run).toMatchObject({ state: 'failed', error: { code: 'connector_failed' } });
    expect(Object.keys(catalog())).toEqual(['a.md', 'b.md']);
  });

  it('rescans a host with a free listing and no names listing on every sync; a metered one waits for its rescan', async () => {
    const host = new MemoryHost(thirty());
    const bare = (description: Description): Connector => ({ describe: () => description, list: (o) => host.list(o), stat: (p) => host.stat(p), read: (p, o) => host.read(p, o) });
    const c = crawler();
    await c.sync(target(host, { connector: bare(memoryDescription) })).result;
    host.remove('notes/n00.md');
    host.rename('notes/n01.md', 'moved/n01.md');
    const free = await c.sync(target(host, { connector: bare(memoryDescription) })).result;
    expect(free.mode).toBe('full');
    expect(Object.keys(catalog())).toEqual(hostPaths(host));
    host.remove('notes/n02.md');
    const metered = { ...memoryDescription, listing: 'metered' as const };
    const later = await c.sync(target(host, { connector: bare(metered), description: metered })).result;
    expect(later.mode).toBe('incremental');
    expect(Object.keys(catalog())).toContain('notes/n02.md');
  });
});
