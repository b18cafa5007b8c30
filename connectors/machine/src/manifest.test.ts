import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compileConfigValidator, validateManifest } from '@neuralis/package-system/manifest';
import { MACHINE_CONNECTOR_ENTRY, MACHINE_MANIFEST } from './manifest.js';
import { createMachinePort } from './factory.js';

async function packageJson(): Promise<{ name: string; neuralis: unknown }> {
  return JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; neuralis: unknown };
}

describe('the machine manifest', () => {
  it('is the same in src/manifest.ts and in package.json, whose name is the package id', async () => {
    const pkg = await packageJson();
    expect(pkg.neuralis).toEqual(JSON.parse(JSON.stringify(MACHINE_MANIFEST)));
    expect(pkg.name).toBe(MACHINE_MANIFEST.id);
  });

  it('passes manifest validation as a first-party package: category machine, runtime-gated', async () => {
    const validated = validateManifest((await packageJson()).neuralis, { trust: 'first-party' });
    expect(validated.connectors?.[0]).toMatchObject({ kind: 'machine', category: 'machine', runtimeGated: true, connectorFactory: './dist/index.js#createMachineConnector' });
    expect(validated.credentials?.map((credential) => credential.id)).toEqual(['ssh-key', 'ssh-password']);
  });

  it('declares exactly the capabilities a port instance reports', () => {
    const port = createMachinePort(
      { packageId: MACHINE_MANIFEST.id, packageRoot: '/', source: 'm', config: { host: '127.0.0.1', port: 1, username: 'u', root: '/srv' }, scope: 'project' },
      { secret: async () => null },
    );
    try {
      expect([...port.capabilities()].sort()).toEqual([...MACHINE_CONNECTOR_ENTRY.capabilities].sort());
    } finally {
      port.dispose();
    }
  });

  it('has a closed config schema that refuses unknown keys and secrets in the config', () => {
    const validate = compileConfigValidator(MACHINE_CONNECTOR_ENTRY.configSchema);
    expect(() => validate({ host: 'build-1.lan', username: 'ci', root: '/srv/work', port: 2222, auth: 'password' })).not.toThrow();
    expect(() => validate({ host: 'h', username: 'u', root: '/srv', privateKey: 'never here' })).toThrow(/privateKey/);
    expect(() => validate({ host: 'h', username: 'u', root: 'relative' })).toThrow(/root/);
    expect(() => validate({ host: 'h', username: 'u', root: '/srv', hostKey: 'md5:aa' })).toThrow(/hostKey/);
  });
});
