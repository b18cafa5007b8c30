/**
 * PortHost over the package system's in-memory reference connector: the depth-first listing and
 * its round-tripping cursor, prefixes, stat (with and without the port's stat), reads with ranges
 * and binary bodies, writes and deletes, and what a broken or failing port makes of them.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectorEntry, ConnectorPort } from '@neuralis/package-system/contracts';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { PNG_1X1, createMemoryConnector } from '@neuralis/package-system/testing';
import { PortHost, describePortHost, type PortHostOptions } from './port-host.js';

const TREE: Readonly<Record<string, string | Uint8Array>> = {
  'a.txt': 'alpha',
  'b/c.txt': 'see',
  'b/d/e.txt': 'eee',
  'b/d/f/g.txt': 'gee',
  'b/d/f/h.md': '# h',
  'b/i.txt': 'eye',
  'docs/x.md': '# x',
  'docs/y/z.md': '# z',
  'dogs.txt': 'woof',
  'sp ace/ü.txt': 'umlaut',
  'z.txt': 'zed',
};

/** Every path of TREE, in the order a depth-first walk of name-sorted folders gives. */
const WALKED = ['a.txt', 'b/c.txt', 'b/d/e.txt', 'b/d/f/g.txt', 'b/d/f/h.md', 'b/i.txt', 'docs/x.md', 'docs/y/z.md', 'dogs.txt', 'sp%20ace/%C3%BC.txt', 'z.txt'];

function memoryHost(files: Readonly<Record<string, string | Uint8Array>> = TREE, options: PortHostOptions = {}, port = createMemoryConnector({ source: 'mem', files })): { host: PortHost; port: ConnectorPort } {
  return { host: PortHost.over(port, options), port };
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function textOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new TextDecoder().decode(await bytesOf(stream));
}

function streamOf(text: string): ReadableStream<Uint8Array> {
  return new Response(text).body!;
}

