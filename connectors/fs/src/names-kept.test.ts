/**
 * Kept folder names: a folder unchanged since it settled is read once; any change, or a change too
 * recent to trust the kernel's coarse timestamps, reads it again. readdirSync is counted.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { NameListings } from './names.js';
import { makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

const reads = vi.hoisted(() => ({ count: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    readdirSync: ((...args: Parameters<typeof actual.readdirSync>) => {
      reads.count += 1;
      return actual.readdirSync(...args);
    }) as typeof actual.readdirSync,
  };
});

const SETTLE_MS = 40;
let box: Sandbox;

beforeAll(async () => {
  box = await makeSandbox();
});

afterAll(async () => {
  await box.cleanup();
});

beforeEach(() => {
  reads.count = 0;
});

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS * 2));

async function names(listings: NameListings, folder: string, limit = 1000, cursor?: string): Promise<{ names: string[]; cursor?: string }> {
  const page = await listings.page({ rootPath: box.root, folder: [folder], source: 'box://', limit, ...(cursor === undefined ? {} : { cursor }) });
  return { names: page.entries.map((entry) => entry.name), ...(page.cursor === undefined ? {} : { cursor: page.cursor }) };
}

describe('names-only listings keep a settled folder', () => {
  test('spec: an unchanged, settled folder is read once, for repeated listings and for every page', async () => {
    await mkdir(`${box.root}/settled`);
    await Promise.all(['a', 'b', 'c', 'd'].map((name) => writeFile(`${box.root}/settled/${name}.txt`, name)));
    await settle();
    const listings = new NameListings({ stableAfterMs: SETTLE_MS });
    expect((await names(listings, 'settled')).names).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
    expect((await names(listings, 'settled')).names).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
    const first = await names(listings, 'settled', 3);
    expect(await names(listings, 'settled', 3, first.cursor)).toEqual({ names: ['d.txt'] });
    expect(reads.count).toBe(1);
  });

  test('spec: a file added, removed or renamed in a kept folder shows at once', async () => {
    await mkdir(`${box.root}/changing`);
    await writeFile(`${box.root}/changing/one.txt`, '1');
    await settle();
    const listings = new NameListings({ stableAfterMs: SETTLE_MS });
    expect((await names(listings, 'changing')).names).toEqual(['one.txt']);
    await writeFile(`${box.root}/changing/two.txt`, '2');
    expect((await names(listings, 'changing')).names).toEqual(['one.txt', 'two.txt']);
    await rm(`${box.root}/changing/one.txt`);
    expect((await names(listings, 'changing')).names).toEqual(['two.txt']);
    expect(reads.count).toBe(3);
  });

  test('spec: a folder changed too recently to trust its times is read every time', async () => {
    await mkdir(`${box.root}/fresh`);
    await writeFile(`${box.root}/fresh/new.txt`, 'new');
    const listings = new NameListings({ stableAfterMs: 60_000 });
    await names(listings, 'fresh');
    await names(listings, 'fresh');
    expect(reads.count).toBe(2);
  });

  test('spec: a folder replaced by another at the same name is read again (kept by inode, not by name)', async () => {
    await mkdir(`${box.root}/swapped`);
    await writeFile(`${box.root}/swapped/old.txt`, 'old');
    await settle();
    const listings = new NameListings({ stableAfterMs: SETTLE_MS });
    expect((await names(listings, 'swapped')).names).toEqual(['old.txt']);
    await rm(`${box.root}/swapped`, { recursive: true });
    await mkdir(`${box.root}/swapped`);
    await writeFile(`${box.root}/swapped/new.txt`, 'new');
    expect((await names(listings, 'swapped')).names).toEqual(['new.txt']);
  });
});
