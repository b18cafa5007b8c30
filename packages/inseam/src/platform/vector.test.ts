/**
 * The vector kind inside the platform: registered as a built-in, seeded into every network, its
 * port over the store's vector index showing only what each entry's own host lets be read, and
 * its embedders — the offline default, and an OpenAI-compatible client whose key is a stored
 * credential and whose requests go through the egress gate. No OpenAI-compatible server runs on
 * these machines: the client is tested against a loopback server speaking that API.
 *
 * Most tests here write vectors through `store.vectors` as the indexer does; one indexes a
 * crawled network through the OpenAI-compatible client (vectors/indexer.test.ts has the rest).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VectorConnector, chunkText, embedAll } from '@inseam/connector-vector';
import type { HostRecord } from '../store/index.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from './__fixtures__/platforms.js';
import { hostCredentialRef } from './host-kinds.js';
import type { Platform } from './platform.js';

let dataDir: string;
let platform: Platform;

beforeEach(async () => {
  dataDir = await tempDir('vector');
  platform = await openTestPlatform(dataDir);
});

afterEach(async () => {
  await platform.close();
  await removeDir(dataDir);
});

async function record(slug: string): Promise<HostRecord> {
  return platform.networks.hostRecord({ network: 'home', host: slug });
}

/** Stores a host's entry with indexed text, as the crawler does. */
async function catalogued(host: string, path: string, text: string): Promise<{ entryId: number; expect: { contentKey: string | null; updatedAt: number } }> {
  const hostId = (await record(host)).id;
  await platform.store.catalog.commit({
    hostId,
    marker: null,
    puts: [{ row: { path, size: text.length, mtime: null, etag: `"${path}"`, mime: 'text/plain', nativeHash: null, nativeId: null, decision: 'include', dimensions: '{}', extra: null, envelope: null }, content: { state: 'indexed', key: `k-${path}`, text, bytes: Buffer.byteLength(text) } }],
    now: Date.now(),
  });
  const entry = (await platform.store.catalog.getEntry(hostId, path))!;
  return { entryId: entry.id, expect: { contentKey: entry.contentKey, updatedAt: entry.updatedAt } };
}