/** Lists to the end; each page through `next()` (a fresh host per page shows the cursor round-trips). */
async function listAll(next: () => PortHost, options: { prefix?: string; since?: string } = {}): Promise<{ paths: string[]; pages: number; cursors: string[] }> {
  const paths: string[] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await next().list({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    pages += 1;
    paths.push(...page.entries.map((entry) => entry.path));
    if (page.cursor !== undefined) {
      expect(page.cursor).not.toBe(cursor);
      cursors.push(page.cursor);
    }
    cursor = page.cursor;
  } while (cursor !== undefined && pages < 10_000);
  return { paths, pages, cursors };
}

describe('describe', () => {
  it('claims what the port offers: stat, and write with delete, beside list and read', () => {
    const { host } = memoryHost();
    expect(host.describe()).toEqual({
      kind: 'memory',
      capabilities: ['list', 'stat', 'read', 'write', 'delete'],
      auth: { acquire: { type: 'none' }, present: [], origins: [] },
      dimensions: {
        path: expect.objectContaining({ type: 'path', from: 'path' }),
        size: expect.objectContaining({ type: 'bytes', from: 'size' }),
        mtime: expect.objectContaining({ type: 'datetime', from: 'mtime', ordering: true }),
        mime: expect.objectContaining({ type: 'string', from: 'mime' }),
      },
      listing: 'free',
      writes: { mimes: '*', create: true, replace: true, delete: true },
    });
  });

  it('describes a read-only port without stat or writes, and never claims delete without write', () => {
    const port = createMemoryConnector({ source: 'mem', capabilities: ['list', 'read'] });
    const description = PortHost.over(port).describe();
    expect(description.capabilities).toEqual(['list', 'read']);
    expect(description.writes).toBeUndefined();
    expect(describePortHost('odd', ['list', 'read', 'delete']).capabilities).toEqual(['list', 'read']);
  });
});

describe('list', () => {
  it('walks the folders depth first and lists files only, with their fields', async () => {
    const { host } = memoryHost();
    const page = await host.list({});
    expect(page.cursor).toBeUndefined();
    expect(page.entries.map((entry) => entry.path)).toEqual(WALKED);
    expect(page.entries[1]).toEqual({ path: 'b/c.txt', size: 3, mtime: expect.any(String), etag: expect.any(String), mime: 'text/plain' });
  });

  it('pages with a cursor that round-trips into a new host, each file once, whatever the page size', async () => {
    const port = createMemoryConnector({ source: 'mem', files: TREE });
    for (const pageSize of [1, 2, 3, 5]) {
      const listed = await listAll(() => PortHost.over(port, { pageSize }));
      expect(listed.paths).toEqual(WALKED);
      expect(listed.pages).toBeGreaterThanOrEqual(Math.ceil(WALKED.length / pageSize));
    }
    // A cursor keeps the port page size it was made with, so a host paging otherwise resumes it exactly.
    const first = await PortHost.over(port, { pageSize: 2 }).list({});
    const rest = await listAll(() => PortHost.over(port, { pageSize: 3 }));
    const resumed: string[] = [];
    let cursor = first.cursor;
    while (cursor !== undefined) {
      const page = await PortHost.over(port, { pageSize: 3 }).list({ cursor });
      resumed.push(...page.entries.map((entry) => entry.path));
      cursor = page.cursor;
    }
    expect([...first.entries.map((entry) => entry.path), ...resumed]).toEqual(WALKED);
    expect(rest.paths).toEqual(WALKED);
  });

  it('keeps the cursor as small as the tree is deep, not as it is large', async () => {
    const wide: Record<string, string> = {};
    for (let index = 0; index < 2500; index++) wide[`flat/f${String(index).padStart(5, '0')}.txt`] = 'x';
    const flat = await listAll(() => memoryHost(wide).host);
    expect(flat.paths).toHaveLength(2500);
    expect(new Set(flat.paths).size).toBe(2500);
    expect(flat.pages).toBe(3);
    for (const cursor of flat.cursors) expect(cursor.length).toBeLessThan(300);

    const deep = await listAll(() => memoryHost({ 'a/b/c/d/e/f/g/h/i/j/deep.txt': 'x', 'top.txt': 'y' }, { pageSize: 1 }).host);
    expect(deep.paths).toEqual(['a/b/c/d/e/f/g/h/i/j/deep.txt', 'top.txt']);
  });

  it('spends a bounded number of port calls per page: folders without files give short pages with a cursor', async () => {
    const files = { 'q/r/s/t/u/v.txt': 'v', 'w.txt': 'w' };
    const memory = createMemoryConnector({ source: 'mem', files });
    let calls = 0;
    const counting: ConnectorPort = { ...memory, list: (uri, options) => ((calls += 1), memory.list(uri, options)) };
    const first = await PortHost.over(counting, { listCalls: 2 }).list({});
    expect(calls).toBe(2);
    expect(first).toEqual({ entries: [], cursor: expect.any(String) });
    const rest = await listAll(() => PortHost.over(counting, { listCalls: 2 }));
    expect(rest.paths).toEqual(['q/r/s/t/u/v.txt', 'w.txt']);
  });

  it('honours a prefix as a plain string prefix of the path, and lists nothing for a prefix naming no folder', async () => {
    const { host } = memoryHost();
    const paths = async (prefix: string) => (await host.list({ prefix })).entries.map((entry) => entry.path);
    expect(await paths('docs/')).toEqual(['docs/x.md', 'docs/y/z.md']);
    expect(await paths('do')).toEqual(['docs/x.md', 'docs/y/z.md', 'dogs.txt']);
    expect(await paths('b/d/f/h')).toEqual(['b/d/f/h.md']);
    expect(await paths('b/d')).toEqual(['b/d/e.txt', 'b/d/f/g.txt', 'b/d/f/h.md']);
    expect(await paths('sp%20ace/')).toEqual(['sp%20ace/%C3%BC.txt']);
    expect(await paths('nope/')).toEqual([]);
    expect(await paths('a.txt/')).toEqual([]);
    const paged = await listAll(() => memoryHost(TREE, { pageSize: 1 }).host, { prefix: 'b/' });
    expect(paged.paths).toEqual(['b/c.txt', 'b/d/e.txt', 'b/d/f/g.txt', 'b/d/f/h.md', 'b/i.txt']);
  });

  it('ignores since (the crawler filters) and refuses order "newest" as unsupported', async () => {
    const { host } = memoryHost();
    expect((await host.list({ since: '2999-01-01T00:00:00Z' })).entries.map((entry) => entry.path)).toEqual(WALKED);
    await expect(host.list({ order: 'newest' })).rejects.toMatchObject({ code: 'unsupported', details: { kind: 'memory', operation: 'list', argument: 'order' } });
    await expect(host.list({ order: 'oldest' as 'newest' })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'order' } });
    await expect(host.list({ prefix: 7 as unknown as string })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'prefix' } });
  });

  it('refuses a cursor it did not issue, or one issued for another prefix', async () => {
    const { host } = memoryHost(TREE, { pageSize: 1 });
    const forDocs = (await host.list({ prefix: 'docs/' })).cursor!;
    await expect(host.list({ prefix: 'b/', cursor: forDocs })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'cursor' } });
    const forged = Buffer.from(JSON.stringify({ p: JSON.parse(Buffer.from(forDocs, 'base64url').toString()).p, f: [['', 0, 0], ['../..', 0, 0]] })).toString('base64url');
    for (const cursor of ['garbage', Buffer.from('[1,2]').toString('base64url'), forged, 'x'.repeat(5000)]) {
      await expect(host.list({ prefix: 'docs/', cursor })).rejects.toMatchObject({ code: 'invalid_argument' });
    }
  });

  it('leaves out entries a port lists outside the folder asked about, so a looping port cannot loop the walk', async () => {
    const directory = (uri: string): ConnectorEntry => ({ uri, name: uri.split('/').pop() ?? '', type: 'directory' });
    const file = (uri: string): ConnectorEntry => ({ uri, name: uri.split('/').pop() ?? '', type: 'file', size: 1 });
    const listings: Readonly<Record<string, readonly ConnectorEntry[]>> = {
      'loop://': [directory('loop://'), directory('loop://a'), file('other://x.txt'), file('loop://a/b/c.txt'), file('loop://top.txt')],
      'loop://a': [directory('loop://'), directory('loop://a'), directory('loop://b'), file('loop://a/ok.txt')],
    };
    const looping: ConnectorPort = {
      kind: 'looping',
      source: 'loop',
      portVersion: 4,
      capabilities: () => new Set(['list', 'read']),
      list: async (uri) => ({ entries: listings[uri] ?? [] }),
      read: async () => ({ text: '', mime: 'text/plain', size: 0 }),
    };
    expect((await PortHost.over(looping).list({})).entries.map((entry) => entry.path)).toEqual(['a/ok.txt', 'top.txt']);
  });

  it('goes on after the last entry walked when entries before it were removed between pages', async () => {
    const files = { '1.txt': '1', '2.txt': '2', '3.txt': '3', '4.txt': '4', '5.txt': '5' };
    const port = createMemoryConnector({ source: 'mem', files });
    const first = await PortHost.over(port, { pageSize: 2 }).list({});
    expect(first.entries.map((entry) => entry.path)).toEqual(['1.txt', '2.txt']);
    await port.delete!('mem://1.txt');
    const rest: string[] = [];
    let cursor = first.cursor;
    while (cursor !== undefined) {
      const page = await PortHost.over(port, { pageSize: 2 }).list({ cursor });
      rest.push(...page.entries.map((entry) => entry.path));
      cursor = page.cursor;
    }
    expect(rest).toEqual(['3.txt', '4.txt', '5.txt']);
  });

  it('ends the part of a walk whose folder vanished between pages', async () => {
    const port = createMemoryConnector({ source: 'mem', files: { 'a/1.txt': '1', 'a/2.txt': '2', 'a/3.txt': '3', 'b.txt': 'b' } });
    const first = await PortHost.over(port, { pageSize: 1 }).list({});
    expect(first.entries.map((entry) => entry.path)).toEqual(['a/1.txt']);
    await port.delete!('mem://a', { recursive: true });
    const rest = await listAll(() => PortHost.over(port, { pageSize: 1 }));
    expect(rest.paths).toEqual(['b.txt']);
    const resumed = await PortHost.over(port, { pageSize: 1 }).list({ cursor: first.cursor! });
    expect(resumed.entries.map((entry) => entry.path)).toEqual(['b.txt']);
  });

  it('keeps the codes of the port errors', async () => {
    const memory = createMemoryConnector({ source: 'mem' });
    const failing: ConnectorPort = { ...memory, list: () => Promise.reject(new UnavailableError('The store is down.')) };
    await expect(PortHost.over(failing).list({})).rejects.toMatchObject({ code: 'unavailable', message: 'The store is down.' });
    const unbound = new PortHost({ kind: 'memory', source: 'mem', capabilities: ['list', 'read'], port: () => Promise.reject(new UnavailableError('Not bound yet.')) });
    await expect(unbound.list({})).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('asks for the port on every call, so a port bound again is used', async () => {
    let port = createMemoryConnector({ source: 'mem', files: { 'old.txt': 'o' } });
    const host = new PortHost({ kind: 'memory', source: 'mem', capabilities: port.capabilities(), port: () => port });
    expect((await host.list({})).entries.map((entry) => entry.path)).toEqual(['old.txt']);
    port = createMemoryConnector({ source: 'mem', files: { 'new.txt': 'n' } });
    expect((await host.list({})).entries.map((entry) => entry.path)).toEqual(['new.txt']);
  });
});

