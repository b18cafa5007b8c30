/**
 * Test fixture: a real S3 endpoint (s3rver 3.7.1) on loopback, in a child process, with the given
 * buckets. s3rver accepts the access key id `S3RVER` and refuses any other with
 * InvalidAccessKeyId; it does not verify SigV4 signatures, so a wrong secret goes unnoticed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SigningEgress } from '../signing-egress.js';
import type { AwsCredentials } from '../signing-egress.js';

export const S3RVER_CREDENTIALS: AwsCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3rverHandle {
  readonly endpoint: string;
  /** A SigningEgress for this endpoint, with s3rver's credentials unless others are given. */
  egress(credentials?: AwsCredentials): SigningEgress;
  stop(): Promise<void>;
}

export async function startS3rver(buckets: readonly string[]): Promise<S3rverHandle> {
  const directory = await mkdtemp(join(tmpdir(), 'inseam-s3rver-'));
  const script = fileURLToPath(new URL('./s3rver-server.cjs', import.meta.url));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', script, directory, JSON.stringify(buckets)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await portOf(child);
  const endpoint = `http://127.0.0.1:${port}`;
  const egresses: SigningEgress[] = [];
  return {
    endpoint,
    egress(credentials = S3RVER_CREDENTIALS) {
      const egress = new SigningEgress({ origins: [endpoint], region: 'us-east-1', credentials: async () => credentials });
      egresses.push(egress);
      return egress;
    },
    async stop() {
      await Promise.all(egresses.map((egress) => egress.close()));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function portOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening: ${err}`)));
  });
}
