/**
 * The attack resolveContained cannot stop and openContainedHandle must: a directory (or the file)
 * inside the root is swapped for a symlink to outside, and back, as fast as a thread can rename,
 * while thousands of contained opens run. Not one byte from outside may come back, and no create
 * may land outside.
 */
import { closeSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectorError } from '../contracts/errors.js';
import { expectNoLeak, makeSandbox } from './__fixtures__/sandbox.js';
import type { Sandbox } from './__fixtures__/sandbox.js';
import { CONTAINMENT_ERROR_CODES } from './errors.js';
import { containedRealPath, openContainedDescriptor, openContainedHandle } from './open.js';

const READS = 4000;
const CREATES = 1000;
const CONCURRENCY = 64;

// Runs in its own thread so the swaps interleave with the opens at any instruction, not only
// between event-loop turns. Sequence: real -> parked, link -> real (the name is now the link),
// real -> link, parked -> real. Stops when control[0] becomes 1; control[1] counts rounds.
const SWAPPER = `
const { renameSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
const control = new Int32Array(workerData.control);
const { real, parked, link } = workerData;
while (Atomics.load(control, 0) === 0) {
  renameSync(real, parked);
  renameSync(link, real);
  renameSync(real, link);
  renameSync(parked, real);
  Atomics.add(control, 1, 1);
}
`;

/** What the swapper exchanges: a directory on the way, or the file at the last name. */
interface Swap {
  readonly real: string;
  readonly parked: string;
  readonly link: string;
}

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  await mkdir(join(sandbox.root, 'd'));
  await writeFile(join(sandbox.root, 'd', 'secret.txt'), 'inside');
  await symlink(sandbox.outside, join(sandbox.root, 'evil'));
  await writeFile(join(sandbox.root, 'd', 'leaf.txt'), 'inside');
  await symlink(join(sandbox.outside, 'secret.txt'), join(sandbox.root, 'd', 'leaf-evil'));
});

function directorySwap(): Swap {
  return { real: join(sandbox.root, 'd'), parked: join(sandbox.root, 'd.real'), link: join(sandbox.root, 'evil') };
}

function leafSwap(): Swap {
  const dir = join(sandbox.root, 'd');
  return { real: join(dir, 'leaf.txt'), parked: join(dir, 'leaf.real'), link: join(dir, 'leaf-evil') };
}

afterAll(async () => {
  await sandbox.cleanup();
});

interface Tally {
  inside: number;
  refused: Map<string, number>;
  leaked: number;
}

async function whileSwapping(swap: Swap, work: () => Promise<void>): Promise<number> {
  const control = new Int32Array(new SharedArrayBuffer(8));
  const swapper = new Worker(SWAPPER, { eval: true, workerData: { control: control.buffer, ...swap } });
  const failed = new Promise<never>((_, reject) => swapper.once('error', reject));
  failed.catch(() => undefined);
  const exited = new Promise((resolve) => swapper.once('exit', resolve));
  try {
    while (Atomics.load(control, 1) === 0) await Promise.race([new Promise((resolve) => setTimeout(resolve, 1)), failed]);
    await Promise.race([work(), failed]);
  } finally {
    // The swapper finishes its current round, so the tree is back in its first state.
    Atomics.store(control, 0, 1);
    await exited;
  }
  return Atomics.load(control, 1);
}

async function inBatches(total: number, run: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) await run(next++);
    }),
  );
}

function record(tally: Tally, error: unknown): void {
  if (!isConnectorError(error)) throw error;
  expect(CONTAINMENT_ERROR_CODES).toContain(error.code);
  expectNoLeak(error, sandbox.forbidden);
  tally.refused.set(error.code, (tally.refused.get(error.code) ?? 0) + 1);
}

/** Opens `relative` contained and returns its content: through a FileHandle or a plain descriptor. */
type ContainedReader = (relative: string) => Promise<string>;

