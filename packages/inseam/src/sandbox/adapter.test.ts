/**
 * The adapter: a sandboxed kind registered in the package system's registries and used through
 * ConnectorPort v4, against a small in-memory connector running in a real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Description } from '@inseam/connector';
import type { ConnectorError, ConnectorPort } from '@neuralis/package-system/contracts';
import { ConnectorRegistry, SourceKindRegistry } from '@neuralis/package-system/registry';
import { SandboxHost } from './host.js';
import { sandboxedSourceKind, type SandboxedSourcePort } from './adapter.js';
import { passthroughEgress } from './__fixtures__/egress.js';

const DESCRIPTION: Description = {
  kind: 'memo',
  capabilities: ['list', 'read', 'stat', 'write', 'delete', 'watch'],
  auth: { acquire: { type: 'none' }, present: [], origins: ['https://memo.example'] },
  dimensions: { mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'Last change.' } },
  listing: 'free',
  writes: { mimes: ['text/*', 'image/png'], create: true, replace: true, delete: true, maxBytes: 4096 },
};

/** An in-memory host: flat sorted paths, pages of `pageSize`, etags that change on write. */
const MEMO = `
export function createConnector(config) {
  const files = new Map();
  let version = 0;
  const put = (path, bytes, mime) => { version++; files.set(path, { bytes, mime, etag: 'v' + version, mtime: '2024-01-0' + ((version % 9) + 1) + 'T00:00:00Z' }); };
  for (const [path, text] of Object.entries(config.text)) put(path, new TextEncoder().encode(text), undefined);
  for (const [path, b64] of Object.entries(config.binary)) put(path, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), 'image/png');
  const entry = (path) => { const f = files.get(path); return { path, size: f.bytes.length, etag: f.etag, mtime: f.mtime, ...(f.mime ? { mime: f.mime } : {}) }; };
  return {
    describe() { return ${JSON.stringify(DESCRIPTION)}; },
    async list({ prefix = '', cursor }) {
      const paths = [...files.keys()].filter((p) => p.startsWith(prefix)).sort();
      const start = cursor === undefined ? 0 : Number(cursor);
      const page = paths.slice(start, start + config.pageSize);
      const next = start + config.pageSize < paths.length ? String(start + config.pageSize) : undefined;
      return { entries: page.map(entry), ...(next === undefined ? {} : { cursor: next }) };
    },
    async stat(path) { return files.has(path) ? entry(path) : null; },
    async read(path, opts) {
      const f = files.get(path);
      if (!f) { const e = new Error('no ' + path); e.code = 'not_found'; throw e; }
      const [start, end] = opts && opts.range ? opts.range : [0, f.bytes.length];
      const bytes = f.bytes.slice(start, end);
      let at = 0;
      return new ReadableStream({ pull(c) { if (at >= bytes.length) { c.close(); return; } c.enqueue(bytes.slice(at, at + 3)); at += 3; } });
    },
    async write(path, body, opts) {
      if (opts.ifMatch !== undefined && (!files.has(path) || files.get(path).etag !== opts.ifMatch)) { const e = new Error('etag'); e.code = 'precondition_failed'; throw e; }
      const bytes = new Uint8Array(await new Response(body).arrayBuffer());
      put(path, bytes, files.get(path)?.mime);
      return entry(path);
    },
    async delete(path) { if (!files.delete(path)) { const e = new Error('gone'); e.code = 'not_found'; throw e; } },
    async watch(emit) { return () => {}; },
  };
}`;

const CONFIG = {
  pageSize: 2,
  text: { 'a.md': '# A', 'dir/b.md': 'bee', 'dir/c.md': 'sea', 'dir/sub/d.md': 'dee', 'e f.txt': 'spaced', 'big.txt': 'x'.repeat(300), 'bad//path.txt': 'hidden', 'z.zip': 'PK' },
  binary: { 'pic.png': Buffer.from([137, 80, 78, 71, 1, 2, 3]).toString('base64'), 'huge.png': Buffer.alloc(200, 1).toString('base64') },
};

const host = new SandboxHost();
const kind = sandboxedSourceKind({
  host,
  source: MEMO,
  description: DESCRIPTION,
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      pageSize: { type: 'integer' },
      text: { type: 'object', additionalProperties: { type: 'string' } },
      binary: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['pageSize', 'text', 'binary'],
  },
  egressFor: () => passthroughEgress(),
  readCaps: { textBytes: 100, inline: { 'image/*': 64 } },
});
let port: SandboxedSourcePort;

