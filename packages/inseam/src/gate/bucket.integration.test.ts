/**
 * The bucket connector's S3 requests signed by the egress gate instead of the interim
 * SigningEgress. The gate's policy is the bucket host's own `describe().auth` (aws_sigv4 with
 * `{{accessKeyId}}`/`{{secretAccessKey}}`), its credential a store-backed source on a temp SQLite
 * file, the endpoint s3rver on loopback behind a proxy that verifies every signature on its own.
 * The connector's requests are salted with forged Authorization and X-Amz-* headers on the way to
 * the gate: the gate must drop them and sign itself. S3 hosts get `redirects: 'return'`, the
 * EgressPort contract the bucket was written against.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthSpec, EgressPort, EgressRequest } from '@inseam/connector';
import { createBucketHost } from '@inseam/connector-bucket';
import type { BucketHost } from '@inseam/connector-bucket';
import { isConnectorError } from '@neuralis/package-system/contracts';
import { HostCredentials, openSqliteCredentialStore, projectScope } from '../credentials/index.js';
import type { HostRef } from '../credentials/index.js';
import { createEgressGate } from './gate.js';
import type { EgressGate } from './gate.js';
import { InMemoryEgressRecorder } from './recorder.js';
import { S3RVER_ACCESS_KEY_ID, startSigningCheckedS3 } from './__fixtures__/s3.js';
import type { SigningCheckedS3 } from './__fixtures__/s3.js';
import { echoHandler, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';

const BUCKET = 'inseam-gate';
const SECRET = `gate-secret-${randomBytes(12).toString('hex')}`;
const FORGED = {
  Authorization: 'AWS4-HMAC-SHA256 Credential=FORGED/20000101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00',
  'X-Amz-Date': '19990101T000000Z',
  'X-Amz-Security-Token': 'forged-session-token',
  'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
  'X-Amz-Acl': 'public-read',
};

let s3: SigningCheckedS3;
let outside: TestServer;
let dir: string;
let closeStore: () => void;
let credentials: HostCredentials;
let gate: EgressGate;
let host: BucketHost;
let auth: AuthSpec;
const recorder = new InMemoryEgressRecorder();
const ref: HostRef = { scope: projectScope('home'), host: 'files' };

/** The connector's side of the port: every request it makes carries forged credential headers. */
function forging(port: () => EgressPort): EgressPort {
  return { fetch: (request: EgressRequest) => port().fetch({ ...request, headers: { ...request.headers, ...FORGED } }) };
}

function bytes(text: string): ReadableStream<Uint8Array> {
  return new Response(text).body as ReadableStream<Uint8Array>;
}

async function codeOf(promise: Promise<unknown>): Promise<{ code?: string; message: string } | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

beforeAll(async () => {
  s3 = await startSigningCheckedS3([BUCKET], () => SECRET);
  outside = await startServer(echoHandler);
  dir = await mkdtemp(join(tmpdir(), 'inseam-gate-bucket-'));
  const opened = await openSqliteCredentialStore({ database: join(dir, 'inseam.db'), masterKey: randomBytes(32) });
  closeStore = () => opened.records.close();
  credentials = new HostCredentials({ store: opened.store });
  gate = createEgressGate({ recorder, retry: { baseDelayMs: 1 } });
  let port: EgressPort | undefined;
  host = await createBucketHost(
    { provider: 's3', endpoint: s3.endpoint, bucket: BUCKET, prefix: 'team/docs' },
    {
      egress: forging(() => {
        if (port === undefined) throw new Error('the gate port is bound after describe()');
        return port;
      }),
      hostPageSize: 2,
    },
  );
  // The platform binds the gate to what the host declares; the person approved the loopback endpoint.
  auth = host.describe().auth;
  await credentials.setFields(ref, auth, { accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: SECRET });
  port = gate.forHost({ hostId: 'files', auth, credentials: credentials.source(ref, auth), allowPrivateOrigins: [s3.endpoint], redirects: 'return' });
});

