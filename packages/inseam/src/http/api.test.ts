/**
 * Tokens, networks, hosts, kinds, crawls, exec and runs over real HTTP, and the OpenAPI document.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf, tempDir, removeDir } from '../platform/__fixtures__/platforms.js';
import { call, q, startApi, type Api } from './__fixtures__/api.js';
import { hashToken } from './tokens.js';

let api: Api;
let other: string;

beforeAll(async () => {
  api = await startApi();
  other = await tempDir('http-other');
  await writeFile(join(other, 'hello.txt'), 'hello from the other folder\n');
});

afterAll(async () => {
  await api?.close();
  await removeDir(other);
});

describe('tokens', () => {
  it('answers 401 with WWW-Authenticate without a valid token, and the same for every kind of invalid one', async () => {
    const revoked = await api.tokens.create({ name: 'old', userId: 'ann' });
    await api.tokens.revoke(revoked.record.id);
    const expiring = await api.tokens.create({ name: 'short', userId: 'ann', expiresAt: Date.now() + 150 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cases: (string | undefined)[] = [undefined, 'Basic abc', 'Bearer', `Bearer ${api.admin}x`, `Bearer inseam_${'A'.repeat(43)}`, `Bearer ${revoked.token}`, `Bearer ${expiring.token}`];
    for (const authorization of cases) {
      const answer = await call(api, 'GET', '/v1/hosts', authorization === undefined ? {} : { headers: { authorization } });
      expect(answer.status, authorization).toBe(401);
      expect(answer.headers['www-authenticate'], authorization).toMatch(/^Bearer /);
      expect(answer.json().error.code, authorization).toBe('unauthenticated');
    }
  });

  it('stores only the hash of a token', async () => {
    const rows = sqliteOf(api.platform).prepare('SELECT * FROM tokens').all() as Record<string, unknown>[];
    const text = JSON.stringify(rows);
    for (const token of [api.admin, api.reader, api.agent]) {
      expect(text).not.toContain(token);
      expect(text).toContain(hashToken(token));
    }
  });

  it('takes identity from the token, never from the body', async () => {
    await mkdir(join(api.folder, 'runs'), { recursive: true });
    const started = await call(api, 'POST', '/v1/runs', { token: api.agent, body: { command: 'sleep 5', cwd: 'files://runs', userId: 'mallory' } });
    expect(started.status).toBe(400);
    expect(started.json().error.details.argument).toBe('body.userId');
  });

  it('serves the OpenAPI description without a token', async () => {
    const answer = await call(api, 'GET', '/v1/openapi.json');
    expect(answer.status).toBe(200);
    const document = answer.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/hosts', '/v1/hosts/{network}/{host}', '/v1/fs/read', '/v1/fs/write', '/v1/exec', '/v1/runs/{id}/output', '/v1/connectors/{sha}/approve', '/v1/hosts/{network}/{host}/crawl']),
    );
    const write = document.paths['/v1/fs/write'].put;
    expect(write.requestBody.content['*/*']).toBeDefined();
    expect(write.parameters).toEqual([expect.objectContaining({ name: 'address', in: 'query', required: true })]);
    expect(document.paths['/v1/hosts'].post['x-inseam-action']).toBe('hosts.add');
    expect(document.paths['/v1/hosts'].post['x-inseam-features']).toEqual(['hosts.manage']);
    expect(document.paths['/v1/hosts'].post.requestBody.content['application/json'].schema.properties.kind).toBeDefined();
    expect(document.components.schemas.Error.properties.error.properties.code.enum).toContain('precondition_failed');
  });

  it('answers unknown routes with a JSON not_found', async () => {
    const answer = await call(api, 'GET', '/v1/nothing', { token: api.admin });
    expect(answer.status).toBe(404);
    expect(answer.json().error.code).toBe('not_found');
  });
});