beforeAll(async () => {
  const sourceKinds = new SourceKindRegistry();
  sourceKinds.register(kind.registration);
  const connectors = new ConnectorRegistry(sourceKinds);
  connectors.registerKind(kind.runtime);
  port = (await connectors.bindSource({ source: 'notes', kind: 'memo', config: CONFIG, scope: 'project' })) as SandboxedSourcePort;
});
afterAll(() => host.close());

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    return error as ConnectorError;
  }
  throw new Error('expected the call to fail');
}

async function listAll(target: ConnectorPort, uri: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await target.list(uri, { limit, ...(cursor === undefined ? {} : { cursor }) });
    seen.push(...page.entries.map((entry) => `${entry.type === 'directory' ? 'd' : 'f'} ${entry.uri}`));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return seen;
}

describe('registration', () => {
  it('maps host capabilities onto port capabilities and describes the kind for the registries', () => {
    expect(kind.capabilities).toEqual(['list', 'read', 'stat', 'write', 'delete']);
    expect(kind.entry).toMatchObject({ type: 'source', kind: 'memo', transport: 'in-process', capabilities: ['list', 'read', 'stat', 'write', 'delete'] });
    expect(kind.registration.trust).toBe('first-party');
    expect(port.kind).toBe('memo');
    expect(port.source).toBe('notes');
    expect(port.portVersion).toBe(4);
    expect([...port.capabilities()].sort()).toEqual(['delete', 'list', 'read', 'stat', 'write']);
    expect(typeof port.watch).toBe('function');
    expect(typeof port.webhook).toBe('function');
    expect(Object.isFrozen(port)).toBe(true);
  });

  it('refuses a binding whose module describes other capabilities than the registered kind', async () => {
    const narrower = sandboxedSourceKind({
      host,
      source: MEMO,
      description: { ...DESCRIPTION, capabilities: ['list', 'read'], writes: undefined },
      configSchema: { type: 'object' },
      egressFor: () => passthroughEgress(),
    });
    const error = await failure(narrower.runtime.instantiate({ source: 'other', kind: 'memo', config: CONFIG, scope: 'project' }));
    expect(error.code).toBe('capability_mismatch');
  });

  it('refuses an invalid description up front', () => {
    expect(() => sandboxedSourceKind({ host, source: MEMO, description: { ...DESCRIPTION, dimensions: {} }, configSchema: {}, egressFor: () => passthroughEgress() })).toThrow(
      expect.objectContaining({ code: 'description_invalid' }),
    );
  });
});

describe('list', () => {
  it('shows direct children, folding deeper paths into directories shown once, and leaves unaddressable paths out', async () => {
    expect(await listAll(port, 'notes://', 1000)).toEqual([
      'f notes://a.md',
      'f notes://big.txt',
      'd notes://dir',
      'f notes://e%20f.txt',
      'f notes://huge.png',
      'f notes://pic.png',
      'f notes://z.zip',
    ]);
    expect(await listAll(port, 'notes://dir', 1000)).toEqual(['f notes://dir/b.md', 'f notes://dir/c.md', 'd notes://dir/sub']);
  });

  it('pages with limits and cursors across host pages without losing or repeating entries', async () => {
    const whole = await listAll(port, 'notes://', 1000);
    expect(await listAll(port, 'notes://', 1)).toEqual(whole);
    expect(await listAll(port, 'notes://dir/', 2)).toEqual(['f notes://dir/b.md', 'f notes://dir/c.md', 'd notes://dir/sub']);
    const first = await port.list('notes://', { limit: 1 });
    expect(first.entries[0]).toMatchObject({ uri: 'notes://a.md', name: 'a.md', type: 'file', size: 3, etag: expect.any(String), mtime: expect.any(String) });
  });

  it('answers not_found, not_a_directory, invalid_argument and invalid_uri as the port contract says', async () => {
    expect((await failure(port.list('notes://nowhere'))).code).toBe('not_found');
    expect((await failure(port.list('notes://a.md'))).code).toBe('not_a_directory');
    expect((await failure(port.list('notes://', { cursor: 'garbage' }))).code).toBe('invalid_argument');
    const dirCursor = (await port.list('notes://dir', { limit: 1 })).cursor!;
    expect((await failure(port.list('notes://', { cursor: dirCursor }))).code).toBe('invalid_argument');
    expect((await failure(port.list('other://'))).code).toBe('invalid_uri');
    expect((await failure(port.list('notes://a/../b'))).code).toBe('invalid_uri');
  });
});