describe('the vector kind in the platform', () => {
  it('is a built-in kind of category vector, seeded once into every network, never crawled by itself', async () => {
    const kind = platform.kinds.get('vector');
    expect(kind).toMatchObject({ kind: 'vector', category: 'vector', providerPackageId: '@inseam/connector-vector', sandboxed: false });
    expect(platform.loader.sourceKinds.get('vector')).not.toHaveProperty('runtimeGated', true);
    const init = await platform.networks.init('home');
    expect(init.skipped.filter((skip) => skip.packageId === '@inseam/connector-vector')).toEqual([]);
    expect(init.hosts.map((host) => host.slug).filter((slug) => slug !== 'data')).toEqual(['pad', 'vector']);
    expect(init.hosts.find((host) => host.slug === 'vector')).toMatchObject({ kind: 'vector', origin: '@inseam/connector-vector', config: {}, sync: null, ownership: 'project', credentials: { acquire: 'none', fields: [] } });
    await platform.networks.init('work');
    expect((await platform.networks.listHosts('work')).filter((host) => host.kind === 'vector')).toHaveLength(1);
  });

  it('lists and reads the index through its port, and only what each entry’s own host lets be read', async () => {
    await platform.networks.init('home');
    const files = await tempDir('vector-files');
    try {
      await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files }, permissions: { default: { read: true, write: false, exec: false }, paths: { private: { read: false } } } });
      await platform.networks.addHost({ network: 'home', slug: 'mine', kind: 'fs', config: { root: files }, ownership: 'user', ownerId: 'ann' });
      const port = await platform.kinds.openPort(await record('vector'));
      expect((await port.list('vector://')).entries).toEqual([]);
      await platform.store.vectors.ensureModel('m', 2);
      for (const [host, path] of [
        ['notes', 'docs/plan.md'],
        ['notes', 'private/diary.md'],
        ['mine', 'ann.md'],
      ] as const) {
        const entry = await catalogued(host, path, 'some text here');
        await platform.store.vectors.upsert({ entryId: entry.entryId, model: 'm', expect: entry.expect, chunks: [{ span: { start: 0, end: 4 }, vector: Float32Array.of(1, 0) }], now: 1_700_000_000_000 });
      }
      // The user-owned host is not shown to everyone who may read the vector source.
      expect((await port.list('vector://')).entries.map((entry) => entry.name)).toEqual(['notes']);
      expect((await port.list('vector://notes')).entries.map((entry) => entry.name)).toEqual(['docs']);
      const recordFile = JSON.parse((await port.read('vector://notes/docs/plan.md')).text);
      expect(recordFile).toEqual({
        host: 'notes',
        path: 'docs/plan.md',
        records: [{ model: 'm', state: 'indexed', contentKey: 'k-docs/plan.md', indexedAt: '2023-11-14T22:13:20.000Z', updatedAt: '2023-11-14T22:13:20.000Z', attempts: 0, error: null, chunks: [[0, 4]] }],
      });
      await expect(port.read('vector://notes/private/diary.md')).rejects.toMatchObject({ code: 'not_found' });
      await expect(port.read('vector://mine/ann.md')).rejects.toMatchObject({ code: 'not_found' });
      // The seam for the integration round: the bound port answers queries (hits re-checked the same way).
      expect(port).toBeInstanceOf(VectorConnector);
    } finally {
      await removeDir(files);
    }
  });

  it('the default embedder finds a note by meaning that keyword search misses', { timeout: 300_000 }, async () => {
    await platform.networks.init('home');
    const files = await tempDir('vector-files');
    try {
      await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files } });
      const vectorHost = await record('vector');
      const embedder = await platform.kinds.embedder(vectorHost);
      await platform.store.vectors.ensureModel(embedder.model, embedder.dimension);
      const notes = {
        'trips/lisbon.md': "# Trips\n\nLow-cost airfare to Portugal's capital: book the budget carrier two months ahead.",
        'health/dentist.md': 'The dentist appointment moved to Thursday morning.',
        'work/revenue.md': 'Quarterly revenue rose eleven percent in Europe.',
      };
      for (const [path, text] of Object.entries(notes)) {
        const entry = await catalogued('notes', path, text);
        const chunks = chunkText(text);
        const vectors = await embedAll(embedder, chunks.map((chunk) => text.slice(chunk.start, chunk.end)));
        await platform.store.vectors.upsert({ entryId: entry.entryId, model: embedder.model, expect: entry.expect, chunks: chunks.map((chunk, i) => ({ span: chunk, vector: vectors[i]! })), now: Date.now() });
      }
      expect(await platform.search.search('cheap flights to Lisbon', { network: 'home' }).then((page) => page.hits)).toEqual([]);
      const port = (await platform.kinds.openPort(vectorHost)) as VectorConnector;
      const [best] = await port.query({ text: 'cheap flights to Lisbon', k: 3 });
      expect(best).toMatchObject({ host: 'notes', path: 'trips/lisbon.md', model: embedder.model });
      expect(notes['trips/lisbon.md'].slice(best!.span.start, best!.span.end)).toContain('Low-cost airfare');
    } finally {
      await removeDir(files);
    }
  });
});