afterAll(async () => {
  await gate.close();
  closeStore();
  await s3.stop();
  await outside.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the bucket host through the gate', () => {
  it('declares aws_sigv4 with templates for its one origin', () => {
    expect(auth.origins).toEqual([s3.endpoint]);
    expect(auth.present).toEqual([{ in: 'aws_sigv4', accessKeyId: '{{accessKeyId}}', secretAccessKey: '{{secretAccessKey}}', region: 'us-east-1', service: 's3' }]);
    expect(auth.acquire).toEqual({ type: 'static' });
  });

  it('writes, lists in pages, stats, reads a range and deletes, every request signed by the gate', async () => {
    const files: Record<string, string> = {
      'a.txt': 'alpha',
      'b.txt': 'bravo bravo',
      'c d.txt': 'charlie',
      'dir/e.txt': 'echo echo echo',
      'dir/f.json': '{"f":1}',
    };
    const written = [];
    for (const [path, text] of Object.entries(files)) written.push(await host.write(path.replace(' ', '%20'), bytes(text)));
    expect(written.map((entry) => [entry.path, entry.size])).toEqual([
      ['a.txt', 5],
      ['b.txt', 11],
      ['c%20d.txt', 7],
      ['dir/e.txt', 14],
      ['dir/f.json', 7],
    ]);

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await host.list(cursor === undefined ? {} : { cursor });
      pages.push(page.entries.map((entry) => entry.path));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.flat().sort()).toEqual(['a.txt', 'b.txt', 'c%20d.txt', 'dir/e.txt', 'dir/f.json']);

    const stat = await host.stat('b.txt');
    expect(stat).toMatchObject({ path: 'b.txt', size: 11, mime: 'text/plain' });
    expect(await new Response(await host.read('dir/e.txt', { range: [5, 9] })).text()).toBe('echo');
    expect(await new Response(await host.read('c%20d.txt')).text()).toBe('charlie');

    await host.delete('b.txt');
    expect(await host.stat('b.txt')).toBeNull();

    // Over 8 MiB a write is staged on disk and sent as a streamed body.
    const big = Buffer.alloc(8 * 1024 * 1024 + 4096, 'z');
    expect(await host.write('big.bin', new Response(big).body as ReadableStream<Uint8Array>)).toMatchObject({ path: 'big.bin', size: big.length });
    expect(await new Response(await host.read('big.bin', { range: [big.length - 3, big.length] })).text()).toBe('zzz');
    await host.delete('big.bin');

    // What reached the endpoint: every request signed with the stored secret, none of the forgeries.
    const seen = s3.requests;
    expect(seen.length).toBeGreaterThanOrEqual(14);
    expect(seen.filter((request) => request.signatureProblem !== null).map((request) => `${request.method} ${request.url}: ${request.signatureProblem}`)).toEqual([]);
    for (const request of seen) {
      expect(String(request.headers['authorization'])).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${S3RVER_ACCESS_KEY_ID}/\\d{8}/us-east-1/s3/aws4_request, `));
      expect(request.headers['x-amz-date']).not.toBe(FORGED['X-Amz-Date']);
      expect(request.headers['x-amz-security-token']).toBeUndefined();
      expect(request.headers['x-amz-acl']).toBeUndefined();
      expect(JSON.stringify(request.headers)).not.toContain(SECRET);
    }
    const kinds = new Set(seen.map((request) => `${request.method}${request.url.includes('list-type=2') ? ' list' : ''}${request.headers['range'] === undefined ? '' : ' range'}`));
    expect([...kinds]).toEqual(expect.arrayContaining(['PUT', 'GET list', 'HEAD', 'GET range', 'GET', 'DELETE']));
    // A byte body is hashed; a streamed one goes as UNSIGNED-PAYLOAD with its length, both signed.
    const puts = seen.filter((request) => request.method === 'PUT');
    expect(puts.every((request) => request.headers['content-length'] === String(request.body.length))).toBe(true);
    expect(puts.map((request) => request.headers['x-amz-content-sha256'] === 'UNSIGNED-PAYLOAD')).toEqual([false, false, false, false, false, true]);

    expect(recorder.records.length).toBe(seen.length);
    expect(recorder.records.every((record) => record.decision === 'allow' && record.credentialed && record.origin === s3.endpoint && record.hop === 0)).toBe(true);
  });

  it('a secret the endpoint does not accept fails typed, without showing the secret', async () => {
    const wrong = `wrong-${randomBytes(12).toString('hex')}`;
    await credentials.setFields(ref, auth, { accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: wrong });
    try {
      const failure = await codeOf(host.list());
      expect(failure).toMatchObject({ code: 'permission_denied' });
      expect(JSON.stringify(failure)).not.toContain(wrong);
      expect(s3.requests.at(-1)?.signatureProblem).toMatch(/signature mismatch/);
    } finally {
      await credentials.setFields(ref, auth, { accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: SECRET });
    }
    expect((await host.list()).entries.length).toBeGreaterThan(0);
  });

  it('a redirect is handed back to the connector, not followed', async () => {
    const before = recorder.records.length;
    s3.redirectOnce('/team/docs/moved.txt', 307, `${outside.origin}/elsewhere/moved.txt`);
    const outcome = await codeOf(host.stat('moved.txt'));
    expect(outcome).not.toBe('resolved');
    expect(outside.connections).toBe(0);
    expect(recorder.records.slice(before)).toEqual([expect.objectContaining({ method: 'HEAD', status: 307, hop: 0, origin: s3.endpoint })]);
  });
});