describe('stat', () => {
  it('gives a file its entry, and null for a folder, nothing, or a path through a file', async () => {
    const { host } = memoryHost();
    expect(await host.stat('b/d/e.txt')).toEqual({ path: 'b/d/e.txt', size: 3, mtime: expect.any(String), etag: expect.any(String), mime: 'text/plain' });
    expect(await host.stat('sp%20ace/%C3%BC.txt')).toMatchObject({ path: 'sp%20ace/%C3%BC.txt', size: 6 });
    expect(await host.stat('b/d')).toBeNull();
    expect(await host.stat('')).toBeNull();
    expect(await host.stat('missing.txt')).toBeNull();
    expect(await host.stat('a.txt/inner')).toBeNull();
    for (const attack of ['b/../a.txt', 'b/%2E%2E/a.txt', '/a.txt', 'b//c.txt', 'a.txt%00']) {
      await expect(host.stat(attack)).rejects.toMatchObject({ code: 'invalid_uri' });
    }
  });

  it('finds the file in its folder listing when the port cannot stat', async () => {
    const port = createMemoryConnector({ source: 'mem', capabilities: ['list', 'read'], files: TREE });
    const host = PortHost.over(port, { pageSize: 1 });
    expect(await host.stat('b/d/f/h.md')).toEqual({ path: 'b/d/f/h.md', size: 3, mtime: expect.any(String), etag: expect.any(String), mime: 'text/markdown' });
    expect(await host.stat('b/d')).toBeNull();
    expect(await host.stat('b/missing.txt')).toBeNull();
    expect(await host.stat('nope/x.txt')).toBeNull();
    expect(await host.stat('a.txt/inner')).toBeNull();
  });
});

