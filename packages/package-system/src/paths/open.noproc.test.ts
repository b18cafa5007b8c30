/**
 * openContainedHandle and openContainedDescriptor rely on /proc. This file replaces readlink (both forms) so every
 * /proc/self/fd lookup fails as it would with /proc unmounted, and checks the primitive fails closed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { caught, expectContainedError, makeSandbox } from './__fixtures__/sandbox.js';
import type { Sandbox } from './__fixtures__/sandbox.js';
import { openContainedDescriptor, openContainedHandle } from './open.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    readlink: async (path: string) => {
      if (String(path).startsWith('/proc/')) throw Object.assign(new Error(`ENOENT: no such file or directory, readlink '${path}'`), { code: 'ENOENT' });
      return actual.readlink(path);
    },
  };
});

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    readlinkSync: (path: string) => {
      if (String(path).startsWith('/proc/')) throw Object.assign(new Error(`ENOENT: no such file or directory, readlink '${path}'`), { code: 'ENOENT' });
      return actual.readlinkSync(path);
    },
  };
});

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  await writeFile(join(sandbox.root, 'a.txt'), 'a');
});

afterAll(async () => {
  await sandbox.cleanup();
});

describe('openContainedHandle without /proc', () => {
  it('spec: fails closed with unavailable when /proc is not mounted (Linux /proc is relied on)', async () => {
    for (const relative of ['a.txt', 'missing.txt', '']) {
      expectContainedError(await caught(() => openContainedHandle(sandbox.root, relative, { expect: 'any' })), 'unavailable', sandbox.forbidden);
    }
    expect((await caught(() => openContainedHandle(sandbox.root, 'a.txt'))) as object).toMatchObject({ details: { reason: 'proc_unavailable' } });
  });

  it('spec: the descriptor form fails closed the same way', async () => {
    for (const relative of ['a.txt', 'missing.txt', '']) {
      expectContainedError(await caught(() => openContainedDescriptor(sandbox.root, relative, { expect: 'any' })), 'unavailable', sandbox.forbidden);
    }
  });
});
