/**
 * Attacks on the root boundary on the machine's side, through every method: symlinks planted
 * inside the root that point out of it (to a folder, a file, nothing), `..` in every spelling,
 * non-canonical paths, and a folder swapped for a link between the check and the open. Each must
 * fail with a typed error whose message names no path on the machine, and nothing outside the
 * root may be read, listed, written, created or deleted. (The sshd runs on this machine, so the
 * tests plant and look at files directly.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { collect, machinePort } from './__fixtures__/machine.js';
import { startSshd } from './__fixtures__/sshd.mjs';
import type { SshdFixture } from './__fixtures__/sshd.mjs';
import type { MachinePort } from './port.js';

const SECRET = 'TOP-SECRET-OUTSIDE';
let sshd: SshdFixture;
let port: MachinePort;

beforeAll(async () => {
  sshd = await startSshd();
  port = machinePort(sshd);
  const { root, outside } = sshd;
  await writeFile(`${outside}/secret.txt`, SECRET);
  await mkdir(`${outside}/deeper`);
  await writeFile(`${outside}/deeper/more.txt`, SECRET);
  await writeFile(`${root}/inside.txt`, 'inside');
  await mkdir(`${root}/sub`);
  await writeFile(`${root}/sub/note.md`, '# note');
  await symlink(outside, `${root}/link-out`);
  await symlink(`${outside}/secret.txt`, `${root}/link-secret`);
  await symlink('../../outside/secret.txt', `${root}/sub/relative-out`);
  await symlink(`${outside}/created-by-attack.txt`, `${root}/dangling`);
  await symlink(`${root}/inside.txt`, `${root}/link-in`);
});
afterAll(async () => {
  port.dispose();
  await sshd.close();
});

async function refused(action: () => Promise<unknown>, code: string): Promise<void> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected ${code}`).toMatchObject({ code });
  const text = `${(caught as Error).message} ${JSON.stringify((caught as { details?: unknown }).details)}`;
  expect(text).not.toContain(sshd.base);
  expect(text).not.toContain(SECRET);
}

function outsideUnchanged(): void {
  expect(readFileSync(`${sshd.outside}/secret.txt`, 'utf8')).toBe(SECRET);
  expect(readFileSync(`${sshd.outside}/deeper/more.txt`, 'utf8')).toBe(SECRET);
  expect(existsSync(`${sshd.outside}/created-by-attack.txt`)).toBe(false);
  expect(existsSync(`${sshd.outside}/new.txt`)).toBe(false);
}

describe('symlink escapes', () => {
  test('list', async () => {
    await refused(() => port.list('box://link-out'), 'containment_violation');
    await refused(() => port.list('box://link-out/deeper'), 'containment_violation');
    const page = await port.list('box://');
    expect(page.entries.map((entry) => entry.name)).toEqual(['inside.txt', 'link-in', 'sub']);
    expect(page.entries.find((entry) => entry.name === 'link-in')).toMatchObject({ type: 'file', size: 6 });
  });

  test('read and readStream', async () => {
    await refused(() => port.read('box://link-secret'), 'containment_violation');
    await refused(() => port.read('box://link-out/secret.txt'), 'containment_violation');
    await refused(() => port.read('box://sub/relative-out'), 'containment_violation');
    await refused(() => port.read('box://dangling'), 'containment_violation');
    await refused(() => port.readStream('box://link-secret'), 'containment_violation');
    expect((await port.read('box://link-in')).text).toBe('inside');
  });

  test('write', async () => {
    await refused(() => port.write('box://link-out/new.txt', 'attack'), 'containment_violation');
    await refused(() => port.write('box://link-out/deeper/more.txt', 'attack'), 'containment_violation');
    await refused(() => port.write('box://link-secret', 'attack'), 'containment_violation');
    await refused(() => port.write('box://sub/relative-out', 'attack'), 'containment_violation');
    await refused(() => port.write('box://dangling', 'attack'), 'containment_violation');
    await refused(() => port.write('box://link-out/fresh/dir/new.txt', 'attack'), 'containment_violation');
    expect(existsSync(`${sshd.outside}/fresh`)).toBe(false);
    outsideUnchanged();
  });

  test('create-only onto a dangling symlink is already_exists and follows nothing', async () => {
    await refused(() => port.write('box://dangling', 'attack', { createOnly: true }), 'already_exists');
    outsideUnchanged();
  });

  test('stat', async () => {
    await refused(() => port.stat('box://link-out'), 'containment_violation');
    await refused(() => port.stat('box://link-secret'), 'containment_violation');
    await expect(port.stat('box://link-in')).resolves.toMatchObject({ type: 'file', size: 6 });
  });

  test('delete removes a link itself, never what it points at, and never reaches through one', async () => {
    await refused(() => port.delete('box://link-out/secret.txt'), 'containment_violation');
    await refused(() => port.delete('box://link-out/deeper', { recursive: true }), 'containment_violation');
    outsideUnchanged();
    await symlink(`${sshd.outside}/secret.txt`, `${sshd.root}/disposable-link`);
    await port.delete('box://disposable-link');
    expect(existsSync(`${sshd.root}/disposable-link`)).toBe(false);
    outsideUnchanged();
  });

  test('walk and scanContent never leave the root', async () => {
    const walked = await collect(port.walk('box://'));
    expect(walked.map((entry) => entry.uri)).toEqual(['box://inside.txt', 'box://link-in', 'box://sub', 'box://sub/note.md']);
    await expect(collect(port.walk('box://link-out'))).rejects.toMatchObject({ code: 'containment_violation' });
    const scanned = await collect(port.scanContent('box://'));
    expect(scanned.map((chunk) => chunk.text ?? '').join('')).not.toContain(SECRET);
  });
});

describe('non-canonical and climbing paths', () => {
  const uris = [
    'box://..',
    'box://../outside/secret.txt',
    'box://sub/../../outside/secret.txt',
    'box://%2E%2E/outside/secret.txt',
    'box://sub/%2e%2e/%2e%2e/outside',
    'box://sub//note.md',
    'box://./inside.txt',
    'box://bad%ZZescape',
    'other://inside.txt',
    '/etc/passwd',
  ];

  test.each(uris)('%s is invalid_uri on every method', async (uri) => {
    await refused(() => port.read(uri), 'invalid_uri');
    await refused(() => port.list(uri), 'invalid_uri');
    await refused(() => port.stat(uri), 'invalid_uri');
    await refused(() => port.write(uri, 'x'), 'invalid_uri');
    await refused(() => port.delete(uri), 'invalid_uri');
    await refused(() => collect(port.walk(uri)), 'invalid_uri');
    outsideUnchanged();
  });

  test('an encoded slash is refused, never joined as a path', async () => {
    await refused(() => port.read('box://sub%2F..%2F..%2Foutside%2Fsecret.txt'), 'invalid_uri');
    await refused(() => port.read('box://%2Fetc%2Fpasswd'), 'invalid_uri');
    await refused(() => port.write('box://sub%2F..%2F..%2Foutside%2Fnew.txt', 'attack'), 'invalid_uri');
    outsideUnchanged();
  });
});

describe('a folder swapped for a link between the check and the open', () => {
  test('is seen when the handle is checked again, and the read is refused', async () => {
    await mkdir(`${sshd.root}/swap`);
    await writeFile(`${sshd.root}/swap/secret.txt`, 'harmless');
    await mkdir(`${sshd.outside}/swap-target`);
    await writeFile(`${sshd.outside}/swap-target/secret.txt`, SECRET);
    port.files.beforeOpen = async () => {
      await rename(`${sshd.root}/swap`, `${sshd.root}/swap-moved`);
      await symlink(`${sshd.outside}/swap-target`, `${sshd.root}/swap`);
    };
    try {
      await refused(() => port.read('box://swap/secret.txt'), 'containment_violation');
    } finally {
      port.files.beforeOpen = undefined;
    }
    await refused(() => port.read('box://swap/secret.txt'), 'containment_violation');
  });
});
