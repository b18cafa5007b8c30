import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Entry } from '@inseam/connector';
import { createFsConnector } from './index.js';
import { NewestListings } from './newest.js';
import { collect, makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;

/** Lays out `count` files over nested folders, named so sorting by name and by number differ. */
async function makeTree(base: string, count: number): Promise<string[]> {
  const paths: string[] = [];
  for (let index = 0; index < count; index++) {
    const folder = `d${index % 7}/e${index % 3}`;
    const path = `${folder}/f${index}.txt`;
    await mkdir(`${base}/${folder}`, { recursive: true });
    await writeFile(`${base}/${path}`, String(index));
    paths.push(path);
  }
  return paths;
}

/** Depth-first, name-sorted order of file paths, as the host listing promises. */
function depthFirst(paths: readonly string[]): string[] {
  return [...paths].sort((a, b) => {
    const left = a.split('/');
    const right = b.split('/');
    for (let index = 0; index < Math.min(left.length, right.length); index++) {
      if (left[index] !== right[index]) return left[index]! < right[index]! ? -1 : 1;
    }
    return left.length - right.length;
  });
}

async function listAll(list: (cursor?: string) => Promise<{ entries: readonly Entry[]; cursor?: string }>): Promise<{ paths: string[]; pages: number }> {
  const paths: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list(cursor);
    paths.push(...page.entries.map((entry) => entry.path));
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined);
  return { paths, pages };
}

let treePaths: string[];
beforeAll(async () => {
  box = await makeSandbox();
  treePaths = await makeTree(`${box.root}/tree`, 2500);
  await mkdir(`${box.root}/flat`);
  for (const name of ['b.txt', 'a.txt', 'c', 'e.md', 'd.txt']) {
    if (name === 'c') await mkdir(`${box.root}/flat/c`);
    else await writeFile(`${box.root}/flat/${name}`, name);
  }
  await writeFile(`${box.root}/flat/.inseam-0123456789abcdef.tmp`, 'half-written');
});
afterAll(() => box.cleanup());

