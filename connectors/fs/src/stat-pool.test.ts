/**
 * The stat pool: the worker's copy of the stat loop gives exactly what this thread's gives, a
 * chunk is stat'ed by whoever claims it first, and a chunk the walk took or dropped is never
 * touched by a worker.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  FIELD_CTIME_MS,
  FIELD_DEV,
  FIELD_INO,
  FIELD_KIND,
  FIELD_MTIME_MS,
  FIELD_SIZE,
  KIND_DIRECTORY,
  KIND_FILE,
  KIND_LINKED_FILE,
  KIND_SKIP,
  KIND_SYMLINK,
  STAT_FIELDS,
  StatPool,
  statChunk,
} from './stat-pool.js';
import type { PooledChunk, StatChunk } from './stat-pool.js';
import { makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
let folder: string;
const NAMES = ['a.txt', 'b-dir', 'c-link', 'd-fifo', 'e-missing', 'f.bin', 'g-hard-link'];
const pools: StatPool[] = [];

beforeAll(async () => {
  box = await makeSandbox();
  folder = `${box.root}/chunk`;
  await mkdir(`${folder}/b-dir`, { recursive: true });
  await writeFile(`${folder}/a.txt`, 'alpha');
  await writeFile(`${folder}/f.bin`, Buffer.alloc(4321));
  await symlink('a.txt', `${folder}/c-link`);
  execFileSync('mkfifo', [`${folder}/d-fifo`]);
  await writeFile(`${box.outside}/linked.txt`, 'linked');
  await link(`${box.outside}/linked.txt`, `${folder}/g-hard-link`);
});
afterAll(async () => {
  for (const pool of pools) pool.stop();
  await box.cleanup();
});

function pool(size: number): StatPool {
  const made = new StatPool(size);
  pools.push(made);
  return made;
}

/** Polls until a worker has finished `chunk` (the walk never claims it here). */
async function finished(chunk: PooledChunk): Promise<StatChunk> {
  for (let tries = 0; tries < 2_000; tries++) {
    const result = chunk.peek();
    if (result !== undefined) return result;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the worker did not finish the chunk in 10 s');
}

describe('statChunk', () => {
  test('one row per name: kind, inode, device, size and times of the entry itself, never its target', () => {
    const { stats, directoryIno, directoryDev } = statChunk(folder, NAMES);
    expect(stats.length).toBe(NAMES.length * STAT_FIELDS);
    const kinds = NAMES.map((_, index) => stats[index * STAT_FIELDS + FIELD_KIND]);
    expect(kinds).toEqual([KIND_FILE, KIND_DIRECTORY, KIND_SYMLINK, KIND_SKIP, KIND_SKIP, KIND_FILE, KIND_LINKED_FILE]);
    for (const [index, name] of NAMES.entries()) {
      if (kinds[index] === KIND_SKIP) continue;
      const expected = lstatSync(`${folder}/${name}`);
      const row = stats.subarray(index * STAT_FIELDS, (index + 1) * STAT_FIELDS);
      expect([row[FIELD_INO], row[FIELD_DEV], row[FIELD_SIZE], row[FIELD_MTIME_MS], row[FIELD_CTIME_MS]]).toEqual([
        expected.ino,
        expected.dev,
        expected.size,
        expected.mtimeMs,
        expected.ctimeMs,
      ]);
    }
    const own = lstatSync(folder);
    expect([directoryIno, directoryDev]).toEqual([own.ino, own.dev]);
    expect(statChunk(`${box.root}/gone`, ['x']).directoryIno).toBe(-1);
  });
});

describe('StatPool', () => {
  test("a worker's result is exactly statChunk's", async () => {
    const workers = pool(1);
    await workers.online();
    expect(workers.ready).toBe(true);
    const chunk = workers.submit(folder, NAMES);
    const fromWorker = await finished(chunk);
    const here = statChunk(folder, NAMES);
    expect([...fromWorker.stats]).toEqual([...here.stats]);
    expect([fromWorker.directoryIno, fromWorker.directoryDev]).toEqual([here.directoryIno, here.directoryDev]);
    // Done by the worker: the walk cannot claim it again, and reads the worker's result.
    expect(chunk.claim()).toBeUndefined();
    expect(chunk.wait(1)).toEqual(fromWorker);
  });

  test('a chunk the walk claims or cancels first is skipped by the worker, which goes on with the next', async () => {
    const workers = pool(1);
    // Posted before the worker is up, so the walk is first to both.
    workers.warmUp();
    const claimed = workers.submit(folder, NAMES);
    const cancelled = workers.submit(folder, NAMES);
    const next = workers.submit(folder, ['a.txt']);
    const mine = claimed.claim();
    expect(mine?.stats[FIELD_KIND]).toBe(KIND_FILE);
    cancelled.cancel();
    await finished(next);
    // The worker has seen both earlier chunks (it takes them in order) and did neither.
    expect(claimed.peek()).toBeUndefined();
    expect(cancelled.peek()).toBeUndefined();
  });

  test('a stopped pool leaves its chunks to the walk; a pool of no workers is never ready', async () => {
    const workers = pool(1);
    workers.warmUp();
    const chunk = workers.submit(folder, NAMES);
    workers.stop();
    expect(workers.ready).toBe(false);
    const taken = chunk.claim() ?? chunk.wait(1);
    expect([...(taken?.stats ?? [])]).toEqual([...statChunk(folder, NAMES).stats]);
    const none = pool(0);
    none.warmUp();
    await none.online();
    expect(none.ready).toBe(false);
  });
});
