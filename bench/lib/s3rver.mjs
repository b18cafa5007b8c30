// A real S3 endpoint for benchmarks: s3rver 3.7.1 on 127.0.0.1, in its own process, over a
// directory kept beside the other fixtures so the bucket is seeded once and reused.
//
// It runs the bucket connector's own test fixture script under `node --openssl-legacy-provider`:
// s3rver's continuation tokens use DES, which OpenSSL 3 offers only through the legacy provider,
// and without it every paged ListObjectsV2 answers 500.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchRoot } from './fixtures.mjs';
import { repoRoot } from './measure.mjs';

const SERVER_SCRIPT = join(repoRoot, 'connectors', 'bucket', 'src', '__fixtures__', 's3rver-server.cjs');

/** s3rver accepts this access key id (and does not check signatures). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
export const BENCH_BUCKET = 'bench';
const SEED_CONCURRENCY = 16;

/** Starts s3rver over `directory` with `buckets`; resolves with its endpoint and a stop(). */
export async function startS3rver(directory, buckets) {
  await mkdir(directory, { recursive: true });
  const child = spawn(process.execPath, ['--openssl-legacy-provider', SERVER_SCRIPT, directory, JSON.stringify(buckets)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).port);
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening: ${err}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The key of the `index`th seeded object: 100 a folder, two levels, as in manySmallFiles. */
export function seededKey(index) {
  const folder = Math.floor(index / 100);
  return `d${Math.floor(folder / 10)}/e${folder % 10}/file-${index}.txt`;
}

/**
 * s3rver with `count` objects of 1–4 KiB in BENCH_BUCKET, written through the bucket connector's
 * own host write the first time and kept for later runs.
 */
export async function seededS3rver(count, { createBucketHost, SigningEgress }) {
  const directory = join(benchRoot, `s3rver-${count}`);
  const marker = `${directory}.seeded`;
  const server = await startS3rver(directory, [BENCH_BUCKET]);
  if (existsSync(marker)) return server;
  const egress = new SigningEgress({ origins: [server.endpoint], region: 'us-east-1', credentials: async () => S3RVER_CREDENTIALS });
  try {
    const host = await createBucketHost(bucketConfig(server.endpoint), { egress });
    const body = (size, fill) => new Blob([Buffer.alloc(size, fill)]).stream();
    for (let i = 0; i < count; i += SEED_CONCURRENCY) {
      const batch = [];
      for (let j = i; j < Math.min(count, i + SEED_CONCURRENCY); j += 1) {
        batch.push(host.write(seededKey(j), body(1024 + ((j * 7919) % 3072), 97 + (j % 26))));
      }
      await Promise.all(batch);
    }
    await writeFile(marker, `${count}\n`);
    return server;
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    await egress.close();
  }
}

/** The bucket host config for the benchmark bucket on `endpoint`. */
export function bucketConfig(endpoint) {
  return { provider: 's3', endpoint, bucket: BENCH_BUCKET, region: 'us-east-1', forcePathStyle: true };
}
