import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Entry } from '@inseam/connector';
import { FolderHost } from './host.js';
import { fingerprint } from './listing.js';
import { makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
let host: FolderHost;

beforeEach(async () => {
  box = await makeSandbox();
  host = box.connector.host() as FolderHost;
});
afterEach(() => box.cleanup());

async function allNames(): Promise<{ paths: string[]; pages: number }> {
  const paths: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await host.names(cursor === undefined ? {} : { cursor });
    paths.push(...page.paths);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined);
  return { paths, pages };
}

async function allListed(): Promise<string[]> {
  const paths: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await host.list(cursor === undefined ? {} : { cursor });
    paths.push(...page.entries.map((entry: Entry) => entry.path));
    cursor = page.cursor;
  } while (cursor !== undefined);
  return paths;
}

describe('the host names-only listing', () => {
  test('lists exactly the files list() lists, in the catalog\'s order (encoded path by code unit), not the walk\'s', async () => {
    // "a-b" sorts before "a/…" by code unit but after folder "a" in a name-sorted walk; "é" and " " are encoded.
    for (const folder of ['a', 'a/b', 'c d', 'é']) await mkdir(`${box.root}/${folder}`, { recursive: true });
    for (const file of ['a-b', 'a/x', 'a/b/y', 'a0', 'c d/z.md', 'é/ü.txt', 'Z', '.hidden']) await writeFile(`${box.root}/${file}`, file);
    await writeFile(`${box.outside}/secret`, 'outside');
    await symlink(`${box.outside}/secret`, `${box.root}/escape`);
    await symlink(`${box.root}/a/x`, `${box.root}/inside-link`);
    await symlink(`${box.root}/a`, `${box.root}/folder-link`);
    const { paths } = await allNames();
    const listed = await allListed();
    expect([...paths].sort()).toEqual([...listed].sort());
    expect(paths).toEqual([...listed].sort());
    expect(paths).toEqual(['.hidden', 'Z', 'a-b', 'a/b/y', 'a/x', 'a0', 'c%20d/z.md', 'inside-link', '%C3%A9/%C3%BC.txt'].sort());
    expect(paths).not.toContain('escape');
  });

  test('pages by a cursor that resumes after its last path, on a fresh instance too', async () => {
    for (let d = 0; d < 6; d++) {
      await mkdir(`${box.root}/d${d}`);
      await Promise.all(Array.from({ length: 900 }, (_, i) => writeFile(`${box.root}/d${d}/f${String(i).padStart(3, '0')}`, '')));
    }
    const { paths, pages } = await allNames();
    expect(pages).toBe(2);
    expect(paths).toHaveLength(5400);
    expect(paths).toEqual([...paths].sort());
    // A cursor naming a path inside a folder resumes right after it, as after a restart.
    const again = box.connector.host() as FolderHost;
    const cursor = (path: string): string => Buffer.from(JSON.stringify({ v: 1, l: fingerprint('host-names'), p: path })).toString('base64url');
    expect((await again.names({ cursor: cursor('d3/f450') })).paths.slice(0, 2)).toEqual(['d3/f451', 'd3/f452']);
    expect((await again.names({ cursor: cursor('d5/f899') })).paths).toEqual([]);
    expect((await again.names({ cursor: cursor('d4') })).paths[0]).toBe('d4/f000');
    await expect(host.names({ cursor: 'bogus' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(host.names({ cursor: cursor('../etc/passwd') })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  test('stat() answers null for a hard-linked file it lists, so nothing is stored for it', async () => {
    await writeFile(`${box.root}/one`, 'x');
    await link(`${box.root}/one`, `${box.root}/two`);
    expect((await allNames()).paths).toEqual(['one', 'two']);
    expect(await host.stat('one')).toBeNull();
    expect(await allListed()).toEqual([]);
  });
});

