import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressPort, EgressRequest, EgressResponse } from '@inseam/connector';
import { createBucketHost, createBucketPort } from './factory.js';
import { startS3rver } from './__fixtures__/s3rver.js';
import type { S3rverHandle } from './__fixtures__/s3rver.js';
import { streamOf, TEST_BUCKET, textOf } from './__fixtures__/providers.js';

function errorAnswer(status: number, code: string): EgressResponse {
  return { status, headers: { 'content-type': 'application/xml' }, body: new Blob([`<Error><Code>${code}</Code></Error>`]).stream() };
}

/**
 * s3rver ignores If-Match and If-None-Match on PUT. These wrappers stand in front of it to answer
 * conditional PUTs the way other services do: `enforcing` as AWS S3 and R2 do (412 on a mismatch,
 * 404 NoSuchKey for If-Match on a missing key), `refusing` as a service that rejects the headers
 * with 501 NotImplemented. Every request is recorded.
 */
function conditionalFront(inner: EgressPort, mode: 'enforcing' | 'refusing'): EgressPort & { readonly puts: EgressRequest[] } {
  const puts: EgressRequest[] = [];
  return {
    puts,
    async fetch(request) {
      const ifMatch = request.headers?.['if-match'];
      const ifNoneMatch = request.headers?.['if-none-match'];
      if (request.method !== 'PUT' || (ifMatch === undefined && ifNoneMatch === undefined)) return inner.fetch(request);
      puts.push(request);
      if (mode === 'refusing') return errorAnswer(501, 'NotImplemented');
      const head = await inner.fetch({ method: 'HEAD', url: request.url });
      const current = head.status === 200 ? head.headers['etag'] : undefined;
      if (ifNoneMatch === '*' && current !== undefined) return errorAnswer(412, 'PreconditionFailed');
      if (ifMatch !== undefined && current === undefined) return errorAnswer(404, 'NoSuchKey');
      if (ifMatch !== undefined && ifMatch !== current) return errorAnswer(412, 'PreconditionFailed');
      return inner.fetch(request);
    },
  };
}

describe('conditional writes on S3 endpoints', () => {
  let s3rver: S3rverHandle;
  beforeAll(async () => {
    s3rver = await startS3rver([TEST_BUCKET]);
  });
  afterAll(async () => {
    await s3rver.stop();
  });

  const config = (prefix: string) => ({ provider: 's3', endpoint: s3rver.endpoint, bucket: TEST_BUCKET, forcePathStyle: true, prefix });

  it('on an endpoint that enforces them, sends If-Match / If-None-Match and maps the answers', async () => {
    const front = conditionalFront(s3rver.egress(), 'enforcing');
    const host = await createBucketHost(config('enforcing'), { egress: front });
    const v1 = await host.write('doc.txt', streamOf('v1'));
    const v2 = await host.write('doc.txt', streamOf('v2'), { ifMatch: v1.etag! });
    expect(await textOf(await host.read('doc.txt'))).toBe('v2');
    await expect(host.write('doc.txt', streamOf('v3'), { ifMatch: v1.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    await expect(host.write('missing.txt', streamOf('x'), { ifMatch: v2.etag! })).rejects.toMatchObject({ code: 'precondition_failed' });
    expect(await textOf(await host.read('doc.txt'))).toBe('v2');
    // The probe (a scratch key, an If-Match that cannot hold) ran once and wrote nothing.
    expect(front.puts[0]!.url).toMatch(/\/enforcing\/\.inseam-conditional-probe-[0-9a-f]{16}$/);
    expect(front.puts[0]!.headers?.['if-match']).toBe('"00000000000000000000000000000000"');
    expect(front.puts.filter((put) => put.url.includes('conditional-probe'))).toHaveLength(1);
    expect(front.puts[1]!.headers?.['if-match']).toBe(`"${v1.etag}"`);
    expect((await host.list({})).entries.map((entry) => entry.path)).toEqual(['doc.txt']);
  });

  it('maps a refused createOnly to already_exists', async () => {
    const front = conditionalFront(s3rver.egress(), 'enforcing');
    const host = await createBucketHost(config('create-only'), { egress: front });
    const port = await createBucketPort({ packageId: 'p', packageRoot: '/', source: 'b', config: config('create-only'), scope: 'project' }, { egress: front });
    await port.write('b://once.txt', 'first', { createOnly: true });
    await expect(port.write('b://once.txt', 'second', { createOnly: true })).rejects.toMatchObject({ code: 'already_exists' });
    expect(await textOf(await host.read('once.txt'))).toBe('first');
    expect(front.puts.some((put) => put.headers?.['if-none-match'] === '*')).toBe(true);
  });

  it('on an endpoint that answers 501 to them, refuses with unsupported naming the argument', async () => {
    const front = conditionalFront(s3rver.egress(), 'refusing');
    const host = await createBucketHost(config('refusing'), { egress: front });
    const v1 = await host.write('doc.txt', streamOf('v1'));
    await expect(host.write('doc.txt', streamOf('v2'), { ifMatch: v1.etag! })).rejects.toMatchObject({
      code: 'unsupported',
      details: { kind: 'bucket', operation: 'write', argument: 'ifMatch' },
    });
    await expect(host.write('doc.txt', streamOf('v3'), { ifMatch: v1.etag! })).rejects.toMatchObject({ code: 'unsupported' });
    // Decided once: the second refusal came without asking the endpoint again.
    expect(front.puts).toHaveLength(1);
    expect(await textOf(await host.read('doc.txt'))).toBe('v1');
  });
});
