/**
 * /v1/credentials over the real server: package credentials stored at the four scopes, each only
 * by its owner, never answered back, and resolved from the narrowest scope a call names.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../platform/authorization.js';
import { call, startApi, type Api } from './__fixtures__/api.js';

const MACHINE = '@inseam/connector-machine';
let api: Api;
/** ann, a person in network home, with no feature. */
let ann: string;
/** An agent of ann's with hosts.manage and packages.manage: neither makes it a person. */
let helper: string;

beforeAll(async () => {
  api = await startApi();
  ann = (await api.tokens.create({ name: 'ann', userId: 'ann', network: 'home' })).token;
  helper = (await api.tokens.create({ name: 'helper', userId: 'ann', agentId: 'helper', network: 'home', features: [FEATURES.hostsManage, FEATURES.packagesManage] })).token;
});
afterAll(async () => {
  await api?.close();
});

const put = (token: string, scope: string, password: string, extra: Record<string, unknown> = {}) =>
  call(api, 'PUT', '/v1/credentials', { token, body: { packageId: MACHINE, credential: 'ssh-password', scope, values: { password }, ...extra } });

const resolve = (options: { projectId?: string; userId?: string; agentId?: string }) =>
  api.platform.packageCredentials.resolverFor(MACHINE, [{ id: 'ssh-password', label: 'SSH password', fields: [{ name: 'password', label: 'Password', secret: true }] }]).resolveCredential('ssh-password', options);

describe('/v1/credentials', () => {
  it('stores at each scope only for its owner and resolves the narrowest', async () => {
    expect((await put(api.admin, 'deployment', 'deployment-secret')).status).toBe(204);
    expect((await put(api.admin, 'network', 'network-secret', { network: 'home' })).status).toBe(204);
    expect((await put(ann, 'user', 'ann-secret')).status).toBe(204);
    expect((await put(helper, 'agent', 'helper-secret')).status).toBe(204);
    expect(await resolve({ projectId: 'home', userId: 'ann', agentId: 'helper' })).toEqual({ password: 'helper-secret' });
    expect(await resolve({ projectId: 'home', userId: 'ann' })).toEqual({ password: 'ann-secret' });
    expect(await resolve({ projectId: 'home', userId: 'bob' })).toEqual({ password: 'network-secret' });
    expect(await resolve({})).toEqual({ password: 'deployment-secret' });

    // Nobody writes a scope they do not own: an agent is not a person, a person is not an agent.
    for (const [token, scope] of [[helper, 'user'], [helper, 'deployment'], [ann, 'agent'], [ann, 'network'], [ann, 'deployment']] as const) {
      const refused = await put(token, scope, 'stolen');
      expect(refused.status, `${scope}`).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: 'permission_denied', details: { scope } } });
    }
    expect(await resolve({ projectId: 'home', userId: 'ann', agentId: 'helper' })).toEqual({ password: 'helper-secret' });
  });

  it('lists what each caller may see, never a value, and removes at the caller\'s own scope', async () => {
    const listed = await call(api, 'GET', '/v1/credentials', { token: ann });
    expect(listed.status).toBe(200);
    for (const value of ["ann-secret", "helper-secret", "network-secret", "deployment-secret"]) expect(listed.text).not.toContain(value);
    const password = listed.json<{ packageId: string; credential: string; stored: Record<string, boolean> }[]>().find((view) => view.packageId === MACHINE && view.credential === 'ssh-password');
    expect(password?.stored).toEqual({ user: true });
    const machineManifest = JSON.parse(await readFile(new URL('../../../../connectors/machine/package.json', import.meta.url), 'utf8')) as { neuralis: { credentials: { id: string; description: string }[] } };
    expect((password as { description?: string } | undefined)?.description).toBe(machineManifest.neuralis.credentials.find((declaration) => declaration.id === 'ssh-password')!.description);
    const byAdmin = (await call(api, 'GET', '/v1/credentials?network=home', { token: api.admin })).json<{ credential: string; stored: Record<string, boolean> }[]>();
    // The admin token is ann's too: her own scope is hers whichever token she uses.
    expect(byAdmin.find((view) => view.credential === 'ssh-password')?.stored).toEqual({ deployment: true, network: true, user: true });
    expect(byAdmin.find((view) => view.credential === 'ssh-key')?.stored).toEqual({ deployment: false, network: false, user: false });

    const removed = await call(api, 'DELETE', `/v1/credentials?packageId=${encodeURIComponent(MACHINE)}&credential=ssh-password&scope=agent`, { token: helper });
    expect(removed.json()).toEqual({ removed: true });
    expect(await resolve({ projectId: 'home', userId: 'ann', agentId: 'helper' })).toEqual({ password: 'ann-secret' });
  });

  it('refuses undeclared credentials, unknown packages, fields and scopes with typed errors that echo no value', async () => {
    const undeclared = await call(api, 'PUT', '/v1/credentials', { token: api.admin, body: { packageId: MACHINE, credential: 'api-key', scope: 'deployment', values: { value: 'leak-1' } } });
    expect(undeclared.json()).toMatchObject({ error: { code: 'not_found' } });
    const unknownPackage = await call(api, 'PUT', '/v1/credentials', { token: api.admin, body: { packageId: 'acme.none', credential: 'x', scope: 'deployment', values: { value: 'leak-2' } } });
    expect(unknownPackage.json()).toMatchObject({ error: { code: 'not_found' } });
    const badField = await put(api.admin, 'deployment', 'leak-3', { values: { password: 'leak-3', extra: 'leak-4' } });
    expect(badField.json()).toMatchObject({ error: { code: 'invalid_argument' } });
    const badScope = await put(api.admin, 'everyone', 'leak-5');
    expect(badScope.status).toBe(400);
    for (const answer of [undeclared, unknownPackage, badField, badScope]) expect(answer.text).not.toMatch(/leak-/u);
  });
});
