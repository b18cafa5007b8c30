import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { isEgressError } from '@inseam/connector';
import { SigningEgress } from './signing-egress.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A loopback server that records every request and answers per path. */
async function recordingServer(): Promise<{ origin: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      if (request.url === '/redirect') {
        response.writeHead(301, { location: 'http://evil.example/steal' });
        response.end();
        return;
      }
      if (request.url === '/slow') return;
      response.writeHead(200, { 'content-type': 'text/plain', 'x-multi': ['a', 'b'] });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, seen, server };
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('SigningEgress (interim gate side)', () => {
  let target: Awaited<ReturnType<typeof recordingServer>>;
  let egress: SigningEgress;
  beforeAll(async () => {
    target = await recordingServer();
    egress = new SigningEgress({
      origins: [target.origin],
      region: 'us-east-1',
      credentials: async () => ({ accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: SECRET }),
    });
  });
  afterAll(async () => {
    await egress.close();
    target.server.closeAllConnections();
    await new Promise<void>((resolve) => target.server.close(() => resolve()));
  });

  it('signs a request exactly as AWS\'s published SigV4 example (GET with a Range)', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    let authorization: string | undefined;
    agent
      .get('https://examplebucket.s3.amazonaws.com')
      .intercept({ path: '/test.txt', method: 'GET' })
      .reply((options) => {
        authorization = new Headers(options.headers).get('authorization') ?? undefined;
        return { statusCode: 206, data: '0123456789' };
      });
    const signing = new SigningEgress({
      origins: ['https://examplebucket.s3.amazonaws.com'],
      region: 'us-east-1',
      credentials: async () => ({ accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: SECRET }),
      dispatcher: agent,
      now: () => new Date('2013-05-24T00:00:00Z'),
    });
    const response = await signing.fetch({ method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/test.txt', headers: { Range: 'bytes=0-9' } });
    expect(response.status).toBe(206);
    expect(await new Response(response.body).text()).toBe('0123456789');
    // From the S3 documentation's "Example: GET Object" (Signature Version 4).
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    await agent.close();
  });

  it('drops connector-supplied Authorization, Cookie and X-Amz-* headers (a forged token never reaches the service)', async () => {
    const before = target.seen.length;
    await egress.fetch({
      method: 'GET',
      url: `${target.origin}/object?list-type=2&prefix=a%2Bb`,
      headers: {
        Authorization: 'AWS4-HMAC-SHA256 Credential=ATTACKER/forged',
        'X-Amz-Security-Token': 'forged-token',
        'x-amz-date': '19990101T000000Z',
        'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD',
        Cookie: 'session=stolen',
        Host: 'evil.example',
        'x-custom': 'kept',
      },
    });
    const seen = target.seen[before]!;
    expect(seen.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-custom, Signature=[0-9a-f]{64}$/,
    );
    expect(seen.headers.authorization).not.toContain('ATTACKER');
    expect(seen.headers['x-amz-security-token']).toBeUndefined();
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers.host).toBe(new URL(target.origin).host);
    expect(seen.headers['x-amz-date']).not.toBe('19990101T000000Z');
    expect(seen.headers['x-amz-content-sha256']).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(seen.headers['x-custom']).toBe('kept');
    expect(seen.url).toBe('/object?list-type=2&prefix=a%2Bb');
  });

  it('refuses an undeclared origin without sending anything', async () => {
    const before = target.seen.length;
    const error = await rejectionOf(egress.fetch({ method: 'GET', url: 'http://127.0.0.1:1/elsewhere' }));
    expect(isEgressError(error) && error.failure).toBe('origin_refused');
    const sneaky = await rejectionOf(egress.fetch({ method: 'GET', url: `${target.origin.replace('http:', 'https:')}/x` }));
    expect(isEgressError(sneaky) && sneaky.failure).toBe('origin_refused');
    expect(target.seen.length).toBe(before);
  });

  it('returns redirects instead of following them', async () => {
    const before = target.seen.length;
    const response = await egress.fetch({ method: 'GET', url: `${target.origin}/redirect` });
    expect(response.status).toBe(301);
    expect(response.headers['location']).toBe('http://evil.example/steal');
    expect(target.seen.length).toBe(before + 1);
  });

  it('streams a request body with its content-length, unsigned, and flattens answer headers', async () => {
    const before = target.seen.length;
    const body = new Blob(['hello ', 'stream']).stream();
    const response = await egress.fetch({ method: 'PUT', url: `${target.origin}/put`, headers: { 'content-length': '12' }, body });
    expect(response.headers['x-multi']).toBe('a, b');
    expect(await new Response(response.body).text()).toBe('ok');
    const seen = target.seen[before]!;
    expect(seen.body.toString()).toBe('hello stream');
    expect(seen.headers['content-length']).toBe('12');
    expect(seen.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(seen.headers['transfer-encoding']).toBeUndefined();
  });

  it('hashes a byte body into the signature', async () => {
    const before = target.seen.length;
    await egress.fetch({ method: 'PUT', url: `${target.origin}/bytes`, body: new TextEncoder().encode('abc') });
    expect(target.seen[before]!.headers['x-amz-content-sha256']).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('refuses malformed requests: a streamed body without a length, a header with a line break, a non-http URL', async () => {
    const failures = await Promise.all([
      rejectionOf(egress.fetch({ method: 'PUT', url: `${target.origin}/x`, body: new Blob(['x']).stream() })),
      rejectionOf(egress.fetch({ method: 'GET', url: `${target.origin}/x`, headers: { 'x-evil': 'a\r\nInjected: yes' } })),
      rejectionOf(egress.fetch({ method: 'GET', url: 'file:///etc/passwd' })),
      rejectionOf(egress.fetch({ method: 'GET', url: 'not a url' })),
    ]);
    expect(failures.map((error) => isEgressError(error) && error.failure)).toEqual(['invalid_request', 'invalid_request', 'invalid_request', 'invalid_request']);
  });

  it('aborts on the signal', async () => {
    const controller = new AbortController();
    const pending = egress.fetch({ method: 'GET', url: `${target.origin}/slow`, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejectionOf(pending);
    expect(isEgressError(error) && error.failure).toBe('aborted');
  });

  it('never lets the secret into an error, even when the credential store fails with it in its message', async () => {
    const leaky = new SigningEgress({
      origins: [target.origin],
      region: 'us-east-1',
      credentials: async () => {
        throw new Error(`decrypt failed for ${SECRET}`);
      },
    });
    const error = await rejectionOf(leaky.fetch({ method: 'GET', url: `${target.origin}/x` }));
    expect(isEgressError(error) && error.failure).toBe('credential_missing');
    expect(`${inspect(error, { depth: 10 })} ${JSON.stringify(error)}`).not.toContain(SECRET);
    await leaky.close();

    const closed = new SigningEgress({
      origins: ['http://127.0.0.1:9'],
      region: 'us-east-1',
      credentials: async () => ({ accessKeyId: 'AKID', secretAccessKey: SECRET }),
    });
    const unreachable = await rejectionOf(closed.fetch({ method: 'GET', url: 'http://127.0.0.1:9/x' }));
    expect(isEgressError(unreachable) && unreachable.failure).toBe('unreachable');
    expect(`${inspect(unreachable, { depth: 10 })}`).not.toContain(SECRET);
    expect((unreachable as Error).cause).toBeUndefined();
    await closed.close();
  });
});
