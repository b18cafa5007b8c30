/**
 * A machine host on the platform, against the private sshd: loaded as a first-party built-in,
 * its key read from the credential store through the package's CredentialResolver, crawled into
 * the catalog, exec'd under the loader's entry check and the tree's exec grant. Stopping sshd in
 * the middle of a crawl and of a detached run: the host shows offline (runtime_offline) in the
 * host list and the agent's runtime view, its synced entries still list, read and search, the
 * run's status says the machine is away — and both recover when sshd returns.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MACHINE_CREDENTIALS, MACHINE_PACKAGE_ID } from '@inseam/connector-machine';
import { startSshd, type SshdFixture } from '../../../../connectors/machine/src/__fixtures__/sshd.mjs';
import { deploymentScope } from '../credentials/index.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { FsService } from '../fs/index.js';
import { openTestPlatform, removeDir, tempDir } from './__fixtures__/platforms.js';
import type { Platform } from './platform.js';

let sshd: SshdFixture;
let dataDir: string;
let platform: Platform;
let fs: FsService;
const ann = callerOf('ann', { features: ['exec.machine'] });
const annWithoutFeature = callerOf('ann');

beforeAll(async () => {
  sshd = await startSshd();
  for (let d = 0; d < 10; d++) {
    await mkdir(`${sshd.root}/d${d}`);
    await Promise.all(Array.from({ length: 40 }, (_, f) => writeFile(`${sshd.root}/d${d}/f${f}.txt`, `machine file ${d}-${f} quokka`)));
  }
  await writeFile(`${sshd.root}/readme.md`, 'the remote readme mentions wombats');
  dataDir = await tempDir('platform-machine');
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.packageCredentials.set(deploymentScope(), MACHINE_PACKAGE_ID, MACHINE_CREDENTIALS[0]!, { privateKey: sshd.privateKey });
  await platform.networks.addHost({
    network: 'home',
    slug: 'box',
    kind: 'machine',
    config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, root: sshd.root, hostKey: sshd.fingerprint, stateDir: `${sshd.base}/runs`, reconnectMs: 100 },
    permissions: { default: { read: true, write: true, exec: true } },
  });
  fs = new FsService(platform, { probeTtlMs: 50 });
});

afterAll(async () => {
  await platform.close();
  await sshd.close();
  await removeDir(dataDir);
});

async function statusOf(): Promise<Record<string, unknown> | undefined> {
  return (await fs.hosts(ann)).find((host) => host.slug === 'box')?.status as Record<string, unknown> | undefined;
}

describe('a machine host', () => {
  it('is a first-party, runtime-gated kind of category machine', async () => {
    expect(platform.kinds.get('machine')).toMatchObject({ category: 'machine', providerPackageId: MACHINE_PACKAGE_ID, sandboxed: false });
    expect(platform.loader.sourceKinds.get('machine')?.runtimeGated).toBe(true);
  });

  it('lists, reads and crawls live, the key coming from the credential store', async () => {
    expect(await fs.list(ann, 'box://')).toMatchObject({ source: 'live' });
    expect(await fs.read(ann, 'box://readme.md')).toMatchObject({ content: 'the remote readme mentions wombats', source: 'live' });
    const run = await (await platform.sync({ network: 'home', host: 'box' })).result;
    expect(run).toMatchObject({ state: 'completed', counters: expect.objectContaining({ entries: 401 }) });
    expect(await statusOf()).toMatchObject({ state: 'online' });
    expect((await fs.hosts(ann)).find((host) => host.slug === 'box')).toMatchObject({ runtimeGated: true, category: 'machine' });
  });

  it("gives a search hit the machine's own path, marked as the machine's, never one translated to this host", async () => {
    const told = await fs.exec(ann, { command: 'realpath readme.md', cwd: 'box://' });
    const [hit] = (await fs.search(ann, 'wombats', { mode: 'keyword' })).hits;
    expect(hit).toMatchObject({ address: 'inseam://home/box/readme.md', osPath: told.stdout.trim(), osPathOn: 'runtime' });
    expect(hit?.osPath).not.toContain(dataDir);
    // A folder host on this machine, for contrast: its paths are local ones.
    const folder = await tempDir('platform-machine-local');
    try {
      await writeFile(`${folder}/note.md`, 'a local note about wombats');
      await platform.networks.addHost({ network: 'home', slug: 'here', kind: 'fs', config: { root: folder } });
      await (await platform.sync({ network: 'home', host: 'here' })).result;
      const local = (await fs.search(ann, 'wombats', { mode: 'keyword' })).hits.find((found) => found.host === 'here');
      expect(local).toMatchObject({ osPath: `${folder}/note.md`, osPathOn: 'local' });
    } finally {
      await platform.networks.removeHost({ network: 'home', host: 'here' });
      await removeDir(folder);
    }
  });

  it("over loopback is this machine, so inseam's data directory stays concealed through it", async () => {
    await platform.networks.addHost({
      network: 'home',
      slug: 'wide',
      kind: 'machine',
      config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, root: dirname(dataDir), hostKey: sshd.fingerprint, stateDir: `${sshd.base}/runs` },
    });
    try {
      const name = basename(dataDir);
      expect((await fs.list(ann, 'wide://')).entries.map((entry) => entry.name)).not.toContain(name);
      await expect(fs.list(ann, `wide://${name}`)).rejects.toMatchObject({ code: 'permission_denied' });
      await expect(fs.read(ann, `wide://${name}/admin.token`)).rejects.toMatchObject({ code: 'permission_denied' });
    } finally {
      await platform.networks.removeHost({ network: 'home', host: 'wide' });
    }
  });

  it('runs commands only under the entry check: the session needs exec.machine', async () => {
    const ran = await fs.exec(ann, { command: 'cat readme.md', cwd: 'inseam://home/box/' });
    expect(ran).toMatchObject({ exitCode: 0, stdout: 'the remote readme mentions wombats' });
    await expect(fs.exec(annWithoutFeature, { command: 'touch pwned', cwd: 'box://' })).rejects.toMatchObject({ code: 'permission_denied', details: { missingFeatures: ['exec.machine'] } });
  });

  it('stopped mid-crawl and mid-run: offline and still served from the catalog, then back', async () => {
    await writeFile(`${sshd.root}/d0/new-after-first-crawl.txt`, 'fresh');
    const run = await fs.startRun(ann, { command: 'sleep 2; echo survived', cwd: 'box://' });
    const crawl = await platform.sync({ network: 'home', host: 'box' });
    await sshd.stop();
    await crawl.result.catch(() => undefined);
    await vi.waitFor(async () => expect(await statusOf()).toMatchObject({ state: 'offline', reason: 'runtime_offline' }), { timeout: 10_000 });
    // The agent's runtime view marks it, the listing and reads fall back to the synced copy, search still finds it.
    expect(await fs.runtimeStack(ann)).toMatch(/box .*\(offline\)/);
    const page = await fs.list(ann, 'box://');
    expect(page.source).toBe('catalog');
    expect(page.entries.map((entry) => entry.name)).toEqual(expect.arrayContaining(['readme.md', 'd0', 'd9']));
    expect(await fs.read(ann, 'box://readme.md')).toMatchObject({ content: 'the remote readme mentions wombats', source: 'catalog' });
    expect((await fs.search(ann, 'wombats', { mode: 'keyword' })).hits.map((hit) => hit.address)).toEqual(['inseam://home/box/readme.md']);
    await expect(fs.runStatus(ann, run.runId)).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'runtime_offline' } });

    await sshd.start();
    await vi.waitFor(async () => expect(await statusOf()).toMatchObject({ state: 'online' }), { timeout: 15_000 });
    expect((await fs.list(ann, 'box://')).source).toBe('live');
    expect(await fs.runStatus(ann, run.runId, { waitMs: 5000 })).toMatchObject({ state: 'exited', exitCode: 0 });
    expect((await fs.runOutput(ann, run.runId)).data).toBe('survived\n');
    const again = await (await platform.sync({ network: 'home', host: 'box' })).result;
    expect(again).toMatchObject({ state: 'completed' });
    expect((await fs.stat(ann, 'box://d0/new-after-first-crawl.txt'))).toBeDefined();
  });
});

describe('approving a host key', () => {
  it('trusts nothing on first use: a person reads the presented key, approves it, and a changed key is refused again', async () => {
    await platform.networks.addHost({
      network: 'home',
      slug: 'fresh',
      kind: 'machine',
      config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, root: sshd.root, stateDir: `${sshd.base}/runs`, reconnectMs: 100 },
    });
    const portError = async (): Promise<unknown> => (await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'fresh' }))).list('fresh://').catch((error: unknown) => error);
    await expect(fs.list(ann, 'fresh://')).rejects.toMatchObject({ code: 'unavailable' });
    expect(await portError()).toMatchObject({ code: 'unavailable', details: { reason: 'fs_permission', problem: 'host_key_unapproved', fingerprint: sshd.fingerprint } });
    await vi.waitFor(async () => expect((await fs.hosts(ann)).find((host) => host.slug === 'fresh')?.status).toMatchObject({ state: 'offline', reason: 'fs_permission' }));
    const presented = await platform.networks.presentedHostKey({ network: 'home', host: 'fresh' });
    expect(presented).toBe(sshd.fingerprint);
    await expect(platform.networks.trustHostKey({ network: 'home', host: 'fresh' }, `SHA256:${'A'.repeat(43)}`)).rejects.toMatchObject({ code: 'precondition_failed', details: { presented } });
    await expect(platform.networks.trustHostKey({ network: 'home', host: 'fresh' }, 'not a fingerprint')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(platform.networks.trustHostKey({ network: 'home', host: 'box' }, presented).then(() => platform.networks.trustHostKey({ network: 'home', host: 'pad' }, presented))).rejects.toMatchObject({ code: 'invalid_argument' });
    const approved = await platform.networks.trustHostKey({ network: 'home', host: 'fresh' }, presented);
    expect(approved.config).toMatchObject({ hostKey: presented });
    expect(await fs.list(ann, 'fresh://')).toMatchObject({ source: 'live' });
    await sshd.rotateHostKey();
    await vi.waitFor(async () => expect(await portError()).toMatchObject({ details: { problem: 'host_key_changed' } }), { timeout: 10_000 });
  });
});
