/**
 * Test fixture: the same behavioural tests run against every provider. `pad` gets a fresh temp
 * directory per host; `s3` runs against s3rver on loopback, each host under its own prefix of one
 * shared bucket, through the interim SigningEgress.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBucketHost, createBucketPort } from '../factory.js';
import type { BucketBindingOptions } from '../factory.js';
import type { BucketHost } from '../host.js';
import type { BucketPort } from '../port.js';
import { startS3rver } from './s3rver.js';
import type { S3rverHandle } from './s3rver.js';

export type ProviderName = 'pad' | 's3';

export const PROVIDERS: readonly ProviderName[] = ['pad', 's3'];

export const TEST_BUCKET = 'inseam-test';

export interface ProviderFixture {
  readonly name: ProviderName;
  /** A config for a fresh, empty host. */
  config(extra?: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>>;
  host(extra?: Readonly<Record<string, unknown>>, options?: BucketBindingOptions): Promise<BucketHost>;
  port(extra?: Readonly<Record<string, unknown>>, options?: BucketBindingOptions): Promise<BucketPort>;
  /** The s3rver, for the s3 provider. */
  readonly s3rver?: S3rverHandle;
  close(): Promise<void>;
}

export async function openProvider(name: ProviderName): Promise<ProviderFixture> {
  const dirs: string[] = [];
  const s3rver = name === 's3' ? await startS3rver([TEST_BUCKET]) : undefined;
  const config = async (extra: Readonly<Record<string, unknown>> = {}): Promise<Record<string, unknown>> => {
    if (s3rver === undefined) {
      const dir = await mkdtemp(join(tmpdir(), 'inseam-pad-'));
      dirs.push(dir);
      return { provider: 'pad', path: join(dir, 'pad'), ...extra };
    }
    return {
      provider: 's3',
      endpoint: s3rver.endpoint,
      bucket: TEST_BUCKET,
      forcePathStyle: true,
      prefix: `t-${randomBytes(6).toString('hex')}`,
      ...extra,
    };
  };
  const egressOptions = (options: BucketBindingOptions): BucketBindingOptions =>
    s3rver === undefined || options.egress !== undefined ? options : { ...options, egress: s3rver.egress() };
  return {
    name,
    config,
    ...(s3rver === undefined ? {} : { s3rver }),
    async host(extra = {}, options = {}) {
      return createBucketHost(await config(extra), egressOptions(options));
    },
    async port(extra = {}, options = {}) {
      const context = { packageId: '@inseam/connector-bucket', packageRoot: '/', source: 'files', config: await config(extra), scope: 'project' as const };
      return createBucketPort(context, egressOptions(options));
    },
    async close() {
      await s3rver?.stop();
      await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

/** A stream of the given chunks. */
export function streamOf(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

export async function textOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}
