/** Where a root contains the data directory, as concealmentFor reads two real paths. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './__fixtures__/platforms.js';
import { concealTree, concealmentFor } from './concealment.js';

let base: string;

beforeAll(async () => {
  base = await tempDir('concealment');
  for (const folder of ['root/..state/inseam', 'root-other', 'data']) await mkdir(join(base, folder), { recursive: true });
});

afterAll(() => removeDir(base));

describe('concealmentFor', () => {
  it('finds a data directory below a folder whose name starts with ".."', async () => {
    const found = await concealmentFor(join(base, 'root'), join(base, 'root', '..state', 'inseam'));
    expect(found?.segments).toEqual(['..state', 'inseam']);
    expect(found?.covers(join(base, 'root', '..state', 'inseam', 'admin.token'))).toBe(true);
    expect(found?.covers(join(base, 'root', '..state', 'inseam-old'))).toBe(false);
  });

  it('conceals the whole root when it is the data directory, and nothing beside or below it', async () => {
    expect((await concealmentFor(join(base, 'data'), join(base, 'data')))?.segments).toEqual([]);
    expect(await concealmentFor(join(base, 'root-other'), join(base, 'root'))).toBeNull();
    expect(await concealmentFor(join(base, 'root', '..state'), join(base, 'root'))).toBeNull();
  });

  it('denies every right there and drops allows below it', () => {
    const tree = concealTree({ default: { read: true, write: true, exec: true }, paths: { a: { read: true }, 'a/b/c': { read: true }, 'a/bc': { write: true } } }, ['a', 'b']);
    expect(tree.paths).toEqual({ a: { read: true }, 'a/bc': { write: true }, 'a/b': { read: false, write: false, exec: false } });
  });
});
