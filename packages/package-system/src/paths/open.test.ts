import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, readdir, readlink, symlink } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTACKS, caught, expectContainedError, makeSandbox, plantTree } from './__fixtures__/sandbox.js';
import type { Sandbox } from './__fixtures__/sandbox.js';
import { listContained } from './list.js';
import { openContainedHandle } from './open.js';
import type { OpenContainedOptions } from './open.js';

let sandbox: Sandbox;
let socketServer: Server;

beforeAll(async () => {
  sandbox = await makeSandbox();
  await plantTree(sandbox);
  await mkdir(join(sandbox.root, 'special'));
  execFileSync('mkfifo', [join(sandbox.root, 'special', 'fifo')]);
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(join(sandbox.root, 'special', 'socket'), resolve));
  await symlink('/dev/null', join(sandbox.root, 'special', 'to-dev-null'));
  await symlink(sandbox.root, join(sandbox.base, 'root-link'));
});

afterAll(async () => {
  await new Promise<void>((resolve) => socketServer.close(() => resolve()));
  await sandbox.cleanup();
});

async function readThrough(root: string, relative: string, options?: OpenContainedOptions): Promise<string> {
  const handle = await openContainedHandle(root, relative, options);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

async function realPathOf(root: string, relative: string, options?: OpenContainedOptions): Promise<string> {
  const handle = await openContainedHandle(root, relative, options);
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } finally {
    await handle.close();
  }
}

function openDescriptorCount(): number {
  return readdirSync('/proc/self/fd').length;
}

