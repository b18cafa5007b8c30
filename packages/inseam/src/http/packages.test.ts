/**
 * /v1/packages over the real server: a person with `packages.manage` installs a package from a
 * folder with the trust they give, lists, swaps and removes it; an agent's token is refused even
 * with the feature, and a token without it sees nothing. Errors are typed and name no path.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../platform/authorization.js';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { writeSourcePackage } from '../platform/__fixtures__/source-package.js';
import { call, startApi, type Api } from './__fixtures__/api.js';

let api: Api;
let packages: string;
let agentWithPackages: string;

beforeAll(async () => {
  api = await startApi();
  packages = await tempDir('http-packages');
  agentWithPackages = (await api.tokens.create({ name: 'agent-packages', userId: 'ann', agentId: 'helper', features: [FEATURES.packagesManage] })).token;
});
afterAll(async () => {
  await api?.close();
  await removeDir(packages);
});

describe('/v1/packages', () => {
  it('a person installs, lists, swaps and removes; hosts of the kind read through the new code', async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1' });
    const added = await call(api, 'POST', '/v1/packages', { token: api.admin, body: { folder, trust: 'trusted' } });
    expect(added.status).toBe(201);
    expect(added.json()).toMatchObject({ packageId: 'acme.board', trust: 'trusted', state: 'loaded', kinds: ['board'], builtin: false });

    const listed = await call(api, 'GET', '/v1/packages', { token: api.admin });
    expect(listed.status).toBe(200);
    const views = listed.json<{ packageId: string; builtin: boolean }[]>();
    expect(views.filter((view) => !view.builtin).map((view) => view.packageId)).toEqual(['acme.board']);
    expect(views.some((view) => view.builtin && view.packageId === '@inseam/connector-fs')).toBe(true);

    expect((await call(api, 'POST', '/v1/hosts', { token: api.admin, body: { network: 'home', slug: 'tasks', kind: 'board', config: {} } })).status).toBe(201);
    const read = async () => (await call(api, 'GET', `/v1/fs/read?address=${encodeURIComponent('inseam://home/tasks/note.txt')}`, { token: api.admin })).text;
    expect(await read()).toBe('board v1');

    await writeSourcePackage(folder, { id: 'acme.board', version: '2.0.0', kinds: ['board'], text: 'board v2' });
    const swapped = await call(api, 'POST', '/v1/packages/acme.board/swap', { token: api.admin, body: {} });
    expect(swapped.status).toBe(200);
    expect(swapped.json()).toMatchObject({ version: '2.0.0' });
    expect(await read()).toBe('board v2');

    expect((await call(api, 'DELETE', '/v1/packages/acme.board', { token: api.admin })).status).toBe(204);
    expect((await call(api, 'DELETE', '/v1/packages/acme.board', { token: api.admin })).json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('refuses agents, tokens without the feature, built-ins and bad input with typed errors that name no path', async () => {
    const folder = await writeSourcePackage(join(packages, 'wiki'), { id: 'acme.wiki', version: '1.0.0', kinds: ['wiki'], text: 'wiki' });
    const byAgent = await call(api, 'POST', '/v1/packages', { token: agentWithPackages, body: { folder, trust: 'trusted' } });
    expect(byAgent.status).toBe(403);
    expect((await call(api, 'GET', '/v1/packages', { token: api.reader })).status).toBe(403);
    expect((await call(api, 'POST', '/v1/packages', { token: api.reader, body: { folder, trust: 'trusted' } })).status).toBe(403);
    expect(api.platform.kinds.has('wiki')).toBe(false);

    const builtin = await call(api, 'DELETE', `/v1/packages/${encodeURIComponent('@inseam/connector-fs')}`, { token: api.admin });
    expect(builtin.status).toBe(403);
    expect(builtin.json()).toMatchObject({ error: { code: 'permission_denied' } });
    const firstParty = await call(api, 'POST', '/v1/packages', { token: api.admin, body: { folder, trust: 'first-party' } });
    expect(firstParty.status).toBe(400);
    const relative = await call(api, 'POST', '/v1/packages', { token: api.admin, body: { folder: 'wiki', trust: 'trusted' } });
    expect(relative.json()).toMatchObject({ error: { code: 'invalid_argument' } });
    const missing = await call(api, 'POST', '/v1/packages', { token: api.admin, body: { folder: join(packages, 'nothing'), trust: 'trusted' } });
    expect(missing.status).toBe(404);
    const tooLow = await call(api, 'POST', '/v1/packages', { token: api.admin, body: { folder, trust: 'sandboxed' } });
    expect(tooLow.json()).toMatchObject({ error: { code: 'manifest_invalid' } });
    for (const answer of [missing, tooLow, relative]) expect(answer.text).not.toContain(packages);
  });

  it("rescans a network's drops for a person, in the caller's network only", async () => {
    const drop = join(api.platform.paths.networkRoot('home'), '_packages', 'mcp-drop');
    await writeSourcePackage(drop, { id: 'home.mcp-drop', version: '1.0.0', kinds: [], text: '' });
    const scanned = await call(api, 'POST', '/v1/packages/rescan', { token: api.admin, body: { network: 'home' } });
    expect(scanned.status).toBe(200);
    expect(scanned.json()).toMatchObject({ network: 'home', loaded: ['home.mcp-drop'], failed: [] });
    const listed = (await call(api, 'GET', '/v1/packages', { token: api.admin })).json<{ packageId: string; network?: string; trust: string }[]>();
    expect(listed.find((view) => view.packageId === 'home.mcp-drop')).toMatchObject({ network: 'home', trust: 'untrusted' });
    expect((await call(api, 'POST', '/v1/packages/rescan', { token: agentWithPackages, body: { network: 'home' } })).status).toBe(403);
    expect((await call(api, 'POST', '/v1/packages/rescan', { token: api.admin, body: { network: '../etc' } })).json()).toMatchObject({ error: { code: expect.stringMatching(/invalid_uri|not_found|invalid_argument/) } });
  });
});
