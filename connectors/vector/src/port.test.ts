import { describe, expect, test } from 'vitest';
import type { ConnectorEntry } from '@neuralis/package-system/contracts';
import { MemoryIndex, record } from './__fixtures__/memory-index.js';
import type { Embedder } from './embedder.js';
import { createVectorPort, underlyingEntry, type VectorAccess } from './index.js';

const MODEL = 'test-2d';
const v = (...values: number[]) => Float32Array.from(values);

/** An embedder that knows a few words, one direction each; the tests check the port, not an embedder. */
const wordsEmbedder: Embedder = {
  model: MODEL,
  dimension: 2,
  maxBatch: 8,
  embed: async (texts) => texts.map((text) => (text.includes('east') ? v(1, 0) : text.includes('north') ? v(0, 1) : v(0, 0))),
};

function fixture(access: VectorAccess = { readable: () => true }) {
  const index = new MemoryIndex()
    .add({ host: 'notes', path: 'docs/a.md', record: record(MODEL, { chunks: [{ start: 0, end: 10 }] }), vectors: [v(1, 0)] })
    .add({ host: 'notes', path: 'docs/b.md', record: record(MODEL, { chunks: [{ start: 5, end: 9 }] }), vectors: [v(0.9, 0.1)] })
    .add({ host: 'notes', path: 'docs/sub/c.md', record: record(MODEL), vectors: [v(0.8, 0.2)] })
    .add({ host: 'notes', path: 'private/secret.md', record: record(MODEL, { chunks: [{ start: 0, end: 3 }] }), vectors: [v(1, 0)] })
    .add({ host: 'notes', path: 'caf%C3%A9.md', record: record(MODEL) })
    .add({ host: 'mail', path: 'inbox/1.eml', record: record(MODEL), vectors: [v(0, 1)] });
  const port = createVectorPort({ packageId: '@inseam/connector-vector', packageRoot: '/x', source: 'vector', config: {}, scope: 'project' }, { index, access, embedder: wordsEmbedder });
  return { index, port };
}

const names = (entries: readonly ConnectorEntry[]) => entries.map((entry) => `${entry.name}${entry.type === 'directory' ? '/' : ''}`);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

/** The notes host hides private/ (its own tree says so). */
const hidesPrivate: VectorAccess = { readable: (host, path) => !(host === 'notes' && path.startsWith('private/')) };

