import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import { compileConfigValidator, validateManifest } from '@neuralis/package-system/manifest';
import { FS_CONNECTOR_ENTRY } from '@inseam/connector-fs';
import * as publicApi from './index.js';
import { APP_ROOT_ENV, LOCAL_CONNECTOR_ENTRY, LOCAL_PACKAGE_ID, createLocalConnector, createLocalConnectorFactory, createLocalHost } from './index.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; neuralis: unknown };

let base: string;
let projectRoot: string;
let appRoot: string;
const context = (root: string): ConnectorFactoryContext => ({
  packageId: LOCAL_PACKAGE_ID,
  packageRoot: base,
  source: 'files',
  config: { root },
  projectRoot,
  scope: 'project',
});

beforeAll(async () => {
  base = realpathSync(await mkdtemp(`${tmpdir()}/inseam-local-`));
  projectRoot = `${base}/project`;
  appRoot = `${base}/app`;
  await mkdir(`${projectRoot}/data/reports`, { recursive: true });
  await mkdir(`${projectRoot}/_packages/pkg`, { recursive: true });
  await mkdir(`${appRoot}/zone`, { recursive: true });
  await mkdir(`${base}/outside`);
  await writeFile(`${projectRoot}/data/reports/q1.md`, 'q1');
  await writeFile(`${projectRoot}/_packages/pkg/package.json`, '{}');
  await writeFile(`${appRoot}/zone/app.txt`, 'app');
  await writeFile(`${base}/outside/secret.txt`, 'secret');
  await symlink(`${base}/outside`, `${projectRoot}/data/escape`);
  await symlink(`${projectRoot}/data/reports`, `${projectRoot}/data/alias`);
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('manifest', () => {
  test('package.json carries exactly the entry src/manifest.ts declares, and it validates', () => {
    expect(packageJson.name).toBe(LOCAL_PACKAGE_ID);
    expect(packageJson.neuralis).toEqual({ id: LOCAL_PACKAGE_ID, connectors: [JSON.parse(JSON.stringify(LOCAL_CONNECTOR_ENTRY))] });
    expect(validateManifest(packageJson.neuralis, { trust: 'first-party' }).connectors?.[0]).toMatchObject({ kind: 'local', category: 'disk' });
  });

  test('same capabilities and settings as fs; only the root differs', () => {
    expect(LOCAL_CONNECTOR_ENTRY.capabilities).toEqual(FS_CONNECTOR_ENTRY.capabilities);
    expect(LOCAL_CONNECTOR_ENTRY.execRequires).toEqual(FS_CONNECTOR_ENTRY.execRequires);
    const { root: localRoot, ...localRest } = LOCAL_CONNECTOR_ENTRY.configSchema.properties;
    const { root: fsRoot, ...fsRest } = FS_CONNECTOR_ENTRY.configSchema.properties;
    expect(localRest).toEqual(fsRest);
    expect(localRoot).not.toEqual(fsRoot);
  });

  test('the config schema takes root tokens and refuses absolute paths, "..", and unknown tokens', () => {
    const validate = compileConfigValidator(LOCAL_CONNECTOR_ENTRY.configSchema);
    for (const root of ['data', '_packages', '${appRoot}', 'data/reports/2024', '${appRoot}/zone']) expect(validate({ root })).toEqual({ root });
    for (const root of ['/etc', 'data/../x', 'home', '${home}', 'data//x', 'data\\x']) {
      expect(() => validate({ root }), root).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });

  test('the package exports exactly its named public API', () => {
    expect(Object.keys(publicApi).sort()).toEqual(
      ['APP_ROOT_ENV', 'LOCAL_CONNECTOR_ENTRY', 'LOCAL_PACKAGE_ID', 'createLocalConnector', 'createLocalConnectorFactory', 'createLocalHost', 'createLocalPort'].sort(),
    );
  });
});

describe('root tokens', () => {
  test('data and _packages resolve under the project root, with optional sub paths', async () => {
    const data = createLocalConnector(context('data'));
    expect(data.kind).toBe('local');
    expect((await data.list('files://')).entries.map((entry) => entry.name)).toEqual(['alias', 'reports']);
    expect((await data.read('files://reports/q1.md')).text).toBe('q1');
    expect(await data.resolveOsUri('files://reports/q1.md')).toBe(`${projectRoot}/data/reports/q1.md`);
    const sub = createLocalConnector(context('data/reports'));
    expect((await sub.list('files://')).entries.map((entry) => entry.name)).toEqual(['q1.md']);
    const packages = createLocalConnector(context('_packages/pkg'));
    expect((await packages.read('files://package.json')).text).toBe('{}');
  });

  test('${appRoot} comes from the factory option, else from INSEAM_APP_ROOT, else it is invalid_config', async () => {
    const bound = createLocalConnectorFactory({ appRoot })(context('${appRoot}/zone'));
    expect((await (await bound).read('files://app.txt')).text).toBe('app');
    expect(() => createLocalConnector(context('${appRoot}'))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    process.env[APP_ROOT_ENV] = appRoot;
    try {
      expect((await createLocalConnector(context('${appRoot}')).read('files://zone/app.txt')).text).toBe('app');
    } finally {
      delete process.env[APP_ROOT_ENV];
    }
  });

  test('a sub path through a symlink is followed only inside its token folder', async () => {
    const alias = createLocalConnector(context('data/alias'));
    expect((await alias.read('files://q1.md')).text).toBe('q1');
    const escape = createLocalConnector(context('data/escape'));
    expect(await escape.probeConnection()).toEqual({ connected: false, reason: 'fs_unreachable' });
    await expect(escape.read('files://secret.txt')).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'fs_unreachable' } });
    await expect(escape.list('files://')).rejects.toMatchObject({ code: 'unavailable' });
    expect(await createLocalHost(context('data/escape')).stat('secret.txt').catch((error: { code: string }) => error.code)).toBe('unavailable');
  });

  test('a token folder that does not exist yet probes fs_unreachable; bad tokens are invalid_config', async () => {
    expect(await createLocalConnector(context('data/not-yet')).probeConnection()).toEqual({ connected: false, reason: 'fs_unreachable' });
    for (const root of ['/abs', 'data/..', 'other', '${unknown}']) {
      expect(() => createLocalConnector(context(root))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });

  test('the host view lists the token folder recursively', async () => {
    const host = createLocalHost(context('data'));
    expect(host.describe().kind).toBe('local');
    // A symlinked folder is listed by the port as a folder but never walked into (no duplicates).
    expect((await host.list({})).entries.map((entry) => entry.path)).toEqual(['reports/q1.md']);
  });
});
