import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createFsConnector } from './index.js';
import { canListDirectory, parseRootToken, probePath, tokenRoot } from './root.js';
import { parseFolderSettings } from './config.js';
import { checkAbsoluteRoot } from './root.js';
import { EXEC_SESSION, makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
  await writeFile(`${box.base}/a-file`, 'not a folder');
});
afterAll(() => box.cleanup());

describe('a root that is missing or not a folder', () => {
  test.each([
    ['missing', () => `${box.base}/does-not-exist`],
    ['a file', () => `${box.base}/a-file`],
  ])('a root that is %s: every call is unavailable with reason fs_unreachable, and the probe says so', async (_what, root) => {
    const connector = createFsConnector(box.context({ root: root() }));
    expect(await connector.probeConnection()).toEqual({ connected: false, reason: 'fs_unreachable' });
    const calls: (() => Promise<unknown>)[] = [
      () => connector.list('box://'),
      () => connector.list('box://sub'),
      () => connector.read('box://a.txt'),
      () => connector.stat('box://a.txt'),
      () => connector.write('box://a.txt', 'x'),
      () => connector.delete('box://a.txt'),
      () => connector.resolveOsUri('box://'),
      () => connector.exec({ command: 'true', cwd: 'box://' }, { session: EXEC_SESSION }),
      () => connector.host().list({}),
      () => connector.host().list({ prefix: 'sub/' }),
      () => connector.host().stat('a.txt'),
      () => connector.host().read('a.txt'),
    ];
    for (const call of calls) {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'fs_unreachable' } });
      expect((error as Error).message).not.toContain(box.base);
    }
  });

  test('the source comes back once the folder appears', async () => {
    const connector = createFsConnector(box.context({ root: `${box.base}/late` }));
    expect((await connector.probeConnection()).connected).toBe(false);
    await mkdir(`${box.base}/late`);
    expect(await connector.probeConnection()).toEqual({ connected: true });
    expect((await connector.list('box://')).entries).toEqual([]);
    await rm(`${box.base}/late`, { recursive: true });
  });

  test('a healthy root probes connected and resolveOsUri gives the real host path', async () => {
    expect(await box.connector.probeConnection()).toEqual({ connected: true });
    await symlink(box.root, `${box.base}/root-link`);
    const viaLink = createFsConnector(box.context({ root: `${box.base}/root-link` }));
    expect(await viaLink.resolveOsUri('box://')).toBe(box.root);
    await expect(viaLink.resolveOsUri('box://missing.txt')).rejects.toMatchObject({ code: 'not_found' });
  });

  test('probePath reports fs_permission for an unreadable folder, judged from its mode bits', async () => {
    expect(await probePath(box.root)).toEqual({ connected: true });
    const stats = { uid: 1000, gid: 1000, mode: 0o40700 };
    expect(canListDirectory(stats, { uid: 1000, gids: [1000] })).toBe(true);
    expect(canListDirectory(stats, { uid: 1001, gids: [1000] })).toBe(false);
    expect(canListDirectory({ ...stats, mode: 0o40750 }, { uid: 1001, gids: [1000] })).toBe(true);
    expect(canListDirectory({ ...stats, mode: 0o40744 }, { uid: 1002, gids: [1002] })).toBe(false);
    expect(canListDirectory({ ...stats, mode: 0o40755 }, { uid: 1002, gids: [1002] })).toBe(true);
    expect(canListDirectory(stats, { uid: 0, gids: [0] })).toBe(true);
  });
});

describe('config', () => {
  test('fs roots must be absolute; unknown fields and bad values are invalid_config', () => {
    for (const config of [{ root: 'relative' }, { root: '' }, {}, { root: '/a', extra: 1 }, { root: '/a', textCapBytes: 0 }, { root: '/a', inlineCaps: { gif: 1 } }, { root: '/a', stateDir: 'rel' }, { root: '/a', execEnvAllowlist: ['BAD NAME'] }]) {
      expect(() => parseFolderSettings(config, checkAbsoluteRoot)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
    expect(parseFolderSettings({ root: '/srv' }, checkAbsoluteRoot)).toMatchObject({ root: '/srv', textCapBytes: 1024 * 1024, inlineCaps: { image: 5 * 1024 * 1024 } });
  });

  test('the factory needs an absolute projectRoot and a URI-scheme source slug', () => {
    expect(() => createFsConnector({ ...box.context(), projectRoot: undefined })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => createFsConnector({ ...box.context(), source: 'Not A Slug' })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  test('local root tokens: the allow-list, optional sub paths, and nothing else', () => {
    expect(parseRootToken('data')).toEqual({ token: 'data', subPath: [] });
    expect(parseRootToken('_packages/a/b')).toEqual({ token: '_packages', subPath: ['a', 'b'] });
    expect(parseRootToken('${appRoot}/zone')).toEqual({ token: '${appRoot}', subPath: ['zone'] });
    for (const root of ['/abs', 'data/../x', 'data/./x', 'data//x', '${home}', 'other', '', 'data/a\\b', 'datax']) {
      expect(() => parseRootToken(root)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
    expect(() => tokenRoot('${appRoot}', { projectRoot: '/p' })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => tokenRoot('data', {})).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});
