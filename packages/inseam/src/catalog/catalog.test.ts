import { describe, expect, it } from 'vitest';
import type { Description, Entry } from '@inseam/connector';
import { SqliteStore, ZERO_COUNTERS, type CrawlRunRecord } from '../store/index.js';
import { Catalog, EntryEncoder, contentKey, decodeText, entryProblem, isBinaryMime, progressOf } from './index.js';

const description = {
  kind: 'mail',
  capabilities: ['list', 'read'],
  auth: { acquire: { type: 'none' }, present: [], origins: ['https://mail.example'] },
  dimensions: {
    received: { type: 'datetime', from: 'extra.received', ordering: true, description: 'Received.' },
    starred: { type: 'boolean', from: 'extra.flags.starred', description: 'Starred.' },
    sneaky: { type: 'string', from: 'extra.constructor', description: 'Not an own property.' },
    size: { type: 'bytes', from: 'size', description: 'Size.' },
  },
  listing: 'metered',
} as unknown as Description;

describe('entries as stored', () => {
  it('refuses what is not an Entry, saying why', () => {
    expect(entryProblem({ path: 'a/b.md', size: 3, mtime: '2024-01-01T00:00:00Z', extra: {} })).toBeUndefined();
    expect(entryProblem(null)).toBe('it is not an object');
    expect(entryProblem({ path: '' })).toMatch(/path/);
    expect(entryProblem({ path: 'x'.repeat(5000) })).toMatch(/longer/);
    expect(entryProblem({ path: '/root' })).toMatch(/starts with/);
    expect(entryProblem({ path: 'a', size: 1.5 })).toMatch(/size/);
    expect(entryProblem({ path: 'a', etag: 5 })).toMatch(/etag/);
    expect(entryProblem({ path: 'a', envelope: 'sent' })).toMatch(/envelope/);
    expect(entryProblem({ path: 'a', nativeId: 'id\0x' })).toBe('its nativeId contains a NUL character');
    expect(entryProblem({ path: 'a', etag: '"\0"' })).toBe('its etag contains a NUL character');
  });

  it('prefers a content hash, then the etag, then size and mtime as the content validator', () => {
    expect(contentKey({ path: 'a', nativeHash: 'h', etag: 'e' })).toBe('h:h');
    expect(contentKey({ path: 'a', etag: 'e', size: 1, mtime: 't' })).toBe('e:e');
    expect(contentKey({ path: 'a', size: 1, mtime: 't' })).toBe('m:1:t');
    expect(contentKey({ path: 'a', size: 1 })).toBeNull();
  });

  it('encodes the connector fields as given and each dimension from its source, own properties only', () => {
    const envelope = { direction: 'received', parties: [{ identity: 'a@example.com', role: 'from' }] } as const;
    const entry: Entry = { path: 'm/1', size: 42, extra: { received: '2024-02-02T00:00:00Z', flags: { starred: true }, nested: [1, { deep: null }] }, envelope };
    const row = new EntryEncoder(description).row(entry, 'include');
    expect(row).toMatchObject({ path: 'm/1', size: 42, mtime: null, etag: null, decision: 'include' });
    expect(JSON.parse(row.dimensions)).toEqual({ received: '2024-02-02T00:00:00Z', starred: true, size: 42 });
    expect(JSON.parse(row.extra!)).toEqual(entry.extra);
    expect(JSON.parse(row.envelope!)).toEqual(envelope);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => new EntryEncoder(description).row({ path: 'x', extra: cyclic }, 'index')).toThrow(TypeError);
  });
});

describe('text content', () => {
  it('keeps UTF-8 text (without its byte-order mark) and refuses the rest', () => {
    expect(decodeText(new TextEncoder().encode('\uFEFFhéllo'))).toBe('héllo');
    expect(decodeText(new Uint8Array([0x68, 0x00, 0x69]))).toBeNull();
    expect(decodeText(new Uint8Array([0xc3, 0x28]))).toBeNull();
    expect(decodeText(new Uint8Array())).toBe('');
  });

  it('knows binary media types, parameters and case aside', () => {
    expect(isBinaryMime('image/PNG')).toBe(true);
    expect(isBinaryMime('application/pdf; name=x')).toBe(true);
    expect(isBinaryMime('image/svg+xml')).toBe(false);
    expect(isBinaryMime('text/plain; charset=utf-8')).toBe(false);
    expect(isBinaryMime('application/octet-stream')).toBe(false);
    expect(isBinaryMime(undefined)).toBe(false);
  });
});