describe('openContainedHandle: reads', () => {
  it('spec: returns an open FileHandle on the file inside the root', async () => {
    expect(await readThrough(sandbox.root, 'notes/a.txt')).toBe('inside a');
    expect(await readThrough(sandbox.root, 'notes/sub/b.txt')).toBe('inside b');
  });

  it('spec: percent-encoded input is taken literally', async () => {
    expect(await readThrough(sandbox.root, '%2e%2e/inner.txt')).toBe('percent is literal');
  });

  it('spec: symlinks whose targets stay inside the root are followed, descriptor by descriptor', async () => {
    expect(await readThrough(sandbox.root, 'alias/a.txt')).toBe('inside a');
    expect(await readThrough(sandbox.root, 'abs-alias/sub/b.txt')).toBe('inside b');
    expect(await readThrough(sandbox.root, 'up-and-in/a.txt')).toBe('inside a');
    expect(await readThrough(sandbox.root, 'self/self/a-link')).toBe('inside a');
    expect(await realPathOf(sandbox.root, 'a-link')).toBe(join(sandbox.root, 'notes', 'a.txt'));
  });

  it("spec: a root that is itself a symlink is allowed; the root's real path is the anchor", async () => {
    const viaLink = join(sandbox.base, 'root-link');
    expect(await readThrough(viaLink, 'notes/a.txt')).toBe('inside a');
    expect(await realPathOf(viaLink, '', { expect: 'directory' })).toBe(sandbox.root);
    expectContainedError(await caught(() => openContainedHandle(viaLink, 'to-outside-file')), 'containment_violation', sandbox.forbidden);
  });

  it("spec: a root given with a trailing slash or '..' anchors at the same real path", async () => {
    expect(await readThrough(`${sandbox.root}/`, 'notes/a.txt')).toBe('inside a');
    expect(await readThrough(`${sandbox.root}/../data`, 'alias/a.txt')).toBe('inside a');
    expect(await realPathOf(`${sandbox.root}/`, '', { expect: 'directory' })).toBe(sandbox.root);
  });

  it("spec: '' opens the root as a directory", async () => {
    expect(await realPathOf(sandbox.root, '', { expect: 'directory' })).toBe(sandbox.root);
    expect(await realPathOf(sandbox.root, 'notes/..', { expect: 'any' })).toBe(sandbox.root);
  });

  it('spec: the expected type is checked on the opened descriptor', async () => {
    expectContainedError(await caught(() => openContainedHandle(sandbox.root, 'notes')), 'is_a_directory', sandbox.forbidden);
    expectContainedError(await caught(() => openContainedHandle(sandbox.root, '')), 'is_a_directory', sandbox.forbidden);
    expectContainedError(
      await caught(() => openContainedHandle(sandbox.root, 'notes/a.txt', { expect: 'directory' })),
      'not_a_directory',
      sandbox.forbidden,
    );
    expect(await realPathOf(sandbox.root, 'notes', { expect: 'any' })).toBe(join(sandbox.root, 'notes'));
    expect(await realPathOf(sandbox.root, 'a-link', { expect: 'any' })).toBe(join(sandbox.root, 'notes', 'a.txt'));
  });

  it('spec: a directory handle lists exactly the directory that was checked', async () => {
    const handle = await openContainedHandle(sandbox.root, 'alias', { expect: 'directory' });
    try {
      const names: string[] = [];
      for await (const entry of listContained(`/proc/self/fd/${handle.fd}`)) names.push(entry.name);
      expect(names.sort()).toEqual(['a.txt', 'sub']);
    } finally {
      await handle.close();
    }
  });

  for (const attack of ATTACKS) {
    it(`spec: openContainedHandle answers ${attack.code}, never a path, for ${attack.rule}`, async () => {
      const error = await caught(() => openContainedHandle(sandbox.root, attack.relative(sandbox), { expect: 'any' }));
      expectContainedError(error, attack.code, sandbox.forbidden);
    });
  }

  it('spec: a missing target, root or parent answers not_found', async () => {
    expectContainedError(await caught(() => openContainedHandle(sandbox.root, 'notes/none.txt')), 'not_found', sandbox.forbidden);
    expectContainedError(await caught(() => openContainedHandle(sandbox.root, 'none/a.txt')), 'not_found', sandbox.forbidden);
    expectContainedError(await caught(() => openContainedHandle(join(sandbox.base, 'none'), 'a')), 'not_found', sandbox.forbidden);
  });

  it('spec: a file used as a directory answers not_a_directory', async () => {
    expectContainedError(await caught(() => openContainedHandle(sandbox.root, 'notes/a.txt/x')), 'not_a_directory', sandbox.forbidden);
    expectContainedError(await caught(() => openContainedHandle(join(sandbox.root, 'notes', 'a.txt'), 'x')), 'not_a_directory', sandbox.forbidden);
  });

  it('spec: a dangling symlink whose target lies inside answers not_found (resolved textually, never by the kernel)', async () => {
    expectContainedError(await caught(() => openContainedHandle(sandbox.root, 'dangling-in')), 'not_found', sandbox.forbidden);
  });

  it('spec: the source root must be an absolute path', async () => {
    expectContainedError(await caught(() => openContainedHandle('data', 'notes/a.txt')), 'invalid_path', sandbox.forbidden);
  });
});

describe('openContainedHandle: special files', () => {
  it('spec: a FIFO is refused at once with unsupported_file_type (O_NONBLOCK, never hangs)', async () => {
    for (const expected of ['file', 'any'] as const) {
      const error = await caught(() => openContainedHandle(sandbox.root, 'special/fifo', { expect: expected }));
      expectContainedError(error, 'unsupported_file_type', sandbox.forbidden);
    }
  });

  it('spec: a unix socket is refused with unsupported_file_type', async () => {
    const error = await caught(() => openContainedHandle(sandbox.root, 'special/socket', { expect: 'any' }));
    expectContainedError(error, 'unsupported_file_type', sandbox.forbidden);
  });

  it('spec: a device is refused with unsupported_file_type', async () => {
    for (const device of ['null', 'zero', 'urandom']) {
      const error = await caught(() => openContainedHandle('/dev', device, { expect: 'any' }));
      expectContainedError(error, 'unsupported_file_type', sandbox.forbidden);
    }
  });

  it('spec: a symlink to a device outside the root is a containment_violation', async () => {
    const error = await caught(() => openContainedHandle(sandbox.root, 'special/to-dev-null', { expect: 'any' }));
    expectContainedError(error, 'containment_violation', sandbox.forbidden);
  });

  it('spec: creating over a FIFO or socket is refused as already_exists', async () => {
    for (const name of ['fifo', 'socket']) {
      const error = await caught(() => openContainedHandle(sandbox.root, `special/${name}`, { access: 'create' }));
      expectContainedError(error, 'already_exists', sandbox.forbidden);
    }
  });
});

