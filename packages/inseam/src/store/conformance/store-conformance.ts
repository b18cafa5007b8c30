/**
 * The store conformance suite: every behaviour of every part of the `Store` interface, registered
 * as vitest tests against one implementation. Each implementation's test file is a few lines:
 *
 *   runStoreConformance('sqlite', async () => {
 *     const path = await tempDatabase();
 *     return { store: SqliteStore.open({ path }), another: async () => SqliteStore.open({ path }), cleanup: () => removeIt(path) };
 *   });
 *
 * `open` is called before every test and must answer an empty, migrated store, with `another`,
 * which opens a second handle on the same database (what another process sees), and `cleanup`,
 * which runs after the test (the store may be closed by then).
 *
 * The assertions name behaviour only (results, error codes, what search finds); nothing here
 * reads a backend's tables. Backend-specific facts (file modes, pragmas, locks) stay in that
 * backend's own tests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileGlob, parseTimestamp } from '../../scope/index.js';
import { compareText } from '../../scope/values.js';
import type { EntryCondition, HostSearchScope } from '../search-scope.js';
import type { EntryPut, EntryRow, Store } from '../types.js';

export interface ConformanceStore {
  readonly store: Store;
  /** Opens another handle on the same database: what a second process sees. */
  readonly another: () => Promise<Store>;
  readonly cleanup: () => Promise<void>;
}

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

/** The scope evaluator's own readings, which the stores' SQL must agree with. */
function parseTimestampForTest(text: string): number | undefined {
  return parseTimestamp(text, false);
}

function globForTest(pattern: string, mode: 'path' | 'text'): RegExp {
  const compiled = compileGlob(pattern, mode);
  if (!('regexp' in compiled)) throw new Error(compiled.problem);
  return compiled.regexp;
}