describe('read', () => {
  it('streams a text object as its UTF-8 bytes, whole or a range of it, clipped to the object', async () => {
    const { host } = memoryHost({ 'w.txt': 'hello wörld' });
    expect(await textOf(await host.read('w.txt'))).toBe('hello wörld');
    expect(await textOf(await host.read('w.txt', { range: [1, 4] }))).toBe('ell');
    expect(await textOf(await host.read('w.txt', { range: [6, 100] }))).toBe('wörld');
    expect(await bytesOf(await host.read('w.txt', { range: [100, 200] }))).toHaveLength(0);
    expect(await bytesOf(await host.read('w.txt', { range: [2, 2] }))).toHaveLength(0);
  });

  it('refuses a bad range, and a range splitting a character of a text object', async () => {
    const { host } = memoryHost({ 'w.txt': 'hello wörld' });
    for (const range of [[3, 1], [-1, 2], [0.5, 2], [1]] as unknown as [number, number][]) {
      await expect(host.read('w.txt', { range })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'range' } });
    }
    await expect(host.read('w.txt', { range: [0, 8] })).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'range' } });
  });

  it('streams binary bytes, large ones in chunks, and says too_large naming the cap over the inline cap', async () => {
    const big = new Uint8Array(200_000).map((_, index) => index % 251);
    const { host } = memoryHost({ 'pixel.png': PNG_1X1, 'big.png': big });
    expect(await bytesOf(await host.read('pixel.png'))).toEqual(PNG_1X1);
    expect(await bytesOf(await host.read('pixel.png', { range: [1, 4] }))).toEqual(PNG_1X1.subarray(1, 4));
    const reader = (await host.read('big.png')).getReader();
    const chunks: Uint8Array[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(big)).toBe(true);

    const capped = PortHost.over(createMemoryConnector({ source: 'mem', files: { 'pixel.png': PNG_1X1 }, inlineCaps: { 'image/*': 10 } }));
    await expect(capped.read('pixel.png')).rejects.toMatchObject({ code: 'too_large', details: { cap: 10, size: PNG_1X1.byteLength } });
    expect(await bytesOf(await capped.read('pixel.png', { range: [0, 10] }))).toEqual(PNG_1X1.subarray(0, 10));
  });

  it('refuses a type the port returns only a description of, and keeps the port codes', async () => {
    const { host } = memoryHost({ 'blob.bin': new Uint8Array([0, 1, 2, 255]), 'b/c.txt': 'see' });
    await expect(host.read('blob.bin')).rejects.toMatchObject({ code: 'unsupported_file_type', details: { mime: 'application/octet-stream' } });
    await expect(host.read('b')).rejects.toMatchObject({ code: 'is_a_directory' });
    await expect(host.read('missing.txt')).rejects.toMatchObject({ code: 'not_found' });
    await expect(host.read('other://b/c.txt')).rejects.toMatchObject({ code: 'invalid_uri' });
    const capped = PortHost.over(createMemoryConnector({ source: 'mem', files: { 'long.txt': 'x'.repeat(64) }, textCapBytes: 16 }));
    await expect(capped.read('long.txt')).rejects.toMatchObject({ code: 'too_large' });
    expect(await textOf(await capped.read('long.txt', { range: [0, 16] }))).toBe('x'.repeat(16));
  });
});

