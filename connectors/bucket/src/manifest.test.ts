import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileConfigValidator, validateManifest } from '@neuralis/package-system/manifest';
import { BUCKET_CONNECTOR_ENTRY, BUCKET_MANIFEST } from './manifest.js';
import { createBucketPort } from './factory.js';

async function packageJson(): Promise<{ name: string; neuralis: unknown }> {
  return JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; neuralis: unknown };
}

describe('the bucket manifest', () => {
  it('is the same in src/manifest.ts and in package.json, whose name is the package id', async () => {
    const pkg = await packageJson();
    expect(pkg.neuralis).toEqual(JSON.parse(JSON.stringify(BUCKET_MANIFEST)));
    expect(pkg.name).toBe(BUCKET_MANIFEST.id);
  });

  it('passes manifest validation as a first-party package', async () => {
    const validated = validateManifest((await packageJson()).neuralis, { trust: 'first-party' });
    expect(validated.connectors?.[0]).toMatchObject({ kind: 'bucket', category: 'disk', connectorFactory: './dist/index.js#createBucketConnector' });
    expect(validated.credentials?.map((credential) => credential.id)).toEqual(['s3', 'r2']);
  });

  it('declares exactly the capabilities a port instance reports', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inseam-manifest-'));
    try {
      const port = await createBucketPort({ packageId: BUCKET_MANIFEST.id, packageRoot: '/', source: 'pad', config: { provider: 'pad', path: dir }, scope: 'project' });
      expect([...port.capabilities()].sort()).toEqual([...BUCKET_CONNECTOR_ENTRY.capabilities].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('has a closed config schema that accepts each provider and refuses unknown keys', () => {
    const validate = compileConfigValidator(BUCKET_CONNECTOR_ENTRY.configSchema);
    expect(() => validate({ provider: 'pad', path: '/var/lib/inseam/pad' })).not.toThrow();
    expect(() => validate({ provider: 's3', bucket: 'b', region: 'eu-west-1', prefix: 'team/', forcePathStyle: true })).not.toThrow();
    expect(() => validate({ provider: 'r2', bucket: 'b', accountId: '0123456789abcdef0123456789abcdef', inlineImageBytes: 1024 })).not.toThrow();
    expect(() => validate({ provider: 's3', bucket: 'b', secretAccessKey: 'never here' })).toThrow(/secretAccessKey/);
    expect(() => validate({ provider: 'gcs' })).toThrow(/provider/);
  });
});
