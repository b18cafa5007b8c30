/**
 * Deletions and renames reach the catalog through every incremental sync the product has — the
 * web page's Sync (`POST /v1/hosts/{network}/{host}/crawl`), the scheduler's periodic sync and
 * `inseam crawl` — on an fs host: 10 files deleted and 10 renamed (a rename keeps the mtime, so a
 * `since` listing never shows it), then the catalog equals the folder.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, startApi, type Api } from '../../http/__fixtures__/api.js';
import { openPlatform, type Platform } from '../../platform/index.js';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { SyncScheduler } from '../../crawl/index.js';
import type { CrawlRunRecord, HostRef } from '../../store/index.js';
import { cli } from './__fixtures__/cli.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const NOTES: Record<string, string> = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`notes/n${String(i).padStart(2, '0')}.md`, `note ${i} keyword${i}\n`]));

/** Deletes notes 0–9 and renames 10–19 into another folder. */
async function change(root: string): Promise<void> {
  for (let i = 0; i < 10; i++) await rm(join(root, `notes/n0${i}.md`));
  await mkdir(join(root, 'archive'));
  for (let i = 10; i < 20; i++) await rename(join(root, `notes/n${i}.md`), join(root, `archive/m${i}.md`));
}

async function filesOf(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .sort();
}

async function catalogPaths(platform: Platform, ref: HostRef): Promise<string[]> {
  const hostId = (await platform.store.catalog.resolveHost(ref))!;
  return (await platform.store.catalog.listEntries(hostId, { limit: 1000 })).map((entry) => entry.path).sort();
}

async function expectMirrors(platform: Platform, ref: HostRef, root: string): Promise<void> {
  const paths = await catalogPaths(platform, ref);
  expect(paths).toEqual(await filesOf(root));
  expect(paths.filter((path) => /^notes\/n(0\d|1\d)\.md$/.test(path))).toEqual([]);
  expect(paths.filter((path) => path.startsWith('archive/'))).toHaveLength(10);
  const hits = await platform.search.search('keyword15', { network: ref.network });
  expect(hits.hits.map((hit) => hit.path)).toEqual(['archive/m15.md']);
  expect((await platform.search.search('keyword5', { network: ref.network })).hits).toEqual([]);
}

async function lastRun(platform: Platform, ref: HostRef): Promise<CrawlRunRecord> {
  const hostId = (await platform.store.catalog.resolveHost(ref))!;
  return (await platform.store.catalog.listRuns(hostId, 1))[0]!;
}

describe('an incremental sync after 10 deletions and 10 renames leaves the catalog equal to the folder', () => {
  it('through the web page\'s Sync (POST /v1/hosts/{network}/{host}/crawl)', async () => {
    const api: Api = await startApi();
    cleanups.push(() => api.close());
    await writeFiles(api.folder, NOTES);
    const ref = { network: 'home', host: 'files' };
    const sync = async (): Promise<CrawlRunRecord> => {
      expect((await call(api, 'POST', '/v1/hosts/home/files/crawl', { token: api.admin })).status).toBe(202);
      await api.platform.crawler.running(ref)?.result;
      return lastRun(api.platform, ref);
    };
    expect(await sync()).toMatchObject({ mode: 'full', state: 'completed' });
    await change(api.folder);
    expect(await sync()).toMatchObject({ mode: 'incremental', state: 'completed', counters: { deleted: 10, moved: 10 } });
    await expectMirrors(api.platform, ref, api.folder);
  });

  it('through the scheduler\'s periodic sync', async () => {
    const dataDir = await tempDir('sync-scheduler');
    const root = await tempDir('sync-scheduler-root');
    cleanups.push(() => removeDir(root), () => removeDir(dataDir));
    await writeFiles(root, NOTES);
    const platform = await openPlatform({ dataDir, env: {} });
    cleanups.push(() => platform.close());
    await platform.networks.init('home');
    await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root } });
    const ref = { network: 'home', host: 'notes' };
    const record = await platform.networks.hostRecord(ref);
    const target = await platform.kinds.crawlTarget(record);
    // Without its watch, so only the periodic sync can see the changes.
    const description = { ...target.description, capabilities: target.description.capabilities.filter((capability) => capability !== 'watch') };
    const scheduler = new SyncScheduler({ crawler: platform.crawler, defaultInterval: 'PT1S' });
    cleanups.push(() => scheduler.stop());
    const runs: Promise<CrawlRunRecord>[] = [];
    let next: (() => void) | undefined;
    scheduler.on('sync', (_, handle) => {
      runs.push(handle.result);
      next?.();
    });
    const nth = async (n: number): Promise<CrawlRunRecord> => {
      while (runs.length < n) await new Promise<void>((resolve) => (next = resolve));
      return runs[n - 1]!;
    };
    scheduler.add({ ...target, description, sync: { trigger: 'auto', interval: 'PT1S' } });
    expect(await nth(1)).toMatchObject({ mode: 'full', state: 'completed' });
    await change(root);
    const second = await nth(2);
    expect(second).toMatchObject({ mode: 'incremental', state: 'completed', counters: { deleted: 10, moved: 10 } });
    await expectMirrors(platform, ref, root);
  }, 20_000);

  it('through inseam crawl', async () => {
    const dataDir = await tempDir('sync-cli');
    const root = await tempDir('sync-cli-root');
    cleanups.push(() => removeDir(root), () => removeDir(dataDir));
    await writeFiles(root, NOTES);
    for (const args of [
      ['network', 'init', 'home'],
      ['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root })],
      ['crawl', 'home/notes'],
    ]) {
      const done = await cli(dataDir, args);
      expect(done.code, done.stderr).toBe(0);
    }
    await change(root);
    const again = await cli(dataDir, ['crawl', 'home/notes', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ mode: 'incremental', state: 'completed', deleted: 10, moved: 10 });
    const platform = await openPlatform({ dataDir, env: {} });
    cleanups.push(() => platform.close());
    await expectMirrors(platform, { network: 'home', host: 'notes' }, root);
  });
});
