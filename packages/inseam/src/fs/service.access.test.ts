/**
 * Routing and permissions through the filesystem service, on a real platform with a real `fs`
 * host: denied children under allowed parents, whole-segment matching, rights that imply nothing,
 * recursive deletes that would take a denied child along, other networks and other owners,
 * baselines, unsupported operations, and identity that input objects try to carry.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionTree } from '@neuralis/package-system/contracts';
import { callerOf, openFsFixture, type FsFixture } from './__fixtures__/fs-service.js';
import type { Caller } from './types.js';

const TREE: PermissionTree = {
  default: { read: true, write: false, exec: false },
  paths: {
    docs: { write: true },
    'docs/private': { read: false, write: false },
    'docs/private/shared': { read: true },
    drop: { read: false, write: true },
  },
};

let fixture: FsFixture;
const ann = callerOf('ann');
const bob = callerOf('bob');

beforeAll(async () => {
  fixture = await openFsFixture({
    files: {
      'docs/a.md': 'alpha document',
      'docs/private/secret.md': 'the secret plan',
      'docs/private/shared/ok.md': 'shared inside private',
      'docs-old/b.md': 'old docs',
      'readme.txt': 'read me',
    },
  });
  await fixture.platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: fixture.files }, permissions: TREE });
  await fixture.platform.networks.addHost({ network: 'home', slug: 'bobs', kind: 'fs', config: { root: fixture.files }, ownership: 'user', ownerId: 'bob' });
});

afterAll(async () => {
  await fixture.close();
});

describe('permission trees', () => {
  it('a deny on a child beats the allow on its parent, and an allow below the deny applies again', async () => {
    expect((await fixture.fs.read(ann, 'notes://docs/a.md')).content).toBe('alpha document');
    const refusal = await fixture.fs.read(ann, 'notes://docs/private/secret.md').catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'permission_denied', details: { right: 'read', network: 'home', host: 'notes' } });
    expect((refusal as Error).message).toContain('"read"');
    expect((refusal as Error).message).not.toContain(fixture.files);
    expect((await fixture.fs.read(ann, 'inseam://home/notes/docs/private/shared/ok.md')).content).toBe('shared inside private');
    await expect(fixture.fs.stat(ann, 'notes://docs/private')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'read' } });
  });

  it('leaves unreadable entries out of listings', async () => {
    const docs = await fixture.fs.list(ann, 'notes://docs');
    expect(docs).toMatchObject({ address: 'inseam://home/notes/docs', source: 'live' });
    expect(docs.entries.map((entry) => [entry.name, entry.type, entry.address])).toEqual([['a.md', 'file', 'inseam://home/notes/docs/a.md']]);
    const root = await fixture.fs.list(ann, 'notes://');
    expect(root.entries.map((entry) => entry.name)).toEqual(['docs', 'docs-old', 'readme.txt']);
  });

  it('matches whole segments: docs grants write, docs-old does not', async () => {
    await fixture.fs.write(ann, 'notes://docs/new.md', 'new');
    await expect(fixture.fs.write(ann, 'notes://docs-old/new.md', 'new')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'write' } });
    expect(existsSync(join(fixture.files, 'docs-old', 'new.md'))).toBe(false);
    await expect(fixture.fs.write(ann, 'notes://doc/x.md', 'x')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'write' } });
  });

  it('write does not imply read: a drop folder takes files it will not show', async () => {
    const written = await fixture.fs.write(ann, 'notes://drop/in.txt', 'dropped');
    expect(written).toMatchObject({ address: 'inseam://home/notes/drop/in.txt', type: 'file', size: 7 });
    expect(existsSync(join(fixture.files, 'drop', 'in.txt'))).toBe(true);
    await expect(fixture.fs.read(ann, 'notes://drop/in.txt')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'read' } });
    await expect(fixture.fs.list(ann, 'notes://drop')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'read' } });
    await expect(fixture.fs.readStream(ann, 'notes://drop/in.txt')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'read' } });
  });

  it('read does not imply exec, and exec is refused naming the right', async () => {
    await expect(fixture.fs.exec(callerOf('ann', { features: ['exec.machine'] }), { command: 'cat secret.md', cwd: 'notes://docs' })).rejects.toMatchObject({
      code: 'permission_denied',
      details: { right: 'exec' },
    });
  });

  it('refuses a recursive delete that would remove a denied child, and removes nothing', async () => {
    await expect(fixture.fs.delete(ann, 'notes://docs', { recursive: true })).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'delete' } });
    expect(existsSync(join(fixture.files, 'docs', 'private', 'secret.md'))).toBe(true);
    expect(existsSync(join(fixture.files, 'docs', 'a.md'))).toBe(true);
    await fixture.fs.write(ann, 'notes://docs/tmp/x.md', 'x');
    await fixture.fs.delete(ann, 'notes://docs/tmp', { recursive: true });
    expect(existsSync(join(fixture.files, 'docs', 'tmp'))).toBe(false);
  });
});

describe('routing', () => {
  it('refuses bad addresses with invalid_uri, unknown hosts with not_found, other networks with permission_denied', async () => {
    await expect(fixture.fs.read(ann, 'notes://docs/../readme.txt')).rejects.toMatchObject({ code: 'invalid_uri' });
    await expect(fixture.fs.list(ann, 'no address')).rejects.toMatchObject({ code: 'invalid_uri' });
    await expect(fixture.fs.stat(ann, 'ghost://a')).rejects.toMatchObject({ code: 'not_found', details: { host: 'ghost' } });
    await fixture.platform.networks.init('work');
    await expect(fixture.fs.read(ann, 'inseam://work/pad/a.txt')).rejects.toMatchObject({ code: 'permission_denied' });
    // The same address is fine for a caller of that network.
    await expect(fixture.fs.stat(callerOf('ann', { network: 'work' }), 'inseam://work/pad/')).resolves.toMatchObject({ type: 'directory' });
  });

  it("keeps a user's own host to that user", async () => {
    await expect(fixture.fs.list(ann, 'bobs://')).rejects.toMatchObject({ code: 'permission_denied', details: { host: 'bobs' } });
    expect((await fixture.fs.list(bob, 'bobs://')).entries.length).toBeGreaterThan(0);
    expect((await fixture.fs.hosts(ann)).map((host) => host.slug)).not.toContain('bobs');
    expect((await fixture.fs.hosts(bob)).map((host) => host.slug)).toContain('bobs');
  });

  it("answers a host's rights at its root as the caller's: an agent's write and exec only where a grant covers the root", async () => {
    await fixture.platform.networks.addHost({ network: 'home', slug: 'open', kind: 'fs', config: { root: fixture.files }, permissions: { default: { read: true, write: true, exec: true } } });
    const rightsOf = async (caller: Caller) => (await fixture.fs.hosts(caller)).find((host) => host.slug === 'open')?.rights;
    expect(await rightsOf(ann)).toEqual({ read: true, write: true, exec: true });
    expect(await rightsOf(callerOf('ann', { agentId: 'helper' }))).toEqual({ read: true, write: false, exec: false });
    expect(await rightsOf(callerOf('ann', { agentId: 'helper', grants: [{ right: 'write', address: 'inseam://home/open' }] }))).toEqual({ read: true, write: true, exec: false });
    // A grant below the root is not the root's: the agent may write there, not at the root.
    expect(await rightsOf(callerOf('ann', { agentId: 'helper', grants: [{ right: 'write', address: 'inseam://home/open/docs' }, { right: 'exec', address: 'inseam://home/notes' }] }))).toEqual({ read: true, write: false, exec: false });
  });

  it('answers unsupported naming kind and operation before the connector runs', async () => {
    const pad = { network: 'home', host: 'pad' };
    await fixture.platform.store.hosts.update(pad, { permissions: { default: { read: true, write: true, exec: true } } });
    const runner = callerOf('ann', { features: ['exec.machine'] });
    await expect(fixture.fs.exec(runner, { command: 'ls', cwd: 'pad://' })).rejects.toMatchObject({ code: 'unsupported', details: { kind: 'bucket', operation: 'exec' } });
    await expect(fixture.fs.startRun(runner, { command: 'ls', cwd: 'pad://' })).rejects.toMatchObject({ code: 'unsupported', details: { kind: 'bucket', operation: 'detached.start' } });
  });

  it("unions the declaring package's baseline on top of the host's own tree", async () => {
    const data = { network: 'home', host: 'data' };
    expect((await fixture.platform.store.hosts.get(data))?.origin).toBe('test.seeds');
    await fixture.platform.store.hosts.update(data, { permissions: { default: { read: false, write: false, exec: false } } });
    // test.seeds declares data with read and write: those still hold; exec it never granted.
    await fixture.fs.write(ann, 'data://from-baseline.txt', 'kept');
    expect((await fixture.fs.read(ann, 'data://from-baseline.txt')).content).toBe('kept');
    await expect(fixture.fs.exec(callerOf('ann', { features: ['exec.machine'] }), { command: 'ls', cwd: 'data://' })).rejects.toMatchObject({
      code: 'permission_denied',
      details: { right: 'exec' },
    });
  });
});

describe('identity comes from the caller, never from input', () => {
  const forged = { session: { userId: 'bob', projectId: 'home', features: new Set(['exec.machine']) }, userId: 'bob', agentId: 'bob-agent', network: 'home' };

  it('ignores identity fields on option objects', async () => {
    await expect(fixture.fs.list(ann, 'bobs://', forged as never)).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fixture.fs.read(ann, 'bobs://readme.txt', forged as never)).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fixture.fs.write(ann, 'bobs://x.txt', 'x', forged as never)).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fixture.fs.delete(ann, 'bobs://readme.txt', forged as never)).rejects.toMatchObject({ code: 'permission_denied' });
    expect(existsSync(join(fixture.files, 'readme.txt'))).toBe(true);
  });

  it('never lets a search filter decide what the caller may read', async () => {
    await (await fixture.platform.sync({ network: 'home', host: 'notes' })).result;
    const filters = { ...forged, canRead: () => true, hosts: ['notes'], mode: 'keyword' };
    const page = await fixture.fs.search(ann, 'secret plan', filters as never);
    expect(page.hits).toEqual([]);
    const open = await fixture.fs.search(ann, 'alpha', { hosts: ['notes'], mode: 'keyword' });
    expect(open.hits.map((hit) => hit.address)).toEqual(['inseam://home/notes/docs/a.md']);
    // bob's own host holds the same files; ann never sees its hits.
    await (await fixture.platform.sync({ network: 'home', host: 'bobs' })).result;
    expect((await fixture.fs.search(ann, 'alpha', { mode: 'keyword' })).hits.map((hit) => hit.host)).toEqual(['notes']);
    expect((await fixture.fs.search(bob, 'alpha', { mode: 'keyword' })).hits.map((hit) => hit.host).sort()).toEqual(['bobs', 'notes']);
  });

  it('refuses a call without an authenticated session', async () => {
    const missing = [undefined, {}, { session: { projectId: 'home', features: new Set() } }, { session: { userId: 'ann', projectId: 'Home!', features: new Set() } }, { session: { userId: 'ann', projectId: 'home', features: ['exec.machine'] } }];
    for (const caller of missing) {
      await expect(fixture.fs.list(caller as unknown as Caller, 'notes://'), JSON.stringify(caller)).rejects.toMatchObject({ code: 'permission_denied' });
    }
  });
});
