/**
 * containedRealPath: the checks of openContainedHandle, answering the proven real path. The race
 * test in race.test.ts runs it under the symlink swap; this file covers the rest of the contract.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS, caught, expectContainedError, makeSandbox, plantSpecialFiles, plantTree } from './__fixtures__/sandbox.js';
import type { Sandbox } from './__fixtures__/sandbox.js';
import { containedRealPath } from './open.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  await plantTree(sandbox);
  await plantSpecialFiles(sandbox);
});

afterAll(async () => {
  await sandbox.cleanup();
});

describe('containedRealPath', () => {
  it('spec: answers the real path of a file or folder inside the root', async () => {
    expect(await containedRealPath(sandbox.root, 'notes/a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await containedRealPath(sandbox.root, 'notes/sub', { expect: 'directory' })).toBe(join(sandbox.root, 'notes', 'sub'));
    expect(await containedRealPath(sandbox.root, '', { expect: 'directory' })).toBe(sandbox.root);
    expect(await containedRealPath(sandbox.root, '%2e%2e/inner.txt')).toBe(join(sandbox.root, '%2e%2e', 'inner.txt'));
  });

  it('spec: follows symlinks that stay inside to their target, and anchors a symlinked root at its real path', async () => {
    expect(await containedRealPath(sandbox.root, 'alias/a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await containedRealPath(sandbox.root, 'up-and-in/sub/b.txt')).toBe(join(sandbox.root, 'notes', 'sub', 'b.txt'));
    expect(await containedRealPath(sandbox.root, 'a-link')).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await containedRealPath(sandbox.root, 'self/abs-alias', { expect: 'any' })).toBe(join(sandbox.root, 'notes'));
    expect(await containedRealPath(join(sandbox.base, 'root-link'), 'notes/a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
  });

  it('spec: checks the expected type, and refuses a FIFO or a device without opening it', async () => {
    expectContainedError(await caught(() => containedRealPath(sandbox.root, 'notes')), 'is_a_directory', sandbox.forbidden);
    expectContainedError(await caught(() => containedRealPath(sandbox.root, 'notes/a.txt', { expect: 'directory' })), 'not_a_directory', sandbox.forbidden);
    expectContainedError(await caught(() => containedRealPath(sandbox.root, 'special/fifo', { expect: 'any' })), 'unsupported_file_type', sandbox.forbidden);
    expectContainedError(await caught(() => containedRealPath(sandbox.root, 'special/to-dev-null', { expect: 'any' })), 'containment_violation', sandbox.forbidden);
  });

  for (const attack of ATTACKS) {
    it(`spec: answers ${attack.code}, never a path, for ${attack.rule}`, async () => {
      expectContainedError(await caught(() => containedRealPath(sandbox.root, attack.relative(sandbox), { expect: 'any' })), attack.code, sandbox.forbidden);
    });
  }

  it('spec: missing entries answer not_found; a file used as a folder answers not_a_directory', async () => {
    expectContainedError(await caught(() => containedRealPath(sandbox.root, 'notes/none.txt')), 'not_found', sandbox.forbidden);
    expectContainedError(await caught(() => containedRealPath(sandbox.root, 'dangling-in')), 'not_found', sandbox.forbidden);
    expectContainedError(await caught(() => containedRealPath(sandbox.root, 'notes/a.txt/x', { expect: 'any' })), 'not_a_directory', sandbox.forbidden);
  });

  it('spec: leaves no descriptor open, on success and on every error', async () => {
    const before = readdirSync('/proc/self/fd').length;
    const attempts = [...ATTACKS.map((attack) => attack.relative(sandbox)), 'notes/a.txt', 'alias/sub/b.txt', 'special/fifo', 'notes/none.txt', 'notes/a.txt/x'];
    for (let round = 0; round < 5; round++) {
      await Promise.all(attempts.map((relative) => containedRealPath(sandbox.root, relative, { expect: 'any' }).catch(() => undefined)));
    }
    for (let wait = 0; wait < 50 && readdirSync('/proc/self/fd').length > before; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readdirSync('/proc/self/fd').length).toBe(before);
  });
});
