/**
 * A folder host whose root contains inseam's own data directory (a home folder with the default
 * `~/.local/share/inseam` below it) never serves it: not listed, read, written, deleted or crawled,
 * not through its own path and not through a symlink below the root that leads there. The attack
 * that found it: an agent with read on such a host read `<data>/admin.token` and became admin.
 */
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { callerOf } from './__fixtures__/fs-service.js';
import { FsService } from './service.js';

const SECRET = 'admin token material quokkalantern';
let home: string;
let dataDir: string;
let platform: Platform;
let fs: FsService;
const ann = callerOf('ann');

beforeAll(async () => {
  home = await tempDir('data-dir-home');
  dataDir = join(home, '.local', 'share', 'inseam');
  await mkdir(dataDir, { recursive: true });
  await writeFiles(home, { 'notes/plan.md': 'quokkalantern plan', '.local/share/other.txt': 'beside the data directory' });
  await writeFile(join(dataDir, 'admin.token'), SECRET);
  await symlink(dataDir, join(home, 'notes', 'state'));
  await symlink(join(dataDir, 'admin.token'), join(home, 'notes', 'token.txt'));
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'me', kind: 'fs', config: { root: home }, writable: true });
  expect((await (await platform.sync({ network: 'home', host: 'me' })).result).state).toBe('completed');
  fs = new FsService(platform);
});

afterAll(async () => {
  await platform.close();
  await removeDir(home);
});

describe('a host whose root contains the data directory', () => {
  it('lists what is beside the data directory but not the data directory itself', async () => {
    expect((await fs.list(ann, 'me://.local/share')).entries.map((entry) => entry.name)).toEqual(['other.txt']);
  });

  it('refuses to read, stat, write or delete inside it by its own path', async () => {
    await expect(fs.read(ann, 'me://.local/share/inseam/admin.token')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fs.stat(ann, 'me://.local/share/inseam/admin.token')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fs.list(ann, 'me://.local/share/inseam')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fs.write(ann, 'me://.local/share/inseam/planted.txt', 'x')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fs.delete(ann, 'me://.local/share/inseam/admin.token')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(fs.delete(ann, 'me://.local', { recursive: true })).rejects.toMatchObject({ code: 'permission_denied' });
    expect((await readdir(dataDir)).sort()).toContain('admin.token');
  });

  it('refuses the same through a symlink below the root that leads there', async () => {
    await expect(fs.read(ann, 'me://notes/token.txt')).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'data_directory' } });
    await expect(fs.read(ann, 'me://notes/state/admin.token')).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'data_directory' } });
    await expect(fs.list(ann, 'me://notes/state')).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'data_directory' } });
    await expect(fs.write(ann, 'me://notes/state/planted.txt', 'x')).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'data_directory' } });
    expect(await readdir(dataDir)).not.toContain('planted.txt');
  });

  it('keeps the data directory out of the catalog and the search index', async () => {
    expect((await platform.search.search('quokkalantern', { network: 'home' })).hits.map((hit) => hit.address)).toEqual(['inseam://home/me/notes/plan.md']);
    const catalogued = await platform.catalog.list({ network: 'home', host: 'me' }, { limit: 1000 });
    const paths = catalogued.entries.map((entry) => entry.path);
    expect(paths).toContain('.local/share/other.txt');
    expect(paths.filter((path) => path.startsWith('.local/share/inseam'))).toEqual([]);
    const token = catalogued.entries.find((entry) => entry.path === 'notes/token.txt');
    expect(JSON.stringify(token ?? {})).not.toContain('quokkalantern');
  });

  it('still serves the rest of the host', async () => {
    expect((await fs.read(ann, 'me://notes/plan.md')).content).toBe('quokkalantern plan');
  });
});
