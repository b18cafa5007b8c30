import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBucketHost, createBucketPort } from './factory.js';
import { SigningEgress } from './signing-egress.js';
import { startS3rver } from './__fixtures__/s3rver.js';
import type { S3rverHandle } from './__fixtures__/s3rver.js';
import { TEST_BUCKET } from './__fixtures__/providers.js';

const SECRET = 'TOP-SECRET-never-print-me-9f8e7d';

async function failureOf(promise: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown>; rendered: string }> {
  try {
    await promise;
  } catch (error) {
    const typed = error as { code: string; message: string; details: Record<string, unknown> };
    return { code: typed.code, message: typed.message, details: typed.details, rendered: `${inspect(error, { depth: 10 })} ${JSON.stringify(error)}` };
  }
  throw new Error('expected the call to fail');
}

async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function portContext(config: Record<string, unknown>) {
  return { packageId: '@inseam/connector-bucket', packageRoot: '/', source: 'files', config, scope: 'project' as const };
}

describe('S3 failures are typed, say which, and never leak the secret', () => {
  let s3rver: S3rverHandle;
  beforeAll(async () => {
    s3rver = await startS3rver([TEST_BUCKET]);
  });
  afterAll(async () => {
    await s3rver.stop();
  });

  const config = (extra: Record<string, unknown> = {}) => ({
    provider: 's3',
    endpoint: s3rver.endpoint,
    bucket: TEST_BUCKET,
    forcePathStyle: true,
    ...extra,
  });

  it('a missing bucket is not_found naming the bucket config field, from list, stat and read', async () => {
    const host = await createBucketHost(config({ bucket: 'no-such-bucket' }), { egress: s3rver.egress() });
    const listed = await failureOf(host.list({}));
    expect(listed.code).toBe('not_found');
    expect(listed.message).toContain('config field "bucket"');
    expect(listed.details).toMatchObject({ field: 'bucket', reason: 'no_such_bucket' });
    // A HEAD answer has no body; the store asks about the bucket rather than report "no object".
    expect(await failureOf(host.stat('x.txt'))).toMatchObject({ code: 'not_found', details: { field: 'bucket' } });
    expect(await failureOf(host.read('x.txt'))).toMatchObject({ code: 'not_found', details: { field: 'bucket' } });
    expect(host.describe().auth.origins).toEqual([s3rver.endpoint]);
  });

  it('probeConnection reports a missing bucket as store_unreachable with code not_found', async () => {
    const port = await createBucketPort(portContext(config({ bucket: 'no-such-bucket' })), { egress: s3rver.egress() });
    expect(await port.probeConnection()).toEqual({ connected: false, reason: 'store_unreachable', code: 'not_found' });
  });

  it('wrong credentials are permission_denied with a message saying what to check, and the secret appears nowhere', async () => {
    const egress = s3rver.egress({ accessKeyId: 'NOT-A-KEY', secretAccessKey: SECRET });
    const host = await createBucketHost(config(), { egress });
    const listed = await failureOf(host.list({}));
    expect(listed.code).toBe('permission_denied');
    expect(listed.message).toContain('check accessKeyId/secretAccessKey');
    expect(listed.details).toMatchObject({ reason: 'credentials_rejected', s3Code: 'InvalidAccessKeyId' });
    expect(listed.rendered).not.toContain(SECRET);
    const written = await failureOf(host.write('a.txt', new Blob(['x']).stream()));
    expect(written.code).toBe('permission_denied');
    expect(written.rendered).not.toContain(SECRET);
    const port = await createBucketPort(portContext(config()), { egress });
    expect(await port.probeConnection()).toEqual({ connected: false, reason: 'store_unreachable', code: 'permission_denied' });
  });

  it('an unreachable endpoint is unavailable naming the endpoint field, and the probe says so', async () => {
    const port = await closedLoopbackPort();
    const endpoint = `http://127.0.0.1:${port}`;
    const egress = new SigningEgress({ origins: [endpoint], region: 'us-east-1', credentials: async () => ({ accessKeyId: 'AKID', secretAccessKey: SECRET }) });
    try {
      const host = await createBucketHost(config({ endpoint }), { egress });
      const listed = await failureOf(host.list({}));
      expect(listed.code).toBe('unavailable');
      expect(listed.message).toContain('config field "endpoint"');
      expect(listed.rendered).not.toContain(SECRET);
      const bucketPort = await createBucketPort(portContext(config({ endpoint })), { egress });
      expect(await bucketPort.probeConnection()).toEqual({ connected: false, reason: 'store_unreachable', code: 'unavailable' });
    } finally {
      await egress.close();
    }
  });

  it('a missing credential is permission_denied asking for one', async () => {
    const egress = new SigningEgress({ origins: [s3rver.endpoint], region: 'us-east-1', credentials: async () => null });
    try {
      const host = await createBucketHost(config(), { egress });
      const listed = await failureOf(host.list({}));
      expect(listed).toMatchObject({ code: 'permission_denied', details: { reason: 'credentials_missing' } });
    } finally {
      await egress.close();
    }
  });

  it('a reachable bucket probes as connected, from the cached outcome of real requests', async () => {
    const port = await createBucketPort(portContext(config()), { egress: s3rver.egress() });
    expect(await port.probeConnection()).toEqual({ connected: true });
    await port.write('files://p.txt', 'x');
    expect(await port.probeConnection()).toEqual({ connected: true });
  });

  it('a bad config is invalid_config naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ provider: 'gcs' }, 'provider'],
      [{ provider: 's3' }, 'bucket'],
      [{ provider: 's3', bucket: 'b', endpoint: 'ftp://x' }, 'endpoint'],
      [{ provider: 's3', bucket: 'b', endpoint: 'https://user:pw@host' }, 'endpoint'],
      [{ provider: 'r2', bucket: 'b' }, 'accountId'],
      [{ provider: 'r2', bucket: 'b', accountId: '0123456789abcdef0123456789abcdef', region: 'eu-west-1' }, 'region'],
      [{ provider: 'pad', path: 'relative/dir' }, 'path'],
      [{ provider: 'pad', path: '/tmp/x', bucket: 'b' }, 'bucket'],
      [{ provider: 's3', bucket: 'b', prefix: 'a//b' }, 'prefix'],
      [{ provider: 's3', bucket: 'b', maxTextBytes: -1 }, 'maxTextBytes'],
    ];
    for (const [raw, field] of cases) {
      const failure = await failureOf(createBucketHost(raw, { egress: s3rver.egress() }));
      expect(failure.code, JSON.stringify(raw)).toBe('invalid_config');
      expect(failure.details['field'], JSON.stringify(raw)).toBe(field);
    }
  });
});
