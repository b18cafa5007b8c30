/**
 * The walker's read-ahead: with the worker pool it hands out exactly what the single-threaded walk
 * does, in the same order, across pages and resumed cursors; the window stays bounded; a folder
 * swapped for a symlink after it was opened ahead never lends the listing anything from outside;
 * and a walker left idle drops what it read ahead.
 */
import { lstatSync } from 'node:fs';
import { appendFile, mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { PooledChunk, StatPool } from './stat-pool.js';
import { makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';
import { TreeWalker } from './walker.js';
import type { WalkEntryType, WalkerOptions } from './walker.js';

/** Chunks that no worker ever takes: the walk opens folders ahead and then stats every chunk itself, late. */
class HeldPool extends StatPool {
  submitted = 0;
  constructor() {
    super(0);
  }
  override get ready(): boolean {
    return true;
  }
  override submit(directory: string, names: readonly string[]): PooledChunk {
    this.submitted += 1;
    return PooledChunk.queued(directory, names);
  }
}

/** A real worker, waited for on every chunk: everything ahead is stat'ed the moment it is sent. */
class EagerPool extends StatPool {
  constructor() {
    super(1);
  }
  override submit(directory: string, names: readonly string[]): PooledChunk {
    const chunk = super.submit(directory, names);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let tries = 0; chunk.peek() === undefined; tries++) {
      if (tries > 10_000) throw new Error('the worker did not finish a chunk in 10 s');
      Atomics.wait(pause, 0, 0, 1);
    }
    return chunk;
  }
}

interface Walked {
  readonly path: string;
  readonly type: WalkEntryType;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

let box: Sandbox;
const pools: StatPool[] = [];
/** Files in the big tree (its symlink to a file inside counts as one). */
let treeFiles = 0;

beforeAll(async () => {
  box = await makeSandbox();
  // 30 folders of 40 files, one of 600 (several chunks), nested folders, and symlinks.
  for (let folder = 0; folder < 30; folder++) {
    const path = `${box.root}/tree/f${String(folder).padStart(2, '0')}`;
    await mkdir(`${path}/inner`, { recursive: true });
    await Promise.all(Array.from({ length: 40 }, (_, file) => writeFile(`${path}/${file}.txt`, 'x'.repeat(file))));
    await writeFile(`${path}/inner/deep.md`, '# deep');
    treeFiles += 41;
  }
  await mkdir(`${box.root}/tree/m-big`);
  await Promise.all(Array.from({ length: 600 }, (_, file) => writeFile(`${box.root}/tree/m-big/${file}.bin`, Buffer.alloc(file % 7))));
  treeFiles += 600;
  await symlink('f00/1.txt', `${box.root}/tree/n-link-in`);
  await symlink(box.outside, `${box.root}/tree/n-link-out`);
  treeFiles += 1;
  await writeFile(`${box.outside}/secret.txt`, 'outside');
});
afterAll(async () => {
  for (const pool of pools) pool.stop();
  await box.cleanup();
});
afterEach(() => {
  vi.useRealTimers();
});

function options(pool: StatPool, extra: Partial<WalkerOptions> = {}): WalkerOptions {
  pools.push(pool);
  return { rootPath: box.root, start: ['tree'], includeDirectories: true, pool, ...extra };
}

/** Walks to the end in pages of `page`, reopening from the position every `reopenEvery` pages (as a restarted listing does). */
async function walkAll(walkerOptions: WalkerOptions, page: number, reopenEvery = Number.POSITIVE_INFINITY): Promise<Walked[]> {
  const out: Walked[] = [];
  let walker = await TreeWalker.open(walkerOptions);
  for (let pages = 1; !walker.done; pages++) {
    await walker.fill(page, (path, _name, type, stats) => {
      out.push({ path, type, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino });
      return true;
    });
    if (pages % reopenEvery === 0 && !walker.done) walker = await TreeWalker.open(walkerOptions, walker.position);
  }
  return out;
}

describe('the walk with the worker pool', () => {
  test('hands out what the single-threaded walk does, in the same order, in pages and across resumed positions', async () => {
    const alone = await walkAll(options(new StatPool(0)), 1_000);
    expect(alone.filter((entry) => entry.type === 'file')).toHaveLength(treeFiles);
    expect(alone.slice(0, 3).map((entry) => entry.path)).toEqual(['tree/f00', 'tree/f00/0.txt', 'tree/f00/1.txt']);
    expect(alone.find((entry) => entry.path === 'tree/n-link-in')).toMatchObject({ type: 'file', size: 1 });
    expect(alone.some((entry) => entry.path.startsWith('tree/n-link-out'))).toBe(false);
    const big = alone.find((entry) => entry.path === 'tree/m-big/599.bin');
    expect(big).toMatchObject({ size: 599 % 7, ino: lstatSync(`${box.root}/tree/m-big/599.bin`).ino });

    const workers = new StatPool(1);
    await workers.online();
    expect(await walkAll(options(workers), 1_000)).toEqual(alone);
    expect(await walkAll(options(workers), 333, 2)).toEqual(alone);
    const held = new HeldPool();
    expect(await walkAll(options(held), 1_000)).toEqual(alone);
    expect(held.submitted).toBeGreaterThan(10);
    expect(await walkAll(options(new EagerPool()), 1_000)).toEqual(alone);
  });

  test('a maxDepth and a first-level filter limit what is read ahead as they limit the walk', async () => {
    const shallow = { maxDepth: 2, firstLevel: (name: string) => name !== 'f03' && name !== 'm-big' };
    const alone = await walkAll(options(new StatPool(0), shallow), 500);
    expect(alone.some((entry) => entry.path.startsWith('tree/f03') || entry.path.startsWith('tree/m-big'))).toBe(false);
    expect(alone.some((entry) => entry.path.endsWith('/deep.md'))).toBe(false);
    const held = new HeldPool();
    expect(await walkAll(options(held, shallow), 500)).toEqual(alone);
  });

  /** 300 empty folders (no chunk to send, so only the folder limit stops the window), then 200 of 30 files. */
  let wide: Promise<void> | undefined;
  function makeWide(): Promise<void> {
    wide ??= (async () => {
      await mkdir(`${box.root}/wide`);
      for (let folder = 0; folder < 300; folder++) await mkdir(`${box.root}/wide/e${String(folder).padStart(3, '0')}`);
      for (let folder = 0; folder < 200; folder++) {
        await mkdir(`${box.root}/wide/w${String(folder).padStart(3, '0')}`);
        await Promise.all(Array.from({ length: 30 }, (_, file) => writeFile(`${box.root}/wide/w${String(folder).padStart(3, '0')}/${file}`, '')));
      }
    })();
    return wide;
  }

  test('the window holds a bounded number of chunks and folders ahead, never the tree', async () => {
    await makeWide();
    const walker = await TreeWalker.open(options(new HeldPool(), { start: ['wide'] }));
    const most = { chunks: 0, folders: 0, names: 0, held: 0 };
    while (!walker.done) {
      await walker.fill(100, () => true);
      const { chunks, folders, names } = walker.readAhead;
      Object.assign(most, { chunks: Math.max(most.chunks, chunks), folders: Math.max(most.folders, folders), names: Math.max(most.names, names), held: Math.max(most.held, walker.heldNames) });
    }
    expect(most.folders).toBe(64);
    // No worker ever finishes a chunk here, so every chunk sent is waiting: 32 at most, in walk order.
    expect(most.chunks).toBe(32);
    // The root's 500 names and one folder on the path, plus at most 64 folders of 30 opened ahead.
    expect(most.held).toBeLessThanOrEqual(500 + 30 + 64 * 30);
    expect(most.names).toBeGreaterThan(0);
    expect(walker.readAhead).toMatchObject({ chunks: 0, folders: 0, names: 0 });
  });

  test('a walk whose workers are always ahead tracks no more than the window', async () => {
    await makeWide();
    const walker = await TreeWalker.open(options(new EagerPool(), { start: ['wide'] }));
    let most = 0;
    let entries = 0;
    while (!walker.done) {
      entries += await walker.fill(100, () => true);
      most = Math.max(most, walker.readAhead.queued, walker.readAhead.chunks);
    }
    expect(entries).toBe(300 + 200 * 31);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(64);
  });
});

describe('containment with the window', () => {
  test('a folder swapped for a symlink after it was opened ahead lends the listing nothing from outside', async () => {
    await mkdir(`${box.root}/swap`);
    for (let folder = 0; folder < 40; folder++) {
      const path = `${box.root}/swap/a${String(folder).padStart(2, '0')}`;
      await mkdir(path);
      await Promise.all(Array.from({ length: 50 }, (_, file) => writeFile(`${path}/f${file}`, 'i')));
    }
    await mkdir(`${box.root}/swap/target`);
    await mkdir(`${box.outside}/same-names`);
    for (let file = 0; file < 50; file++) {
      await writeFile(`${box.root}/swap/target/f${file}`, 'i');
      await writeFile(`${box.outside}/same-names/f${file}`, 'o'.repeat(777));
    }
    const held = new HeldPool();
    const walker = await TreeWalker.open(options(held, { start: ['swap'] }));
    const sizes: number[] = [];
    const sink = (_path: string, _name: string, type: WalkEntryType, stats: { size: number }): boolean => {
      if (type === 'file') sizes.push(stats.size);
      return true;
    };
    await walker.fill(1_500, sink);
    // The window reaches target (folder 41 of 41) and has opened it, with its names, ahead.
    expect(held.submitted).toBeGreaterThan(0);
    expect(walker.heldNames).toBeGreaterThanOrEqual(41 + 50 + 50);
    await rename(`${box.root}/swap/target`, `${box.root}/swap/target-real`);
    await symlink(`${box.outside}/same-names`, `${box.root}/swap/target`);
    let failure: unknown;
    try {
      while (!walker.done) await walker.fill(1_000, sink);
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'unavailable', details: { reason: 'tree_changing' } });
    expect(sizes.length).toBeGreaterThanOrEqual(1_500);
    expect(sizes.every((size) => size === 1)).toBe(true);
    expect(String((failure as Error).message)).not.toContain(box.base);
  });
});

describe('staleness', () => {
  async function changedAhead(idleMs: number): Promise<number | undefined> {
    const base = `${box.root}/stale-${idleMs}`;
    for (let folder = 0; folder < 60; folder++) {
      await mkdir(`${base}/s${String(folder).padStart(2, '0')}`, { recursive: true });
      await Promise.all(Array.from({ length: 50 }, (_, file) => writeFile(`${base}/s${String(folder).padStart(2, '0')}/f${file}`, 'a')));
    }
    vi.useFakeTimers({ toFake: ['Date'] });
    const walker = await TreeWalker.open(options(new EagerPool(), { start: [`stale-${idleMs}`] }));
    // Past the entries a walk stats on its own thread (POOL_AFTER), so it reads ahead from there.
    await walker.fill(2_200, () => true);
    // s50 is well ahead of the position and inside the window: its stats were read at the fill's end.
    await appendFile(`${base}/s50/f0`, 'grown');
    vi.setSystemTime(Date.now() + idleMs);
    let size: number | undefined;
    while (!walker.done) {
      await walker.fill(1_000, (path, _name, _type, stats) => {
        if (path.endsWith('/s50/f0')) size = stats.size;
        return true;
      });
    }
    return size;
  }

  test('a walker resumed within a second may hand out what it read ahead; one idle longer reads again', async () => {
    expect(await changedAhead(10)).toBe(1);
    expect(await changedAhead(5_000)).toBe(1 + 'grown'.length);
  });
});
