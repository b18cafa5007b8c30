/**
 * The assembled platform on a temp data directory: what it owns, persistence across a close and
 * an open, one port registry per network, crawling through the built-in kinds, the exec path
 * policy, and a clean close.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { schemaVersions } from '../store/index.js';
import { openTestPlatform, removeDir, sqliteOf, tempDir, writeFiles } from './__fixtures__/platforms.js';
import { openPlatform, type Platform } from './platform.js';

let dataDir: string;
let files: string;
const open: Platform[] = [];

async function start(): Promise<Platform> {
  const platform = await openTestPlatform(dataDir);
  open.push(platform);
  return platform;
}

beforeEach(async () => {
  dataDir = await tempDir('platform');
  files = await tempDir('platform-files');
  await writeFiles(files, { 'notes/alpha.md': '# Alpha\nthe quarterly plan', 'notes/beta.txt': 'beta notes', 'readme.txt': 'read me first' });
});

afterEach(async () => {
  for (const platform of open.splice(0)) await platform.close();
  await removeDir(dataDir);
  await removeDir(files);
});

describe('openPlatform', () => {
  it('owns the data directory: a 0700 folder with the database and a 0600 master key file', async () => {
    const platform = await start();
    expect(platform.dataDir).toBe(dataDir);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, 'inseam.db'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'master.key'))).mode & 0o777).toBe(0o600);
    expect(platform.masterKey).toBe('created');
    expect(platform.kinds.list().map((kind) => kind.kind)).toEqual(['bucket', 'fs', 'imap', 'local', 'machine', 'vector']);
    expect(platform.loader.listPackages().map((loaded) => [loaded.packageId, loaded.trust])).toEqual([
      ['@inseam/connector-bucket', 'first-party'],
      ['@inseam/connector-fs', 'first-party'],
      ['@inseam/connector-imap', 'first-party'],
      ['@inseam/connector-local', 'first-party'],
      ['@inseam/connector-machine', 'first-party'],
      ['@inseam/connector-vector', 'first-party'],
      ['test.seeds', 'trusted'],
    ]);
    expect(Object.fromEntries(schemaVersions(sqliteOf(platform)))).toMatchObject({ network: 3, catalog: 2, credentials: 1 });
  });

  it('keeps networks, hosts, credentials and the catalog across a close and an open', async () => {
    const first = await start();
    await first.networks.init('home');
    await first.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files }, label: 'Notes', sync: { trigger: 'manual' } });
    const run = await (await first.sync({ network: 'home', host: 'notes' })).result;
    expect(run).toMatchObject({ state: 'completed', counters: expect.objectContaining({ entries: 3, indexed: 3 }) });
    await first.close();

    const second = await start();
    expect(second.masterKey).toBe('file');
    expect((await second.networks.list()).map((network) => network.slug)).toEqual(['home']);
    expect((await second.networks.listHosts('home')).map((host) => [host.slug, host.kind, host.label])).toEqual([
      ['data', 'local', 'Project Data'],
      ['notes', 'fs', 'Notes'],
      ['pad', 'bucket', 'Pad'],
      ['vector', 'vector', 'Semantic index'],
    ]);
    const found = await second.search.search('quarterly', { network: 'home' });
    expect(found.hits.map((hit) => hit.address)).toEqual(['inseam://home/notes/notes/alpha.md']);
    // An incremental sync after the restart continues from the stored watermark.
    const again = await (await second.sync({ network: 'home', host: 'notes' })).result;
    expect(again).toMatchObject({ state: 'completed', mode: 'incremental' });
  });

  it('refuses a master key that is not the one the credentials were sealed with', async () => {
    await (await start()).close();
    open.pop();
    const wrong = 'ab'.repeat(32);
    await expect(openPlatform({ dataDir, env: { INSEAM_MASTER_KEY: wrong } })).rejects.toMatchObject({ code: 'invalid_config', details: { reason: 'master_key_mismatch' } });
  });

  it('binds the same host slug in two networks to two ports, each on its own root', async () => {
    const platform = await start();
    const other = await tempDir('platform-other');
    try {
      await writeFiles(other, { 'only-here.txt': 'other' });
      await platform.networks.init('home');
      await platform.networks.init('work');
      await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files } });
      await platform.networks.addHost({ network: 'work', slug: 'notes', kind: 'fs', config: { root: other } });
      const home = await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'notes' }));
      const work = await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'work', host: 'notes' }));
      expect(home).not.toBe(work);
      expect((await home.list('notes://')).entries.map((entry) => entry.name)).toEqual(['notes', 'readme.txt']);
      expect((await work.list('notes://')).entries.map((entry) => entry.name)).toEqual(['only-here.txt']);
      // The same record again is the same binding.
      expect(await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'notes' }))).toBe(home);
    } finally {
      await removeDir(other);
    }
  });

  it('binds a host once for callers that ask at the same time: none of them gets a binding conflict', async () => {
    // A probe, a crawl and a read opening a fresh host together re-bound it under one another while
    // the (lazily loaded) factory ran, and all but the last were discarded: "offline" on a first read.
    const platform = await start();
    await platform.networks.init('home');
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files } });
    const record = await platform.networks.hostRecord({ network: 'home', host: 'notes' });
    const ports = await Promise.all(Array.from({ length: 5 }, () => platform.kinds.openPort(record)));
    expect(new Set(ports).size).toBe(1);
    expect((await ports[0]!.list('notes://')).entries.map((entry) => entry.name)).toEqual(['notes', 'readme.txt']);
  });

  it('seeds a local data host under the network folder and reads and writes the pad through ports', async () => {
    const platform = await start();
    await platform.networks.init('home');
    const pad = await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'pad' }));
    await pad.write!('pad://inbox/hello.txt', 'hello pad');
    expect((await pad.read('pad://inbox/hello.txt')).text).toBe('hello pad');
    expect((await stat(join(dataDir, 'networks', 'home', 'pad'))).isDirectory()).toBe(true);
    const data = await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'data' }));
    await data.write!('data://a.txt', 'in the project');
    expect((await stat(join(dataDir, 'networks', 'home', 'data', 'a.txt'))).isFile()).toBe(true);
    const crawled = await (await platform.sync({ network: 'home', host: 'pad' })).result;
    expect(crawled).toMatchObject({ state: 'completed', counters: expect.objectContaining({ entries: 1 }) });
  });

  it('lets exec run only where the host grants exec, and only with the entry feature', async () => {
    const platform = await start();
    await platform.networks.init('home');
    await platform.networks.addHost({
      network: 'home',
      slug: 'box',
      kind: 'fs',
      config: { root: files },
      permissions: { default: { read: true, write: false, exec: false }, paths: { notes: { exec: true } } },
    });
    const port = await platform.kinds.openPort(await platform.networks.hostRecord({ network: 'home', host: 'box' }));
    const session = { userId: 'ann', projectId: 'home', features: new Set(['exec.machine']) };
    const ran = await port.exec!({ command: 'ls', cwd: 'box://notes' }, { session });
    expect(ran.stdout.split('\n').filter(Boolean)).toEqual(['alpha.md', 'beta.txt']);
    await expect(port.exec!({ command: 'ls', cwd: 'box://' }, { session })).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(port.exec!({ command: 'ls', cwd: 'box://notes' }, { session: { ...session, features: new Set<string>() } })).rejects.toMatchObject({ code: 'permission_denied' });
    expect(await platform.execAllowed(session, 'box://notes/x', 'box')).toBe(true);
    expect(await platform.execAllowed({ ...session, projectId: 'work' }, 'box://notes', 'box')).toBe(false);
  });

  it("reads exec the way the fs service does: the declaring package's baseline unioned on the host's tree", async () => {
    const folder = await tempDir('platform-tools-package');
    await writeFiles(folder, {
      'package.json': JSON.stringify({
        name: 'tools-package',
        version: '1.0.0',
        neuralis: {
          id: 'test.tools',
          sources: [{ source: 'tools', label: 'Tools', kind: 'local', root: 'data/tools', scope: 'project', description: 'Scripts.', seed: 'auto', permissions: { default: { read: true, write: false, exec: true } } }],
        },
      }),
    });
    try {
      const platform = await openPlatform({ dataDir, env: {}, packages: [{ folder, trust: 'trusted' }] });
      open.push(platform);
      await platform.networks.init('home');
      const ref = { network: 'home', host: 'tools' };
      expect((await platform.store.hosts.get(ref))?.origin).toBe('test.tools');
      await platform.store.hosts.update(ref, { permissions: { default: { read: true, write: false, exec: false } } });
      const session = { userId: 'ann', projectId: 'home', features: new Set(['exec.machine']) };
      expect(await platform.execAllowed(session, 'tools://', 'tools')).toBe(true);
    } finally {
      await removeDir(folder);
    }
  });

  it('startSync syncs auto hosts and hosts added later, and reports one that cannot be opened', async () => {
    const platform = await start();
    await platform.networks.init('home');
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files }, sync: { trigger: 'auto', interval: 'PT1H' } });
    // An orphan: its kind's package is gone.
    await platform.store.hosts.create('home', { slug: 'ghost', kind: 'gdrive', sync: { trigger: 'auto' } });
    const failed: string[] = [];
    platform.scheduler.on('failed', (ref, error) => failed.push(`${ref.host}:${(error as { code?: string }).code}`));
    const synced: string[] = [];
    const both = new Promise<void>((resolve) => {
      platform.scheduler.on('sync', (ref, handle) => {
        void handle.result.then((run) => {
          synced.push(`${ref.host}:${run.state}`);
          if (synced.length === 2) resolve();
        });
      });
    });
    await platform.startSync();
    await platform.networks.addHost({ network: 'home', slug: 'later', kind: 'fs', config: { root: files }, sync: { trigger: 'auto' } });
    await both;
    expect(synced.sort()).toEqual(['later:completed', 'notes:completed']);
    expect(failed).toEqual(['ghost:kind_not_registered']);
    expect((await platform.search.search('quarterly', { network: 'home' })).hits.map((hit) => hit.address).sort()).toEqual([
      'inseam://home/later/notes/alpha.md',
      'inseam://home/notes/notes/alpha.md',
    ]);
  });

  it('pauses a running crawl on close; the next platform resumes it', async () => {
    const many: Record<string, string> = {};
    for (let index = 0; index < 60; index++) many[`f${String(index).padStart(3, '0')}.txt`] = `file number ${index}`;
    await writeFiles(files, many);
    const first = await openTestPlatform(dataDir, { crawler: { batchSize: 5 } });
    await first.networks.init('home');
    await first.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files } });
    const handle = await first.sync({ network: 'home', host: 'notes' });
    await new Promise<void>((resolve) => handle.once('progress', () => resolve()));
    await first.close();
    const paused = await handle.result;
    expect(paused.state).toBe('paused');

    const second = await start();
    const resumed = await (await second.sync({ network: 'home', host: 'notes' })).result;
    expect(resumed).toMatchObject({ id: paused.id, state: 'completed' });
    expect(await second.store.catalog.countEntries((await second.networks.hostRecord({ network: 'home', host: 'notes' })).id)).toBe(63);
  });
});