describe('networks, kinds and hosts', () => {
  it('lists the source kinds with label, schema, capabilities and category', async () => {
    const kinds = (await call(api, 'GET', '/v1/source-kinds', { token: api.reader })).json<{ kind: string }[]>();
    expect(kinds.map((kind) => kind.kind)).toEqual(['bucket', 'fs', 'imap', 'local', 'machine', 'vector']);
    expect(kinds.find((kind) => kind.kind === 'fs')).toMatchObject({ label: expect.any(String), category: 'disk', configSchema: { type: 'object', additionalProperties: false }, capabilities: expect.arrayContaining(['list', 'read', 'exec']) });
  });

  it('creates networks only with networks.manage and a token for every network', async () => {
    const denied = await call(api, 'POST', '/v1/networks', { token: api.reader, body: { slug: 'lab' } });
    expect(denied.status).toBe(403);
    expect(denied.json().error).toMatchObject({ code: 'permission_denied', details: { missingFeatures: ['networks.manage'] } });
    const created = await call(api, 'POST', '/v1/networks', { token: api.admin, body: { slug: 'lab', label: 'Lab' } });
    expect(created.status).toBe(201);
    expect(created.json().hosts.map((host: { slug: string }) => host.slug)).toEqual(['pad', 'vector']);
    const again = await call(api, 'POST', '/v1/networks', { token: api.admin, body: { slug: 'lab' } });
    expect(again.status).toBe(409);
    const listed = (await call(api, 'GET', '/v1/networks', { token: api.reader })).json<{ slug: string }[]>();
    expect(listed.map((network) => network.slug)).toEqual(['home']);
  });

  it('asks a token for every network which network it means when there are several', async () => {
    const ambiguous = await call(api, 'GET', '/v1/hosts', { token: api.admin });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.json().error.details.argument).toBe('inseam-network');
    const named = await call(api, 'GET', '/v1/hosts', { token: api.admin, headers: { 'inseam-network': 'home' } });
    expect(named.status).toBe(200);
    expect(named.json().map((host: { slug: string }) => host.slug)).toEqual(['files', 'pad', 'vector']);
  });

  it('adds a host after checking everything, and refuses bad input storing nothing', async () => {
    const headers = { 'inseam-network': 'home' };
    const noFeature = await call(api, 'POST', '/v1/hosts', { token: api.reader, body: { slug: 'other', kind: 'fs', config: { root: other } } });
    expect(noFeature.status).toBe(403);
    const badConfig = await call(api, 'POST', '/v1/hosts', { token: api.admin, headers, body: { slug: 'other', kind: 'fs', config: { root: other, rooot: 1 } } });
    expect(badConfig.status).toBe(400);
    expect(badConfig.json().error.code).toBe('invalid_config');
    const badKind = await call(api, 'POST', '/v1/hosts', { token: api.admin, headers, body: { slug: 'other', kind: 'nope' } });
    expect(badKind.json().error.code).toBe('kind_not_registered');
    const badSlug = await call(api, 'POST', '/v1/hosts', { token: api.admin, headers, body: { slug: 'Bad Slug', kind: 'fs', config: { root: other } } });
    expect(badSlug.json().error.code).toBe('invalid_uri');
    const unknownField = await call(api, 'POST', '/v1/hosts', { token: api.admin, headers, body: { slug: 'other', kind: 'fs', config: { root: other }, owner: 'x' } });
    expect(unknownField.status).toBe(400);
    expect(await api.platform.store.hosts.get({ network: 'home', host: 'other' })).toBeNull();
    const added = await call(api, 'POST', '/v1/hosts', { token: api.admin, headers, body: { slug: 'other', kind: 'fs', config: { root: other }, label: 'Other' } });
    expect(added.status).toBe(201);
    expect(added.json()).toMatchObject({ network: 'home', slug: 'other', address: 'inseam://home/other/', kindRegistered: true });
    const taken = await call(api, 'POST', '/v1/hosts', { token: api.admin, headers, body: { slug: 'other', kind: 'fs', config: { root: other } } });
    expect(taken.status).toBe(409);
    const read = await call(api, 'GET', `/v1/fs/read?address=${q('inseam://home/other/hello.txt')}`, { token: api.reader });
    expect(read.text).toBe('hello from the other folder\n');
  });

  it('shows a host, with its settings only to hosts.manage, and hides another user\'s host', async () => {
    const asReader = (await call(api, 'GET', '/v1/hosts/home/files', { token: api.reader })).json();
    expect(asReader.host).toMatchObject({ slug: 'files', rights: { read: true, write: true, exec: true } });
    expect(asReader.settings).toBeNull();
    const asAdmin = (await call(api, 'GET', '/v1/hosts/home/files', { token: api.admin })).json();
    expect(asAdmin.settings).toMatchObject({ kind: 'fs', config: { root: api.folder } });
    await api.platform.networks.addHost({ network: 'home', slug: 'annsown', kind: 'fs', config: { root: other }, ownership: 'user', ownerId: 'ann' });
    expect((await call(api, 'GET', '/v1/hosts/home/annsown', { token: api.reader })).status).toBe(404);
    expect((await call(api, 'GET', '/v1/hosts', { token: api.reader })).json().map((host: { slug: string }) => host.slug)).not.toContain('annsown');
    // A user's host is theirs, and their agents' (the agent acts for ann).
    expect((await call(api, 'GET', '/v1/hosts/home/annsown', { token: api.agent })).status).toBe(200);
    expect((await call(api, 'GET', '/v1/hosts/home/annsown', { token: api.admin })).status).toBe(200);
  });

  it('removes a host, keeping the pad', async () => {
    const pad = await call(api, 'DELETE', '/v1/hosts/home/pad', { token: api.admin });
    expect(pad.status).toBe(400);
    const removed = await call(api, 'DELETE', '/v1/hosts/home/other', { token: api.admin });
    expect(removed.status).toBe(204);
    expect((await call(api, 'GET', '/v1/hosts/home/other', { token: api.admin })).status).toBe(404);
    const bound = await call(api, 'DELETE', '/v1/hosts/lab/pad', { token: api.reader });
    expect(bound.status).toBe(403);
  });

  it('starts a crawl and reports its progress', async () => {
    const started = await call(api, 'POST', '/v1/hosts/home/files/crawl', { token: api.admin, body: { mode: 'full' } });
    expect(started.status).toBe(202);
    expect(started.json()).toMatchObject({ host: 'home/files' });
    let status = started.json();
    for (let attempt = 0; attempt < 100 && status.progress?.state !== 'completed'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await call(api, 'GET', '/v1/hosts/home/files/crawl', { token: api.reader })).json();
    }
    expect(status).toMatchObject({ running: false, progress: { state: 'completed', mode: 'full' }, entries: expect.any(Number) });
    expect(status.entries).toBeGreaterThanOrEqual(4);
    expect((await call(api, 'POST', '/v1/hosts/home/files/crawl', { token: api.reader })).status).toBe(403);
    const bad = await call(api, 'POST', '/v1/hosts/home/files/crawl', { token: api.admin, body: { mode: 'sideways' } });
    expect(bad.status).toBe(400);
  });
});