describe('layout', () => {
  test('the root lists the hosts; a host lists its folders and records as on the host itself', async () => {
    const { port } = fixture();
    expect(names((await port.list('vector://')).entries)).toEqual(['mail/', 'notes/']);
    expect(names((await port.list('vector://notes')).entries)).toEqual(['café.md', 'docs/', 'private/']);
    expect(names((await port.list('vector://notes/docs')).entries)).toEqual(['a.md', 'b.md', 'sub/']);
    const a = (await port.list('vector://notes/docs')).entries[0]!;
    expect(a).toMatchObject({ uri: 'vector://notes/docs/a.md', type: 'file', mime: 'application/json', mtime: '2023-11-14T22:13:20.000Z' });
    expect(a.size).toBe(Buffer.byteLength((await port.read(a.uri)).text));
    expect(await port.stat('vector://notes/docs/sub')).toMatchObject({ type: 'directory', name: 'sub' });
    expect(await codeOf(port.list('vector://notes/docs/a.md'))).toBe('not_a_directory');
    expect(await codeOf(port.read('vector://notes/docs'))).toBe('is_a_directory');
    expect(await codeOf(port.read('vector://notes/none.md'))).toBe('not_found');
    expect(await codeOf(port.list('vector://nobody'))).toBe('not_found');
    expect(await codeOf(port.read('other://notes/docs/a.md'))).toBe('invalid_uri');
    expect(await codeOf(port.read('vector://notes/../mail'))).toBe('invalid_uri');
    expect(await codeOf(port.resolveOsUri('vector://notes/docs/a.md'))).toBe('os_uri_unresolvable');
  });

  test('pages of one concatenate to the whole listing; a cursor is bound to its folder', async () => {
    const { port } = fixture();
    const whole = (await port.list('vector://notes/docs')).entries.map((entry) => entry.uri);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await port.list('vector://notes/docs', { limit: 1, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.entries.length).toBeLessThanOrEqual(1);
      paged.push(...page.entries.map((entry) => entry.uri));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(paged).toEqual(whole);
    const first = await port.list('vector://notes/docs', { limit: 1 });
    expect(await codeOf(port.list('vector://notes', { cursor: first.cursor! }))).toBe('invalid_argument');
    expect(await codeOf(port.list('vector://notes', { cursor: 'vc1.not-json' }))).toBe('invalid_argument');
  });

  test('a record file holds what was embedded and where, never text, in ASCII so no range splits a character', async () => {
    const { port } = fixture();
    const read = await port.read('vector://notes/docs/a.md');
    expect(JSON.parse(read.text)).toEqual({
      host: 'notes',
      path: 'docs/a.md',
      records: [{ model: MODEL, state: 'indexed', contentKey: 'k1', indexedAt: '2023-11-14T22:13:20.000Z', updatedAt: '2023-11-14T22:13:20.000Z', attempts: 0, error: null, chunks: [[0, 10]] }],
    });
    const accented = await port.read('vector://notes/caf%C3%A9.md');
    expect(/^[\x00-\x7f]*$/.test(accented.text)).toBe(true);
    expect(JSON.parse(accented.text).path).toBe('caf%C3%A9.md');
    const part = await port.read('vector://notes/docs/a.md', { range: { offset: 2, length: 5 } });
    expect(part).toMatchObject({ text: read.text.slice(2, 7), range: { offset: 2, length: 5 }, size: read.size, etag: read.etag });
    expect(await codeOf(port.read('vector://notes/docs/a.md', { range: { offset: -1 } }))).toBe('invalid_argument');
  });

  test('a vector address maps back to its entry on its own host', () => {
    expect(underlyingEntry('vector://notes/docs/a%20b.md', 'vector')).toEqual({ host: 'notes', path: 'docs/a%20b.md' });
    expect(underlyingEntry('vector://notes/caf%c3%a9.md', 'vector')).toEqual({ host: 'notes', path: 'caf%C3%A9.md' });
    expect(underlyingEntry('vector://notes', 'vector')).toBeNull();
    expect(() => underlyingEntry('vector://Notes/x', 'vector')).toThrow(expect.objectContaining({ code: 'invalid_uri' }));
  });
});

describe('the entry’s own host decides what shows', () => {
  test('an entry its host hides is never listed, stat-able, readable or walked; a folder of only such entries does not exist', async () => {
    const { port } = fixture(hidesPrivate);
    expect(names((await port.list('vector://notes')).entries)).toEqual(['café.md', 'docs/']);
    expect(await codeOf(port.read('vector://notes/private/secret.md'))).toBe('not_found');
    expect(await codeOf(port.stat('vector://notes/private/secret.md'))).toBe('not_found');
    expect(await codeOf(port.stat('vector://notes/private'))).toBe('not_found');
    expect(await codeOf(port.list('vector://notes/private'))).toBe('not_found');
    const walked: string[] = [];
    for await (const entry of port.walk('vector://')) walked.push(entry.uri);
    expect(walked.filter((uri) => uri.includes('private'))).toEqual([]);
    expect(walked).toContain('vector://notes/docs/sub/c.md');
  });

  test('a query never returns a hit its host or the caller refuses, and still fills k from the rest', async () => {
    const { port, index } = fixture(hidesPrivate);
    const hits = await port.query({ text: 'east', k: 2 });
    expect(hits.map((hit) => hit.uri)).toEqual(['vector://notes/docs/a.md', 'vector://notes/docs/b.md']);
    expect(hits[0]).toMatchObject({ host: 'notes', path: 'docs/a.md', span: { start: 0, end: 10 }, model: MODEL, contentKey: 'k1' });
    // The caller may not read docs/: the next readable hits take their places, none is dropped after the cut.
    const refused = await port.query({ text: 'east', k: 2, canRead: (_host, path) => !path.startsWith('docs/') });
    expect(refused.map((hit) => hit.uri)).toEqual(['vector://mail/inbox/1.eml']);
    const searches = index.searches;
    expect((await port.query({ text: 'east', k: 1, hosts: ['mail'] })).map((hit) => hit.host)).toEqual(['mail']);
    expect(index.searches).toBe(searches + 1);
    // A text with no word the embedder knows has no direction, so no hits.
    expect(await port.query({ text: 'nothing known' })).toEqual([]);
    for (const k of [0, 101, 1.5]) expect(await codeOf(port.query({ text: 'east', k })), String(k)).toBe('invalid_argument');
  });

  test('a caller refusing many hits makes the port ask the index for more, never return fewer than exist', async () => {
    const index = new MemoryIndex();
    for (let i = 0; i < 50; i += 1) index.add({ host: 'notes', path: `n${String(i).padStart(2, '0')}.md`, record: record(MODEL), vectors: [v(1, i / 100)] });
    const port = createVectorPort({ packageId: 'p', packageRoot: '/x', source: 'vector', config: {}, scope: 'project' }, { index, access: { readable: () => true }, embedder: wordsEmbedder });
    // Only the 45th and later are readable to this caller: the first ask (4 × k) has none of them.
    const hits = await port.query({ text: 'east', k: 3, canRead: (_host, path) => Number(path.slice(1, 3)) >= 45 });
    expect(hits.map((hit) => hit.path)).toEqual(['n45.md', 'n46.md', 'n47.md']);
    expect(index.searches).toBeGreaterThan(1);
  });
});
