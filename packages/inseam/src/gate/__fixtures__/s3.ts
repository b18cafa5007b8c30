/**
 * An S3 endpoint on loopback that checks signatures: s3rver 3.7.1 in its own process (it checks
 * only the access key id, not the signature) behind a proxy that verifies every request's SigV4
 * signature against the secret the test stored — independently of the gate's signer — records
 * what arrived, and forwards the request to s3rver. A bad signature is answered as S3 does, with
 * 403 SignatureDoesNotMatch, and never reaches s3rver.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sigV4Problem, startServer } from './servers.js';
import type { ReceivedRequest, TestServer } from './servers.js';

/** The access key id s3rver accepts. */
export const S3RVER_ACCESS_KEY_ID = 'S3RVER';

export interface CheckedRequest extends ReceivedRequest {
  /** Why the signature is wrong, or null when it is right. */
  readonly signatureProblem: string | null;
}

export interface SigningCheckedS3 {
  /** The proxy's origin: the bucket's endpoint. */
  readonly endpoint: string;
  readonly requests: CheckedRequest[];
  /** Answers the next request for a path ending in `suffix` with this status and location instead of forwarding it. */
  redirectOnce(suffix: string, status: number, location: string): void;
  stop(): Promise<void>;
}

/** Starts s3rver with `buckets` and the checking proxy in front of it; signatures must verify with `secretAccessKey`. */
export async function startSigningCheckedS3(buckets: readonly string[], secretAccessKey: () => string): Promise<SigningCheckedS3> {
  const directory = await mkdtemp(join(tmpdir(), 'inseam-gate-s3rver-'));
  // One launcher for every s3rver the repository starts: the bucket connector's test fixture.
  const script = fileURLToPath(new URL('../../../../../connectors/bucket/src/__fixtures__/s3rver-server.cjs', import.meta.url));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', script, directory, JSON.stringify(buckets)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const s3rverPort = await portOf(child);
  const requests: CheckedRequest[] = [];
  const redirects: { suffix: string; status: number; location: string }[] = [];
  const proxy: TestServer = await startServer((req, res, body) => {
    const received: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
    const signatureProblem = sigV4Problem(received, secretAccessKey(), { s3: true });
    requests.push({ ...received, signatureProblem });
    const redirect = redirects.findIndex((entry) => received.url.split('?')[0]?.endsWith(entry.suffix));
    if (redirect !== -1) {
      const [entry] = redirects.splice(redirect, 1);
      res.writeHead(entry?.status ?? 307, { location: entry?.location ?? '/' });
      res.end();
      return;
    }
    if (signatureProblem !== null) {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>');
      return;
    }
    const upstream = httpRequest({ host: '127.0.0.1', port: s3rverPort, method: received.method, path: received.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    upstream.end(body);
  });
  return {
    endpoint: proxy.origin,
    requests,
    redirectOnce(suffix, status, location) {
      redirects.push({ suffix, status, location });
    },
    async stop() {
      await proxy.close();
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
