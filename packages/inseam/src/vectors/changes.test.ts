/**
 * Changes that reach the catalog without a platform crawl are embedded when they land, not at the
 * next crawl: a write through the fs service (fs/catalog-sync.ts), a watch event, and a crawl run
 * on the platform's crawler directly, as a queue worker runs it (queue/worker.ts calls
 * `crawler.sync`, never `platform.sync`). Each is found by meaning right after the indexer's next
 * pass, and no crawl is started for it. Real SQLite with sqlite-vec, the real default embedder.
 *
 * Attacks: the written file under a folder the caller may not read never shows; a file deleted
 * through the fs service is gone from semantic hits at once.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { FsService } from '../fs/index.js';
import { openTestPlatform, removeDir, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';

const QUESTION = 'cheap flights to Lisbon';
const LISBON = "# Trip\n\nLow-cost airfare to Portugal's capital: book the budget carrier two months ahead.\n";
const PERMISSIONS = { default: { read: true, write: true, exec: false }, paths: { private: { read: false } } };

let dataDir: string;
let folder: string;
let platform: Platform;
let fs: FsService;
const ann = callerOf('ann');

beforeAll(async () => {
  dataDir = await tempDir('vector-changes');
  folder = await tempDir('vector-changes-files');
  await writeFiles(folder, { 'home/dentist.md': 'The dentist appointment moved to Thursday morning.\n', 'work/revenue.md': 'Quarterly revenue rose eleven percent in Europe.\n' });
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: folder }, permissions: PERMISSIONS });
  expect((await (await platform.sync({ network: 'home', host: 'notes' })).result).state).toBe('completed');
  await platform.vectors.idle();
  fs = new FsService(platform);
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await removeDir(dataDir);
  await removeDir(folder);
});

afterEach(() => {
  vi.restoreAllMocks();
});

const semantic = async (): Promise<string[]> => (await platform.search.search(QUESTION, { network: 'home', hosts: ['notes'], mode: 'semantic' })).hits.map((hit) => hit.path);

describe('embedding without waiting for a crawl', () => {
  it('a write through the fs service is found by meaning after the indexer’s next pass; a delete is gone at once', async () => {
    const syncs = vi.spyOn(platform.crawler, 'sync');
    expect(await semantic()).toEqual([]);
    await fs.write(ann, 'notes://travel/lisbon.md', LISBON);
    await fs.write(ann, 'notes://private/lisbon-deal.md', 'Inexpensive flights to Lisbon, the capital of Portugal: the secret fare.\n');
    await platform.vectors.idle();
    expect(await semantic()).toEqual(['travel/lisbon.md']);
    const byCaller = await fs.search(ann, QUESTION, { hosts: ['notes'] });
    expect(byCaller.hits[0]).toMatchObject({ path: 'travel/lisbon.md', matched: ['semantic'] });
    expect(JSON.stringify(byCaller)).not.toContain('lisbon-deal');
    await fs.delete(ann, 'notes://travel/lisbon.md');
    expect(await semantic()).toEqual([]);
    expect(syncs).not.toHaveBeenCalled();
  });

  it('a watch event is embedded as it is applied', async () => {
    const syncs = vi.spyOn(platform.crawler, 'sync');
    const target = await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'notes' }));
    const watcher = await platform.crawler.watch(target);
    try {
      const applied = new Promise((resolve) => watcher.on('applied', (outcome) => outcome.written > 0 && resolve(outcome)));
      await writeFile(join(folder, 'watched.md'), LISBON);
      await applied;
      await platform.vectors.idle();
      expect(await semantic()).toEqual(['watched.md']);
    } finally {
      await watcher.stop();
    }
    expect(syncs).not.toHaveBeenCalled();
  });

  it('a crawl run on the platform’s crawler directly, as a queue worker runs it, is embedded when it ends', async () => {
    await writeFile(join(folder, 'worker.md'), "Low-cost airfare to Portugal's capital, for the spring trip.\n");
    const target = await platform.kinds.crawlTarget(await platform.networks.hostRecord({ network: 'home', host: 'notes' }));
    expect((await platform.crawler.sync(target, { mode: 'full' }).result).state).toBe('completed');
    await platform.vectors.idle();
    expect(await semantic()).toContain('worker.md');
  });
});
