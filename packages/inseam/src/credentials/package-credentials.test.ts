import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectorInitContext, CredentialDeclaration } from '@neuralis/package-system/contracts';
import { PackageLoader } from '@neuralis/package-system/loader';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectNoSecrets, rejectionOf } from './__fixtures__/secrets.js';
import { memoryStore } from './__fixtures__/stores.js';
import { PackageCredentials, packageCredentialId } from './package-credentials.js';
import { agentScope, deploymentScope, projectScope, userScope } from './scope.js';

const NOTION: CredentialDeclaration = { id: 'notion-token', label: 'Notion integration token' };
const DB: CredentialDeclaration = {
  id: 'db',
  label: 'Database login',
  fields: [
    { name: 'user', label: 'User', secret: false },
    { name: 'password', label: 'Password', secret: true },
  ],
};

describe('PackageCredentials', () => {
  it('resolves a declared credential from the project, then the deployment', async () => {
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    await packages.set(deploymentScope(), 'acme.notion', NOTION, { value: 'deployment-token' });
    await packages.set(projectScope('p1'), 'acme.notion', NOTION, { value: 'p1-token' });
    const resolver = packages.resolverFor('acme.notion', [NOTION]);
    expect(await resolver.resolveCredential('notion-token', { projectId: 'p1' })).toEqual({ value: 'p1-token' });
    expect(await resolver.resolveCredential('notion-token', { projectId: 'p2' })).toEqual({ value: 'deployment-token' });
    expect(await resolver.resolveCredential('notion-token', {})).toEqual({ value: 'deployment-token' });
  });

  it('resolves null when nothing is stored at an applicable scope', async () => {
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    await packages.set(projectScope('p1'), 'acme.notion', NOTION, { value: 'p1-token' });
    const resolver = packages.resolverFor('acme.notion', [NOTION]);
    expect(await resolver.resolveCredential('notion-token', { projectId: 'p2' })).toBeNull();
    expect(await resolver.resolveCredential('notion-token', {})).toBeNull();
  });

  it('refuses ids the package did not declare with permission_denied, even when stored', async () => {
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    await packages.set(projectScope('p1'), 'acme.db', DB, { user: 'app', password: 'pw-1' });
    const resolver = packages.resolverFor('acme.notion', [NOTION]);
    await expect(resolver.resolveCredential('db', { projectId: 'p1' })).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('keeps packages apart: the same id declared by another package reads nothing', async () => {
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    await packages.set(projectScope('p1'), 'acme.notion', NOTION, { value: 'acme-secret' });
    const other = packages.resolverFor('evil.notion', [NOTION]);
    expect(await other.resolveCredential('notion-token', { projectId: 'p1' })).toBeNull();
  });

  it('returns only the declared fields', async () => {
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    await store.put(projectScope('p1'), packageCredentialId('acme.db', 'db'), { user: 'app', password: 'pw', extra: 'not declared' });
    expect(await packages.resolverFor('acme.db', [DB]).resolveCredential('db', { projectId: 'p1' })).toEqual({ user: 'app', password: 'pw' });
  });

  it('validates stored values and never echoes them', async () => {
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    const error = await rejectionOf(packages.set(projectScope('p1'), 'acme.db', DB, { user: 'app', pass: 'hunter2-secret' }));
    expect(error).toMatchObject({ code: 'invalid_argument', details: { fields: ['password', 'pass'] } });
    expectNoSecrets(error, ['hunter2-secret']);
    await expect(packages.set({ network: null, owner: 'user', ownerId: 'u1' }, 'acme.notion', NOTION, { value: 'x' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('stores at all four scopes and resolves from the narrowest the call names: agent, user, network, deployment', async () => {
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    await packages.set(deploymentScope(), 'acme.notion', NOTION, { value: 'deployment' });
    await packages.set(projectScope('p1'), 'acme.notion', NOTION, { value: 'network' });
    await packages.set(userScope('p1', 'ann'), 'acme.notion', NOTION, { value: 'ann' });
    await packages.set(agentScope('p1', 'helper'), 'acme.notion', NOTION, { value: 'helper' });
    const resolve = (options: { projectId?: string; userId?: string; agentId?: string }) => packages.resolverFor('acme.notion', [NOTION]).resolveCredential('notion-token', options);
    expect(await resolve({ projectId: 'p1', userId: 'ann', agentId: 'helper' })).toEqual({ value: 'helper' });
    expect(await resolve({ projectId: 'p1', userId: 'ann' })).toEqual({ value: 'ann' });
    expect(await resolve({ projectId: 'p1', userId: 'bob' })).toEqual({ value: 'network' });
    expect(await resolve({ projectId: 'p1', agentId: 'other' })).toEqual({ value: 'network' });
    // Another network's user of the same id does not read ann's: a user's record is per network.
    expect(await resolve({ projectId: 'p2', userId: 'ann' })).toEqual({ value: 'deployment' });
    // Without a network, a user or agent names no scope of theirs: the deployment only.
    expect(await resolve({ userId: 'ann', agentId: 'helper' })).toEqual({ value: 'deployment' });
    expect(await packages.remove(agentScope('p1', 'helper'), 'acme.notion', 'notion-token')).toBe(true);
    expect(await resolve({ projectId: 'p1', userId: 'ann', agentId: 'helper' })).toEqual({ value: 'ann' });
  });

  it('reports a damaged record as unavailable, without the secret', async () => {
    const { store, records } = await memoryStore();
    const packages = new PackageCredentials(store);
    await packages.set(projectScope('p1'), 'acme.notion', NOTION, { value: 'the-real-secret' });
    const id = packageCredentialId('acme.notion', 'notion-token');
    const sealed = Buffer.from((await records.get(projectScope('p1'), id)) ?? new Uint8Array());
    sealed[sealed.length - 2] = (sealed[sealed.length - 2] ?? 0) ^ 1;
    await records.put(projectScope('p1'), id, sealed);
    const error = await rejectionOf(packages.resolverFor('acme.notion', [NOTION]).resolveCredential('notion-token', { projectId: 'p1' }));
    expect(error).toMatchObject({ code: 'unavailable' });
    expectNoSecrets(error, ['the-real-secret']);
  });
});

describe('PackageCredentials through the package loader', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'inseam-pkg-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("serves init(ctx).credentials for the package's declarations", async () => {
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'fixture-cred', version: '1.0.0', type: 'module', neuralis: { main: './main.js', credentials: [NOTION] } }),
    );
    await writeFile(join(dir, 'main.js'), 'export function init(ctx) { (globalThis.__credentialInits ??= []).push(ctx); }\n');
    const { store } = await memoryStore();
    const packages = new PackageCredentials(store);
    const manifests = new Map<string, readonly CredentialDeclaration[]>([['fixture-cred', [NOTION]]]);
    await packages.set(projectScope('p1'), 'fixture-cred', NOTION, { value: 'loader-secret' });
    const loader = new PackageLoader({ credentials: packages.resolvers((id) => manifests.get(id)) });
    const loaded = await loader.loadPackage(dir, { trust: 'trusted' });
    expect(loaded.packageId).toBe('fixture-cred');
    const inits = (globalThis as { __credentialInits?: ConnectorInitContext[] }).__credentialInits ?? [];
    const ctx = inits[inits.length - 1];
    expect(await ctx?.credentials.resolveCredential('notion-token', { projectId: 'p1' })).toEqual({ value: 'loader-secret' });
    await expect(ctx?.credentials.resolveCredential('other', { projectId: 'p1' })).rejects.toMatchObject({ code: 'permission_denied' });
  });
});
