/**
 * A sandboxed kind on the platform: the notes-api example connector registered from its module,
 * a host of it added with a token the connector never sees, crawled through the sandbox and the
 * egress gate, searched, read through its port, and refused without the private-origin approval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Description } from '@inseam/connector';
import { brokenModule } from '../trial/__fixtures__/broken/broken-connectors.js';
import { NOTES_SEED, exampleSource } from '../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../trial/__fixtures__/servers/notes-api.js';
import { openTestPlatform, removeDir, storeSnapshot, tempDir } from './__fixtures__/platforms.js';
import type { Platform } from './platform.js';

const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { baseUrl: { type: 'string', minLength: 1 }, pageSize: { type: 'integer', minimum: 1 }, pollMs: { type: 'integer', minimum: 1 } },
  required: ['baseUrl'],
};

let dataDir: string;
let api: NotesApi;
let platform: Platform;
const source = exampleSource('notes-api');

beforeAll(async () => {
  dataDir = await tempDir('sandboxed');
  api = await startNotesApi(NOTES_SEED);
  platform = await openTestPlatform(dataDir);
  // What the trial validated: the module's own description.
  const probe = await platform.sandbox.load({ source, label: 'probe', config: { baseUrl: api.origin }, egress: { fetch: () => Promise.reject(new Error('unused')) } });
  const description: Description = probe.describe();
  probe.dispose();
  const kind = platform.kinds.registerSandboxed({ source, description, configSchema: CONFIG_SCHEMA, name: 'Notes API' });
  expect(kind).toMatchObject({ kind: 'notes-api', label: 'Notes API', sandboxed: true, capabilities: ['list', 'stat', 'read', 'write', 'delete'] });
  await platform.networks.init('home');
});

afterAll(async () => {
  await platform.close();
  await api.close();
  await removeDir(dataDir);
});

describe('a sandboxed kind', () => {
  it('refuses a host without its credential, or with a config the schema refuses, storing nothing', async () => {
    const before = storeSnapshot(platform);
    await expect(platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'notes-api', config: { baseUrl: api.origin } })).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('"token"') });
    await expect(platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'notes-api', config: { baseUrl: api.origin, base: 'x' }, credentials: { token: api.token } })).rejects.toMatchObject({ code: 'invalid_config' });
    await expect(
      platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'notes-api', config: { baseUrl: api.origin }, credentials: { token: api.token }, privateOrigins: ['http://127.0.0.1:1'] }),
    ).rejects.toMatchObject({ code: 'invalid_config' });
    expect(storeSnapshot(platform)).toEqual(before);
  });

  it('crawls through the sandbox and the gate, which attaches the token', async () => {
    const view = await platform.networks.addHost({
      network: 'home',
      slug: 'notes',
      kind: 'notes-api',
      config: { baseUrl: api.origin, pageSize: 2 },
      credentials: { token: api.token },
      privateOrigins: [api.origin],
    });
    expect(view.credentials).toEqual({ acquire: 'static', fields: ['token'], stored: ['token'] });
    expect(JSON.stringify(view)).not.toContain(api.token);
    const run = await (await platform.sync({ network: 'home', host: 'notes' })).result;
    // The kind's default scope leaves trash/ out.
    expect(run, JSON.stringify(run.error)).toMatchObject({ state: 'completed', counters: expect.objectContaining({ entries: NOTES_SEED.length - 1, skipped: 1 }) });
    expect(platform.egressLog.originsUsed('home/notes')).toEqual([api.origin]);
    expect(platform.egressLog.recent('home/notes').every((entry) => entry.credentialed)).toBe(true);
    const found = await platform.search.search('umlauts', { network: 'home' });
    expect(found.hits.map((hit) => hit.address)).toEqual(['inseam://home/notes/notes/%C3%9Cn%C3%AFcode%20%26%20more.txt']);
  });

  it('serves the host through its port, and drops it on removal', async () => {
    const record = await platform.networks.hostRecord({ network: 'home', host: 'notes' });
    const port = await platform.kinds.openPort(record);
    expect((await port.list('notes://journal')).entries.map((entry) => entry.name)).toEqual(['2024-05-01.md', '2024-05-02.md']);
    expect((await port.read('notes://journal/2024-05-02.md')).text).toBe('# May the second\n');
    await platform.networks.removeHost({ network: 'home', host: 'notes' });
    expect((await platform.search.search('umlauts', {})).hits).toEqual([]);
  });

  it('without the private-origin approval the gate refuses the loopback API and the crawl fails saying so', async () => {
    await platform.networks.addHost({ network: 'home', slug: 'unapproved', kind: 'notes-api', config: { baseUrl: api.origin }, credentials: { token: api.token } });
    const run = await (await platform.sync({ network: 'home', host: 'unapproved' })).result;
    expect(run).toMatchObject({ state: 'failed', error: { code: 'egress_refused' } });
    expect(platform.egressLog.recent('home/unapproved')).toEqual([expect.objectContaining({ decision: 'refuse', reason: 'address_forbidden', origin: api.origin })]);
  });
});

/**
 * The notes-api example made read-only: stat asks the API's search endpoint, a read over POST it
 * declares in auth.readEndpoints; read first tries a PUT (a "read marker"), ignoring the failure.
 */
