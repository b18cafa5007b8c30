import { lstat, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS, caught, expectContainedError, makeSandbox, plantTree } from './__fixtures__/sandbox.js';
import type { Sandbox } from './__fixtures__/sandbox.js';
import { resolveContained } from './resolve.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  await plantTree(sandbox);
  await writeFile(join(sandbox.root, 'file.txt'), 'a file');
  await symlink(sandbox.root, join(sandbox.base, 'root-link'));
});

afterAll(async () => {
  await sandbox.cleanup();
});

describe('resolveContained', () => {
  it('spec: resolves to the real absolute path of a target inside the root', async () => {
    expect(await resolveContained(sandbox.root, 'notes/a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await resolveContained(sandbox.root, 'notes/sub/')).toBe(join(sandbox.root, 'notes', 'sub'));
  });

  it("spec: a root given with a trailing slash or '..' anchors at the same real path", async () => {
    expect(await resolveContained(`${sandbox.root}/`, 'notes/a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await resolveContained(`${sandbox.root}/../data`, '')).toBe(sandbox.root);
  });

  it("spec: '' and '.' name the root itself", async () => {
    expect(await resolveContained(sandbox.root, '')).toBe(sandbox.root);
    expect(await resolveContained(sandbox.root, '.')).toBe(sandbox.root);
    expect(await resolveContained(sandbox.root, 'notes/..')).toBe(sandbox.root);
  });

  it("spec: '..' that stays inside is applied lexically", async () => {
    expect(await resolveContained(sandbox.root, 'notes/sub/../a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await resolveContained(sandbox.root, './notes//a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
  });

  it('spec: percent-encoded input is taken literally, never decoded into ..', async () => {
    expect(await resolveContained(sandbox.root, '%2e%2e/inner.txt')).toBe(join(sandbox.root, '%2e%2e', 'inner.txt'));
  });

  it('spec: symlinks that stay inside the root are followed to their real path', async () => {
    const real = join(sandbox.root, 'notes', 'a.txt');
    expect(await resolveContained(sandbox.root, 'alias/a.txt')).toBe(real);
    expect(await resolveContained(sandbox.root, 'abs-alias/a.txt')).toBe(real);
    expect(await resolveContained(sandbox.root, 'up-and-in/a.txt')).toBe(real);
    expect(await resolveContained(sandbox.root, 'self/self/notes/a.txt')).toBe(real);
    expect(await resolveContained(sandbox.root, 'a-link')).toBe(real);
  });

  it("spec: a root that is itself a symlink is allowed; the root's real path is the anchor", async () => {
    const viaLink = join(sandbox.base, 'root-link');
    expect(await resolveContained(viaLink, 'notes/a.txt')).toBe(join(sandbox.root, 'notes', 'a.txt'));
    expect(await resolveContained(viaLink, '')).toBe(sandbox.root);
    expectContainedError(await caught(() => resolveContained(viaLink, 'to-outside-dir/secret.txt')), 'containment_violation', sandbox.forbidden);
  });

  it('spec: a sibling sharing the root as a string prefix is outside (/x/data vs /x/data-evil)', async () => {
    expectContainedError(await caught(() => resolveContained(sandbox.root, 'to-sibling')), 'containment_violation', sandbox.forbidden);
    // The sibling as its own root is fine, and nothing of it leaks into the data root.
    expect(await resolveContained(sandbox.sibling, 'secret.txt')).toBe(join(sandbox.sibling, 'secret.txt'));
  });

  for (const attack of ATTACKS) {
    it(`spec: resolveContained answers ${attack.code}, never a path, for ${attack.rule}`, async () => {
      const error = await caught(() => resolveContained(sandbox.root, attack.relative(sandbox)));
      expectContainedError(error, attack.code, sandbox.forbidden);
    });
  }

  it('spec: the source root must be an absolute path', async () => {
    expectContainedError(await caught(() => resolveContained('relative/root', 'a')), 'invalid_path', sandbox.forbidden);
    expectContainedError(await caught(() => resolveContained('', '')), 'invalid_path', sandbox.forbidden);
  });

  it('spec: a missing root answers not_found without naming it', async () => {
    const error = await caught(() => resolveContained(join(sandbox.base, 'no-such-root'), 'a'));
    expectContainedError(error, 'not_found', sandbox.forbidden);
  });

  it('spec: a missing target answers not_found unless allowMissing', async () => {
    expectContainedError(await caught(() => resolveContained(sandbox.root, 'notes/new.txt')), 'not_found', sandbox.forbidden);
  });

  it('spec: a file used as a directory answers not_a_directory', async () => {
    expectContainedError(await caught(() => resolveContained(sandbox.root, 'file.txt/x')), 'not_a_directory', sandbox.forbidden);
  });

  it('spec: a non-string relative path answers invalid_path', async () => {
    const error = await caught(() => resolveContained(sandbox.root, 42 as unknown as string));
    expectContainedError(error, 'invalid_path', sandbox.forbidden);
  });
});

describe('resolveContained with allowMissing (targets to create)', () => {
  it('spec: a missing leaf resolves under the real path of its existing parent', async () => {
    const resolved = await resolveContained(sandbox.root, 'alias/new.txt', { allowMissing: true });
    expect(resolved).toBe(join(sandbox.root, 'notes', 'new.txt'));
  });

  it('spec: several missing names resolve under the deepest existing ancestor', async () => {
    const resolved = await resolveContained(sandbox.root, 'notes/sub/x/y/z.txt', { allowMissing: true });
    expect(resolved).toBe(join(sandbox.root, 'notes', 'sub', 'x', 'y', 'z.txt'));
  });

  it('spec: an existing target still resolves to its real path', async () => {
    expect(await resolveContained(sandbox.root, 'a-link', { allowMissing: true })).toBe(join(sandbox.root, 'notes', 'a.txt'));
  });

  it('spec: a dangling symlink leaf is refused, never followed', async () => {
    const error = await caught(() => resolveContained(sandbox.root, 'dangling-out', { allowMissing: true }));
    expectContainedError(error, 'containment_violation', sandbox.forbidden);
    await expect(lstat(join(sandbox.outside, 'planted.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('spec: a dangling symlink in the middle of a path to create is refused, never followed', async () => {
    const error = await caught(() => resolveContained(sandbox.root, 'dangling-dir/child/file.txt', { allowMissing: true }));
    expectContainedError(error, 'containment_violation', sandbox.forbidden);
  });

  it('spec: a dangling symlink pointing inside the root is refused too (never followed)', async () => {
    const error = await caught(() => resolveContained(sandbox.root, 'dangling-in', { allowMissing: true }));
    expectContainedError(error, 'containment_violation', sandbox.forbidden);
  });

  it('spec: a missing name under a symlink to outside is a containment_violation', async () => {
    const error = await caught(() => resolveContained(sandbox.root, 'to-outside-dir/new/file.txt', { allowMissing: true }));
    expectContainedError(error, 'containment_violation', sandbox.forbidden);
    expect(await readdir(sandbox.outside)).toEqual(['secret.txt']);
  });

  for (const attack of ATTACKS.filter((candidate) => candidate.code !== 'not_found')) {
    it(`spec: resolveContained with allowMissing answers ${attack.code} for ${attack.rule}`, async () => {
      const error = await caught(() => resolveContained(sandbox.root, attack.relative(sandbox), { allowMissing: true }));
      expectContainedError(error, attack.code, sandbox.forbidden);
    });
  }

  it('spec: percent-encoded dots stay literal names under the root with allowMissing', async () => {
    const resolved = await resolveContained(sandbox.root, '%2e%2e/%2e%2e/outside/secret.txt', { allowMissing: true });
    expect(resolved).toBe(join(sandbox.root, '%2e%2e', '%2e%2e', 'outside', 'secret.txt'));
  });

  it('spec: a file in the way of a path to create answers not_a_directory', async () => {
    const error = await caught(() => resolveContained(sandbox.root, 'file.txt/new.txt', { allowMissing: true }));
    expectContainedError(error, 'not_a_directory', sandbox.forbidden);
  });

  it('spec: the root itself may be missing only as a not_found', async () => {
    const scratch = join(sandbox.base, 'scratch-root');
    await mkdir(scratch);
    await rm(scratch, { recursive: true });
    expectContainedError(await caught(() => resolveContained(scratch, 'a', { allowMissing: true })), 'not_found', sandbox.forbidden);
  });
});