describe('an OpenAI-compatible embedder, through the egress gate', () => {
  // No OpenAI-compatible server runs on these machines: this loopback server speaks the API.
  let server: Server;
  let origin: string;
  const requests: { headers: IncomingMessage['headers']; body: { model?: string; input?: string[]; dimensions?: number } }[] = [];
  let answer: (body: { input: string[] }, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
        requests.push({ headers: req.headers, body });
        if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        answer(body, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    requests.length = 0;
    answer = (body, res) => json(res, 200, { object: 'list', data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 1, 0] })), model: 'test' });
  });

  function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }

  async function semanticHost(embedder: Record<string, unknown>, options: { privateOrigins?: string[]; credentials?: Record<string, string> } = {}): Promise<HostRecord> {
    await platform.networks.init('home');
    await platform.networks.addHost({
      network: 'home',
      slug: 'semantic',
      kind: 'vector',
      config: { embedder: { provider: 'openai', baseUrl: `${origin}/v1`, model: 'test-embed', dimension: 3, ...embedder } },
      privateOrigins: options.privateOrigins ?? [origin],
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    });
    return record('semantic');
  }

  it('sends the stored key as a bearer token, only through the gate, and checks every answer', async () => {
    const host = await semanticHost({}, { credentials: { apiKey: 'sk-test-123456' } });
    expect((await platform.networks.showHost({ network: 'home', host: 'semantic' })).credentials).toEqual({ acquire: 'static', fields: ['apiKey'], stored: ['apiKey'] });
    expect(JSON.stringify(await platform.networks.showHost({ network: 'home', host: 'semantic' }))).not.toContain('sk-test-123456');
    const embedder = await platform.kinds.embedder(host);
    expect(embedder.model).toBe(`openai:${origin}/v1#test-embed@3`);
    const vectors = await embedder.embed(['four', '', 'seven!!']);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers['authorization']).toBe('Bearer sk-test-123456');
    // The blank text is never sent (OpenAI refuses empty input); it gets the zero vector.
    expect(requests[0]!.body).toEqual({ model: 'test-embed', input: ['four', 'seven!!'], encoding_format: 'float' });
    expect(Array.from(vectors[1]!)).toEqual([0, 0, 0]);
    expect(vectors[0]![0]).toBeCloseTo(4 / Math.hypot(4, 1), 5);
    expect(platform.egressLog.recent('home/semantic').map((entry) => [entry.method, entry.decision, entry.status])).toEqual([['POST', 'allow', 200]]);
  });

  it('indexes a network after its crawl and answers semantic search through it, the key sent by the gate', async () => {
    const host = await semanticHost({}, { credentials: { apiKey: 'sk-index-777' } });
    // The network's vector host is then this one: the seeded one goes.
    await platform.networks.removeHost({ network: 'home', host: 'vector' });
    const folder = await tempDir('vector-openai');
    try {
      await writeFiles(folder, { 'a.md': 'short', 'b.md': 'a somewhat longer note' });
      await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: folder } });
      await (await platform.sync({ network: 'home', host: 'notes' })).result;
      await platform.vectors.request('home');
      const model = `openai:${origin}/v1#test-embed@3`;
      expect(await platform.store.vectors.counts(model, [(await record('notes')).id])).toMatchObject({ indexed: 2, pending: 0, failed: 0 });
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.every((request) => request.headers['authorization'] === 'Bearer sk-index-777')).toBe(true);
      const page = await platform.search.search('short', { network: 'home', mode: 'semantic' });
      expect(page.index).toEqual([{ network: 'home', vectorHost: host.slug, model, indexed: 2, pending: 0, failed: 0 }]);
      expect(page.hits.map((hit) => hit.path)).toEqual(['a.md', 'b.md']);
      expect(JSON.stringify(page)).not.toContain('sk-index-777');
    } finally {
      await removeDir(folder);
    }
  });

  it('a 429 is retried by the gate; one that stays is rate_limited. 401 is permission_denied. Keys never show in errors', async () => {
    const host = await semanticHost({}, { credentials: { apiKey: 'sk-secret-key-9' } });
    const embedder = await platform.kinds.embedder(host);
    let busy = 1;
    answer = (body, res) => (busy-- > 0 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '0' }) : json(res, 200, { data: body.input.map((_, index) => ({ index, embedding: [1, 0, 0] })) }));
    expect(await embedder.embed(['a'])).toHaveLength(1);
    expect(requests).toHaveLength(2);
    answer = (_body, res) => json(res, 429, { error: 'sk-secret-key-9 is over quota' }, { 'retry-after': '0' });
    const limited = (await embedder.embed(['a']).catch((error: unknown) => error)) as Error & { code: string };
    expect(limited).toMatchObject({ code: 'rate_limited' });
    answer = (_body, res) => json(res, 401, { error: 'bad key sk-secret-key-9' });
    const denied = (await embedder.embed(['a']).catch((error: unknown) => error)) as Error & { code: string };
    expect(denied).toMatchObject({ code: 'permission_denied' });
    for (const error of [limited, denied]) expect(JSON.stringify({ message: error.message, details: (error as { details?: unknown }).details })).not.toContain('sk-secret-key-9');
  });

  it('an answer of another dimension, of the wrong count or not JSON is invalid_config, naming the field to fix', async () => {
    const embedder = await platform.kinds.embedder(await semanticHost({ apiKey: 'none' }));
    expect(requests).toHaveLength(0);
    await embedder.embed(['x']);
    expect(requests[0]!.headers['authorization']).toBeUndefined();
    answer = (body, res) => json(res, 200, { data: body.input.map((_, index) => ({ index, embedding: [1, 0, 0, 0] })) });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: 'invalid_config', details: { fields: ['embedder.dimension'], expected: 3, actual: 4 } });
    answer = (_body, res) => json(res, 200, { data: [] });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: 'invalid_config' });
    answer = (_body, res) => json(res, 200, { data: [{ index: 0, embedding: [1, 'x', 0] }] });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: 'invalid_config' });
    answer = (_body, res) => res.writeHead(200).end('<html>not json</html>');
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: 'invalid_config' });
    answer = (_body, res) => json(res, 500, {});
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: 'unavailable' });
    // Answers in any order are put back by their index.
    answer = (body, res) => json(res, 200, { data: body.input.map((_, index) => ({ index, embedding: [index + 1, 0, 0] })).reverse() });
    const [first, second] = await embedder.embed(['a', 'b']);
    expect([first![0], second![0]]).toEqual([1, 1]);
  });

  it('asks for shortened vectors only when configured, and batches as configured', async () => {
    const embedder = await platform.kinds.embedder(await semanticHost({ apiKey: 'none', sendDimensions: true, batchSize: 2 }));
    await embedAll(embedder, ['a', 'b', 'c']);
    expect(requests.map((request) => [request.body.input, request.body.dimensions])).toEqual([
      [['a', 'b'], 3],
      [['c'], 3],
    ]);
    await expect(embedder.embed(['a', 'b', 'c'])).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('a loopback server is refused unless a person approved it as private; a missing key is permission_denied', async () => {
    const refused = await platform.kinds.embedder(await semanticHost({ apiKey: 'none' }, { privateOrigins: [] }));
    await expect(refused.embed(['x'])).rejects.toMatchObject({ code: 'egress_refused' });
    expect(requests).toHaveLength(0);
    // A host that needs a key is not added without one; one whose key was removed sends nothing.
    const config = { embedder: { provider: 'openai', baseUrl: `${origin}/v1`, model: 'm', dimension: 3 } };
    await expect(platform.networks.addHost({ network: 'home', slug: 'nokey', kind: 'vector', config, privateOrigins: [origin] })).rejects.toMatchObject({ code: 'invalid_argument' });
    await platform.networks.addHost({ network: 'home', slug: 'nokey', kind: 'vector', config, privateOrigins: [origin], credentials: { apiKey: 'sk-gone' } });
    await platform.credentials.remove(hostCredentialRef(await record('nokey')));
    const keyless = await platform.kinds.embedder(await record('nokey'));
    await expect(keyless.embed(['x'])).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'credentials_missing' } });
    expect(requests).toHaveLength(0);
  });

  it('an aborted call is timeout and sends nothing more', async () => {
    const embedder = await platform.kinds.embedder(await semanticHost({ apiKey: 'none' }));
    answer = () => undefined; // never answers
    const controller = new AbortController();
    const pending = embedder.embed(['x'], { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'timeout' });
  });
});