describe('port list', () => {
  test('direct children, name-sorted, paged by limit; the pages concatenate to the whole listing', async () => {
    const whole = await box.connector.list('box://flat');
    expect(whole.entries.map((entry) => [entry.name, entry.type])).toEqual([
      ['a.txt', 'file'],
      ['b.txt', 'file'],
      ['c', 'directory'],
      ['d.txt', 'file'],
      ['e.md', 'file'],
    ]);
    expect(whole.cursor).toBeUndefined();
    // A last page that is exactly full carries no cursor to an empty page.
    expect((await box.connector.list('box://flat', { limit: 5 })).cursor).toBeUndefined();
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await box.connector.list('box://flat', { limit: 2, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      names.push(...page.entries.map((entry) => entry.name));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(names).toEqual(['a.txt', 'b.txt', 'c', 'd.txt', 'e.md']);
  });

  test('a cursor resumes on another instance, and after the entries around it changed', async () => {
    const first = await box.connector.list('box://flat', { limit: 2 });
    const fresh = createFsConnector(box.context());
    await rm(`${box.root}/flat/b.txt`);
    await writeFile(`${box.root}/flat/bb.txt`, 'new');
    const rest = await fresh.list('box://flat', { cursor: first.cursor! });
    expect(rest.entries.map((entry) => entry.name)).toEqual(['bb.txt', 'c', 'd.txt', 'e.md']);
    await rm(`${box.root}/flat/bb.txt`);
    await writeFile(`${box.root}/flat/b.txt`, 'b.txt');
  });

  test('bad cursors, a cursor from another listing, and bad limits are invalid_argument', async () => {
    const page = await box.connector.list('box://flat', { limit: 1 });
    for (const cursor of ['not-a-cursor', Buffer.from('{"v":1}').toString('base64url'), '']) {
      await expect(box.connector.list('box://flat', { cursor })).rejects.toMatchObject({ code: 'invalid_argument' });
    }
    await expect(box.connector.list('box://tree', { cursor: page.cursor! })).rejects.toMatchObject({ code: 'invalid_argument' });
    for (const limit of [0, -1, 1.5, 10_001]) {
      await expect(box.connector.list('box://flat', { limit })).rejects.toMatchObject({ code: 'invalid_argument' });
    }
  });

  test('a file is not_a_directory, a missing folder not_found', async () => {
    await expect(box.connector.list('box://flat/a.txt')).rejects.toMatchObject({ code: 'not_a_directory' });
    await expect(box.connector.list('box://nowhere')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('walk and scanContent', () => {
  test('walk streams depth first, directories before their contents; maxDepth 1 is the children', async () => {
    const walked = await collect(box.connector.walk('box://flat'));
    expect(walked.map((entry) => entry.uri)).toEqual(['box://flat/a.txt', 'box://flat/b.txt', 'box://flat/c', 'box://flat/d.txt', 'box://flat/e.md']);
    const tree = await collect(box.connector.walk('box://tree'));
    expect(tree.filter((entry) => entry.type === 'file').map((entry) => entry.uri)).toEqual(depthFirst(treePaths).map((path) => `box://tree/${path}`));
    expect(tree.slice(0, 3).map((entry) => entry.uri)).toEqual(['box://tree/d0', 'box://tree/d0/e0', 'box://tree/d0/e0/f0.txt']);
    const shallow = await collect(box.connector.walk('box://tree', { maxDepth: 1 }));
    expect(shallow.map((entry) => entry.name)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6']);
  });

  test('walk can stop early and honours an abort signal', async () => {
    let seen = 0;
    for await (const entry of box.connector.walk('box://tree')) {
      expect(entry.uri.startsWith('box://tree/')).toBe(true);
      if (++seen === 10) break;
    }
    expect(seen).toBe(10);
    const controller = new AbortController();
    controller.abort();
    await expect(collect(box.connector.walk('box://tree', { signal: controller.signal }))).rejects.toThrow();
  });

  test('scanContent yields text, and skips binary and oversized files without content', async () => {
    await mkdir(`${box.root}/scan`);
    await writeFile(`${box.root}/scan/a.md`, '# title');
    await writeFile(`${box.root}/scan/b.png`, Buffer.from([137, 80, 78, 71]));
    await writeFile(`${box.root}/scan/c.dat`, Buffer.from([0, 0, 0, 1]));
    await writeFile(`${box.root}/scan/d.txt`, 'y'.repeat(100));
    const chunks = await collect(box.connector.scanContent('box://scan', { maxBytesPerObject: 50 }));
    expect(chunks.map((chunk) => [chunk.entry.name, chunk.text ?? chunk.skipped])).toEqual([
      ['a.md', '# title'],
      ['b.png', 'binary'],
      ['c.dat', 'binary'],
      ['d.txt', 'too_large'],
    ]);
  });
});

describe('host list', () => {
  const host = (): ReturnType<Sandbox['connector']['host']> => box.connector.host();

  test('recursive, depth first and name-sorted, 1,000 a page, files only, temp files hidden', async () => {
    const { paths, pages } = await listAll((cursor) => host().list({ prefix: 'tree/', ...(cursor === undefined ? {} : { cursor }) }));
    expect(pages).toBe(3);
    expect(paths).toEqual(depthFirst(treePaths.map((path) => `tree/${path}`)));
    const all = await listAll((cursor) => host().list(cursor === undefined ? {} : { cursor }));
    expect(all.paths.filter((path) => path.startsWith('flat/'))).toEqual(['flat/a.txt', 'flat/b.txt', 'flat/d.txt', 'flat/e.md']);
  });

  test('every page resumes from its cursor on a fresh instance (the listing survives a restart)', async () => {
    const paths: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await createFsConnector(box.context()).host().list({ prefix: 'tree/', ...(cursor === undefined ? {} : { cursor }) });
      paths.push(...page.entries.map((entry) => entry.path));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(paths).toEqual(depthFirst(treePaths.map((path) => `tree/${path}`)));
  });

  test('entries carry every declared dimension, with the declared types', async () => {
    const { entries } = await host().list({ prefix: 'flat/' });
    for (const entry of entries) {
      expect(typeof entry.path).toBe('string');
      expect(Number.isInteger(entry.size)).toBe(true);
      expect(new Date(entry.mtime!).toISOString()).toBe(entry.mtime);
      expect(entry.mime).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
      expect(await host().stat(entry.path)).toEqual(entry);
    }
  });

  test('a prefix is a string prefix: a folder, a partial name, or nothing that exists', async () => {
    expect((await host().list({ prefix: 'tree/d3/e1/f1' })).entries.every((entry) => entry.path.startsWith('tree/d3/e1/f1'))).toBe(true);
    expect((await host().list({ prefix: 'tree/d3/e1/f1' })).entries.length).toBeGreaterThan(0);
    expect((await host().list({ prefix: 'fl' })).entries.map((entry) => entry.path)).toEqual(['flat/a.txt', 'flat/b.txt', 'flat/d.txt', 'flat/e.md']);
    expect((await host().list({ prefix: 'missing/folder/' })).entries).toEqual([]);
    expect((await host().list({ prefix: 'flat/a.txt/' })).entries).toEqual([]);
  });

  test('since keeps files modified at or after it; bad since and order are invalid_argument', async () => {
    await mkdir(`${box.root}/since`);
    for (const [name, seconds] of [['old.txt', 1_000_000_000], ['edge.txt', 1_500_000_000], ['new.txt', 1_700_000_000]] as const) {
      await writeFile(`${box.root}/since/${name}`, name);
      await utimes(`${box.root}/since/${name}`, seconds, seconds);
    }
    const page = await host().list({ prefix: 'since/', since: new Date(1_500_000_000_000).toISOString() });
    expect(page.entries.map((entry) => entry.path)).toEqual(['since/edge.txt', 'since/new.txt']);
    await expect(host().list({ since: 'yesterday' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(host().list({ order: 'oldest' as never })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  test('order newest: newest first across the whole listing, ties by path, paged with a cursor', async () => {
    await mkdir(`${box.root}/newest/sub`, { recursive: true });
    const times: Record<string, number> = { 'a.txt': 100, 'b.txt': 300, 'sub/c.txt': 200, 'sub/d.txt': 300, 'z.txt': 50 };
    for (const [path, seconds] of Object.entries(times)) {
      await writeFile(`${box.root}/newest/${path}`, path);
      await utimes(`${box.root}/newest/${path}`, 1_600_000_000 + seconds, 1_600_000_000 + seconds);
    }
    const page = await host().list({ prefix: 'newest/', order: 'newest' });
    expect(page.entries.map((entry) => entry.path)).toEqual(['newest/b.txt', 'newest/sub/d.txt', 'newest/sub/c.txt', 'newest/a.txt', 'newest/z.txt']);
    const whole = await listAll((cursor) => host().list({ prefix: 'tree/', order: 'newest', ...(cursor === undefined ? {} : { cursor }) }));
    expect(whole.pages).toBe(3);
    expect(new Set(whole.paths).size).toBe(2500);
  });
});

describe('newest external sort', () => {
  test('spills sorted runs to disk, merges them in order, resumes after a restart, and cleans up', async () => {
    const spillsBefore = readdirSync(tmpdir()).filter((name) => name.startsWith('inseam-newest-')).length;
    await mkdir(`${box.root}/spill`);
    const expected: string[] = [];
    for (let index = 0; index < 23; index++) {
      await writeFile(`${box.root}/spill/f${index}.txt`, 'x');
      const seconds = 1_600_000_000 + ((index * 7) % 23);
      await utimes(`${box.root}/spill/f${index}.txt`, seconds, seconds);
      expected[22 - ((index * 7) % 23)] = `spill/f${index}.txt`;
    }
    const walker = { rootPath: box.root, start: ['spill'], includeDirectories: false };
    const listings = new NewestListings(4);
    const first = await listings.page({ listing: 'spill', limit: 5, walker });
    expect(first.entries.map((entry) => entry.path)).toEqual(expected.slice(0, 5));
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('inseam-newest-')).length).toBe(spillsBefore + 1);
    const second = await listings.page({ listing: 'spill', limit: 5, walker, cursor: first.cursor! });
    expect(second.entries.map((entry) => entry.path)).toEqual(expected.slice(5, 10));
    // A new process has no merge in memory: the cursor alone carries the position.
    const restarted = new NewestListings(4);
    const rest = await restarted.page({ listing: 'spill', limit: 100, walker, cursor: second.cursor! });
    expect(rest.entries.map((entry) => entry.path)).toEqual(expected.slice(10));
    expect(rest.cursor).toBeUndefined();
    await listings.close();
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('inseam-newest-')).length).toBe(spillsBefore);
    expect(existsSync(`${box.root}/spill`)).toBe(true);
  });
});
