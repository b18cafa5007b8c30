/**
 * openContainedDescriptor: the same checks as openContainedHandle, answering a plain descriptor.
 * The race test in race.test.ts runs against both; this file covers the rest of the contract.
 */
import { closeSync, fstatSync, readFileSync, readdirSync, readlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS, caught, expectContainedError, makeSandbox, plantSpecialFiles, plantTree } from './__fixtures__/sandbox.js';
import type { Sandbox } from './__fixtures__/sandbox.js';
import { openContainedDescriptor } from './open.js';
import type { ExpectedEntryType } from './open.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  await plantTree(sandbox);
  await plantSpecialFiles(sandbox);
});

afterAll(async () => {
  await sandbox.cleanup();
});

async function withDescriptor<T>(root: string, relative: string, use: (fd: number) => T, expect?: ExpectedEntryType): Promise<T> {
  const fd = await openContainedDescriptor(root, relative, expect === undefined ? {} : { expect });
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

const contentOf = (fd: number): string => readFileSync(fd, 'utf8');
const realPathOf = (fd: number): string => readlinkSync(`/proc/self/fd/${fd}`);

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe('openContainedDescriptor', () => {
  it('spec: reads the file inside the root through a read-only descriptor', async () => {
    expect(await withDescriptor(sandbox.root, 'notes/a.txt', contentOf)).toBe('inside a');
    expect(await withDescriptor(sandbox.root, 'notes/sub/b.txt', (fd) => fstatSync(fd).isFile())).toBe(true);
    // Read-only: a write through it fails.
    expect(await withDescriptor(sandbox.root, 'notes/a.txt', (fd) => codeOf(() => writeSync(fd, 'x')))).toBe('EBADF');
  });

  it('spec: symlinks that stay inside are followed by the walk, and the descriptor is the target inode', async () => {
    expect(await withDescriptor(sandbox.root, 'alias/a.txt', contentOf)).toBe('inside a');
    expect(await withDescriptor(sandbox.root, 'up-and-in/a.txt', contentOf)).toBe('inside a');
    expect(await withDescriptor(sandbox.root, 'a-link', realPathOf)).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await withDescriptor(join(sandbox.base, 'root-link'), 'notes/a.txt', contentOf)).toBe('inside a');
  });

  it('spec: the expected type is checked; a directory descriptor is the checked directory', async () => {
    expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, 'notes')), 'is_a_directory', sandbox.forbidden);
    expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, 'notes/a.txt', { expect: 'directory' })), 'not_a_directory', sandbox.forbidden);
    expect(await withDescriptor(sandbox.root, 'alias', realPathOf, 'directory')).toBe(join(sandbox.root, 'notes'));
    expect(await withDescriptor(sandbox.root, '', realPathOf, 'directory')).toBe(sandbox.root);
  });

  it('spec: a FIFO or a device is refused without being opened', async () => {
    expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, 'special/fifo', { expect: 'any' })), 'unsupported_file_type', sandbox.forbidden);
    expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, 'special/to-dev-null', { expect: 'any' })), 'containment_violation', sandbox.forbidden);
  });

  for (const attack of ATTACKS) {
    it(`spec: answers ${attack.code}, never a path, for ${attack.rule}`, async () => {
      expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, attack.relative(sandbox), { expect: 'any' })), attack.code, sandbox.forbidden);
    });
  }

  it('spec: missing entries answer not_found', async () => {
    expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, 'notes/none.txt')), 'not_found', sandbox.forbidden);
    expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, 'dangling-in')), 'not_found', sandbox.forbidden);
  });

  it('spec: no descriptor but the answered one stays open, on success and on every error', async () => {
    const before = readdirSync('/proc/self/fd').length;
    const attempts = [...ATTACKS.map((attack) => attack.relative(sandbox)), 'notes/a.txt', 'alias/sub/b.txt', 'special/fifo', 'notes/none.txt', 'notes/a.txt/x'];
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        attempts.map(async (relative) => {
          try {
            closeSync(await openContainedDescriptor(sandbox.root, relative, { expect: 'any' }));
          } catch {
            // Errors are the point here; only the descriptor count matters.
          }
        }),
      );
    }
    for (let wait = 0; wait < 50 && readdirSync('/proc/self/fd').length > before; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readdirSync('/proc/self/fd').length).toBe(before);
  });
});