function compareCodePoints(a: string, b: string): number {
  return compareText(a, b);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

/** Registers the conformance tests of `open`'s store under `store conformance (<name>)`. */
export function runStoreConformance(name: string, open: () => Promise<ConformanceStore>): void {
  describe(`store conformance (${name})`, () => {
    let opened: ConformanceStore;
    let store: Store;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
    });

    afterEach(async () => {
      await store.close();
      await opened.cleanup();
    });

    async function homeHost(slug = 'notes', kind = 'local'): Promise<number> {
      if ((await store.networks.get('home')) === null) await store.networks.create({ slug: 'home' });
      return (await store.hosts.create('home', { slug, kind })).id;
    }

    async function paths(hostId: number): Promise<string[]> {
      return (await store.catalog.listEntries(hostId, { limit: 1000 })).map((entry) => entry.path);
    }

    async function found(text: string): Promise<string[]> {
      return (await store.catalog.search({ text })).map((hit) => hit.path);
    }

    describe('networks and hosts', () => {
      it('creates, reads, updates and deletes networks, with typed errors', async () => {
        const home = await store.networks.create({ slug: 'home', label: 'Home' }, 10);
        expect(home).toMatchObject({ slug: 'home', label: 'Home', createdAt: 10, updatedAt: 10 });
        expect(await codeOf(store.networks.create({ slug: 'home' }))).toBe('already_exists');
        expect(await store.networks.create({ slug: 'alpha' }, 11)).toMatchObject({ slug: 'alpha', label: 'alpha' });
        expect(await store.networks.update('home', { label: 'House' }, 20)).toMatchObject({ label: 'House', createdAt: 10, updatedAt: 20 });
        expect(await codeOf(store.networks.update('nope', { label: 'x' }))).toBe('not_found');
        expect((await store.networks.get('home'))?.label).toBe('House');
        expect(await store.networks.get('nope')).toBeNull();
        expect((await store.networks.list()).map((network) => network.slug)).toEqual(['alpha', 'home']);
        expect(await store.networks.delete('home')).toBe(true);
        expect(await store.networks.delete('home')).toBe(false);
        expect((await store.networks.list()).map((network) => network.slug)).toEqual(['alpha']);
      });

      it('keeps every host field, patches only what is given and clears what is set to null', async () => {
        await store.networks.create({ slug: 'home' });
        const host = await store.hosts.create(
          'home',
          {
            slug: 'notes',
            kind: 'local',
            config: { root: 'data', nested: { b: 1, a: [1, 'x'] } },
            scope: { limits: { maxEntries: 5 } },
            sync: { trigger: 'auto', exclude: ['_pending/**'], alwaysActive: true },
            permissions: { read: true } as never,
            origin: 'pkg.seed',
            honoursOrder: true,
          },
          30,
        );
        expect(host).toMatchObject({
          network: 'home',
          slug: 'notes',
          label: 'notes',
          description: '',
          kind: 'local',
          config: { root: 'data', nested: { b: 1, a: [1, 'x'] } },
          scope: { limits: { maxEntries: 5 } },
          sync: { trigger: 'auto', exclude: ['_pending/**'], alwaysActive: true },
          permissions: { read: true },
          origin: 'pkg.seed',
          honoursOrder: true,
          ownership: 'project',
          ownerId: null,
          privateOrigins: [],
          createdAt: 30,
          updatedAt: 30,
        });
        const owned = await store.hosts.create('home', { slug: 'mine', kind: 'local', ownership: 'user', ownerId: 'ann', privateOrigins: ['http://127.0.0.1:9000'] });
        expect(owned).toMatchObject({ ownership: 'user', ownerId: 'ann', privateOrigins: ['http://127.0.0.1:9000'], honoursOrder: false, scope: null, sync: null });
        expect(await store.hosts.update({ network: 'home', host: 'mine' }, { privateOrigins: [], honoursOrder: true })).toMatchObject({ privateOrigins: [], honoursOrder: true });
        const updated = await store.hosts.update({ network: 'home', host: 'notes' }, { scope: null, description: 'My notes', origin: null }, 40);
        expect(updated).toMatchObject({ scope: null, description: 'My notes', origin: null, updatedAt: 40, createdAt: 30, label: 'notes', config: { root: 'data', nested: { b: 1, a: [1, 'x'] } } });
        expect(await store.hosts.get({ network: 'home', host: 'notes' })).toEqual(updated);
        expect(await store.hosts.get({ network: 'home', host: 'gone' })).toBeNull();
        expect(await store.hosts.get({ network: 'elsewhere', host: 'notes' })).toBeNull();
      });

      it('refuses hosts in missing networks and taken slugs, lists by slug, and deletes', async () => {
        await store.networks.create({ slug: 'home' });
        await store.networks.create({ slug: 'work' });
        await store.hosts.create('home', { slug: 'notes', kind: 'local' });
        await store.hosts.create('home', { slug: 'mail', kind: 'imap' });
        await store.hosts.create('work', { slug: 'notes', kind: 'local' });
        expect(await codeOf(store.hosts.create('home', { slug: 'notes', kind: 'local' }))).toBe('already_exists');
        expect(await codeOf(store.hosts.create('nowhere', { slug: 'notes', kind: 'local' }))).toBe('not_found');
        expect(await codeOf(store.hosts.update({ network: 'home', host: 'gone' }, { label: 'x' }))).toBe('not_found');
        expect((await store.hosts.list('home')).map((host) => host.slug)).toEqual(['mail', 'notes']);
        expect(await store.hosts.list('nowhere')).toEqual([]);
        expect(await store.hosts.delete({ network: 'home', host: 'notes' })).toBe(true);
        expect(await store.hosts.delete({ network: 'home', host: 'notes' })).toBe(false);
        expect((await store.hosts.get({ network: 'work', host: 'notes' }))?.slug).toBe('notes');
        // A network goes with its hosts.
        expect(await store.networks.delete('home')).toBe(true);
        expect(await store.hosts.list('home')).toEqual([]);
      });

      it('never gives a deleted host or network id to a new one', async () => {
        const first = await homeHost('a');
        await store.hosts.delete({ network: 'home', host: 'a' });
        const second = await homeHost('a');
        expect(second).toBeGreaterThan(first);
        const network = (await store.networks.get('home'))!.id;
        await store.networks.delete('home');
        expect((await store.networks.create({ slug: 'home' })).id).toBeGreaterThan(network);
      });
    });

    describe('catalog batches', () => {
      let hostId: number;
      beforeEach(async () => {
        hostId = await homeHost();
      });

      it('inserts, then updates idempotently: a repeat changes only seen_run, and updated_at only on a real change', async () => {
        const catalog = store.catalog;
        const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 1 });
        const first = await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md'), content: indexed('alpha words') }, { row: row('b.md') }], now: 100, checkpoint: { runId: run.id, owner: OWNER, cursor: 'c1', now: 100 } });
        expect(first).toEqual({ inserted: 2, updated: 0, moved: 0, deleted: 0, newlySeen: 2 });
        const again = await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md') }, { row: row('b.md') }], now: 200, checkpoint: { runId: run.id, owner: OWNER, cursor: 'c2', now: 200 } });
        expect(again).toEqual({ inserted: 0, updated: 2, moved: 0, deleted: 0, newlySeen: 0 });
        expect((await catalog.getEntry(hostId, 'a.md'))?.updatedAt).toBe(100);
        // The stored content is kept when no content is given.
        expect(await catalog.contentText(hostId, 'a.md')).toBe('alpha words');
        // The same content again is no change either.
        await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md'), content: indexed('alpha words') }], now: 250 });
        expect((await catalog.getEntry(hostId, 'a.md'))?.updatedAt).toBe(100);
        await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md', { etag: '"v2"' }) }], now: 300 });
        expect((await catalog.getEntry(hostId, 'a.md'))?.updatedAt).toBe(300);
        await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('b.md'), content: { state: 'binary', key: 'k2' } }], now: 400 });
        expect(await catalog.getEntry(hostId, 'b.md')).toMatchObject({ updatedAt: 400, contentState: 'binary', contentKey: 'k2', contentBytes: 0 });
        const after = await catalog.getRun(run.id);
        expect(after).toMatchObject({ cursor: 'c2', counters: expect.objectContaining({ entries: 2, bytes: 20 }) });
        expect(await catalog.countEntries(hostId)).toBe(2);
      });

      it('sizes the catalog: its entries and the sum of their sizes, an unsized entry adding none', async () => {
        expect(await store.catalog.catalogSize(hostId)).toEqual({ entries: 0, bytes: 0 });
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md') }, { row: row('big.bin', { size: 6_000_000_000 }) }, { row: row('folder', { size: null }) }], now: 5 });
        expect(await store.catalog.catalogSize(hostId)).toEqual({ entries: 3, bytes: 6_000_000_010 });
        await store.catalog.commit({ hostId, marker: null, puts: [], deletes: ['big.bin'], now: 6 });
        expect(await store.catalog.catalogSize(hostId)).toEqual({ entries: 2, bytes: 10 });
      });

      it('keeps every field of an entry exactly as written, JSON text byte for byte', async () => {
        const fields: Partial<EntryRow> = {
          size: 9_007_199_254_740_991,
          mtime: '2024-05-06T07:08:09.123Z',
          etag: 'W/"x\'y"',
          mime: 'text/markdown; charset=utf-8',
          nativeHash: 'sha256:00ff',
          nativeId: 'id-1',
          decision: 'index',
          dimensions: '{"z":1,"a":{"b":[1,2]},"path":"ü/é \\"q\\""}',
          extra: '{"b":2,"a":1}',
          envelope: '{"from":"ann@example.com","subject":"Hi – ünïcödé 😀"}',
        };
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('dir/ünï cödé 😀.md', fields), content: { state: 'too_large', key: 'e:"x"' } }], now: 5 });
        const entry = await store.catalog.getEntry(hostId, 'dir/ünï cödé 😀.md');
        expect(entry).toEqual({
          ...row('dir/ünï cödé 😀.md', fields),
          id: expect.any(Number),
          hostId,
          contentState: 'too_large',
          contentKey: 'e:"x"',
          contentBytes: 0,
          seenRun: 0,
          updatedAt: 5,
        });
        expect(await store.catalog.lookup(hostId, ['dir/ünï cödé 😀.md', 'missing'])).toEqual(
          new Map([
            [
              'dir/ünï cödé 😀.md',
              { id: entry!.id, path: 'dir/ünï cödé 😀.md', etag: fields.etag, nativeHash: fields.nativeHash, nativeId: 'id-1', size: fields.size, contentState: 'too_large', contentKey: 'e:"x"', seenRun: 0 },
            ],
          ]),
        );
        expect(await store.catalog.lookup(hostId, [])).toEqual(new Map());
        expect(await store.catalog.contentText(hostId, 'dir/ünï cödé 😀.md')).toBeNull();
      });

      it('refuses a batch for a run this owner does not hold, writing nothing', async () => {
        const catalog = store.catalog;
        const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 1 });
        const code = await codeOf(catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md'), content: indexed('xylophone') }], deletes: ['b.md'], now: 2, checkpoint: { runId: run.id, owner: 'someone-else', cursor: 'c', now: 2 } }));
        expect(code).toBe('binding_conflict');
        expect(await catalog.countEntries(hostId)).toBe(0);
        expect(await found('xylophone')).toEqual([]);
        expect((await catalog.getRun(run.id))?.cursor).toBeNull();
        expect(await codeOf(catalog.sweep({ hostId, runId: run.id, owner: 'someone-else', limit: 10, now: 3 }))).toBe('binding_conflict');
        // A run that is not running is no one's to write, not even its last owner's.
        await catalog.finishRun(run.id, { state: 'paused', owner: OWNER, now: 4 });
        expect(await codeOf(catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md') }], now: 5, checkpoint: { runId: run.id, owner: OWNER, now: 5 } }))).toBe('binding_conflict');
        expect(await codeOf(catalog.commit({ hostId, marker: null, puts: [], now: 5, checkpoint: { runId: 999_999, owner: OWNER, now: 5 } }))).toBe('binding_conflict');
      });

      it('records the checkpoint with the batch: cursor, phase, watermark, tally, counters and working time', async () => {
        const catalog = store.catalog;
        const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: 3, now: 1 });
        await catalog.commit({
          hostId,
          marker: run.id,
          puts: [{ row: row('a.md', { size: 5 }) }, { row: row('b.md', { size: 7 }) }],
          now: 10,
          checkpoint: {
            runId: run.id,
            owner: OWNER,
            cursor: 'page-2',
            watermark: '2024-02-01',
            scopeTally: { entries: 2, bytes: 12, counted: 3 },
            counters: { indexed: 1, contentBytes: 40, skipped: 4, errors: 1, pages: 1 },
            elapsedMs: 12.6,
            now: 10,
          },
        });
        // A batch writing the same entries again counts them once; absent fields stay as they were.
        await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md', { size: 5 }) }], deletes: ['b.md'], now: 20, checkpoint: { runId: run.id, owner: OWNER, phase: 'sweep', counters: { pages: 1 }, now: 20 } });
        expect(await catalog.getRun(run.id)).toMatchObject({
          cursor: 'page-2',
          phase: 'sweep',
          watermark: '2024-02-01',
          scopeTally: { entries: 2, bytes: 12, counted: 3 },
          counters: { entries: 2, bytes: 12, indexed: 1, contentBytes: 40, skipped: 4, moved: 0, deleted: 1, errors: 1, pages: 2 },
          elapsedMs: 13,
          heartbeatAt: 20,
          updatedAt: 20,
          totalEstimate: 3,
        });
        await catalog.commit({ hostId, marker: run.id, puts: [], now: 30, checkpoint: { runId: run.id, owner: OWNER, cursor: null, watermark: null, now: 30 } });
        expect(await catalog.getRun(run.id)).toMatchObject({ cursor: null, watermark: null, phase: 'sweep' });
      });

      it('replaces and removes content in the index with the entry', async () => {
        const catalog = store.catalog;
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('first version') }], now: 1 });
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('second version') }], now: 2 });
        expect(await catalog.contentText(hostId, 'a.md')).toBe('second version');
        expect(await found('first')).toEqual([]);
        expect(await found('second')).toEqual(['a.md']);
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md', { decision: 'index' }), content: { state: 'none', key: null } }], now: 3 });
        expect(await found('second')).toEqual([]);
        expect(await catalog.contentText(hostId, 'a.md')).toBeNull();
        expect((await catalog.getEntry(hostId, 'a.md'))?.contentState).toBe('none');
        const outcome = await catalog.commit({ hostId, marker: null, puts: [{ row: row('b.md'), content: indexed('bee') }], deletes: ['b.md', 'missing.md'], now: 4 });
        // Deletes come first, so the put stores the entry again.
        expect(outcome).toMatchObject({ deleted: 0, inserted: 1 });
        expect(await catalog.getEntry(hostId, 'b.md')).not.toBeNull();
        expect(await catalog.commit({ hostId, marker: null, puts: [], deletes: ['b.md', 'b.md'], now: 5 })).toMatchObject({ deleted: 1 });
        expect(await catalog.getEntry(hostId, 'b.md')).toBeNull();
        expect(await found('bee')).toEqual([]);
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
        expect(await found('report')).toEqual(['old/a%20report.md']);
        const outcome = await catalog.commit({ hostId, marker: null, puts: [{ row: row('new/a.md', { nativeId: 'n1' }), movedFrom: 'old/a%20report.md' }], now: 2 });
        expect(outcome).toMatchObject({ moved: 1, inserted: 0, updated: 1 });
        const after = await catalog.getEntry(hostId, 'new/a.md');
        expect(after?.id).toBe(before?.id);
        expect(after?.updatedAt).toBe(2);
        expect(await catalog.getEntry(hostId, 'old/a%20report.md')).toBeNull();
        expect(await catalog.contentText(hostId, 'new/a.md')).toBe('quarterly numbers');
        expect(await found('stale')).toEqual([]);
        // The index follows the path: the old path's words are gone, the new path's found.
        expect(await found('report')).toEqual([]);
        expect((await catalog.search({ text: 'quarterly new' })).map((hit) => [hit.entryId, hit.path])).toEqual([[before!.id, 'new/a.md']]);
        expect(await catalog.lookupNativeIds(hostId, ['n1', 'n2'])).toEqual(new Map([['n1', expect.objectContaining({ path: 'new/a.md', id: before!.id })]]));
        // A move whose source is gone is a plain insert.
        const plain = await catalog.commit({ hostId, marker: null, puts: [{ row: row('c.md'), movedFrom: 'nowhere.md' }], now: 3 });
        expect(plain).toMatchObject({ moved: 0, inserted: 1 });
        expect(await catalog.countEntries(hostId)).toBe(2);
      });

      it('moves several entries in one batch, even when they trade paths', async () => {
        const catalog = store.catalog;
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('x.md'), content: indexed('xenon') }, { row: row('y.md'), content: indexed('yttrium') }, { row: row('z.md') }], now: 1 });
        const x = (await catalog.getEntry(hostId, 'x.md'))!.id;
        const y = (await catalog.getEntry(hostId, 'y.md'))!.id;
        // y moves to z (replacing it), then x moves to y: a chain, and y's old path is reused in the same batch.
        const outcome = await catalog.commit({ hostId, marker: null, puts: [{ row: row('z.md'), movedFrom: 'y.md' }, { row: row('y.md'), movedFrom: 'x.md' }], now: 2 });
        expect(outcome).toMatchObject({ moved: 2, updated: 2, inserted: 0 });
        expect((await catalog.getEntry(hostId, 'z.md'))?.id).toBe(y);
        expect((await catalog.getEntry(hostId, 'y.md'))?.id).toBe(x);
        expect(await paths(hostId)).toEqual(['y.md', 'z.md']);
        expect(await catalog.contentText(hostId, 'z.md')).toBe('yttrium');
        expect(await catalog.contentText(hostId, 'y.md')).toBe('xenon');
        // A swap through a third path, in one batch.
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('t.md'), movedFrom: 'y.md' }, { row: row('y.md'), movedFrom: 'z.md' }, { row: row('z.md'), movedFrom: 't.md' }], now: 3 });
        expect((await catalog.getEntry(hostId, 'z.md'))?.id).toBe(x);
        expect((await catalog.getEntry(hostId, 'y.md'))?.id).toBe(y);
        expect(await found('xenon')).toEqual(['z.md']);
        expect(await found('yttrium')).toEqual(['y.md']);
      });

      it('keeps the index exact when one batch writes a path twice and then moves another entry onto it', async () => {
        const catalog = store.catalog;
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('q.md'), content: indexed('from q') }], now: 1 });
        const q = (await catalog.getEntry(hostId, 'q.md'))!.id;
        const outcome = await catalog.commit({
          hostId,
          marker: null,
          puts: [
            { row: row('p.md'), content: indexed('first p') },
            { row: row('p.md'), content: indexed('second p') },
            { row: row('p.md'), movedFrom: 'q.md' },
          ],
          now: 2,
        });
        expect(outcome).toEqual({ inserted: 1, updated: 2, moved: 1, deleted: 0, newlySeen: 0 });
        expect((await catalog.getEntry(hostId, 'p.md'))?.id).toBe(q);
        expect(await catalog.contentText(hostId, 'p.md')).toBe('from q');
        expect(await found('first')).toEqual([]);
        expect(await found('second')).toEqual([]);
        expect(await found('from')).toEqual(['p.md']);
        expect(await catalog.countEntries(hostId)).toBe(1);
      });

      it('stamps event writes with the running full crawl, and sweeps what the run did not see', async () => {
        const catalog = store.catalog;
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('event.md') }, { row: row('gone-1.md') }, { row: row('gone-2.md') }], now: 1 });
        expect((await catalog.getEntry(hostId, 'event.md'))?.seenRun).toBe(0);
        const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 2 });
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('during.md') }], now: 3 });
        expect((await catalog.getEntry(hostId, 'during.md'))?.seenRun).toBe(run.id);
        await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('listed.md') }, { row: row('event.md') }], now: 4, checkpoint: { runId: run.id, owner: OWNER, cursor: null, phase: 'sweep', now: 4 } });
        expect(await catalog.sweep({ hostId, runId: run.id, owner: OWNER, limit: 1, now: 5 })).toBe(1);
        expect(await catalog.sweep({ hostId, runId: run.id, owner: OWNER, limit: 10, now: 5 })).toBe(1);
        expect(await catalog.sweep({ hostId, runId: run.id, owner: OWNER, limit: 10, now: 5 })).toBe(0);
        expect(await paths(hostId)).toEqual(['during.md', 'event.md', 'listed.md']);
        expect((await catalog.getRun(run.id))?.counters).toMatchObject({ deleted: 2, entries: 2 });
        // Outside a full run, an event write keeps the entry's stamp.
        await catalog.finishRun(run.id, { state: 'completed', owner: OWNER, now: 6 });
        await catalog.commit({ hostId, marker: null, puts: [{ row: row('listed.md', { etag: '"new"' }) }], now: 7 });
        expect((await catalog.getEntry(hostId, 'listed.md'))?.seenRun).toBe(run.id);
      });

      it('counts a moved entry and its bytes once per run', async () => {
        const catalog = store.catalog;
        const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 1 });
        await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('a.md', { size: 3 }) }], now: 2, checkpoint: { runId: run.id, owner: OWNER, now: 2 } });
        const outcome = await catalog.commit({ hostId, marker: run.id, puts: [{ row: row('b.md', { size: 3 }), movedFrom: 'a.md' }, { row: row('c.md', { size: 4 }) }], now: 3, checkpoint: { runId: run.id, owner: OWNER, now: 3 } });
        expect(outcome).toEqual({ inserted: 1, updated: 1, moved: 1, deleted: 0, newlySeen: 1 });
        expect((await catalog.getRun(run.id))?.counters).toMatchObject({ entries: 2, bytes: 7, moved: 1 });
      });

      it('keeps hosts apart: the same path in two hosts is two entries', async () => {
        const other = await homeHost('mail', 'imap');
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('same.md'), content: indexed('one') }], now: 1 });
        await store.catalog.commit({ hostId: other, marker: null, puts: [{ row: row('same.md'), content: indexed('two') }], now: 1 });
        expect(await store.catalog.contentText(hostId, 'same.md')).toBe('one');
        expect(await store.catalog.contentText(other, 'same.md')).toBe('two');
        await store.catalog.commit({ hostId: other, marker: null, puts: [], deletes: ['same.md'], now: 2 });
        expect(await store.catalog.countEntries(hostId)).toBe(1);
        expect(await store.catalog.countEntries(other)).toBe(0);
      });

      it('takes a host\'s entries, runs and text with it when the host is deleted', async () => {
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('ephemeral') }], now: 1 });
        await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: OWNER, totalEstimate: null, now: 1 });
        await store.hosts.delete({ network: 'home', host: 'notes' });
        expect(await store.catalog.countEntries(hostId)).toBe(0);
        expect(await store.catalog.unfinishedRun(hostId)).toBeNull();
        expect(await found('ephemeral')).toEqual([]);
        expect(await store.catalog.resolveHost({ network: 'home', host: 'notes' })).toBeNull();
      });
    });

    describe('crawl runs', () => {
      let hostId: number;
      beforeEach(async () => {
        hostId = await homeHost();
      });

      it('allows one unfinished run per host, claims by compare-and-set, and records the end in the sync state', async () => {
        const catalog = store.catalog;
        expect(await catalog.syncState(hostId)).toEqual({ hostId, watermark: null, lastFullRun: null, lastRun: null, activeFullRun: null });
        const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: 'a', totalEstimate: 5, now: 1 });
        expect(run).toMatchObject({ hostId, host: { network: 'home', host: 'notes' }, mode: 'full', state: 'running', phase: 'list', owner: 'a', heartbeatAt: 1, startedAt: 1, totalEstimate: 5, scopeTally: null, error: null, finishedAt: null, elapsedMs: 0 });
        expect(await codeOf(catalog.createRun({ hostId, mode: 'incremental', since: null, owner: 'b', totalEstimate: null, now: 2 }))).toBe('binding_conflict');
        expect(await catalog.syncState(hostId)).toEqual({ hostId, watermark: null, lastFullRun: null, lastRun: run.id, activeFullRun: run.id });
        expect(await catalog.claimRun(run.id, 'x', 'b', 3)).toBe(false);
        expect(await catalog.claimRun(run.id, 'a', 'b', 3)).toBe(true);
        expect(await catalog.heartbeat(run.id, 'a', 4)).toBe(false);
        expect(await catalog.heartbeat(run.id, 'b', 4)).toBe(true);
        expect((await catalog.getRun(run.id))?.heartbeatAt).toBe(4);
        expect(await codeOf(catalog.finishRun(run.id, { state: 'completed', owner: 'a', now: 5 }))).toBe('binding_conflict');
        const paused = await catalog.finishRun(run.id, { state: 'paused', owner: 'b', now: 5, elapsedMs: 40 });
        expect(paused).toMatchObject({ state: 'paused', owner: null, finishedAt: null, elapsedMs: 40 });
        expect(await catalog.heartbeat(run.id, 'b', 6)).toBe(false);
        expect((await catalog.unfinishedRun(hostId))?.id).toBe(run.id);
        expect(await catalog.claimRun(run.id, null, 'c', 6)).toBe(true);
        const done = await catalog.finishRun(run.id, { state: 'completed', owner: 'c', watermark: '2024-01-01T00:00:00.000Z', now: 7, elapsedMs: 2 });
        expect(done).toMatchObject({ state: 'completed', phase: 'done', finishedAt: 7, owner: null, elapsedMs: 42 });
        expect(await catalog.unfinishedRun(hostId)).toBeNull();
        expect(await catalog.claimRun(run.id, null, 'd', 8)).toBe(false);
        expect(await catalog.syncState(hostId)).toEqual({ hostId, watermark: '2024-01-01T00:00:00.000Z', lastFullRun: run.id, lastRun: run.id, activeFullRun: null });
        const next = await catalog.createRun({ hostId, mode: 'incremental', since: 'x', owner: 'c', totalEstimate: null, now: 8 });
        expect(next.id).toBeGreaterThan(run.id);
        expect(await catalog.syncState(hostId)).toEqual({ hostId, watermark: '2024-01-01T00:00:00.000Z', lastFullRun: run.id, lastRun: next.id, activeFullRun: null });
        // An incremental run completing keeps the last full run, and a completion without a watermark keeps the host's.
        await catalog.finishRun(next.id, { state: 'completed', owner: 'c', now: 9 });
        expect(await catalog.syncState(hostId)).toMatchObject({ watermark: '2024-01-01T00:00:00.000Z', lastFullRun: run.id, lastRun: next.id });
        expect((await catalog.listRuns(hostId)).map((r) => r.id)).toEqual([next.id, run.id]);
        expect((await catalog.listRuns(hostId, 1)).map((r) => r.id)).toEqual([next.id]);
        expect(await codeOf(catalog.listRuns(hostId, 0))).toBe('invalid_argument');
      });

      it('keeps a failed run resumable with its error, and ends an abandoned one', async () => {
        const catalog = store.catalog;
        const run = await catalog.createRun({ hostId, mode: 'full', since: null, owner: 'a', totalEstimate: null, now: 1 });
        const failed = await catalog.finishRun(run.id, { state: 'failed', owner: 'a', error: { code: 'unavailable', message: 'host down' }, now: 2 });
        expect(failed).toMatchObject({ state: 'failed', error: { code: 'unavailable', message: 'host down' }, finishedAt: null, owner: null });
        expect(await catalog.syncState(hostId)).toMatchObject({ activeFullRun: run.id });
        expect(await catalog.claimRun(run.id, null, 'b', 3)).toBe(true);
        expect(await catalog.getRun(run.id)).toMatchObject({ state: 'running', error: null, owner: 'b' });
        const abandoned = await catalog.finishRun(run.id, { state: 'abandoned', owner: 'b', now: 4 });
        expect(abandoned).toMatchObject({ state: 'abandoned', phase: 'list', finishedAt: 4 });
        expect(await catalog.syncState(hostId)).toMatchObject({ activeFullRun: null, lastFullRun: null });
        expect(await catalog.getRun(999_999)).toBeNull();
        expect(await codeOf(catalog.finishRun(999_999, { state: 'completed', owner: 'b', now: 5 }))).toBe('binding_conflict');
      });
    });

    describe('reading and search', () => {
      let hostId: number;
      beforeEach(async () => {
        hostId = await homeHost();
      });

      it('lists by path in code-point order under a prefix with keyset paging', async () => {
        const listed = ['a/1', 'a/2', 'a/3', 'a0', 'b/1', 'a/\u{10FFFF}x', 'a/\uFFFD', 'a/\u{1F600}', 'A/upper', 'a/Z', 'a/é'];
        await store.catalog.commit({ hostId, marker: null, puts: listed.map((path) => ({ row: row(path) })), now: 1 });
        expect(await paths(hostId)).toEqual(['A/upper', 'a/1', 'a/2', 'a/3', 'a/Z', 'a/é', 'a/\uFFFD', 'a/\u{1F600}', 'a/\u{10FFFF}x', 'a0', 'b/1']);
        const first = await store.catalog.listEntries(hostId, { prefix: 'a/', limit: 2 });
        expect(first.map((e) => e.path)).toEqual(['a/1', 'a/2']);
        const second = await store.catalog.listEntries(hostId, { prefix: 'a/', after: 'a/2', limit: 10 });
        expect(second.map((e) => e.path)).toEqual(['a/3', 'a/Z', 'a/é', 'a/\uFFFD', 'a/\u{1F600}', 'a/\u{10FFFF}x']);
        // `after` below the prefix starts at the prefix.
        expect((await store.catalog.listEntries(hostId, { prefix: 'b/', after: 'a' })).map((e) => e.path)).toEqual(['b/1']);
        expect((await store.catalog.listEntries(hostId)).length).toBe(listed.length);
        expect(await codeOf(store.catalog.listEntries(hostId, { limit: 0 }))).toBe('invalid_argument');
        expect(await codeOf(store.catalog.listEntries(hostId, { limit: 1.5 }))).toBe('invalid_argument');
        expect(await store.catalog.listEntries(hostId, { limit: 5000 })).toHaveLength(listed.length);
      });

      it('searches with ranking, snippets with highlight ranges, and host and network filters', async () => {
        await store.hosts.create('home', { slug: 'mail', kind: 'imap' });
        const mailId = (await store.catalog.resolveHost({ network: 'home', host: 'mail' }))!;
        await store.catalog.commit({
          hostId,
          marker: null,
          puts: [
            { row: row('garden.md'), content: indexed('The garden needs water. Water the tomatoes and water the roses every morning.') },
            { row: row('kitchen.md', { size: 19, mtime: '2024-05-06T07:08:09Z', mime: 'text/markdown' }), content: indexed('Boil water for tea.') },
            { row: row('water-bill.txt'), content: indexed('Invoice for March.') },
          ],
          now: 1,
        });
        await store.catalog.commit({ hostId: mailId, marker: null, puts: [{ row: row('m1'), content: indexed('water damage claim') }], now: 1 });
        const hits = await store.catalog.search({ text: 'water' });
        expect(hits.map((h) => h.path).sort()).toEqual(['garden.md', 'kitchen.md', 'm1', 'water-bill.txt']);
        const rank = (path: string): number => hits.findIndex((h) => h.path === path);
        // Three mentions in the text outrank one; scores are ascending (lower is better).
        expect(rank('garden.md')).toBeLessThan(rank('kitchen.md'));
        expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => a - b));
        const garden = hits[rank('garden.md')]!;
        expect(garden).toMatchObject({ host: { network: 'home', host: 'notes' }, snippet: 'The garden needs water. Water the tomatoes and water the roses every morning.' });
        expect(garden.highlights.map(([start, end]) => garden.snippet.slice(start, end))).toEqual(['water', 'Water', 'water']);
        // Each hit carries its entry's stored fields, so the caller need not look it up again.
        expect(hits[rank('kitchen.md')]!.entry).toEqual({ size: 19, mtime: '2024-05-06T07:08:09Z', etag: '"kitchen.md"', mime: 'text/markdown' });
        expect(garden.entry).toEqual({ size: 10, mtime: '2024-01-01T00:00:00Z', etag: '"garden.md"', mime: null });
        // A path-only hit is shown in its path.
        const bill = hits[rank('water-bill.txt')]!;
        expect(bill.highlights.map(([start, end]) => bill.snippet.slice(start, end))).toEqual(['water']);
        expect((await store.catalog.search({ text: 'water', hostIds: [mailId] })).map((h) => h.host)).toEqual([{ network: 'home', host: 'mail' }]);
        expect(await store.catalog.search({ text: 'water', hostIds: [] })).toEqual([]);
        expect(await store.catalog.search({ text: 'water', network: 'elsewhere' })).toEqual([]);
        expect((await store.catalog.search({ text: 'water', network: 'home' })).length).toBe(4);
        expect(await found('tom*')).toEqual(['garden.md']);
        expect(await found('"water the roses"')).toEqual(['garden.md']);
        expect(await found('"the water roses"')).toEqual([]);
        expect(await found('bill')).toEqual(['water-bill.txt']);
        expect(await found('water tea')).toEqual(['kitchen.md']);
        expect(await found('water nothing-like-this')).toEqual([]);
      });

      it('ranks by bm25: a rare word of the query weighs more than a common one', async () => {
        const filler = Array.from({ length: 20 }, (_, i) => ({ row: row(`filler-${i}.md`), content: indexed('alpha and other words here') }));
        await store.catalog.commit({
          hostId,
          marker: null,
          puts: [
            // The same length, and mirror images: six of one word, one of the other. Only how many entries hold each word tells them apart.
            { row: row('common.md'), content: indexed('alpha alpha alpha alpha alpha alpha beta gamma') },
            { row: row('rare.md'), content: indexed('alpha beta beta beta beta beta beta gamma') },
            ...filler,
          ],
          now: 1,
        });
        const hits = await store.catalog.search({ text: 'alpha beta' });
        expect(hits.map((hit) => hit.path)).toEqual(['rare.md', 'common.md']);
        expect(hits[0]!.score).toBeLessThan(hits[1]!.score);
        expect((await store.catalog.search({ text: 'beta alpha' })).map((hit) => hit.path)).toEqual(['rare.md', 'common.md']);
        // One word alone: its occurrences against each entry's length (a short filler's one beats rare.md's one).
        expect((await store.catalog.search({ text: 'alpha', limit: 2 })).map((hit) => hit.path)).toEqual(['common.md', 'filler-0.md']);
      });

      it('pages search results with limit and offset, and checks them', async () => {
        await store.catalog.commit({ hostId, marker: null, puts: Array.from({ length: 5 }, (_, i) => ({ row: row(`doc-${i}.md`), content: indexed(`shared word ${'filler '.repeat(i)}`) })), now: 1 });
        const all = await store.catalog.search({ text: 'shared' });
        expect(all).toHaveLength(5);
        const pages = [...(await store.catalog.search({ text: 'shared', limit: 2 })), ...(await store.catalog.search({ text: 'shared', limit: 2, offset: 2 })), ...(await store.catalog.search({ text: 'shared', limit: 2, offset: 4 }))];
        expect(pages.map((hit) => hit.entryId)).toEqual(all.map((hit) => hit.entryId));
        expect(await codeOf(store.catalog.search({ text: 'shared', offset: -1 }))).toBe('invalid_argument');
        expect(await codeOf(store.catalog.search({ text: 'shared', limit: 0 }))).toBe('invalid_argument');
        expect(await store.catalog.search({ text: 'shared', limit: 500 })).toHaveLength(5);
      });

      it('pages a filtered search the same whether the matches it keeps rank near the top or far below', async () => {
        const quietId = await homeHost('quiet');
        // 1,100 entries of one host outrank everything of the other, and 100 of them hold "pear" too.
        const loud = Array.from({ length: 1100 }, (_, i) => ({ row: row(`loud/${String(i).padStart(4, '0')}.txt`), content: indexed(`apple apple apple${i < 100 ? ' pear pear pear' : ''}`) }));
        await store.catalog.commit({ hostId, marker: null, puts: loud, now: 1 });
        const quiet = Array.from({ length: 30 }, (_, i) => ({ row: row(`quiet/${String(i).padStart(2, '0')}.txt`), content: indexed(`apple pear ${'and more words '.repeat(1 + (i % 4))}`) }));
        await store.catalog.commit({ hostId: quietId, marker: null, puts: quiet, now: 1 });
        const pagesOf = async (text: string, hostIds: number[], size: number): Promise<number[]> => {
          const ids: number[] = [];
          for (let offset = 0; ; offset += size) {
            const page = await store.catalog.search({ text, hostIds, limit: size, offset });
            ids.push(...page.map((hit) => hit.entryId));
            if (page.length < size) return ids;
          }
        };
        for (const text of ['pear', 'apple']) {
          const whole = await store.catalog.search({ text, hostIds: [quietId], limit: 100 });
          expect(whole.map((hit) => hit.path).sort()).toEqual(quiet.map((put) => put.row.path));
          expect(whole.every((hit) => hit.host.host === 'quiet')).toBe(true);
          expect(whole.map((hit) => hit.score)).toEqual([...whole.map((hit) => hit.score)].sort((a, b) => a - b));
          expect(await pagesOf(text, [quietId], 7)).toEqual(whole.map((hit) => hit.entryId));
          expect(whole[0]!.snippet).toContain(text);
        }
        // A page deep in an unfiltered ranking agrees with the pages before it.
        const deep = await store.catalog.search({ text: 'apple', hostIds: [hostId], limit: 30, offset: 1080 });
        expect(deep.map((hit) => hit.path)).toHaveLength(20);
        const before = await store.catalog.search({ text: 'apple', hostIds: [hostId], limit: 100, offset: 1000 });
        expect(before.slice(80).map((hit) => hit.entryId)).toEqual(deep.map((hit) => hit.entryId));
        const both = await store.catalog.search({ text: 'pear', limit: 100, offset: 100 });
        expect(both.map((hit) => hit.host.host)).toEqual(Array.from({ length: 30 }, () => 'quiet'));
      });

      it('applies scopes — readable paths and conditions on the entry — before the page is cut', async () => {
        const otherId = await homeHost('other');
        // 90 entries that rank above the two that pass the filter: a page cut first would be empty.
        const loud = Array.from({ length: 90 }, (_, i) => ({ row: row(`loud/${String(i).padStart(3, '0')}.txt`, { mime: 'text/plain' }), content: indexed('budget budget budget budget') }));
        await store.catalog.commit({
          hostId,
          marker: null,
          puts: [
            ...loud,
            { row: row('plan.md', { mime: 'text/markdown', size: 5000 }), content: indexed(`budget ${'words '.repeat(300)}`) },
            { row: row('private/secret.md', { mime: 'text/markdown' }), content: indexed(`budget ${'words '.repeat(300)}`) },
            { row: row('private/open/shared.md', { mime: 'text/markdown' }), content: indexed(`budget ${'words '.repeat(300)}`) },
            { row: row('privateer.md', { mime: 'text/markdown' }), content: indexed(`budget ${'words '.repeat(300)}`) },
          ],
          now: 1,
        });
        await store.catalog.commit({ hostId: otherId, marker: null, puts: [{ row: row('o.md', { mime: 'text/markdown' }), content: indexed('budget') }], now: 1 });
        const markdown = { field: 'mime', type: 'text', op: 'eq', value: 'text/markdown' } as const;
        const tree = { default: true, rules: [{ path: 'private/open', read: true }, { path: 'private', read: false }] };
        const scoped = (where?: EntryCondition): HostSearchScope[] => [{ hostId, readable: [tree], ...(where === undefined ? {} : { where }) }];
        const search = async (scopes: readonly HostSearchScope[], limit = 20, offset = 0): Promise<string[]> =>
          (await store.catalog.search({ text: 'budget', scopes, limit, offset })).map((hit) => hit.path);
        expect((await store.catalog.search({ text: 'budget', limit: 20 })).every((hit) => hit.path.startsWith('loud/'))).toBe(true);
        expect((await search(scoped(markdown))).sort()).toEqual(['plan.md', 'private/open/shared.md', 'privateer.md']);
        // Paging over the filtered hits: pages of one add up to the whole, none repeated.
        const pages = [...(await search(scoped(markdown), 1, 0)), ...(await search(scoped(markdown), 1, 1)), ...(await search(scoped(markdown), 1, 2))];
        expect(pages.sort()).toEqual(['plan.md', 'private/open/shared.md', 'privateer.md']);
        expect(await search(scoped(markdown), 1, 3)).toEqual([]);
        // Several hosts, each with its own rules; a host not in the scopes is not searched.
        expect((await search([...scoped(markdown), { hostId: otherId, readable: [{ default: false, rules: [] }] }])).sort()).toEqual(['plan.md', 'private/open/shared.md', 'privateer.md']);
        expect((await search([{ hostId: otherId, readable: [{ default: true, rules: [] }] }]))).toEqual(['o.md']);
        expect(await search([])).toEqual([]);
        // Every tree must allow: a second that denies what the first allows.
        expect(await search([{ hostId, readable: [tree, { default: false, rules: [{ path: 'plan.md', read: true }] }], where: markdown }])).toEqual(['plan.md']);
        // Conditions: all, any, not, ne (true when the value is missing), in, ranges, prefix, glob.
        expect((await search(scoped({ all: [markdown, { field: 'size', type: 'number', op: 'gt', value: 1000 }] })))).toEqual(['plan.md']);
        expect((await search(scoped({ any: [{ field: 'path', type: 'text', op: 'eq', value: 'plan.md' }, { field: 'path', type: 'text', op: 'prefix', value: 'privateer' }] }))).sort()).toEqual(['plan.md', 'privateer.md']);
        expect(await search(scoped({ not: { field: 'mime', type: 'text', op: 'in', value: ['text/plain', 'text/markdown'] } }))).toEqual([]);
        expect((await search(scoped({ field: 'path', type: 'text', op: 'glob', value: 'private/**', mode: 'path' })))).toEqual(['private/open/shared.md']);
        expect((await search(scoped({ field: 'path', type: 'text', op: 'glob', value: '*.md', mode: 'path' }))).sort()).toEqual(['plan.md', 'privateer.md']);
        expect((await search(scoped({ field: 'mtime', type: 'datetime', op: 'gte', value: Date.parse('2024-01-01T00:00:00Z') }), 100)).length).toBe(93);
        expect(await search(scoped({ field: 'mtime', type: 'datetime', op: 'lt', value: Date.parse('2024-01-01T00:00:00Z') }))).toEqual([]);
        expect(await search(scoped({ field: 'size', type: 'text', op: 'eq', value: '10' }))).toEqual([]);
        expect((await search(scoped({ field: 'size', type: 'text', op: 'ne', value: '10' }), 100)).length).toBe(93);
        expect(await search(scoped({ all: [] }), 100)).toHaveLength(93);
        expect(await search(scoped({ any: [] }))).toEqual([]);
      });

      it('reads extra, datetimes, text order and globs in scopes exactly as the scope evaluator does', async () => {
        const mtimes = ['2024-05-01T10:00:00Z', '2024-05-01T12:30:00+02:00', '2024-05-01t10:00:00.5z', '2024-05-01T10:00:00.123456789-00:30', '2024-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2024-02-29T23:59:60Z', '2024-05-01T24:00:00Z', '2024-05-01 10:00:00Z', '0000-03-01T00:00:00Z', 'yesterday', null];
        const extras: (Record<string, unknown> | null)[] = [{ flags: { archived: true }, n: 3, who: 'ann' }, { flags: { archived: false }, n: 3.5, who: 'Ann' }, { flags: 'no', n: '3', who: 1 }, { constructor: 'x', flags: { archived: 'true' } }, null];
        const names = ['a.md', 'b/a.md', 'b/c/d.md', 'é.md', 'Z.md', '\u{1F600}.md', '.git', 'x[1].md'];
        const puts = mtimes.map((mtime, i) => ({
          row: row(names[i % names.length]!.replace('.md', `-${i}.md`), { mtime, extra: extras[i % extras.length] === null ? null : JSON.stringify(extras[i % extras.length]) }),
          content: indexed('probe'),
        }));
        await store.catalog.commit({ hostId, marker: null, puts, now: 1 });
        const all = { hostId, readable: [{ default: true, rules: [] }] };
        const where = async (condition: EntryCondition): Promise<string[]> =>
          (await store.catalog.search({ text: 'probe', limit: 100, scopes: [{ ...all, where: condition }] })).map((hit) => hit.path).sort();
        const expected = (test: (put: (typeof puts)[number]) => boolean): string[] => puts.filter(test).map((put) => put.row.path).sort();
        const ms = (text: string | null): number | undefined => (text === null ? undefined : parseTimestampForTest(text));
        const bound = Date.parse('2024-05-01T10:00:00Z');
        for (const op of ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'] as const) {
          const compare = (value: number | undefined): boolean => {
            if (value === undefined) return op === 'ne';
            return { eq: value === bound, ne: value !== bound, lt: value < bound, lte: value <= bound, gt: value > bound, gte: value >= bound }[op];
          };
          expect(await where({ field: 'mtime', type: 'datetime', op, value: bound }), `mtime ${op}`).toEqual(expected((put) => compare(ms(put.row.mtime))));
        }
        expect(await where({ field: { extra: ['flags', 'archived'] }, type: 'boolean', op: 'eq', value: true })).toEqual(expected((put) => (JSON.parse(put.row.extra ?? 'null') as { flags?: { archived?: unknown } } | null)?.flags?.archived === true));
        expect(await where({ field: { extra: ['flags', 'archived'] }, type: 'boolean', op: 'ne', value: true })).toEqual(expected((put) => (JSON.parse(put.row.extra ?? 'null') as { flags?: { archived?: unknown } } | null)?.flags?.archived !== true));
        expect(await where({ field: { extra: ['n'] }, type: 'number', op: 'gte', value: 3.5 })).toEqual(expected((put) => (JSON.parse(put.row.extra ?? 'null') as { n?: unknown } | null)?.n === 3.5));
        expect(await where({ field: { extra: ['n'] }, type: 'number', op: 'in', value: [3] })).toEqual(expected((put) => (JSON.parse(put.row.extra ?? 'null') as { n?: unknown } | null)?.n === 3));
        expect(await where({ field: { extra: ['who'] }, type: 'text', op: 'lt', value: 'a' })).toEqual(expected((put) => (JSON.parse(put.row.extra ?? 'null') as { who?: unknown } | null)?.who === 'Ann'));
        expect(await where({ field: { extra: ['constructor'] }, type: 'text', op: 'eq', value: 'x' })).toEqual(expected((put) => put.row.extra?.includes('"constructor"') === true));
        expect(await where({ field: { extra: ['flags', 'constructor'] }, type: 'text', op: 'ne', value: 'x' })).toEqual(expected(() => true));
        // Text by code point: "Z" < "a" < "é" < "😀".
        expect(await where({ field: 'path', type: 'text', op: 'gt', value: 'b/z' })).toEqual(expected((put) => compareCodePoints(put.row.path, 'b/z') > 0));
        expect(await where({ field: 'path', type: 'text', op: 'prefix', value: 'é' })).toEqual(expected((put) => put.row.path.startsWith('é')));
        for (const [pattern, mode] of [['**/*.md', 'path'], ['b/**', 'path'], ['*', 'path'], ['?.git-*', 'path'], ['x\\[1\\]*', 'path'], ['[!a-z]*', 'path'], ['*A*', 'text'], ['b*d*', 'text'], ['**', 'path']] as const) {
          const regexp = globForTest(pattern, mode);
          expect(await where({ field: 'path', type: 'text', op: 'glob', value: pattern, mode }), `${mode} glob ${pattern}`).toEqual(expected((put) => regexp.test(put.row.path)));
        }
      });

      it('folds case and Latin diacritics, splits words on punctuation, and finds path words', async () => {
        await store.catalog.commit({
          hostId,
          marker: null,
          puts: [
            { row: row('notes/Résumé%20final.md'), content: indexed('CAFÉ Crème — naïve façade; Straße İstanbul. x_y don\'t v1.2') },
            { row: row('cjk.txt'), content: indexed('日本語のテキスト and ΣΊΣΥΦΟΣ') },
          ],
          now: 1,
        });
        for (const text of ['cafe', 'CREME', 'naive', 'facade', 'straße', 'istanbul', 'resume', 'final', 'x', 'y', 'don', 't', 'v1', '2']) {
          expect(await found(text), text).toEqual(['notes/Résumé%20final.md']);
        }
        expect(await found('"naïve façade"')).toEqual(['notes/Résumé%20final.md']);
        expect(await found('caf*')).toEqual(['notes/Résumé%20final.md']);
        expect(await found('日本語のテキスト')).toEqual(['cjk.txt']);
        expect(await found('日本*')).toEqual(['cjk.txt']);
        expect(await found('σίσυφοσ')).toEqual(['cjk.txt']);
        expect(await found('strasse')).toEqual([]);
        const [hit] = await store.catalog.search({ text: 'cafe naive' });
        expect(hit!.highlights.map(([start, end]) => hit!.snippet.slice(start, end))).toEqual(['CAFÉ', 'naïve']);
      });

      it('cuts a long text to a window of words around the best hits, marking the cuts', async () => {
        const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
        words[30] = 'needle';
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('long.txt'), content: indexed(words.join(' ')) }], now: 1 });
        const [hit] = await store.catalog.search({ text: 'needle' });
        expect(hit!.snippet.startsWith('…')).toBe(true);
        expect(hit!.snippet.endsWith('…')).toBe(true);
        const shown = hit!.snippet.replaceAll('…', '').split(' ');
        expect(shown).toHaveLength(16);
        expect(shown).toContain('needle');
        expect(hit!.highlights.map(([start, end]) => hit!.snippet.slice(start, end))).toEqual(['needle']);
      });

      it('takes query text literally: operators and syntax are words, never errors', async () => {
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('near or and not') }], now: 1 });
        for (const text of ['NEAR(a b)', 'path:a', 'x OR', '"unterminated', '^start', '(a', 'a AND NOT b', 'a*b', 'body : near', "it's", 'a & b | !c', "'quoted'", 'back\\slash', 'ab:*', 'a <-> b']) {
          await expect(store.catalog.search({ text })).resolves.toBeInstanceOf(Array);
        }
        expect(await found('near OR')).toEqual(['a.md']);
        expect(await found('near & or')).toEqual(['a.md']);
        expect(await found('not:*')).toEqual(['a.md']);
        expect(await codeOf(store.catalog.search({ text: '  !!! ' }))).toBe('invalid_argument');
        expect(await codeOf(store.catalog.search({ text: '""' }))).toBe('invalid_argument');
        expect(await codeOf(store.catalog.search({ text: 'x'.repeat(2000) }))).toBe('invalid_argument');
        expect(await codeOf(store.catalog.search({ text: Array.from({ length: 40 }, (_, i) => `t${i}`).join(' ') }))).toBe('invalid_argument');
      });

      it('refuses a prefix of one character, whose expansion is most words, and finds by two or more', async () => {
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: indexed('network needs nearly new notes') }, { row: row('b.md'), content: indexed('Ñandú and niche') }], now: 1 });
        const refusal = async (text: string): Promise<unknown> => {
          try {
            await store.catalog.search({ text });
          } catch (error) {
            return { code: (error as { code: string }).code, reason: (error as { details?: { reason?: string } }).details?.reason, message: (error as Error).message };
          }
          return 'resolved';
        };
        for (const [text, shown] of [['n*', '"n*"'], ['network n*', '"n*"'], ['Ñ*', '"Ñ*"'], ['ab-c*', '"c*"'], ['7*', '"7*"'], ['e\u0301*', '"e\u0301*"']] as const) {
          expect(await refusal(text), text).toEqual({ code: 'invalid_argument', reason: 'prefix_too_short', message: expect.stringContaining(shown) });
        }
        expect(await found('ne*')).toEqual(['a.md']);
        expect(await found('na*')).toEqual(['b.md']);
        expect((await found('ni*')).sort()).toEqual(['b.md']);
        // A lone `*` is not a prefix, and `x` alone is a word.
        expect(await codeOf(store.catalog.search({ text: '*' }))).toBe('invalid_argument');
        await expect(store.catalog.search({ text: 'n' })).resolves.toEqual([]);
      });
    });

    describe('trials, detached runs and tokens', () => {
      it('records and approves trials, refusing to approve a failed or approved one', async () => {
        await store.networks.create({ slug: 'home' });
        const base = { network: 'home', kind: 'notion', moduleHash: 'ab'.repeat(32), report: { kind: 'notion', passed: true, checks: [{ id: 1 }] }, origins: ['https://api.notion.com'] };
        await store.trials.record({ ...base, id: 't1', passed: false }, 1);
        expect(await store.trials.record({ ...base, id: 't2', passed: true }, 2)).toMatchObject({ id: 't2', network: 'home', passed: true, createdAt: 2, approvedBy: null, approvedAt: null });
        // Recorded in the same millisecond: the later one is the latest.
        await store.trials.record({ ...base, id: 't0', passed: true, kind: 'other' }, 2);
        await store.trials.record({ ...base, id: 't3', passed: true, kind: 'other' }, 2);
        expect(await codeOf(store.trials.record({ ...base, id: 't2', passed: true }))).toBe('already_exists');
        expect(await codeOf(store.trials.record({ ...base, id: 't9', network: 'nowhere', passed: true }))).toBe('not_found');
        expect((await store.trials.latest('home', 'notion'))?.id).toBe('t2');
        expect((await store.trials.latest('home', 'other'))?.id).toBe('t3');
        expect(await store.trials.latest('home', 'none')).toBeNull();
        expect(await codeOf(store.trials.approve('t1', 'ann'))).toBe('precondition_failed');
        const approved = await store.trials.approve('t2', 'ann', 3);
        expect(approved).toMatchObject({ approvedBy: 'ann', approvedAt: 3, origins: ['https://api.notion.com'], report: base.report, moduleHash: base.moduleHash });
        expect(await store.trials.get('t2')).toEqual(approved);
        expect(await codeOf(store.trials.approve('t2', 'bob'))).toBe('precondition_failed');
        expect(await codeOf(store.trials.approve('t9', 'bob'))).toBe('not_found');
        expect(await store.trials.get('t9')).toBeNull();
      });

      it('deletes a trial that is not approved, and keeps an approved one', async () => {
        await store.networks.create({ slug: 'home' });
        const base = { network: 'home', kind: 'notion', moduleHash: 'ab'.repeat(32), report: {}, origins: [] };
        await store.trials.record({ ...base, id: 'failed', passed: false }, 1);
        await store.trials.record({ ...base, id: 'waiting', passed: true }, 2);
        await store.trials.record({ ...base, id: 'approved', passed: true }, 3);
        await store.trials.approve('approved', 'ann', 4);
        expect(await store.trials.delete('failed')).toBe(true);
        expect(await store.trials.delete('waiting')).toBe(true);
        expect(await store.trials.delete('failed')).toBe(false);
        expect(await store.trials.delete('never')).toBe(false);
        expect(await codeOf(store.trials.delete('approved'))).toBe('precondition_failed');
        expect(await store.trials.get('failed')).toBeNull();
        expect(await store.trials.get('waiting')).toBeNull();
        expect(await store.trials.get('approved')).toMatchObject({ approvedBy: 'ann', approvedAt: 4 });
        expect((await store.trials.latest('home', 'notion'))?.id).toBe('approved');
      });

      it('records who owns a detached run and releases it once', async () => {
        await store.networks.create({ slug: 'home' });
        await store.hosts.create('home', { slug: 'box', kind: 'desktop' });
        expect(await store.detachedRuns.record({ runId: 'r1', network: 'home', host: 'box', userId: 'u1', agentId: null }, 1)).toEqual({ runId: 'r1', network: 'home', host: 'box', userId: 'u1', agentId: null, createdAt: 1, releasedAt: null });
        await store.detachedRuns.record({ runId: 'r2', network: 'home', host: 'box', userId: 'u1', agentId: 'a1' }, 2);
        await store.detachedRuns.record({ runId: 'r3', network: 'home', host: 'box', userId: 'u1', agentId: null }, 2);
        expect(await codeOf(store.detachedRuns.record({ runId: 'r1', network: 'home', host: 'box', userId: 'u2', agentId: null }))).toBe('already_exists');
        expect(await codeOf(store.detachedRuns.record({ runId: 'r4', network: 'home', host: 'nope', userId: 'u2', agentId: null }))).toBe('not_found');
        expect((await store.detachedRuns.listByUser('home', 'u1')).map((r) => r.runId)).toEqual(['r3', 'r2', 'r1']);
        expect(await store.detachedRuns.release('r1', 5)).toBe(true);
        expect(await store.detachedRuns.release('r1', 6)).toBe(false);
        expect(await store.detachedRuns.release('unknown', 6)).toBe(false);
        expect((await store.detachedRuns.get('r1'))?.releasedAt).toBe(5);
        expect(await store.detachedRuns.get('unknown')).toBeNull();
        expect((await store.detachedRuns.listByUser('home', 'u1')).map((r) => r.runId)).toEqual(['r3', 'r2']);
        expect(await store.detachedRuns.listByUser('home', 'u2')).toEqual([]);
      });

      it('finds tokens by secret hash only while neither revoked nor expired', async () => {
        await store.networks.create({ slug: 'home' });
        const created = await store.tokens.create({ id: 'k1', network: 'home', userId: 'u1', agentId: 'a1', name: 'cli', secretHash: 'h1', scopes: ['read', 'write'], expiresAt: 100 }, 1);
        expect(created).toEqual({ id: 'k1', network: 'home', userId: 'u1', agentId: 'a1', name: 'cli', secretHash: 'h1', scopes: ['read', 'write'], grants: [], createdAt: 1, expiresAt: 100, lastUsedAt: null, revokedAt: null });
        await store.tokens.create({ id: 'k2', network: null, userId: 'u1', agentId: null, name: 'all', secretHash: 'h2', scopes: [], expiresAt: null }, 2);
        await store.tokens.create({ id: 'k0', network: null, userId: 'u1', agentId: null, name: 'same time', secretHash: 'h0', scopes: [], expiresAt: null }, 2);
        expect(await codeOf(store.tokens.create({ id: 'k3', network: null, userId: 'u1', agentId: null, name: 'dup', secretHash: 'h1', scopes: [], expiresAt: null }))).toBe('already_exists');
        expect(await codeOf(store.tokens.create({ id: 'k1', network: null, userId: 'u1', agentId: null, name: 'dup', secretHash: 'h9', scopes: [], expiresAt: null }))).toBe('already_exists');
        expect(await codeOf(store.tokens.create({ id: 'k4', network: 'nope', userId: 'u1', agentId: null, name: 'x', secretHash: 'h4', scopes: [], expiresAt: null }))).toBe('not_found');
        expect((await store.tokens.findActive('h1', 50))?.scopes).toEqual(['read', 'write']);
        expect(await store.tokens.findActive('h1', 100)).toBeNull();
        expect(await store.tokens.findActive('nope', 1)).toBeNull();
        await store.tokens.touch('k2', 7);
        expect((await store.tokens.findActive('h2', 8))?.lastUsedAt).toBe(7);
        expect(await store.tokens.revoke('k2', 9)).toBe(true);
        expect(await store.tokens.revoke('k2', 10)).toBe(false);
        expect(await store.tokens.findActive('h2', 11)).toBeNull();
        expect((await store.tokens.listByUser('u1')).map((t) => [t.id, t.revokedAt])).toEqual([
          ['k0', null],
          ['k2', 9],
          ['k1', null],
        ]);
        // A token of a deleted network goes with it.
        await store.networks.delete('home');
        expect(await store.tokens.findActive('h1', 50)).toBeNull();
      });

      it("keeps an agent token's grants as given", async () => {
        const grants = [
          { right: 'delete', address: 'inseam://home/files/drafts' },
          { right: 'write', address: 'inseam://home/files/drafts' },
          { right: 'exec', address: 'inseam://work/box/' },
        ];
        await store.tokens.create({ id: 'g1', network: null, userId: 'u1', agentId: 'a1', name: 'granted', secretHash: 'hg', scopes: ['exec.machine'], grants, expiresAt: null }, 1);
        expect((await store.tokens.findActive('hg', 2))?.grants).toEqual(grants);
        expect((await store.tokens.listByUser('u1')).find((token) => token.id === 'g1')?.grants).toEqual(grants);
      });
    });

    describe('webhook keys', () => {
      it('keeps one key hash per host: set replaces, delete removes, a removed host takes its key along', async () => {
        await homeHost('notes');
        await homeHost('other');
        const notes = { network: 'home', host: 'notes' };
        expect(await store.webhookKeys.get(notes)).toBeNull();
        expect(await store.webhookKeys.set(notes, 'hash-1', 10)).toEqual({ hash: 'hash-1', createdAt: 10 });
        expect(await store.webhookKeys.set(notes, 'hash-2', 20)).toEqual({ hash: 'hash-2', createdAt: 20 });
        expect(await store.webhookKeys.get(notes)).toEqual({ hash: 'hash-2', createdAt: 20 });
        expect(await store.webhookKeys.get({ network: 'home', host: 'other' })).toBeNull();
        expect(await codeOf(store.webhookKeys.set({ network: 'home', host: 'nope' }, 'h'))).toBe('not_found');
        expect(await codeOf(store.webhookKeys.set({ network: 'nope', host: 'notes' }, 'h'))).toBe('not_found');
        expect(await store.webhookKeys.get({ network: 'nope', host: 'notes' })).toBeNull();
        expect(await store.webhookKeys.delete(notes)).toBe(true);
        expect(await store.webhookKeys.delete(notes)).toBe(false);
        expect(await store.webhookKeys.get(notes)).toBeNull();
        await store.webhookKeys.set(notes, 'hash-3', 30);
        await store.hosts.delete(notes);
        await homeHost('notes');
        // A host added again under the same slug does not inherit the removed one's key.
        expect(await store.webhookKeys.get(notes)).toBeNull();
      });
    });

    describe('installed packages', () => {
      it('keeps one record per package id: put replaces, list is by id, delete removes, another handle sees them', async () => {
        const record = (packageId: string, folder: string, at: number) => ({ packageId, folder, trust: 'trusted' as const, installedAt: at, installedBy: 'ann' });
        expect(await store.packages.list()).toEqual([]);
        expect(await store.packages.get('acme.desk')).toBeNull();
        await store.packages.put(record('acme.desk', '/srv/desk', 1_700_000_000_000));
        await store.packages.put(record('acme.board', '/srv/board', 2));
        expect(await store.packages.put({ ...record('acme.desk', '/srv/desk-2', 3), trust: 'sandboxed', installedBy: 'bob' })).toMatchObject({ folder: '/srv/desk-2' });
        expect(await store.packages.get('acme.desk')).toEqual({ packageId: 'acme.desk', folder: '/srv/desk-2', trust: 'sandboxed', installedAt: 3, installedBy: 'bob' });
        expect((await store.packages.list()).map((entry) => entry.packageId)).toEqual(['acme.board', 'acme.desk']);
        const other = await opened.another();
        try {
          expect(await other.packages.get('acme.board')).toEqual(record('acme.board', '/srv/board', 2));
        } finally {
          await other.close();
        }
        expect(await store.packages.delete('acme.desk')).toBe(true);
        expect(await store.packages.delete('acme.desk')).toBe(false);
        expect((await store.packages.list()).map((entry) => entry.packageId)).toEqual(['acme.board']);
        // The trust column takes only what a person can give: first-party is the platform's own.
        expect(await codeOf(store.packages.put({ ...record('acme.bad', '/srv/bad', 4), trust: 'first-party' as never }))).toBe('unavailable');
      });
    });

    describe('sign-in codes and sessions', () => {
      const session = (id: string, secretHash: string, expiresAt: number) => ({ id, secretHash, expiresAt });

      it('spends a code once, before it expires, for a session of its user and features', async () => {
        await store.sessions.addCode({ codeHash: 'c1', userId: 'ann', features: ['hosts.manage', 'exec.machine'], expiresAt: 100 }, 10);
        expect(await codeOf(store.sessions.addCode({ codeHash: 'c1', userId: 'bob', features: [], expiresAt: 100 }, 11))).toBe('already_exists');
        expect(await store.sessions.redeem('unknown', session('s0', 'h0', 1000), 20)).toBeNull();
        const made = await store.sessions.redeem('c1', session('s1', 'h1', 1000), 20);
        expect(made).toEqual({ id: 's1', userId: 'ann', features: ['hosts.manage', 'exec.machine'], secretHash: 'h1', createdAt: 20, expiresAt: 1000, lastUsedAt: null, revokedAt: null });
        // Used: a second redeem finds nothing, and makes no session.
        expect(await store.sessions.redeem('c1', session('s2', 'h2', 1000), 21)).toBeNull();
        expect(await store.sessions.findActive('h2', 22)).toBeNull();
        await store.sessions.addCode({ codeHash: 'c2', userId: 'ann', features: [], expiresAt: 100 }, 30);
        expect(await store.sessions.redeem('c2', session('s3', 'h3', 1000), 100)).toBeNull();
        expect((await store.sessions.listByUser('ann')).map((item) => item.id)).toEqual(['s1']);
      });

      it('lets exactly one of two handles redeem the same code', async () => {
        const other = await opened.another();
        try {
          await store.sessions.addCode({ codeHash: 'race', userId: 'ann', features: [], expiresAt: Date.now() + 60_000 });
          const outcomes = await Promise.all([store.sessions.redeem('race', session('a', 'ha', Date.now() + 60_000)), other.sessions.redeem('race', session('b', 'hb', Date.now() + 60_000))]);
          expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
        } finally {
          await other.close();
        }
      });

      it('finds a session by secret hash only while neither revoked nor expired; renewing moves the expiry', async () => {
        await store.sessions.addCode({ codeHash: 'c1', userId: 'ann', features: ['hosts.manage'], expiresAt: 100 }, 1);
        await store.sessions.addCode({ codeHash: 'c2', userId: 'ann', features: [], expiresAt: 100 }, 1);
        await store.sessions.addCode({ codeHash: 'c3', userId: 'bob', features: [], expiresAt: 100 }, 1);
        await store.sessions.redeem('c1', session('s1', 'h1', 50), 2);
        await store.sessions.redeem('c2', session('s2', 'h2', 50), 3);
        await store.sessions.redeem('c3', session('s3', 'h3', 50), 3);
        expect((await store.sessions.findActive('h1', 49))?.features).toEqual(['hosts.manage']);
        expect(await store.sessions.findActive('h1', 50)).toBeNull();
        await store.sessions.renew('s1', 80, 40);
        expect(await store.sessions.findActive('h1', 79)).toMatchObject({ id: 's1', expiresAt: 80, lastUsedAt: 40 });
        // An expired session is not brought back by a renewal.
        await store.sessions.renew('s1', 200, 90);
        expect(await store.sessions.findActive('h1', 91)).toBeNull();
        expect(await store.sessions.revoke('s2', 10)).toBe(true);
        expect(await store.sessions.revoke('s2', 11)).toBe(false);
        expect(await store.sessions.revoke('nope', 11)).toBe(false);
        expect(await store.sessions.findActive('h2', 12)).toBeNull();
        await store.sessions.renew('s2', 200, 13);
        expect(await store.sessions.findActive('h2', 14)).toBeNull();
        expect((await store.sessions.listByUser('ann')).map((item) => [item.id, item.revokedAt])).toEqual([
          ['s2', 10],
          ['s1', null],
        ]);
        expect((await store.sessions.listByUser('bob')).map((item) => item.id)).toEqual(['s3']);
      });

      it('forgets sessions 30 days after they ended, when the next one is made', async () => {
        const day = 24 * 60 * 60_000;
        await store.sessions.addCode({ codeHash: 'old', userId: 'ann', features: [], expiresAt: 100 }, 1);
        await store.sessions.redeem('old', session('s-old', 'h-old', day), 2);
        await store.sessions.addCode({ codeHash: 'new', userId: 'ann', features: [], expiresAt: 40 * day }, 31 * day);
        await store.sessions.redeem('new', session('s-new', 'h-new', 32 * day), 31 * day + 1);
        expect((await store.sessions.listByUser('ann')).map((item) => item.id)).toEqual(['s-new']);
      });
    });

    describe('the store as a whole', () => {
      it('answers unavailable once closed, and closing twice is harmless', async () => {
        await store.networks.create({ slug: 'home' });
        await store.close();
        await store.close();
        expect(await codeOf(store.networks.list())).toBe('unavailable');
        expect(await codeOf(store.catalog.search({ text: 'x' }))).toBe('unavailable');
        expect(await codeOf(store.tokens.findActive('h'))).toBe('unavailable');
      });

      it('shows one handle what another committed', async () => {
        const other = await opened.another();
        try {
          await store.networks.create({ slug: 'home' });
          const hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
          expect((await other.networks.get('home'))?.label).toBe('home');
          await other.networks.update('home', { label: 'Home' });
          expect((await store.networks.get('home'))?.label).toBe('Home');
          await other.catalog.commit({ hostId, marker: null, puts: [{ row: row('shared.md'), content: indexed('seen by both') }], now: 1 });
          expect(await store.catalog.contentText(hostId, 'shared.md')).toBe('seen by both');
          // A run claimed by one handle is not the other's to write.
          const run = await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: 'one', totalEstimate: null, now: 2 });
          expect(await other.catalog.claimRun(run.id, 'one', 'two', 3)).toBe(true);
          expect(await codeOf(store.catalog.commit({ hostId, marker: run.id, puts: [{ row: row('late.md') }], now: 4, checkpoint: { runId: run.id, owner: 'one', now: 4 } }))).toBe('binding_conflict');
          expect(await other.catalog.getEntry(hostId, 'late.md')).toBeNull();
        } finally {
          await other.close();
        }
      });
    });
  });
}