describe('progress', () => {
  const run = (fields: Partial<CrawlRunRecord>): CrawlRunRecord => ({
    id: 1,
    hostId: 1,
    host: { network: 'home', host: 'h' },
    mode: 'full',
    state: 'running',
    phase: 'list',
    cursor: null,
    since: null,
    watermark: null,
    owner: 'o',
    heartbeatAt: 0,
    totalEstimate: null,
    counters: ZERO_COUNTERS,
    scopeTally: null,
    error: null,
    startedAt: 0,
    updatedAt: 0,
    finishedAt: null,
    elapsedMs: 0,
    ...fields,
  });

  it('gives a rate from working time and an ETA only when a total is known', () => {
    const counters = { ...ZERO_COUNTERS, entries: 300, contentBytes: 3000 };
    expect(progressOf(run({ counters, elapsedMs: 3000 }))).toMatchObject({ rate: 100, bytesRate: 1000, etaMs: null, fraction: null, total: null });
    expect(progressOf(run({ counters, elapsedMs: 3000, totalEstimate: 1000 }))).toMatchObject({ etaMs: 7000, fraction: 0.3 });
    // Past the estimate: no ETA rather than a negative one.
    expect(progressOf(run({ counters, elapsedMs: 3000, totalEstimate: 200 }))).toMatchObject({ etaMs: null, fraction: 1 });
    expect(progressOf(run({ counters, elapsedMs: 0, totalEstimate: 1000 }))).toMatchObject({ rate: 0, etaMs: null });
    expect(progressOf(run({ counters, elapsedMs: 3000, state: 'completed' }))).toMatchObject({ etaMs: 0, fraction: 1 });
  });
});

describe('Catalog', () => {
  it('reads entries, pages, content, search and progress by host slugs', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    await store.networks.create({ slug: 'home' });
    const hostId = (await store.hosts.create('home', { slug: 'mail', kind: 'imap' })).id;
    const encoder = new EntryEncoder(description);
    const puts = ['m/1', 'm/2', 'm/3'].map((path, i) => ({
      row: encoder.row({ path, size: i, extra: { received: '2024-01-01T00:00:00Z' } }, 'include'),
      content: { state: 'indexed' as const, key: null, text: `message ${path} about invoices`, bytes: 30 },
    }));
    await store.catalog.commit({ hostId, marker: null, puts, now: 1 });
    const catalog = new Catalog(store.catalog);
    const ref = { network: 'home', host: 'mail' };
    expect(await catalog.entry(ref, 'm/2')).toMatchObject({ network: 'home', host: 'mail', path: 'm/2', dimensions: { received: '2024-01-01T00:00:00Z', size: 1 }, content: { state: 'indexed', bytes: 30 } });
    expect(await catalog.entry(ref, 'm/9')).toBeNull();
    await expect(catalog.entry({ network: 'home', host: 'nope' }, 'm/1')).rejects.toMatchObject({ code: 'not_found' });
    const first = await catalog.list(ref, { limit: 2 });
    expect(first.entries.map((e) => e.path)).toEqual(['m/1', 'm/2']);
    expect(first.next).toBe('m/2');
    const second = await catalog.list(ref, { limit: 2, after: first.next! });
    expect(second).toEqual({ entries: [expect.objectContaining({ path: 'm/3' })] });
    await expect(catalog.list(ref, { limit: 5000 })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await catalog.content(ref, 'm/1')).toBe('message m/1 about invoices');
    expect((await catalog.search('invoices', { hosts: [ref] })).length).toBe(3);
    expect(await catalog.search('invoices', { hosts: [{ network: 'home', host: 'nope' }] })).toEqual([]);
    const run = await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: 'o', totalEstimate: 10, now: 1 });
    expect(await catalog.progress(run.id)).toMatchObject({ runId: run.id, host: ref, total: 10, entries: 0 });
    expect(await catalog.progress(run.id + 100)).toBeNull();
    expect((await catalog.runs(ref)).map((r) => r.id)).toEqual([run.id]);
  });
});
