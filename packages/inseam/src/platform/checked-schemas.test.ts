import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from './__fixtures__/platforms.js';
import { CheckedSchemaFile } from './checked-schemas.js';
import { BUILTIN_PACKAGES } from './packages.js';
import { openPlatform } from './platform.js';
import { PlatformPaths } from './data-dir.js';

const key = (n: number) => n.toString(16).padStart(64, '0');

let dir: string;
beforeEach(async () => {
  dir = await tempDir('checked-schemas');
});
afterEach(async () => {
  await chmod(dir, 0o700);
  await removeDir(dir);
});

describe('CheckedSchemaFile', () => {
  it('keeps keys across processes, one a line', async () => {
    const path = join(dir, 'checked');
    const first = new CheckedSchemaFile(path);
    first.add(key(1));
    first.add(key(2));
    first.add(key(1));
    expect(await readFile(path, 'utf8')).toBe(`${key(1)}\n${key(2)}\n`);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const next = new CheckedSchemaFile(path);
    expect([next.has(key(1)), next.has(key(2)), next.has(key(3))]).toEqual([true, true, false]);
  });

  it('counts a file with anything but keys as empty, and never adds a non-key', async () => {
    const path = join(dir, 'checked');
    await writeFile(path, `${key(1)}\nnot a key\n`);
    const record = new CheckedSchemaFile(path);
    expect(record.has(key(1))).toBe(false);
    record.add('x'.repeat(64));
    record.add(key(0xab).toUpperCase());
    expect(await readFile(path, 'utf8')).toBe(`${key(1)}\nnot a key\n`);
  });

  it('keeps the newest 512 keys', async () => {
    const path = join(dir, 'checked');
    const record = new CheckedSchemaFile(path);
    for (let n = 1; n <= 520; n += 1) record.add(key(n));
    const kept = new CheckedSchemaFile(path);
    expect([kept.has(key(8)), kept.has(key(9)), kept.has(key(520))]).toEqual([false, true, true]);
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(512);
  });

  it('a data directory it cannot write costs a check, not a failure', async () => {
    const path = join(dir, 'checked');
    await chmod(dir, 0o500);
    const record = new CheckedSchemaFile(path);
    expect(() => record.add(key(1))).not.toThrow();
    expect(record.has(key(1))).toBe(true);
  });
});

describe('the platform', () => {
  it('records each built-in config schema at the first start and changes nothing at the next, still refusing a bad config', async () => {
    const paths = new PlatformPaths(dir);
    const first = await openPlatform({ dataDir: dir, env: {} });
    await first.close();
    const written = await readFile(paths.checkedSchemas, 'utf8');
    expect(written.split('\n').filter(Boolean)).toHaveLength(BUILTIN_PACKAGES.length);
    const before = await stat(paths.checkedSchemas);

    const second = await openPlatform({ dataDir: dir, env: {} });
    try {
      await second.networks.init('home');
      // The fs kind's validator is compiled from a schema the record vouched for; it still checks.
      await expect(second.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: dir, typo: true } })).rejects.toMatchObject({ code: 'invalid_config' });
      await expect(second.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: {} })).rejects.toMatchObject({ code: 'invalid_config' });
    } finally {
      await second.close();
    }
    expect(await readFile(paths.checkedSchemas, 'utf8')).toBe(written);
    expect((await stat(paths.checkedSchemas)).mtimeMs).toBe(before.mtimeMs);
  });
});
