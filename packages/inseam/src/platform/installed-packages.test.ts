/**
 * Installing, swapping and removing connector packages in a running platform, through the real
 * loader and store: trust comes from the person installing, a changed package.json is picked up by
 * the package-swap loop, calls already running finish on the version they started on, and a
 * package another process installs or removes follows within one pass.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { FsService } from '../fs/index.js';
import { removeDir, tempDir } from './__fixtures__/platforms.js';
import { writeSourcePackage } from './__fixtures__/source-package.js';
import { openPlatform, type Platform } from './platform.js';

const ann = callerOf('ann');
const held = ((globalThis as { __heldReads?: Record<string, Promise<void>> }).__heldReads ??= {});

let dataDir: string;
let packages: string;
const open: Platform[] = [];

async function start(): Promise<Platform> {
  const platform = await openPlatform({ dataDir, env: {} });
  open.push(platform);
  return platform;
}

beforeEach(async () => {
  dataDir = await tempDir('installed-packages');
  packages = await tempDir('installed-packages-src');
});
afterEach(async () => {
  for (const platform of open.splice(0)) await platform.close();
  await removeDir(dataDir);
  await removeDir(packages);
});

async function readNote(platform: Platform, host: string): Promise<unknown> {
  return (await new FsService(platform).read(ann, `${host}://note.txt`)).content;
}

describe('installed packages', () => {
  it('installs with the trust the person gives, serves its kinds, and is loaded again at the next start', async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1', claimsTrust: 'first-party' });
    const platform = await start();
    await platform.networks.init('home');
    const added = await platform.packages.add(folder, 'trusted', 'ann');
    expect(added).toMatchObject({ packageId: 'acme.board', version: '1.0.0', trust: 'trusted', builtin: false, state: 'loaded', kinds: ['board'], folder, installedBy: 'ann' });
    await platform.networks.addHost({ network: 'home', slug: 'tasks', kind: 'board', config: {} });
    expect(await readNote(platform, 'tasks')).toBe('board v1');
    const listed = await platform.packages.list();
    expect(listed.filter((entry) => entry.builtin).map((entry) => entry.packageId)).toContain('@inseam/connector-fs');
    expect(listed.filter((entry) => !entry.builtin).map((entry) => entry.packageId)).toEqual(['acme.board']);
    await platform.close();

    const next = await start();
    expect((await next.packages.list()).find((entry) => entry.packageId === 'acme.board')).toMatchObject({ state: 'loaded', trust: 'trusted' });
    expect(await readNote(next, 'tasks')).toBe('board v1');
  });

  it('refuses a trust a person cannot give, a relative folder, and a trust too low for source kinds, storing nothing', async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'v1' });
    const platform = await start();
    await expect(platform.packages.add(folder, 'first-party', 'ann')).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'trust' } });
    await expect(platform.packages.add('board', 'trusted', 'ann')).rejects.toMatchObject({ code: 'invalid_argument', details: { argument: 'folder' } });
    const refused = platform.packages.add(folder, 'untrusted', 'ann');
    await expect(refused).rejects.toMatchObject({ code: 'manifest_invalid' });
    expect(String(((await refused.catch((error: unknown) => error)) as Error).message)).not.toContain(packages);
    await expect(platform.packages.add(join(packages, 'nothing'), 'trusted', 'ann')).rejects.toMatchObject({ code: 'not_found' });
    expect(await platform.store.packages.list()).toEqual([]);
    expect(platform.kinds.has('board')).toBe(false);
  });

  it('the swap loop picks up a changed connectors[] list; a call running across the swap finishes on the old code', async () => {
    const folder = join(packages, 'board');
    await writeSourcePackage(folder, { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1' });
    const platform = await start();
    await platform.networks.init('home');
    await platform.packages.add(folder, 'trusted', 'ann');
    await platform.networks.addHost({ network: 'home', slug: 'tasks', kind: 'board', config: {} });
    expect(await readNote(platform, 'tasks')).toBe('board v1');
    expect(await platform.packages.reconcile()).toEqual({ loaded: [], swapped: [], removed: [], failed: [] });

    let release!: () => void;
    held['board v1'] = new Promise<void>((resolve) => (release = resolve));
    const running = readNote(platform, 'tasks');
    await writeSourcePackage(folder, { id: 'acme.board', version: '2.0.0', kinds: ['board', 'wiki'], text: 'board v2' });
    expect(await platform.packages.reconcile()).toEqual({ loaded: [], swapped: ['acme.board'], removed: [], failed: [] });
    expect(platform.kinds.has('wiki')).toBe(true);
    expect(await readNote(platform, 'tasks')).toBe('board v2');
    release();
    expect(await running).toBe('board v1');
    delete held['board v1'];
    expect((await platform.packages.list()).find((entry) => entry.packageId === 'acme.board')).toMatchObject({ version: '2.0.0', kinds: ['board', 'wiki'] });
  });

  it('a swap that fails keeps the previous version serving and says why; swap refuses another package in the folder', async () => {
    const folder = join(packages, 'board');
    await writeSourcePackage(folder, { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1' });
    const platform = await start();
    await platform.networks.init('home');
    await platform.packages.add(folder, 'trusted', 'ann');
    await platform.networks.addHost({ network: 'home', slug: 'tasks', kind: 'board', config: {} });

    await writeSourcePackage(folder, { id: 'acme.board', version: '2.0.0', kinds: ['Bad Kind'], text: 'board v2' });
    expect(await platform.packages.reconcile()).toMatchObject({ swapped: [], failed: ['acme.board'] });
    expect(await readNote(platform, 'tasks')).toBe('board v1');
    expect((await platform.packages.list()).find((entry) => entry.packageId === 'acme.board')).toMatchObject({ state: 'loaded', version: '1.0.0', error: { code: 'manifest_invalid' } });
    // The same broken text is not tried again at every pass.
    expect(await platform.packages.reconcile()).toEqual({ loaded: [], swapped: [], removed: [], failed: [] });

    const other = await writeSourcePackage(join(packages, 'other'), { id: 'acme.other', version: '1.0.0', kinds: ['other'], text: 'other' });
    await expect(platform.packages.swap('acme.board', { folder: other }, 'ann')).rejects.toMatchObject({ code: 'invalid_argument' });
    await writeSourcePackage(folder, { id: 'acme.board', version: '3.0.0', kinds: ['board'], text: 'board v3' });
    expect(await platform.packages.swap('acme.board', {}, 'bob')).toMatchObject({ version: '3.0.0', installedBy: 'bob' });
    expect(await readNote(platform, 'tasks')).toBe('board v3');
    expect((await platform.packages.list()).find((entry) => entry.packageId === 'acme.board')?.error).toBeUndefined();
  });

  it('removing unloads its kinds and leaves their hosts as orphans; built-ins and unknown ids are refused', async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1' });
    const platform = await start();
    await platform.networks.init('home');
    await platform.packages.add(folder, 'trusted', 'ann');
    await platform.networks.addHost({ network: 'home', slug: 'tasks', kind: 'board', config: {} });
    await expect(platform.packages.remove('@inseam/connector-fs')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(platform.packages.swap('@inseam/connector-fs', {}, 'ann')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(platform.packages.remove('acme.nothing')).rejects.toMatchObject({ code: 'not_found' });
    expect(await platform.packages.remove('acme.board')).toEqual({ packageId: 'acme.board', kinds: ['board'] });
    expect(platform.kinds.has('board')).toBe(false);
    await expect(readNote(platform, 'tasks')).rejects.toMatchObject({ code: 'kind_not_registered' });
    expect((await platform.networks.listHosts('home')).map((host) => host.slug)).toContain('tasks');
    expect(await platform.store.packages.list()).toEqual([]);
  });

  it('watchPackages runs the loop until close and reports the passes that changed something', async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1' });
    const server = await start();
    const reports: unknown[] = [];
    const heard = new Promise<void>((resolve) => {
      server.watchPackages(20, (outcome) => {
        reports.push(outcome);
        resolve();
      });
    });
    const cli = await start();
    await cli.packages.add(folder, 'trusted', 'ann');
    await heard;
    expect(reports).toEqual([{ loaded: ['acme.board'], swapped: [], removed: [], failed: [] }]);
    expect(server.kinds.has('board')).toBe(true);
    await server.close();
    await cli.packages.remove('acme.board');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reports).toHaveLength(1);
  });

  it("follows what another process installs and removes within one pass, and lists a package whose folder is gone as failed", async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1' });
    const server = await start();
    const cli = await start();
    await cli.packages.add(folder, 'trusted', 'ann');
    expect(server.kinds.has('board')).toBe(false);
    expect(await server.packages.reconcile()).toEqual({ loaded: ['acme.board'], swapped: [], removed: [], failed: [] });
    expect(server.kinds.has('board')).toBe(true);
    await cli.packages.remove('acme.board');
    expect(await server.packages.reconcile()).toEqual({ loaded: [], swapped: [], removed: ['acme.board'], failed: [] });
    expect(server.kinds.has('board')).toBe(false);

    await cli.packages.add(folder, 'trusted', 'ann');
    await cli.close();
    await rm(folder, { recursive: true });
    const later = await start();
    expect((await later.packages.list()).find((entry) => entry.packageId === 'acme.board')).toMatchObject({ state: 'failed', kinds: [], error: { code: 'not_found' } });
  });

  it("a network's _packages/ drops load untrusted for that network alone, at start and on rescan", async () => {
    const platform = await start();
    await platform.networks.init('home');
    await platform.networks.init('work');
    const drop = join(platform.paths.networkRoot('home'), '_packages', 'notes-drop');
    await mkdir(join(drop, 'notes'), { recursive: true });
    await writeFile(join(drop, 'notes', 'a.md'), 'from the drop');
    const manifest = {
      id: 'home.notes-drop',
      connectors: [{ id: 'issues', type: 'mcp', transport: 'streamable-http', name: 'Issues', url: 'https://issues.example.com/mcp' }],
      sources: [{ source: 'dropnotes', label: 'Drop notes', kind: 'local', root: '_packages/notes-drop/notes', scope: 'project', description: 'Notes the drop offers.', seed: 'discoverable' }],
    };
    await writeFile(join(drop, 'package.json'), JSON.stringify({ name: 'notes-drop', version: '0.1.0', neuralis: manifest }));
    // A drop that asks for a source kind is refused: that takes a person's install.
    await writeSourcePackage(join(platform.paths.networkRoot('home'), '_packages', 'kind-drop'), { id: 'home.kind-drop', version: '1.0.0', kinds: ['sneaky'], text: 'x' });

    const scan = await platform.packages.rescan('home');
    expect(scan).toMatchObject({ network: 'home', loaded: ['home.notes-drop'], removed: [], failed: [{ drop: 'kind-drop', code: 'manifest_invalid' }] });
    expect(platform.kinds.has('sneaky')).toBe(false);
    expect((await platform.packages.list()).find((entry) => entry.packageId === 'home.notes-drop')).toMatchObject({ network: 'home', trust: 'untrusted', builtin: false, state: 'loaded' });
    expect((await platform.networks.discoverable('home')).map((offer) => offer.source)).toContain('dropnotes');
    expect((await platform.networks.discoverable('work')).map((offer) => offer.source)).not.toContain('dropnotes');
    const host = await platform.networks.addDeclared('home', 'home.notes-drop', 'dropnotes');
    expect(host).toMatchObject({ origin: 'home.notes-drop' });
    await expect(platform.networks.addDeclared('work', 'home.notes-drop', 'dropnotes')).rejects.toMatchObject({ code: 'not_found' });
    expect((await new FsService(platform).read(ann, 'dropnotes://a.md')).content).toBe('from the drop');
    expect(await platform.packages.rescan('home')).toMatchObject({ loaded: [], unchanged: ['home.notes-drop'] });
    await platform.close();

    // The next start scans every network's drops again.
    const next = await start();
    const atStart = await next.packages.list();
    expect(atStart.find((entry) => entry.packageId === 'home.notes-drop')).toMatchObject({ network: 'home', state: 'loaded' });
    // A drop failing at start is listed with why, not left out in silence.
    expect(atStart.find((entry) => entry.packageId === 'kind-drop')).toMatchObject({
      network: 'home',
      state: 'failed',
      trust: 'untrusted',
      kinds: [],
      folder: join(next.paths.networkRoot('home'), '_packages', 'kind-drop'),
      error: { code: 'manifest_invalid' },
    });
    await rm(drop, { recursive: true });
    await rm(join(next.paths.networkRoot('home'), '_packages', 'kind-drop'), { recursive: true });
    expect(await next.packages.rescan('home')).toMatchObject({ removed: ['home.notes-drop'], failed: [] });
    const after = await next.packages.list();
    expect(after.some((entry) => entry.packageId === 'home.notes-drop' || entry.packageId === 'kind-drop')).toBe(false);
  });
});