async function readByHandle(relative: string): Promise<string> {
  const handle = await openContainedHandle(sandbox.root, relative);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

async function readByDescriptor(relative: string): Promise<string> {
  const fd = await openContainedDescriptor(sandbox.root, relative);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

describe.each([
  ['openContainedHandle', readByHandle],
  ['openContainedDescriptor', readByDescriptor],
] as const)('%s under a symlink-swap race', (_name, readContained: ContainedReader) => {
  async function raceReads(swap: Swap, relative: string, reads: number): Promise<void> {
    const tally: Tally = { inside: 0, refused: new Map(), leaked: 0 };
    let naiveLeaks = 0;
    const swaps = await whileSwapping(swap, () =>
      inBatches(reads, async (index) => {
        // Control: the naive join-and-read the spec forbids does read the outside file during this race.
        if (index % 4 === 0) {
          const naive = await readFile(join(sandbox.root, relative), 'utf8').catch(() => '');
          if (naive.includes(sandbox.marker)) naiveLeaks += 1;
        }
        let content: string;
        try {
          content = await readContained(relative);
        } catch (error) {
          record(tally, error);
          return;
        }
        if (content.includes(sandbox.marker)) tally.leaked += 1;
        else if (content === 'inside') tally.inside += 1;
      }),
    );
    expect(tally.leaked).toBe(0);
    // The race was real: thousands of swaps, the naive read leaked, and contained opens both
    // succeeded (the real entry was there) and were refused (the link was there).
    expect(swaps).toBeGreaterThan(1000);
    expect(naiveLeaks).toBeGreaterThan(0);
    expect(tally.inside).toBeGreaterThan(0);
    expect(tally.refused.get('containment_violation') ?? 0).toBeGreaterThan(0);
  }

  it('spec: a directory swapped for a symlink after a check never redirects the open — zero bytes from outside', async () => {
    await raceReads(directorySwap(), 'd/secret.txt', READS);
  });

  it('spec: a file swapped for a symlink after a check never redirects the open — zero bytes from outside', async () => {
    await raceReads(leafSwap(), 'd/leaf.txt', READS / 2);
  });
});

describe('containedRealPath under a symlink-swap race', () => {
  it.each([
    ['a directory on the way', directorySwap, 'd/secret.txt'],
    ['the file itself', leafSwap, 'd/leaf.txt'],
  ] as const)('spec: never answers a path outside the root while %s is swapped for a symlink to outside', async (_what, swap, relative) => {
    const tally: Tally = { inside: 0, refused: new Map(), leaked: 0 };
    await whileSwapping(swap(), () =>
      inBatches(READS / 2, async () => {
        let answer: string;
        try {
          answer = await containedRealPath(sandbox.root, relative);
        } catch (error) {
          record(tally, error);
          return;
        }
        // Inside, though perhaps under the name the swapper parked the real entry at by then.
        if (answer.startsWith(sandbox.root + sep)) tally.inside += 1;
        else tally.leaked += 1;
      }),
    );
    expect(tally.leaked).toBe(0);
    expect(tally.inside).toBeGreaterThan(0);
    expect(tally.refused.get('containment_violation') ?? 0).toBeGreaterThan(0);
  });
});

describe('openContainedHandle create under a symlink-swap race', () => {
  it('spec: a create racing the same swap never creates anything outside the root', async () => {
    const tally: Tally = { inside: 0, refused: new Map(), leaked: 0 };
    await whileSwapping(directorySwap(), () =>
      inBatches(CREATES, async (index) => {
        try {
          const handle = await openContainedHandle(sandbox.root, `d/created-${index}.txt`, { access: 'create' });
          await handle.close();
          tally.inside += 1;
        } catch (error) {
          record(tally, error);
        }
      }),
    );
    expect(await readdir(sandbox.outside)).toEqual(['secret.txt']);
    expect(tally.inside).toBeGreaterThan(0);
    const created = (await readdir(join(sandbox.root, 'd'))).filter((name) => name.startsWith('created-'));
    expect(created.length).toBe(tally.inside);
  });
});