describe('read', () => {
  it('returns text with size, mime and etag, and ranges', async () => {
    expect(await port.read('notes://a.md')).toEqual({ text: '# A', mime: 'text/markdown', size: 3, etag: expect.any(String) });
    expect(await port.read('notes://e%20f.txt', { range: { offset: 2, length: 3 } })).toMatchObject({ text: 'ace', size: 6, range: { offset: 2, length: 3 } });
    expect(await port.read('notes://dir/b.md', { range: { offset: 10 } })).toMatchObject({ text: '', range: { offset: 10, length: 0 } });
  });

  it('returns small images as base64 bytes, large ones as a marker, other binaries as a marker', async () => {
    const small = await port.read('notes://pic.png');
    expect(Buffer.from(small.bytes!, 'base64')).toEqual(Buffer.from([137, 80, 78, 71, 1, 2, 3]));
    expect(small.mime).toBe('image/png');
    const huge = await port.read('notes://huge.png');
    expect(huge.bytes).toBeUndefined();
    expect(huge.omitted).toEqual({ reason: 'over_inline_cap', cap: 64 });
    expect(huge.text).toMatch(/over the 64 B inline cap/);
    const zip = await port.read('notes://z.zip');
    expect(zip.bytes).toBeUndefined();
    expect(zip.text).toMatch(/binary content; not included/);
  });

  it('refuses text over the cap without a range, and serves it in ranges', async () => {
    const error = await failure(port.read('notes://big.txt'));
    expect(error.code).toBe('too_large');
    expect(error.details['cap']).toBe(100);
    const part = await port.read('notes://big.txt', { range: { offset: 0, length: 100 } });
    expect(part.text).toBe('x'.repeat(100));
  });

  it('answers is_a_directory, not_found and invalid_argument', async () => {
    expect((await failure(port.read('notes://'))).code).toBe('is_a_directory');
    expect((await failure(port.read('notes://dir'))).code).toBe('is_a_directory');
    expect((await failure(port.read('notes://missing.md'))).code).toBe('not_found');
    expect((await failure(port.read('notes://a.md', { range: { offset: -1 } }))).code).toBe('invalid_argument');
  });
});

describe('stat, write and delete', () => {
  it('stats files, synthetic directories and the root', async () => {
    expect(await port.stat!('notes://a.md')).toMatchObject({ uri: 'notes://a.md', name: 'a.md', type: 'file', size: 3 });
    expect(await port.stat!('notes://dir/sub')).toEqual({ uri: 'notes://dir/sub', name: 'sub', type: 'directory' });
    expect(await port.stat!('notes://')).toEqual({ uri: 'notes://', name: '', type: 'directory' });
    expect((await failure(port.stat!('notes://nope'))).code).toBe('not_found');
  });

  it('writes through the host, honouring ifMatch, createOnly, accepted types and the size cap', async () => {
    const written = await port.write!('notes://new/n.md', 'fresh');
    expect(written).toMatchObject({ uri: 'notes://new/n.md', name: 'n.md', type: 'file', size: 5 });
    expect((await port.read('notes://new/n.md')).text).toBe('fresh');
    expect((await failure(port.write!('notes://new/n.md', 'again', { createOnly: true }))).code).toBe('already_exists');
    expect((await failure(port.write!('notes://new/n.md', 'again', { ifMatch: 'stale' }))).code).toBe('precondition_failed');
    const replaced = await port.write!('notes://new/n.md', 'again', { ifMatch: written.etag! });
    expect(replaced.etag).not.toBe(written.etag);
    expect((await failure(port.write!('notes://x.json', '{}'))).code).toBe('unsupported');
    expect((await failure(port.write!('notes://big.md', 'y'.repeat(5000)))).code).toBe('too_large');
  });

  it('deletes objects, checks ifMatch, and refuses the root and recursive deletes', async () => {
    await port.write!('notes://gone.md', 'bye');
    expect((await failure(port.delete!('notes://gone.md', { ifMatch: 'nope' }))).code).toBe('precondition_failed');
    await port.delete!('notes://gone.md');
    expect((await failure(port.stat!('notes://gone.md'))).code).toBe('not_found');
    expect((await failure(port.delete!('notes://'))).code).toBe('permission_denied');
    expect((await failure(port.delete!('notes://dir', { recursive: true }))).code).toBe('unsupported');
  });
});