describe('write and delete', () => {
  it('creates and replaces objects, with ifMatch replacing only the version it names', async () => {
    const { host } = memoryHost();
    const created = await host.write('new/n.txt', streamOf('fresh'));
    expect(created).toEqual({ path: 'new/n.txt', size: 5, mtime: expect.any(String), etag: expect.any(String), mime: 'text/plain' });
    expect(await textOf(await host.read('new/n.txt'))).toBe('fresh');
    expect(await host.stat('new/n.txt')).toEqual(created);

    const replaced = await host.write('new/n.txt', streamOf('second'), { ifMatch: created.etag! });
    expect(replaced.etag).not.toBe(created.etag);
    await expect(host.write('new/n.txt', streamOf('stale'), { ifMatch: created.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(await textOf(await host.read('new/n.txt'))).toBe('second');
    await expect(host.write('missing.txt', streamOf('x'), { ifMatch: created.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(await host.stat('missing.txt')).toBeNull();

    await expect(host.write('bad.txt', 'not a stream' as unknown as ReadableStream<Uint8Array>)).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'body' } });
    const strings = new ReadableStream({ start: (controller) => (controller.enqueue('text'), controller.close()) }) as unknown as ReadableStream<Uint8Array>;
    await expect(host.write('bad.txt', strings)).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await host.stat('bad.txt')).toBeNull();
  });

  it('deletes objects, refuses folders, and says not_found when nothing is there', async () => {
    const { host } = memoryHost();
    await host.delete('a.txt');
    expect(await host.stat('a.txt')).toBeNull();
    await expect(host.delete('a.txt')).rejects.toMatchObject({ code: 'not_found' });
    await expect(host.delete('b/d')).rejects.toMatchObject({ code: 'is_a_directory' });
    expect(await host.stat('b/d/e.txt')).not.toBeNull();
  });

  it('answers unsupported for writes and deletes the port does not offer', async () => {
    const host = PortHost.over(createMemoryConnector({ source: 'mem', capabilities: ['list', 'read'], files: TREE }));
    await expect(host.write('a.txt', streamOf('x'))).rejects.toMatchObject({ code: 'unsupported', details: { kind: 'memory', operation: 'write' } });
    await expect(host.delete('a.txt')).rejects.toMatchObject({ code: 'unsupported', details: { kind: 'memory', operation: 'delete' } });
    expect(await textOf(await host.read('a.txt'))).toBe('alpha');
  });
});
