import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caught, expectContainedError, makeSandbox } from './__fixtures__/sandbox.js';
import type { Sandbox } from './__fixtures__/sandbox.js';
import { listContained } from './list.js';
import type { ContainedDirEntry } from './list.js';

const MANY = 1000;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  const { root, outside } = sandbox;
  await mkdir(join(root, 'dir'));
  await mkdir(join(root, 'many'));
  await writeFile(join(root, 'file.txt'), 'x');
  await symlink(outside, join(root, 'to-outside-dir'));
  await symlink(join(outside, 'secret.txt'), join(root, 'to-outside-file'));
  await symlink(join(outside, 'missing'), join(root, 'dangling'));
  execFileSync('mkfifo', [join(root, 'fifo')]);
  await Promise.all(Array.from({ length: MANY }, (_, index) => writeFile(join(root, 'many', `f${index}`), '')));
});

afterAll(async () => {
  await sandbox.cleanup();
});

async function collect(dir: string): Promise<ContainedDirEntry[]> {
  const entries: ContainedDirEntry[] = [];
  for await (const entry of listContained(dir)) entries.push(entry);
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

describe('listContained', () => {
  it('spec: lists name and type without following symlinks', async () => {
    expect(await collect(sandbox.root)).toEqual([
      { name: 'dangling', type: 'symlink' },
      { name: 'dir', type: 'directory' },
      { name: 'fifo', type: 'other' },
      { name: 'file.txt', type: 'file' },
      { name: 'many', type: 'directory' },
      { name: 'to-outside-dir', type: 'symlink' },
      { name: 'to-outside-file', type: 'symlink' },
    ]);
  });

  it('spec: streams every entry of a large directory', async () => {
    const names = new Set<string>();
    for await (const entry of listContained(join(sandbox.root, 'many'))) names.add(entry.name);
    expect(names.size).toBe(MANY);
    expect(names.has('f0') && names.has(`f${MANY - 1}`)).toBe(true);
  });

  it('spec: an empty directory yields nothing', async () => {
    expect(await collect(join(sandbox.root, 'dir'))).toEqual([]);
  });

  it('spec: breaking out of the loop closes the directory', async () => {
    const before = readdirSync('/proc/self/fd').length;
    for (let round = 0; round < 20; round++) {
      for await (const entry of listContained(join(sandbox.root, 'many'))) {
        expect(entry.type).toBe('file');
        break;
      }
    }
    expect(readdirSync('/proc/self/fd').length).toBe(before);
  });

  it('spec: listContained answers a fixed error code, never a path', async () => {
    expectContainedError(await caught(() => listContained(join(sandbox.root, 'none'))), 'not_found', sandbox.forbidden);
    expectContainedError(await caught(() => listContained(join(sandbox.root, 'file.txt'))), 'not_a_directory', sandbox.forbidden);
    expectContainedError(await caught(() => listContained('relative/dir')), 'invalid_path', sandbox.forbidden);
    expectContainedError(await caught(() => listContained(`${sandbox.root}\0/x`)), 'invalid_path', sandbox.forbidden);
  });

  it('spec: listContained carries no containment guarantee — it lists whatever resolved path it is given', async () => {
    // Documented behaviour: a path through a symlink is listed as-is; callers resolve first.
    expect(await collect(join(sandbox.root, 'to-outside-dir'))).toEqual([{ name: 'secret.txt', type: 'file' }]);
  });
});
