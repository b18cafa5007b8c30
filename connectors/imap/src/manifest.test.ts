import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { compileConfigValidator, validateManifest } from '@neuralis/package-system/manifest';
import { IMAP_CONNECTOR_ENTRY, IMAP_MANIFEST } from './manifest.js';
import { createImapPort } from './factory.js';

async function packageJson(): Promise<{ name: string; neuralis: unknown }> {
  return JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; neuralis: unknown };
}

describe('the imap manifest', () => {
  it('is the same in src/manifest.ts and in package.json, whose name is the package id', async () => {
    const pkg = await packageJson();
    expect(pkg.neuralis).toEqual(JSON.parse(JSON.stringify(IMAP_MANIFEST)));
    expect(pkg.name).toBe(IMAP_MANIFEST.id);
  });

  it('passes manifest validation as a first-party package, credentials declared in credentials[], read only by default', async () => {
    const validated = validateManifest((await packageJson()).neuralis, { trust: 'first-party' });
    expect(validated.connectors?.[0]).toMatchObject({ kind: 'imap', category: 'mail', connectorFactory: './dist/index.js#createImapConnector', defaultPermissions: { default: { read: true, write: false, exec: false } } });
    expect(validated.credentials?.map((credential) => [credential.id, credential.fields?.map((field) => [field.name, field.secret])])).toEqual([
      ['password', [['username', false], ['password', true]]],
      ['xoauth2', [['username', false], ['accessToken', true]]],
    ]);
  });

  it('declares exactly the capabilities a port instance reports', async () => {
    const port = await createImapPort({ packageId: IMAP_MANIFEST.id, packageRoot: '/', source: 'mail', config: { host: 'imap.example.com' }, scope: 'project' }, { credentials: { login: async () => null } });
    expect([...port.capabilities()].sort()).toEqual([...IMAP_CONNECTOR_ENTRY.capabilities].sort());
  });

  it('has a closed config schema that never takes a credential', () => {
    const validate = compileConfigValidator(IMAP_CONNECTOR_ENTRY.configSchema);
    expect(() => validate({ host: 'imap.example.com', port: 993, tls: 'implicit', ownAddresses: ['me@example.com'], authservId: 'mx.example.com' })).not.toThrow();
    expect(() => validate({ host: 'imap.example.com', password: 'never here' })).toThrow(/password/);
    expect(() => validate({ host: 'imap.example.com', tls: 'none' })).toThrow(/tls/);
    expect(() => validate({})).toThrow(/host/);
  });
});
