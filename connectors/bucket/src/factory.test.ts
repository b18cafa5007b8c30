import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorInitContext } from '@neuralis/package-system/contracts';
import { createBucketConnector, init } from './factory.js';
import { S3RVER_CREDENTIALS, startS3rver } from './__fixtures__/s3rver.js';
import type { S3rverHandle } from './__fixtures__/s3rver.js';
import { TEST_BUCKET } from './__fixtures__/providers.js';

describe('the manifest factory over init(ctx)', () => {
  let s3rver: S3rverHandle;
  beforeAll(async () => {
    s3rver = await startS3rver([TEST_BUCKET]);
  });
  afterAll(async () => {
    await s3rver.stop();
  });

  const context = () => ({
    packageId: '@inseam/connector-bucket',
    packageRoot: '/',
    source: 'bucket',
    config: { provider: 's3', endpoint: s3rver.endpoint, bucket: TEST_BUCKET, forcePathStyle: true, prefix: 'factory' },
    scope: 'project' as const,
  });

  it('refuses an S3 binding before init has given it a credential resolver', async () => {
    await expect(createBucketConnector(context())).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('signs with the credential declared under the provider name, resolved for the project, cached', async () => {
    const calls: [string, { readonly projectId?: string }][] = [];
    let stored: Record<string, string> | null = null;
    const initContext: ConnectorInitContext = {
      packageId: '@inseam/connector-bucket',
      projectId: 'net-1',
      packageState: () => ({ enabled: true, auto: true }),
      credentials: {
        async resolveCredential(id, options) {
          calls.push([id, options]);
          return stored;
        },
      },
    };
    init(initContext);
    const port = await createBucketConnector(context());
    // Nothing stored yet: refused, and the absence is not cached.
    await expect(port.write!('bucket://a.txt', 'x')).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'credentials_missing' } });
    stored = { accessKeyId: S3RVER_CREDENTIALS.accessKeyId, secretAccessKey: S3RVER_CREDENTIALS.secretAccessKey };
    await port.write!('bucket://a.txt', 'hello');
    expect((await port.read('bucket://a.txt')).text).toBe('hello');
    expect(calls.every(([id, options]) => id === 's3' && options.projectId === 'net-1')).toBe(true);
    expect(calls.length).toBe(2);
  });
});
