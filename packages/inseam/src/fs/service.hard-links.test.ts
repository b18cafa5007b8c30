/**
 * Issue 15 item 7's hard link, end to end on a real platform: a link inside a folder host to a
 * file outside its root is not crawled into the catalog or the search index, and the filesystem
 * service neither lists nor reads it.
 */
import { link, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import { callerOf } from './__fixtures__/fs-service.js';
import { FsService } from './service.js';

const KEY = 'ssh-ed25519 private key material zebracrane';
let dataDir: string;
let folder: string;
let outside: string;
let platform: Platform;
let fs: FsService;
const ann = callerOf('ann');

beforeAll(async () => {
  dataDir = await tempDir('hard-links');
  folder = await tempDir('hard-links-folder');
  outside = await tempDir('hard-links-outside');
  await writeFiles(folder, { 'notes/plan.md': 'zebracrane plan' });
  await writeFile(join(outside, 'id_ed25519'), KEY);
  await link(join(outside, 'id_ed25519'), join(folder, 'notes', 'key.md'));
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: folder } });
  expect((await (await platform.sync({ network: 'home', host: 'notes' })).result).state).toBe('completed');
  fs = new FsService(platform);
});

afterAll(async () => {
  await platform.close();
  for (const path of [dataDir, folder, outside]) await removeDir(path);
});

describe('a hard link to a file outside the root', () => {
  it('is neither crawled nor found by search', async () => {
    const hits = (await platform.search.search('zebracrane', { network: 'home' })).hits.map((hit) => hit.address);
    expect(hits).toEqual(['inseam://home/notes/notes/plan.md']);
  });

  it('is not listed, and reading or stating it is containment_violation', async () => {
    expect((await fs.list(ann, 'notes://notes')).entries.map((entry) => entry.name)).toEqual(['plan.md']);
    await expect(fs.read(ann, 'notes://notes/key.md')).rejects.toMatchObject({ code: 'containment_violation', details: { reason: 'hard_link' } });
    await expect(fs.stat(ann, 'notes://notes/key.md')).rejects.toMatchObject({ code: 'containment_violation' });
  });
});