const READ_ONLY_PATCH = `const described = base.describe();
  const search = new URL('/api/v1/search', config.baseUrl);
  connector.describe = () => {
    const { writes, ...rest } = described;
    return { ...rest, kind: 'notes-search', capabilities: ['list', 'stat', 'read'], auth: { ...described.auth, readEndpoints: [{ method: 'POST', origin: search.origin, path: search.pathname }] } };
  };
  delete connector.write;
  delete connector.delete;
  delete connector.watch;
  connector.stat = async (path) => {
    const response = await fetch(search.href, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: toApiPath(path) }) });
    if (!response.ok) throw hostError('unavailable', 'search answered ' + response.status);
    const { files } = await response.json();
    return files.length === 0 ? null : base.stat(path);
  };
  connector.read = async (path, options) => {
    try { await fetch(new URL('/api/v1/files/content?path=read-marker', config.baseUrl).href, { method: 'PUT', body: 'read' }); } catch { /* refused by the gate */ }
    return base.read(path, options);
  };`;

describe('a sandboxed kind that declares no writes', () => {
  it('reaches its host at run time as the submit-phase trial let it: reads and exactly its declared POST reads pass, other writes are refused', async () => {
    const module = brokenModule(source, READ_ONLY_PATCH);
    const probe = await platform.sandbox.load({ source: module, label: 'probe-search', config: { baseUrl: api.origin }, egress: { fetch: () => Promise.reject(new Error('unused')) } });
    const description: Description = probe.describe();
    probe.dispose();
    platform.kinds.registerSandboxed({ source: module, description, configSchema: CONFIG_SCHEMA, name: 'Notes search' });
    await platform.networks.addHost({ network: 'home', slug: 'searching', kind: 'notes-search', config: { baseUrl: api.origin }, credentials: { token: api.token }, privateOrigins: [api.origin] });
    const port = await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'searching' }));
    const searches = api.requests.filter((request) => request === 'POST /api/v1/search').length;
    const puts = api.requests.filter((request) => request.startsWith('PUT ')).length;
    expect((await port.stat!('searching://journal/2024-05-02.md')).name).toBe('2024-05-02.md');
    expect((await port.read('searching://journal/2024-05-02.md')).text).toBe('# May the second\n');
    expect(api.requests.filter((request) => request === 'POST /api/v1/search').length).toBeGreaterThan(searches);
    expect(api.requests.filter((request) => request.startsWith('PUT ')).length).toBe(puts);
    const log = platform.egressLog.recent('home/searching');
    expect(log).toContainEqual(expect.objectContaining({ decision: 'allow', method: 'POST', origin: api.origin }));
    expect(log).toContainEqual(expect.objectContaining({ decision: 'refuse', method: 'PUT', reason: 'write_in_audit_mode' }));
  });
});
