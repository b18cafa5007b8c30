/**
 * The vector index's conformance suite (vector-types.ts), registered beside the store suite by
 * each backend's test file: the same behaviour on SQLite (sqlite-vec) and PostgreSQL (the exact
 * scan here, where pgvector is not installed). Entries are written through the catalog, as the
 * crawler writes them, so the invariants that tie vectors to catalog content are checked against
 * the catalog's real writes. Assertions name behaviour only; no backend table is read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EntryRow, Store } from '../types.js';
import type { ConformanceStore } from './store-conformance.js';

const MODEL = 'test-model-3d';

function row(path: string, fields: Partial<EntryRow> = {}): EntryRow {
  return { path, size: 10, mtime: null, etag: `"${path}"`, mime: null, nativeHash: null, nativeId: null, decision: 'include', dimensions: '{}', extra: null, envelope: null, ...fields };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

const v = (...values: number[]): Float32Array => Float32Array.from(values);

/** A deterministic pseudo-random unit-ish vector. */
function randomVector(seed: number, dimension: number): Float32Array {
  let state = seed * 2654435761;
  return Float32Array.from({ length: dimension }, () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x6d2b79f5) | 0;
    return ((state >>> 0) / 2 ** 32) * 2 - 1;
  });
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

export function runVectorConformance(name: string, open: () => Promise<ConformanceStore>): void {
  describe(`vector index conformance (${name})`, () => {
    let opened: ConformanceStore;
    let store: Store;
    let hostId: number;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
      await store.networks.create({ slug: 'home' });
      hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
      await store.vectors.ensureModel(MODEL, 3, 1);
    });

    afterEach(async () => {
      await store.close();
      await opened.cleanup();
    });

    /** Writes an entry with indexed text through the catalog; answers what an indexer would read with it. */
    async function put(path: string, text: string, key: string | null = `k-${path}`, now = 100, host = hostId): Promise<{ entryId: number; expect: { contentKey: string | null; updatedAt: number } }> {
      await store.catalog.commit({ hostId: host, marker: null, puts: [{ row: row(path), content: { state: 'indexed', key, text, bytes: Buffer.byteLength(text) } }], now });
      const entry = (await store.catalog.getEntry(host, path))!;
      return { entryId: entry.id, expect: { contentKey: entry.contentKey, updatedAt: entry.updatedAt } };
    }

    async function embed(path: string, vectors: Float32Array[], options: { model?: string; host?: number } = {}): Promise<number> {
      const entry = await put(path, vectors.map((_, i) => `chunk ${i}.`).join(' '), `k-${path}`, 100, options.host ?? hostId);
      await store.vectors.upsert({
        entryId: entry.entryId,
        model: options.model ?? MODEL,
        expect: entry.expect,
        chunks: vectors.map((vector, i) => ({ span: { start: i * 9, end: i * 9 + 8 }, vector })),
        now: 200,
      });
      return entry.entryId;
    }

    const nearest = async (vector: Float32Array, k = 10, extra: { hostIds?: number[]; entryIds?: number[]; model?: string } = {}) =>
      (await store.vectors.query({ model: extra.model ?? MODEL, vector, k, ...extra })).map((hit) => `${hit.path}#${hit.span.start}`);

    describe('models', () => {
      it('registers a model once; another dimension for the same id, or a bad one, is invalid_argument', async () => {
        expect(await store.vectors.ensureModel(MODEL, 3)).toMatchObject({ model: MODEL, dimension: 3, createdAt: 1 });
        expect(await codeOf(store.vectors.ensureModel(MODEL, 4))).toBe('invalid_argument');
        for (const dimension of [0, -1, 1.5, 8193]) expect(await codeOf(store.vectors.ensureModel('other', dimension)), String(dimension)).toBe('invalid_argument');
        expect(await codeOf(store.vectors.ensureModel('', 3))).toBe('invalid_argument');
        await store.vectors.ensureModel('big', 1536);
        expect((await store.vectors.models()).map((model) => [model.model, model.dimension])).toEqual([
          ['big', 1536],
          [MODEL, 3],
        ]);
        expect((await store.vectors.backend()).backend).toMatch(/^(sqlite-vec|pgvector|exact)$/);
      });

      it('never mixes two models: each query sees its own model only, and checks its dimension', async () => {
        await store.vectors.ensureModel('other-2d', 2);
        const entry = await embed('a.md', [v(1, 0, 0)]);
        await embed('b.md', [v(0, 1, 0)]);
        const content = (await store.catalog.getEntry(hostId, 'a.md'))!;
        await store.vectors.upsert({ entryId: entry, model: 'other-2d', expect: { contentKey: content.contentKey, updatedAt: content.updatedAt }, chunks: [{ span: { start: 0, end: 4 }, vector: v(1, 1) }], now: 300 });
        expect(await nearest(v(1, 0, 0))).toEqual(['a.md#0', 'b.md#0']);
        expect(await nearest(v(1, 1), 10, { model: 'other-2d' })).toEqual(['a.md#0']);
        expect(await codeOf(store.vectors.query({ model: 'other-2d', vector: v(1, 0, 0), k: 1 }))).toBe('invalid_argument');
        expect(await codeOf(store.vectors.query({ model: 'unknown', vector: v(1, 0, 0), k: 1 }))).toBe('invalid_argument');
        // Dropping one model leaves the other whole.
        expect(await store.vectors.dropModel('other-2d')).toBe(true);
        expect(await store.vectors.dropModel('other-2d')).toBe(false);
        expect(await nearest(v(1, 0, 0))).toEqual(['a.md#0', 'b.md#0']);
        expect(await store.vectors.get(entry, MODEL)).toMatchObject({ state: 'indexed' });
        expect(await store.vectors.get(entry, 'other-2d')).toBeNull();
      });
    });

    describe('writes', () => {
      it('stores an entry’s chunks with their spans and answers the nearest by cosine, best first', async () => {
        const entryId = await embed('notes/a.md', [v(1, 0, 0), v(0.6, 0.8, 0)]);
        await embed('notes/b.md', [v(0, 0, 1)]);
        const hits = await store.vectors.query({ model: MODEL, vector: v(2, 0, 0), k: 3 });
        expect(hits.map((hit) => [hit.path, hit.span])).toEqual([
          ['notes/a.md', { start: 0, end: 8 }],
          ['notes/a.md', { start: 9, end: 17 }],
          ['notes/b.md', { start: 0, end: 8 }],
        ]);
        expect(hits[0]).toMatchObject({ entryId, hostId, host: { network: 'home', host: 'notes' }, contentKey: 'k-notes/a.md' });
        expect(hits[0]!.score).toBeCloseTo(1, 5);
        expect(hits[1]!.score).toBeCloseTo(0.6, 5);
        expect(hits[2]!.score).toBeCloseTo(0, 5);
        expect(await store.vectors.get(entryId, MODEL)).toMatchObject({ state: 'indexed', chunks: 2, contentKey: 'k-notes/a.md', indexedAt: 200, attempts: 0, error: null, path: 'notes/a.md' });
        expect((await store.vectors.chunks(entryId, MODEL)).map((chunk) => [chunk.ordinal, chunk.span])).toEqual([
          [0, { start: 0, end: 8 }],
          [1, { start: 9, end: 17 }],
        ]);
        // A second upsert replaces the chunks, it does not add to them.
        const entry = (await store.catalog.getEntry(hostId, 'notes/a.md'))!;
        await store.vectors.upsert({ entryId, model: MODEL, expect: { contentKey: entry.contentKey, updatedAt: entry.updatedAt }, chunks: [{ span: { start: 3, end: 5 }, vector: v(0.5, 0.5, 0) }], now: 300 });
        expect(await nearest(v(1, 0, 0))).toEqual(['notes/a.md#3', 'notes/b.md#0']);
        expect((await store.vectors.get(entryId, MODEL))?.chunks).toBe(1);
      });

      it('refuses bad input and writes nothing: unregistered model, wrong dimension, NaN, all zeros, bad spans', async () => {
        const { entryId, expect: expectation } = await put('a.md', 'text');
        const upsert = (chunks: { span: { start: number; end: number }; vector: Float32Array }[], model = MODEL) => store.vectors.upsert({ entryId, model, expect: expectation, chunks, now: 1 });
        expect(await codeOf(upsert([{ span: { start: 0, end: 1 }, vector: v(1, 0, 0) }], 'unknown'))).toBe('invalid_argument');
        expect(await codeOf(upsert([{ span: { start: 0, end: 1 }, vector: v(1, 0) }]))).toBe('invalid_argument');
        expect(await codeOf(upsert([{ span: { start: 0, end: 1 }, vector: v(1, Number.NaN, 0) }]))).toBe('invalid_argument');
        expect(await codeOf(upsert([{ span: { start: 0, end: 1 }, vector: v(0, 0, 0) }]))).toBe('invalid_argument');
        expect(await codeOf(upsert([{ span: { start: 2, end: 2 }, vector: v(1, 0, 0) }]))).toBe('invalid_argument');
        expect(await codeOf(upsert([{ span: { start: -1, end: 2 }, vector: v(1, 0, 0) }]))).toBe('invalid_argument');
        expect(await codeOf(upsert([{ span: { start: 0, end: 1 }, vector: [1, 0, 0] as unknown as Float32Array }]))).toBe('invalid_argument');
        expect(await store.vectors.get(entryId, MODEL)).toBeNull();
        for (const k of [0, 1001, 2.5]) expect(await codeOf(store.vectors.query({ model: MODEL, vector: v(1, 0, 0), k })), String(k)).toBe('invalid_argument');
        expect(await codeOf(store.vectors.query({ model: MODEL, vector: v(0, 0, 0), k: 1 }))).toBe('invalid_argument');
        // An entry with nothing to embed is indexed with no chunks.
        expect(await upsert([])).toMatchObject({ state: 'indexed', chunks: 0 });
      });

      it('refuses an embedding of text the catalog has replaced since (precondition_failed), and of an entry that is gone (not_found)', async () => {
        const first = await put('a.md', 'old text', 'k1', 100);
        // The crawler writes new content while the old text is being embedded.
        await put('a.md', 'new text', 'k2', 150);
        const stale = { entryId: first.entryId, model: MODEL, expect: first.expect, chunks: [{ span: { start: 0, end: 3 }, vector: v(1, 0, 0) }], now: 200 };
        expect(await codeOf(store.vectors.upsert(stale))).toBe('precondition_failed');
        expect(await codeOf(store.vectors.markFailed({ ...stale, error: { code: 'unavailable', message: 'x' } }))).toBe('precondition_failed');
        expect(await store.vectors.get(first.entryId, MODEL)).toBeNull();
        expect(await nearest(v(1, 0, 0))).toEqual([]);
        await store.catalog.commit({ hostId, marker: null, puts: [], deletes: ['a.md'], now: 300 });
        expect(await codeOf(store.vectors.upsert({ ...stale, expect: { contentKey: 'k2', updatedAt: 150 } }))).toBe('not_found');
      });

      it('records a failure with its error and attempts; a success clears them', async () => {
        const { entryId, expect: expectation } = await put('a.md', 'text');
        const fail = (now: number) => store.vectors.markFailed({ entryId, model: MODEL, expect: expectation, error: { code: 'rate_limited', message: 'slow down' }, now });
        expect(await fail(10)).toMatchObject({ state: 'failed', attempts: 1, chunks: 0, error: { code: 'rate_limited', message: 'slow down' }, indexedAt: null });
        expect(await fail(20)).toMatchObject({ attempts: 2, updatedAt: 20 });
        expect(await store.vectors.upsert({ entryId, model: MODEL, expect: expectation, chunks: [{ span: { start: 0, end: 4 }, vector: v(1, 0, 0) }], now: 30 })).toMatchObject({
          state: 'indexed',
          attempts: 0,
          error: null,
        });
      });
    });

    describe('a hit never outlives its content', () => {
      it('new content from the catalog removes the vectors in the same write and marks the entry pending', async () => {
        const entryId = await embed('a.md', [v(1, 0, 0)]);
        await put('a.md', 'changed text', 'k-changed', 300);
        expect(await nearest(v(1, 0, 0))).toEqual([]);
        expect(await store.vectors.get(entryId, MODEL)).toMatchObject({ state: 'pending', chunks: 0, contentKey: null, updatedAt: 300 });
        expect(await store.vectors.chunks(entryId, MODEL)).toEqual([]);
      });

      it('content with no validator: every new write of it counts as a change', async () => {
        const entry = await put('a.md', 'first', null, 100);
        await store.vectors.upsert({ entryId: entry.entryId, model: MODEL, expect: entry.expect, chunks: [{ span: { start: 0, end: 5 }, vector: v(1, 0, 0) }], now: 150 });
        await put('a.md', 'second', null, 200);
        expect(await store.vectors.get(entry.entryId, MODEL)).toMatchObject({ state: 'pending' });
        expect(await nearest(v(1, 0, 0))).toEqual([]);
      });

      it('listing an unchanged entry again keeps its vectors', async () => {
        const entryId = await embed('a.md', [v(1, 0, 0)]);
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md') }], now: 400 });
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md'), content: { state: 'indexed', key: 'k-a.md', text: 'chunk 0.', bytes: 8 } }], now: 500 });
        expect(await store.vectors.get(entryId, MODEL)).toMatchObject({ state: 'indexed', chunks: 1 });
        expect(await nearest(v(1, 0, 0))).toEqual(['a.md#0']);
      });

      it('content that stops being text takes the record and vectors away', async () => {
        const entryId = await embed('a.md', [v(1, 0, 0)]);
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('a.md', { etag: '"v2"' }), content: { state: 'binary', key: 'k-bin' } }], now: 300 });
        expect(await store.vectors.get(entryId, MODEL)).toBeNull();
        expect(await nearest(v(1, 0, 0))).toEqual([]);
        expect((await store.vectors.counts(MODEL)).pending).toBe(0);
      });

      it('a deleted entry, host or network takes its vectors along', async () => {
        const other = (await store.hosts.create('home', { slug: 'mail', kind: 'imap' })).id;
        await embed('a.md', [v(1, 0, 0)]);
        await embed('b.md', [v(0.9, 0.1, 0)]);
        await embed('m.eml', [v(0.8, 0.2, 0)], { host: other });
        await store.catalog.commit({ hostId, marker: null, puts: [], deletes: ['a.md'], now: 300 });
        expect(await nearest(v(1, 0, 0))).toEqual(['b.md#0', 'm.eml#0']);
        await store.hosts.delete({ network: 'home', host: 'mail' });
        expect(await nearest(v(1, 0, 0))).toEqual(['b.md#0']);
        await store.networks.delete('home');
        expect(await nearest(v(1, 0, 0))).toEqual([]);
        expect((await store.vectors.counts(MODEL)).indexed).toBe(0);
      });

      it('a rename carries the vectors to the new path', async () => {
        await embed('old.md', [v(1, 0, 0)]);
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('new.md', { etag: '"old.md"' }), movedFrom: 'old.md' }], now: 300 });
        expect(await nearest(v(1, 0, 0))).toEqual(['new.md#0']);
      });

      it('remove() takes one model’s record or all of them', async () => {
        await store.vectors.ensureModel('other-2d', 2);
        const entryId = await embed('a.md', [v(1, 0, 0)]);
        const entry = (await store.catalog.getEntry(hostId, 'a.md'))!;
        await store.vectors.upsert({ entryId, model: 'other-2d', expect: { contentKey: entry.contentKey, updatedAt: entry.updatedAt }, chunks: [{ span: { start: 0, end: 1 }, vector: v(1, 0) }], now: 1 });
        expect(await store.vectors.remove(entryId, MODEL)).toBe(1);
        expect(await nearest(v(1, 0, 0))).toEqual([]);
        expect(await nearest(v(1, 0), 1, { model: 'other-2d' })).toEqual(['a.md#0']);
        expect(await store.vectors.remove(entryId)).toBe(1);
        expect(await store.vectors.remove(entryId)).toBe(0);
      });
    });

    describe('queries', () => {
      it('filters by host and by entry before ranking: k hits of the allowed ones, never fewer when more exist', async () => {
        const other = (await store.hosts.create('home', { slug: 'mail', kind: 'imap' })).id;
        const a = await embed('a.md', [v(1, 0, 0)]);
        await embed('b.md', [v(0.9, 0.1, 0)]);
        await embed('m1.eml', [v(0.1, 0.9, 0)], { host: other });
        await embed('m2.eml', [v(0, 1, 0)], { host: other });
        expect(await nearest(v(1, 0, 0), 2, { hostIds: [other] })).toEqual(['m1.eml#0', 'm2.eml#0']);
        expect(await nearest(v(1, 0, 0), 2, { hostIds: [hostId] })).toEqual(['a.md#0', 'b.md#0']);
        expect(await nearest(v(1, 0, 0), 5, { hostIds: [] })).toEqual([]);
        expect(await nearest(v(0, 1, 0), 1, { entryIds: [a] })).toEqual(['a.md#0']);
        expect(await nearest(v(0, 1, 0), 5, { entryIds: [a], hostIds: [other] })).toEqual([]);
      });

      it('applies search scopes (readable paths, a condition on the entry) before ranking: the k nearest allowed, never fewer', async () => {
        const other = (await store.hosts.create('home', { slug: 'mail', kind: 'imap' })).id;
        // The nearest chunks are the refused ones; the allowed ones lie further out.
        await embed('secret/a.md', [v(1, 0, 0)]);
        await embed('secret/b.md', [v(0.99, 0.01, 0)]);
        await embed('notes/far.md', [v(0.2, 0.8, 0)]);
        await embed('notes/near.md', [v(0.7, 0.3, 0)]);
        await embed('other/near.txt', [v(0.9, 0.1, 0)]);
        await embed('m.eml', [v(1, 0, 0)], { host: other });
        const readable = { default: true, rules: [{ path: 'secret', read: false }] };
        const scoped = (k: number, where?: Parameters<typeof store.vectors.query>[0]['scopes']) =>
          store.vectors.query({ model: MODEL, vector: v(1, 0, 0), k, scopes: where ?? [{ hostId, readable: [readable] }] }).then((hits) => hits.map((hit) => hit.path));
        expect(await scoped(2)).toEqual(['other/near.txt', 'notes/near.md']);
        expect(await scoped(2, [{ hostId, readable: [readable], where: { field: 'path', type: 'text', op: 'prefix', value: 'notes/' } }])).toEqual(['notes/near.md', 'notes/far.md']);
        // Two trees must both allow; a tree that allows nothing leaves nothing.
        expect(await scoped(5, [{ hostId, readable: [readable, { default: false, rules: [{ path: 'notes', read: true }] }] }])).toEqual(['notes/near.md', 'notes/far.md']);
        expect(await scoped(5, [{ hostId, readable: [{ default: false, rules: [] }] }])).toEqual([]);
        expect(await scoped(5, [])).toEqual([]);
        // Scopes of two hosts: each host's own rule.
        expect(await scoped(2, [{ hostId, readable: [readable] }, { hostId: other, readable: [{ default: true, rules: [] }] }])).toEqual(['m.eml', 'other/near.txt']);
      });

      it('answers the exact top k within scopes, whether few or most of the nearest chunks are hidden', async () => {
        const dimension = 8;
        await store.vectors.ensureModel('scoped-8d', dimension);
        const query = randomVector(4242, dimension);
        const near = (seed: number): Float32Array => Float32Array.from(query, (value, i) => value + 0.05 * randomVector(seed, dimension)[i]!);
        const vectors = new Map<string, Float32Array>();
        const add = async (path: string, make: (chunk: number) => Float32Array): Promise<void> => {
          const entry = await put(path, 'x'.repeat(200));
          const chunks = Array.from({ length: 10 }, (_, c) => ({ span: { start: c * 10, end: c * 10 + 9 }, vector: make(c) }));
          chunks.forEach((chunk) => vectors.set(`${path}#${chunk.span.start}`, chunk.vector));
          await store.vectors.upsert({ entryId: entry.entryId, model: 'scoped-8d', expect: entry.expect, chunks, now: 200 });
        };
        // 200 chunks right by the query, all under `hidden/`; 200 spread out, readable.
        for (let e = 0; e < 20; e += 1) await add(`hidden/h${String(e).padStart(2, '0')}.md`, (c) => near(e * 100 + c + 1));
        for (let e = 0; e < 20; e += 1) await add(`open/o${String(e).padStart(2, '0')}.md`, (c) => randomVector(5000 + e * 100 + c, dimension));
        const brute = (visible: (id: string) => boolean, k: number): string[] =>
          [...vectors]
            .filter(([id]) => visible(id))
            .map(([id, vector]) => ({ id, score: cosine(query, vector) }))
            .sort((x, y) => y.score - x.score)
            .slice(0, k)
            .map((hit) => hit.id);
        const scoped = async (rules: { path: string; read: boolean }[], k: number): Promise<string[]> =>
          (await store.vectors.query({ model: 'scoped-8d', vector: query, k, scopes: [{ hostId, readable: [{ default: true, rules }] }] })).map((hit) => `${hit.path}#${hit.span.start}`);
        // Most of the nearest hidden: the nearest readable chunks lie beyond every near one.
        expect(await scoped([{ path: 'hidden', read: false }], 12)).toEqual(brute((id) => !id.startsWith('hidden/'), 12));
        // A few of the nearest hidden: one entry of the near ones.
        expect(await scoped([{ path: 'hidden/h03.md', read: false }], 12)).toEqual(brute((id) => !id.startsWith('hidden/h03.md'), 12));
        // Nothing hidden at all, and a k past what the scope holds.
        expect(await scoped([], 30)).toEqual(brute(() => true, 30));
        const only = async (path: string, k: number): Promise<string[]> =>
          (await store.vectors.query({ model: 'scoped-8d', vector: query, k, scopes: [{ hostId, readable: [{ default: false, rules: [{ path, read: true }] }] }] })).map((hit) => `${hit.path}#${hit.span.start}`);
        expect(await only('hidden/h00.md', 500)).toEqual(brute((id) => id.startsWith('hidden/h00.md#'), 500));
      });

      it('answers the exact top k of many vectors, as a brute-force ranking does', async () => {
        const dimension = 8;
        await store.vectors.ensureModel('random-8d', dimension);
        const vectors = new Map<string, Float32Array>();
        for (let e = 0; e < 30; e += 1) {
          const entry = await put(`r${String(e).padStart(2, '0')}.md`, 'x'.repeat(200));
          const chunks = Array.from({ length: 10 }, (_, c) => ({ span: { start: c * 10, end: c * 10 + 9 }, vector: randomVector(e * 100 + c + 1, dimension) }));
          chunks.forEach((chunk) => vectors.set(`r${String(e).padStart(2, '0')}.md#${chunk.span.start}`, chunk.vector));
          await store.vectors.upsert({ entryId: entry.entryId, model: 'random-8d', expect: entry.expect, chunks, now: 200 });
        }
        for (const seed of [7, 8, 9]) {
          const query = randomVector(10_000 + seed, dimension);
          const expected = [...vectors].map(([id, vector]) => ({ id, score: cosine(query, vector) })).sort((x, y) => y.score - x.score).slice(0, 15);
          const hits = await store.vectors.query({ model: 'random-8d', vector: query, k: 15 });
          expect(hits.map((hit) => `${hit.path}#${hit.span.start}`)).toEqual(expected.map((hit) => hit.id));
          hits.forEach((hit, index) => expect(hit.score).toBeCloseTo(expected[index]!.score, 5));
        }
      });
    });

    describe('listing the index', () => {
      it('pages records by path under a prefix, lists the hosts that have any, and returns chunk spans', async () => {
        await store.vectors.ensureModel('other-2d', 2);
        for (const path of ['docs/a.md', 'docs/b.md', 'docs/sub/c.md', 'readme.md']) await embed(path, [v(1, 0, 0)]);
        const b = (await store.catalog.getEntry(hostId, 'docs/b.md'))!;
        await store.vectors.upsert({ entryId: b.id, model: 'other-2d', expect: { contentKey: b.contentKey, updatedAt: b.updatedAt }, chunks: [{ span: { start: 0, end: 1 }, vector: v(0, 1) }], now: 1 });
        const page = await store.vectors.entries(hostId, { prefix: 'docs/', limit: 2 });
        expect(page.map((record) => [record.path, record.model])).toEqual([
          ['docs/a.md', MODEL],
          ['docs/b.md', 'other-2d'],
          ['docs/b.md', MODEL],
        ]);
        expect((await store.vectors.entries(hostId, { prefix: 'docs/', after: 'docs/b.md' })).map((record) => record.path)).toEqual(['docs/sub/c.md']);
        expect((await store.vectors.entries(hostId, { model: 'other-2d' })).map((record) => record.path)).toEqual(['docs/b.md']);
        expect((await store.vectors.entries(hostId, { model: 'missing' })).length).toBe(0);
        expect(await codeOf(store.vectors.entries(hostId, { limit: 0 }))).toBe('invalid_argument');
        expect(await store.vectors.hosts('home')).toEqual([{ hostId, host: { network: 'home', host: 'notes' } }]);
        expect(await store.vectors.hosts('elsewhere')).toEqual([]);
      });

      it('offers pending entries: new text, changed text, failures only once they may be retried', async () => {
        const fresh = await put('new.md', 'never embedded');
        const changed = await embed('changed.md', [v(1, 0, 0)]);
        await put('changed.md', 'edited', 'k-edited', 300);
        const failed = await put('failed.md', 'fails');
        await store.vectors.markFailed({ entryId: failed.entryId, model: MODEL, expect: failed.expect, error: { code: 'unavailable', message: 'down' }, now: 400 });
        const done = await embed('done.md', [v(1, 0, 0)]);
        await store.catalog.commit({ hostId, marker: null, puts: [{ row: row('image.png'), content: { state: 'binary', key: 'k' } }], now: 100 });
        const pending = async (extra: { retryFailedBefore?: number; afterEntryId?: number; limit?: number } = {}) =>
          (await store.vectors.pending({ model: MODEL, hostIds: [hostId], ...extra })).map((entry) => [entry.path, entry.state]);
        expect(await pending()).toEqual([
          ['new.md', 'new'],
          ['changed.md', 'pending'],
        ]);
        expect(await pending({ retryFailedBefore: 500 })).toEqual([
          ['new.md', 'new'],
          ['changed.md', 'pending'],
          ['failed.md', 'failed'],
        ]);
        expect(await pending({ retryFailedBefore: 400 })).toHaveLength(2);
        expect(await pending({ afterEntryId: fresh.entryId, limit: 1 })).toEqual([['changed.md', 'pending']]);
        expect((await store.vectors.pending({ model: MODEL, hostIds: [hostId] }))[0]).toMatchObject({ entryId: fresh.entryId, contentKey: 'k-new.md', updatedAt: 100, hostId });
        expect(await store.vectors.counts(MODEL, [hostId])).toEqual({ indexed: 1, pending: 2, failed: 1, chunks: 1 });
        expect(await store.vectors.counts('unregistered', [hostId])).toEqual({ indexed: 0, pending: 4, failed: 0, chunks: 0 });
        expect(changed).toBeGreaterThan(0);
        expect(done).toBeGreaterThan(0);
      });

      it('another handle on the same database sees the vectors at once', async () => {
        await embed('a.md', [v(1, 0, 0)]);
        const other = await opened.another();
        expect((await other.vectors.query({ model: MODEL, vector: v(1, 0, 0), k: 1 })).map((hit) => hit.path)).toEqual(['a.md']);
        await other.catalog.commit({ hostId, marker: null, puts: [], deletes: ['a.md'], now: 300 });
        expect(await nearest(v(1, 0, 0))).toEqual([]);
      });
    });
  });
}
