/**
 * An S3 endpoint on loopback that checks signatures: s3rver 3.7.1 in its own process (it checks
 * only the access key id, not the signature) behind a proxy that verifies every request's SigV4
 * signature against the secret the test stored — independently of the gate's signer — records
 * what arrived, and forwards the request to s3rver. A bad signature is answered as S3 does, with
 * 403 SignatureDoesNotMatch, and never reaches s3rver.
 */
import { request as httpRequest } from 'node:http';
import { startS3rver } from '../../../../../connectors/bucket/src/__fixtures__/s3rver.js';
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
  // The bucket connector's fixture starts s3rver; this one only puts the checking proxy in front.
  const s3rver = await startS3rver(buckets);
  const s3rverPort = Number(new URL(s3rver.endpoint).port);
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
      await s3rver.stop();
    },
  };
}
