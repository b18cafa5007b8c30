/**
 * Attacks on the root boundary through every method: symlinks planted inside the root that point
 * out of it (to a folder, a file, nothing), `..` in every spelling, and paths that are not
 * canonical. Each must fail with a typed error whose message names no host path, and nothing
 * outside the root may be read, listed, written, created or deleted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Connector } from '@inseam/connector';
import { EXEC_SESSION, collect, makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

const SECRET = 'TOP-SECRET-OUTSIDE';
let box: Sandbox;
let host: Connector;

beforeAll(async () => {
  box = await makeSandbox();
  host = box.connector.host();
  await writeFile(`${box.outside}/secret.txt`, SECRET);
  await mkdir(`${box.outside}/deeper`);
  await writeFile(`${box.outside}/deeper/more.txt`, SECRET);
  await writeFile(`${box.root}/inside.txt`, 'inside');
  await mkdir(`${box.root}/sub`);
  await writeFile(`${box.root}/sub/note.md`, '# note');
  await symlink(box.outside, `${box.root}/link-out`);
  await symlink(`${box.outside}/secret.txt`, `${box.root}/link-secret`);
  await symlink('../../outside/secret.txt', `${box.root}/sub/relative-out`);
  await symlink(`${box.outside}/created-by-attack.txt`, `${box.root}/dangling`);
  await symlink(`${box.root}/inside.txt`, `${box.root}/link-in`);
});
afterAll(() => box.cleanup());

/** Runs `action`, expects a ConnectorError with `code`, and checks its message leaks no host path. */
async function refused(action: () => Promise<unknown>, code: string): Promise<void> {
  let caught: unknown;
  try {
    await action();
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected ${code}`).toMatchObject({ code });
  const text = `${(caught as Error).message} ${JSON.stringify((caught as { details?: unknown }).details)}`;
  expect(text).not.toContain(box.base);
  expect(text).not.toContain(SECRET);
}

function outsideUnchanged(): void {
  expect(readFileSync(`${box.outside}/secret.txt`, 'utf8')).toBe(SECRET);
  expect(readFileSync(`${box.outside}/deeper/more.txt`, 'utf8')).toBe(SECRET);
  expect(existsSync(`${box.outside}/created-by-attack.txt`)).toBe(false);
  expect(existsSync(`${box.outside}/new.txt`)).toBe(false);
}

describe('symlink escapes through the port', () => {
  test('list', async () => {
    await refused(() => box.connector.list('box://link-out'), 'containment_violation');
    await refused(() => box.connector.list('box://link-out/deeper'), 'containment_violation');
    const page = await box.connector.list('box://');
    const names = page.entries.map((entry) => entry.name);
    expect(names).toEqual(['inside.txt', 'link-in', 'sub']);
    expect(page.entries.find((entry) => entry.name === 'link-in')).toMatchObject({ type: 'file', size: 6 });
  });

  test('read', async () => {
    await refused(() => box.connector.read('box://link-secret'), 'containment_violation');
    await refused(() => box.connector.read('box://link-out/secret.txt'), 'containment_violation');
    await refused(() => box.connector.read('box://sub/relative-out'), 'containment_violation');
    await refused(() => box.connector.read('box://dangling'), 'containment_violation');
    expect((await box.connector.read('box://link-in')).text).toBe('inside');
  });

  test('write', async () => {
    await refused(() => box.connector.write('box://link-out/new.txt', 'attack'), 'containment_violation');
    await refused(() => box.connector.write('box://link-out/deeper/more.txt', 'attack'), 'containment_violation');
    await refused(() => box.connector.write('box://link-secret', 'attack'), 'containment_violation');
    await refused(() => box.connector.write('box://sub/relative-out', 'attack'), 'containment_violation');
    await refused(() => box.connector.write('box://dangling', 'attack'), 'containment_violation');
    await refused(() => box.connector.write('box://link-out/fresh/dir/new.txt', 'attack'), 'containment_violation');
    outsideUnchanged();
  });

  test('create-only onto a dangling symlink is already_exists and follows nothing', async () => {
    await refused(() => box.connector.write('box://dangling', 'attack', { createOnly: true }), 'already_exists');
    outsideUnchanged();
  });

  test('stat', async () => {
    await refused(() => box.connector.stat('box://link-out'), 'containment_violation');
    await refused(() => box.connector.stat('box://link-secret'), 'containment_violation');
    await expect(box.connector.stat('box://link-in')).resolves.toMatchObject({ type: 'file', size: 6 });
  });

  test('delete removes a link itself, never what it points at, and never reaches through one', async () => {
    await refused(() => box.connector.delete('box://link-out/secret.txt'), 'containment_violation');
    await refused(() => box.connector.delete('box://link-out/deeper', { recursive: true }), 'containment_violation');
    outsideUnchanged();
    await symlink(`${box.outside}/secret.txt`, `${box.root}/disposable-link`);
    await box.connector.delete('box://disposable-link');
    expect(existsSync(`${box.root}/disposable-link`)).toBe(false);
    outsideUnchanged();
  });

  test('exec cwd', async () => {
    await refused(() => box.connector.exec({ command: 'pwd', cwd: 'box://link-out' }, { session: EXEC_SESSION }), 'containment_violation');
    await refused(() => box.connector.detached.start({ command: 'pwd', cwd: 'box://link-out/deeper' }, { session: EXEC_SESSION }), 'containment_violation');
  });

  test('walk and scanContent never leave the root', async () => {
    const walked = await collect(box.connector.walk('box://'));
    expect(walked.map((entry) => entry.uri)).toEqual(['box://inside.txt', 'box://link-in', 'box://sub', 'box://sub/note.md']);
    await expect(collect(box.connector.walk('box://link-out'))).rejects.toMatchObject({ code: 'containment_violation' });
    const scanned = await collect(box.connector.scanContent('box://'));
    expect(scanned.map((chunk) => chunk.text ?? '').join('')).not.toContain(SECRET);
  });

  test('resolveOsUri', async () => {
    await refused(() => box.connector.resolveOsUri('box://link-out/secret.txt'), 'containment_violation');
    expect(await box.connector.resolveOsUri('box://link-in')).toBe(`${box.root}/inside.txt`);
  });
});

describe('symlink escapes through the host Connector', () => {
  test('list leaves escaping links out', async () => {
    const page = await host.list({});
    expect(page.entries.map((entry) => entry.path)).toEqual(['inside.txt', 'link-in', 'sub/note.md']);
    expect((await host.list({ prefix: 'link-out/' })).entries).toEqual([]);
  });

  test('stat, read, write and delete refuse', async () => {
    await refused(() => host.stat('link-secret'), 'containment_violation');
    await refused(() => host.read('link-out/secret.txt'), 'containment_violation');
    await refused(() => host.write!('link-out/new.txt', new Blob(['attack']).stream()), 'containment_violation');
    await refused(() => host.delete!('link-out/secret.txt'), 'containment_violation');
    outsideUnchanged();
  });
});

describe('non-canonical and climbing paths', () => {
  const uris = [
    'box://..',
    'box://../outside/secret.txt',
    'box://sub/../../outside/secret.txt',
    'box://%2E%2E/outside/secret.txt',
    'box://sub/%2e%2e/%2e%2e/outside',
    'box://sub/..%2F..%2Foutside%2Fsecret.txt',
    'box://%2Fetc%2Fpasswd',
    'box://sub//note.md',
    'box://./inside.txt',
    'box://bad%ZZescape',
    'other://inside.txt',
    '/etc/passwd',
  ];

  test.each(uris)('%s is invalid_uri on every port method', async (uri) => {
    await refused(() => box.connector.read(uri), 'invalid_uri');
    await refused(() => box.connector.list(uri), 'invalid_uri');
    await refused(() => box.connector.stat(uri), 'invalid_uri');
    await refused(() => box.connector.write(uri, 'x'), 'invalid_uri');
    await refused(() => box.connector.delete(uri), 'invalid_uri');
    await refused(() => box.connector.resolveOsUri(uri), 'invalid_uri');
    await refused(() => box.connector.exec({ command: 'true', cwd: uri }, { session: EXEC_SESSION }), 'invalid_uri');
    await refused(() => collect(box.connector.walk(uri)), 'invalid_uri');
    outsideUnchanged();
  });

  test.each(['../outside/secret.txt', '%2E%2E/outside/secret.txt', 'sub/..%2F..%2Foutside', '/etc/passwd', 'sub//note.md'])(
    'host path %s is invalid_uri',
    async (path) => {
      await refused(() => host.stat(path), 'invalid_uri');
      await refused(() => host.read(path), 'invalid_uri');
      await refused(() => host.write!(path, new Blob(['x']).stream()), 'invalid_uri');
      await refused(() => host.delete!(path), 'invalid_uri');
    },
  );

  test('a host list prefix is a filter: a climbing folder part is invalid_uri, a climbing partial name matches nothing', async () => {
    for (const prefix of ['../outside/', '%2E%2E/outside/secret', '/etc/', 'sub//note.md', 'sub//']) {
      await refused(() => host.list({ prefix }), 'invalid_uri');
    }
    expect((await host.list({ prefix: 'sub/..%2F..%2Foutside' })).entries).toEqual([]);
    expect((await host.list({ prefix: 'sub/no' })).entries.map((entry) => entry.path)).toEqual(['sub/note.md']);
  });
});
