import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { compileConfigValidator, validateManifest } from '@neuralis/package-system/manifest';
import { FS_CONNECTOR_ENTRY, FS_PACKAGE_ID, FOLDER_CAPABILITIES } from './manifest.js';
import { makeSandbox } from './test-helpers.js';
import * as publicApi from './index.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  neuralis: { id: string; connectors: unknown[] };
};

describe('manifest', () => {
  test('package.json carries exactly the entry src/manifest.ts declares', () => {
    expect(packageJson.neuralis).toEqual({ id: FS_PACKAGE_ID, connectors: [JSON.parse(JSON.stringify(FS_CONNECTOR_ENTRY))] });
    expect(packageJson.name).toBe(FS_PACKAGE_ID);
  });

  test('the manifest validates at first-party trust and declares a closed config schema', () => {
    const manifest = validateManifest(packageJson.neuralis, { trust: 'first-party' });
    expect(manifest.connectors?.[0]).toMatchObject({ kind: 'fs', category: 'disk', execRequires: ['exec.machine'] });
    expect(FS_CONNECTOR_ENTRY.configSchema.additionalProperties).toBe(false);
    expect(FS_CONNECTOR_ENTRY.configSchema.properties.inlineCaps.additionalProperties).toBe(false);
  });

  test('an untrusted package may not contribute the kind', () => {
    expect(() => validateManifest(packageJson.neuralis, { trust: 'untrusted' })).toThrow(expect.objectContaining({ code: 'manifest_invalid' }));
  });

  test('the config schema accepts a full config and refuses typos, relative roots and bad caps', () => {
    const validate = compileConfigValidator(FS_CONNECTOR_ENTRY.configSchema);
    const full = {
      root: '/srv/shared',
      textCapBytes: 2048,
      inlineCaps: { image: 1, video: 2, pdf: 3, binary: 4 },
      execTimeoutMs: 1000,
      execMaxTimeoutMs: 5000,
      execOutputCapBytes: 100,
      execEnvAllowlist: ['NODE_ENV'],
      stateDir: '/var/lib/inseam',
      watchMaxDirectories: 10,
    };
    expect(validate(full)).toEqual(full);
    for (const bad of [{ root: 'relative/path' }, { root: '/a', rooot: '/b' }, { root: '/a', inlineCaps: { images: 1 } }, { root: '/a', textCapBytes: 0 }, { root: '/a', execEnvAllowlist: ['A=B'] }, {}]) {
      expect(() => validate(bad)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });

  test('capabilities() is exactly the declared list', async () => {
    const box = await makeSandbox();
    try {
      expect([...box.connector.capabilities()].sort()).toEqual([...FS_CONNECTOR_ENTRY.capabilities].sort());
      expect(FOLDER_CAPABILITIES).toEqual(FS_CONNECTOR_ENTRY.capabilities);
      expect(box.connector.portVersion).toBe(4);
      expect(box.connector.kind).toBe('fs');
      expect(box.connector.source).toBe('box');
    } finally {
      await box.cleanup();
    }
  });
});

test('the package exports exactly its named public API', () => {
  expect(Object.keys(publicApi).sort()).toEqual(
    [
      'DEFAULT_ENV_ALLOWLIST',
      'DEFAULT_EXCLUDES',
      'DEFAULT_EXEC_MAX_TIMEOUT_MS',
      'DEFAULT_EXEC_OUTPUT_CAP_BYTES',
      'DEFAULT_EXEC_TIMEOUT_MS',
      'DEFAULT_INLINE_CAPS',
      'DEFAULT_PAGE_SIZE',
      'DEFAULT_TEXT_CAP_BYTES',
      'DEFAULT_WATCH_MAX_DIRECTORIES',
      'FOLDER_CAPABILITIES',
      'FOLDER_EXEC_REQUIRES',
      'FS_CONNECTOR_ENTRY',
      'FS_PACKAGE_ID',
      'FolderConnector',
      'FolderHost',
      'HOST_PAGE_SIZE',
      'MAX_PAGE_SIZE',
      'ROOT_TOKEN_PATTERN',
      'SHARED_CONFIG_PROPERTIES',
      'checkRange',
      'createFolderConnector',
      'createFsConnector',
      'createFsHost',
      'describeFolder',
      'listDetail',
      'pageSize',
      'parseRootToken',
    ].sort(),
  );
});