describe('openContainedHandle: create', () => {
  it('spec: create makes a new regular file and returns a writable handle', async () => {
    const handle = await openContainedHandle(sandbox.root, 'alias/created.txt', { access: 'create', createMode: 0o600 });
    try {
      await handle.writeFile('written');
    } finally {
      await handle.close();
    }
    expect(await readFile(join(sandbox.root, 'notes', 'created.txt'), 'utf8')).toBe('written');
    expect((await lstat(join(sandbox.root, 'notes', 'created.txt'))).mode & 0o777).toBe(0o600);
  });

  it('spec: create is create-only; an existing file answers already_exists and is left intact', async () => {
    const error = await caught(() => openContainedHandle(sandbox.root, 'notes/a.txt', { access: 'create' }));
    expectContainedError(error, 'already_exists', sandbox.forbidden);
    expect(await readFile(join(sandbox.root, 'notes', 'a.txt'), 'utf8')).toBe('inside a');
  });

  it('spec: create never follows a dangling symlink (O_CREAT|O_EXCL|O_NOFOLLOW)', async () => {
    const error = await caught(() => openContainedHandle(sandbox.root, 'dangling-out', { access: 'create' }));
    expectContainedError(error, 'already_exists', sandbox.forbidden);
    expect(await readdir(sandbox.outside)).toEqual(['secret.txt']);
  });

  it('spec: create through a symlinked directory leading outside is a containment_violation', async () => {
    for (const relative of ['to-outside-dir/planted.txt', 'via-proc-root-dir/planted.txt', 'dangling-dir/planted.txt']) {
      const error = await caught(() => openContainedHandle(sandbox.root, relative, { access: 'create' }));
      expectContainedError(error, 'containment_violation', sandbox.forbidden);
    }
    expect(await readdir(sandbox.outside)).toEqual(['secret.txt']);
  });

  it('spec: create does not make missing parents', async () => {
    const error = await caught(() => openContainedHandle(sandbox.root, 'notes/missing/new.txt', { access: 'create' }));
    expectContainedError(error, 'not_found', sandbox.forbidden);
  });

  it('spec: create of the root answers already_exists', async () => {
    expectContainedError(await caught(() => openContainedHandle(sandbox.root, '', { access: 'create' })), 'already_exists', sandbox.forbidden);
  });

  for (const attack of ATTACKS.filter((candidate) => candidate.code !== 'not_found')) {
    it(`spec: create answers ${attack.code} for ${attack.rule}`, async () => {
      const error = await caught(() => openContainedHandle(sandbox.root, attack.relative(sandbox), { access: 'create' }));
      // A symlink at the last name is an existing entry for a create-only open, and is never followed.
      expectContainedError(error, attack.leafIsLink === true ? 'already_exists' : attack.code, sandbox.forbidden);
      expect(await readdir(sandbox.outside)).toEqual(['secret.txt']);
    });
  }
});

describe('openContainedHandle: descriptors', () => {
  it('spec: every descriptor opened on the way is closed, on success and on every error', async () => {
    const before = openDescriptorCount();
    const attempts = [
      ...ATTACKS.map((attack) => attack.relative(sandbox)),
      'notes/a.txt',
      'alias/sub/b.txt',
      'special/fifo',
      'special/socket',
      'notes/none.txt',
      'notes/a.txt/x',
    ];
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        attempts.map(async (relative) => {
          try {
            const handle = await openContainedHandle(sandbox.root, relative, { expect: 'any' });
            await handle.close();
          } catch {
            // Errors are the point here; only the descriptor count matters.
          }
        }),
      );
    }
    // Descriptors on the way are closed without awaiting; give the thread pool a moment.
    for (let wait = 0; wait < 50 && openDescriptorCount() > before; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(openDescriptorCount()).toBe(before);
  });
});
