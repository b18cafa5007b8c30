/**
 * What the web page reads beyond the core routes: how a kind's host authenticates for a config
 * (`POST /v1/source-kinds/{kind}/describe`), the same for a submitted module
 * (`POST /v1/connectors/{sha}/describe`), the sources packages offer (`GET
 * /v1/discoverable-sources`), and a host's last completed sync (`lastSync` on the crawl status).
 * None of them stores anything or answers a secret.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleSha } from '../connectors/index.js';
import type { Platform } from '../platform/index.js';
import { openTestPlatform, removeDir, storeSnapshot, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import { exampleSource } from '../trial/__fixtures__/examples.js';
import { call } from './__fixtures__/api.js';
import { createServer } from './server.js';
import { ADMIN_FEATURES, TokenService } from './tokens.js';

let dataDir: string;
let folder: string;
let platform: Platform;
let app: FastifyInstance;
let url: string;
let admin: string;
let reader: string;

beforeAll(async () => {
  dataDir = await tempDir('web-data');
  folder = await tempDir('web-data-files');
  await writeFiles(folder, { 'a.txt': 'alpha\n', 'b/c.txt': 'gamma\n' });
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'files', kind: 'fs', config: { root: folder } });
  const tokens = new TokenService(platform.store.tokens);
  admin = (await tokens.create({ name: 'admin', userId: 'ann', features: ADMIN_FEATURES })).token;
  reader = (await tokens.create({ name: 'reader', userId: 'bob', network: 'home' })).token;
  app = await createServer({ platform, tokens, mcp: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await removeDir(dataDir);
  await removeDir(folder);
});

describe('describing a kind for a config', () => {
  it('answers the checked config and the auth a form asks for, storing nothing', async () => {
    const before = storeSnapshot(platform);
    const s3 = await call({ url }, 'POST', '/v1/source-kinds/bucket/describe', { token: admin, body: { config: { provider: 's3', bucket: 'team', region: 'eu-west-1' } } });
    expect(s3.status, s3.text).toBe(200);
    expect(s3.json()).toMatchObject({
      kind: 'bucket',
      config: { provider: 's3', bucket: 'team', region: 'eu-west-1' },
      auth: {
        acquire: { type: 'static' },
        fields: [
          { name: 'accessKeyId', label: 'Access key ID', secret: false },
          { name: 'secretAccessKey', label: 'Secret access key', secret: true },
        ],
        origins: ['https://team.s3.eu-west-1.amazonaws.com'],
      },
    });
    expect(s3.json().auth.instructions).toMatch(/access key/);
    // The gate's templates are the server's business, not the form's.
    expect(s3.text).not.toContain('{{secretAccessKey}}');
    const folderKind = await call({ url }, 'POST', '/v1/source-kinds/fs/describe', { token: admin, body: { config: { root: folder } } });
    expect(folderKind.json().auth).toEqual({ acquire: { type: 'none' }, fields: [], instructions: null, origins: [] });
    expect(storeSnapshot(platform)).toEqual(before);
  });

  it('names every refused field, and needs hosts.manage', async () => {
    const bad = await call({ url }, 'POST', '/v1/source-kinds/fs/describe', { token: admin, body: { config: { root: 'relative/path', textCapBytes: 0 } } });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_config', details: { fields: expect.arrayContaining(['root', 'textCapBytes']) } });
    const unknown = await call({ url }, 'POST', '/v1/source-kinds/notion/describe', { token: admin, body: { config: {} } });
    expect(unknown.json().error.code).toBe('kind_not_registered');
    const denied = await call({ url }, 'POST', '/v1/source-kinds/fs/describe', { token: reader, body: { config: { root: folder } } });
    expect(denied.status).toBe(403);
  });
});

describe('describing a submitted module', () => {
  it('loads it without network access and answers its kind and auth', async () => {
    const source = exampleSource('notes-api');
    await call({ url }, 'POST', '/v1/connectors', { token: admin, body: { module: source } });
    const sha = moduleSha(source);
    const described = await call({ url }, 'POST', `/v1/connectors/${sha.slice(0, 12)}/describe`, { token: admin, body: { config: { baseUrl: 'https://notes.example.com' } } });
    expect(described.status, described.text).toBe(200);
    expect(described.json()).toEqual({
      kind: 'notes-api',
      auth: {
        acquire: { type: 'static' },
        fields: [{ name: 'token', label: 'API token', secret: true, help: 'Settings → API tokens → New token (read and write).' }],
        instructions: 'Create an API token with read and write access and paste it here.',
        origins: ['https://notes.example.com'],
      },
    });
    const broken = await call({ url }, 'POST', `/v1/connectors/${sha}/describe`, { token: admin, body: { config: {} } });
    // The module's own refusal, passed on with the code it chose.
    expect(broken.status).toBe(400);
    expect(broken.json().error).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('config.baseUrl is required') });
    expect((await call({ url }, 'POST', `/v1/connectors/${sha}/describe`, { token: reader, body: { config: {} } })).status).toBe(403);
    expect((await call({ url }, 'GET', '/v1/trials/none', { token: admin })).status).toBe(404);
    expect((await call({ url }, 'GET', `/v1/connectors/${sha}`, { token: admin })).json().trials).toEqual([]);
  });
});

describe('the sources packages offer', () => {
  it('lists the discoverable sources of the network, and marks one once added', async () => {
    const offered = await call({ url }, 'GET', '/v1/discoverable-sources', { token: reader });
    expect(offered.status).toBe(200);
    expect(offered.json()).toEqual([
      expect.objectContaining({ packageId: 'test.seeds', source: 'reports', label: 'Reports', kind: 'local', description: 'Monthly reports, offered for on-demand add.', added: false, kindRegistered: true }),
      // Owned per user: offered so that each user attaches their own (owned-sources.test.ts).
      expect.objectContaining({ packageId: 'test.seeds', source: 'scratch', ownership: 'user', added: false }),
    ]);
    const added = await call({ url }, 'POST', '/v1/hosts', { token: admin, body: { slug: 'reports', from: 'test.seeds', description: 'Reports, as the team keeps them.' } });
    expect(added.status, added.text).toBe(201);
    expect(added.json()).toMatchObject({ slug: 'reports', origin: 'test.seeds', description: 'Reports, as the team keeps them.' });
    expect((await call({ url }, 'GET', '/v1/discoverable-sources', { token: reader })).json()[0]).toMatchObject({ source: 'reports', added: true });
  });
});

describe('a host\'s last sync', () => {
  it('is null before a crawl completes and the finish time of the newest completed crawl after', async () => {
    const before = (await call({ url }, 'GET', '/v1/hosts/home/files/crawl', { token: reader })).json();
    expect(before).toMatchObject({ running: false, progress: null, lastSync: null });
    const startedAt = Date.now();
    await (await platform.sync({ network: 'home', host: 'files' })).result;
    const after = (await call({ url }, 'GET', '/v1/hosts/home/files/crawl', { token: reader })).json();
    expect(after.progress).toMatchObject({ state: 'completed' });
    expect(after.lastSync).toBe(after.progress.finishedAt);
    expect(after.lastSync).toBeGreaterThanOrEqual(startedAt);
  });
});