describe('exec and runs', () => {
  it('runs a command with the entry feature, and refuses without it', async () => {
    const denied = await call(api, 'POST', '/v1/exec', { token: api.reader, body: { command: 'echo hi', cwd: 'files://docs' } });
    expect(denied.status).toBe(403);
    expect(denied.json().error.details.missingFeatures).toEqual(['exec.machine']);
    const ran = await call(api, 'POST', '/v1/exec', { token: api.agent, body: { command: 'cat plan.md', cwd: 'files://docs' } });
    expect(ran.status).toBe(200);
    expect(ran.json()).toMatchObject({ exitCode: 0, stdout: '# Plan\nShip the harbour crane on Tuesday.\n' });
    const notDir = await call(api, 'POST', '/v1/exec', { token: api.agent, body: { command: 'ls', cwd: 'files://docs/plan.md' } });
    expect(notDir.status).toBe(409);
    expect(notDir.json().error.code).toBe('not_a_directory');
  });

  it('starts a detached run only its owner can read, stop and release', async () => {
    const started = await call(api, 'POST', '/v1/runs', { token: api.agent, body: { command: 'echo started; sleep 30', cwd: 'files://docs' } });
    expect(started.status).toBe(201);
    const { runId } = started.json();
    expect(started.json()).toMatchObject({ network: 'home', host: 'files', userId: 'ann', agentId: 'helper' });
    expect((await call(api, 'GET', `/v1/runs/${runId}`, { token: api.reader })).status).toBe(403);
    let output = { data: '' };
    for (let attempt = 0; attempt < 100 && !output.data.includes('started'); attempt += 1) {
      output = (await call(api, 'GET', `/v1/runs/${runId}/output?since=0`, { token: api.agent })).json();
      if (!output.data.includes('started')) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output.data).toBe('started\n');
    expect((await call(api, 'GET', '/v1/runs', { token: api.agent })).json().map((run: { runId: string }) => run.runId)).toEqual([runId]);
    expect((await call(api, 'POST', `/v1/runs/${runId}/kill`, { token: api.agent })).json()).toEqual({ acknowledged: true });
    const status = await call(api, 'GET', `/v1/runs/${runId}?waitMs=2000`, { token: api.agent });
    expect(status.json()).toMatchObject({ runId, network: 'home', host: 'files' });
    expect((await call(api, 'DELETE', `/v1/runs/${runId}`, { token: api.agent })).status).toBe(204);
    expect((await call(api, 'GET', `/v1/runs/${runId}`, { token: api.agent })).status).toBe(404);
  });
});

describe('the MCP endpoint on the same server', () => {
  it('opens a session at /mcp with the same bearer token, and refuses without one', async () => {
    const server = await startApi({ mcp: {} });
    try {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } } };
      const headers = { accept: 'application/json, text/event-stream' };
      const refused = await call(server, 'POST', '/mcp', { body: initialize, headers });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer /);
      const opened = await call(server, 'POST', '/mcp', { token: server.reader, body: initialize, headers });
      expect(opened.status).toBe(200);
      expect(opened.headers['mcp-session-id']).toEqual(expect.any(String));
      expect(opened.text).toContain('"serverInfo"');
    } finally {
      await server.close();
    }
  });
});
