import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthPresent } from '@inseam/connector';
import { echoHandler, readText, sigV4Problem, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest, rejection } from './__fixtures__/gate-helpers.js';
import type { HostCredentialSource } from './credentials.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(echoHandler);
});
afterAll(async () => {
  await server.close();
});

function hostWith(present: AuthPresent[], credentials: HostCredentialSource) {
  const { host, recorder } = gateUnderTest();
  return {
    recorder,
    port: host({ auth: { origins: [server.origin], present }, allowPrivateOrigins: [server.origin], credentials }),
  };
}

const last = () => server.requests[server.requests.length - 1]!;

describe('gate: attaching credentials', () => {
  it('sets a header from a template, with tokens looked up before fields', async () => {
    const { port, recorder } = hostWith([{ in: 'header', name: 'Authorization', value: 'Bearer {{ access_token }}' }], {
      fields: async () => ({ access_token: 'from-fields' }),
      tokens: async () => ({ access_token: 'tok-123' }),
    });
    await readText(await port.fetch({ method: 'GET', url: `${server.origin}/me` }));
    expect(last().headers['authorization']).toBe('Bearer tok-123');
    expect(recorder.records[0]).toMatchObject({ credentialed: true, status: 200 });
  });

  it('sets a query parameter, replacing one the connector wrote and keeping the rest as written', async () => {
    const { port } = hostWith([{ in: 'query', name: 'api_key', value: '{{key}}' }], { fields: async () => ({ key: 'k/1 2' }) });
    await readText(await port.fetch({ method: 'GET', url: `${server.origin}/search?q=a%20b+c&api_key=guess&z=%2F` }));
    expect(last().url).toBe('/search?q=a%20b+c&z=%2F&api_key=k%2F1%202');
  });

  it('sets cookies, and drops the connector’s own Cookie', async () => {
    const { port } = hostWith(
      [
        { in: 'cookie', name: 'session', value: '{{session}}' },
        { in: 'cookie', name: 'csrf', value: 'x-{{csrf}}' },
      ],
      { fields: async () => ({ session: 'abc', csrf: 'def' }) },
    );
    await readText(await port.fetch({ method: 'GET', url: `${server.origin}/`, headers: { Cookie: 'session=forged' } }));
    expect(last().headers['cookie']).toBe('session=abc; csrf=x-def');
  });

  it('sends basic auth as base64 of the UTF-8 user:pass pair', async () => {
    const { port } = hostWith([{ in: 'basic', username: '{{user}}', password: '{{pass}}' }], { fields: async () => ({ user: 'jürgen', pass: 'pässwörd:€' }) });
    await readText(await port.fetch({ method: 'GET', url: `${server.origin}/` }));
    const header = String(last().headers['authorization']);
    expect(header).toBe(`Basic ${Buffer.from('jürgen:pässwörd:€', 'utf8').toString('base64')}`);
  });

  it('rejects with credential_missing, naming the field only, when a template value is not stored', async () => {
    const before = server.requests.length;
    const { port, recorder } = hostWith([{ in: 'header', name: 'X-Api-Key', value: '{{apiKey}}' }], { fields: async () => ({ other: 's3cr3t-value' }) });
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}/` }));
    expect(error.failure).toBe('credential_missing');
    expect(error.message).toContain('"apiKey"');
    expect(error.message).not.toContain('s3cr3t-value');
    expect(server.requests.length).toBe(before);
    expect(recorder.records).toMatchObject([{ failure: 'credential_missing', credentialed: true }]);
  });

  it('does not pass on the credential store’s own error text', async () => {
    const { port } = hostWith([{ in: 'header', name: 'X-Api-Key', value: '{{apiKey}}' }], {
      fields: async () => {
        throw new Error('decrypt failed for key material 0xDEADBEEF at /var/lib/inseam/keys');
      },
    });
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}/` }));
    expect(error.failure).toBe('credential_missing');
    expect(error.message).not.toContain('DEADBEEF');
    expect(error.message).not.toContain('/var/lib');
  });

  it('refuses a present list it could not apply safely, at binding time', () => {
    const { host } = gateUnderTest();
    expect(() => host({ auth: { origins: [server.origin], present: [{ in: 'header', name: 'Host', value: 'x' }] } })).toThrow(/present\[0\]/);
    expect(() => host({ auth: { origins: [server.origin], present: [{ in: 'header', name: 'Bad Name', value: 'x' }] } })).toThrow(/present\[0\]/);
  });

  it('rejects a credential value with a line break instead of splitting the header', async () => {
    const before = server.requests.length;
    const { port } = hostWith([{ in: 'header', name: 'X-Api-Key', value: '{{apiKey}}' }], { fields: async () => ({ apiKey: 'a\r\nx-evil: 1' }) });
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}/` }));
    expect(error.failure).toBe('credential_missing');
    expect(server.requests.length).toBe(before);
  });
});

describe('gate: headers the connector may not set', () => {
  it('drops Host, Authorization, Cookie, Proxy-*, X-Amz-*, hop-by-hop and the credential’s own header, in any case', async () => {
    const { port } = hostWith([{ in: 'header', name: 'X-Api-Key', value: '{{apiKey}}' }], { fields: async () => ({ apiKey: 'real-key' }) });
    await readText(
      await port.fetch({
        method: 'GET',
        url: `${server.origin}/h`,
        headers: {
          HOST: 'evil.example',
          authorization: 'Bearer forged',
          CoOkIe: 'a=b',
          'Proxy-Authorization': 'Basic Zm9vOmJhcg==',
          'proxy-foo': '1',
          'X-AMZ-Security-Token': 'forged',
          'x-amz-date': '20000101T000000Z',
          'x-api-key': 'guessed',
          Connection: 'x-smuggle, close',
          'x-smuggle': '1',
          'keep-alive': 'timeout=999',
          te: 'trailers',
          upgrade: 'websocket',
          trailer: 'x',
          'x-kept': 'yes',
          Accept: 'application/json',
        },
      }),
    );
    const received = last().headers;
    expect(received['host']).toBe(`127.0.0.1:${server.port}`);
    expect(received['x-api-key']).toBe('real-key');
    expect(received['authorization']).toBeUndefined();
    expect(received['cookie']).toBeUndefined();
    expect(received['proxy-authorization']).toBeUndefined();
    expect(received['proxy-foo']).toBeUndefined();
    expect(received['x-amz-security-token']).toBeUndefined();
    expect(received['x-amz-date']).toBeUndefined();
    expect(received['x-smuggle']).toBeUndefined();
    expect(received['te']).toBeUndefined();
    expect(received['upgrade']).toBeUndefined();
    expect(received['trailer']).toBeUndefined();
    expect(received['keep-alive']).not.toBe('timeout=999');
    expect(received['x-kept']).toBe('yes');
    expect(received['accept']).toBe('application/json');
  });
});

describe('gate: AWS SigV4', () => {
  const present: AuthPresent[] = [{ in: 'aws_sigv4', accessKeyId: '{{accessKeyId}}', secretAccessKey: '{{secretAccessKey}}', region: '{{region}}', service: 's3' }];
  const secretAccessKey = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  const credentials: HostCredentialSource = { fields: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey, region: 'eu-west-1' }) };

  it('signs a GET with a query over the request as sent, and the server-side check passes', async () => {
    const { port } = hostWith(present, credentials);
    await readText(await port.fetch({ method: 'GET', url: `${server.origin}/bucket/a%20b/c~d.txt?list-type=2&prefix=x%2Fy&max-keys=10&empty` }));
    const request = last();
    expect(sigV4Problem(request, secretAccessKey, { s3: true })).toBeNull();
    // The check itself notices a request that differs from what was signed.
    expect(sigV4Problem({ ...request, url: `${request.url}&extra=1` }, secretAccessKey, { s3: true })).not.toBeNull();
    expect(sigV4Problem(request, 'another-secret', { s3: true })).not.toBeNull();
    expect(request.headers['x-amz-content-sha256']).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(request.url).toBe('/bucket/a%20b/c~d.txt?list-type=2&prefix=x%2Fy&max-keys=10&empty');
  });

  it('signs a buffered PUT with the body’s SHA-256', async () => {
    const { port } = hostWith(present, credentials);
    await readText(await port.fetch({ method: 'PUT', url: `${server.origin}/bucket/k`, body: new TextEncoder().encode('hello'), headers: { 'content-type': 'text/plain' } }));
    const request = last();
    expect(request.body.toString()).toBe('hello');
    expect(request.headers['x-amz-content-sha256']).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    expect(sigV4Problem(request, secretAccessKey, { s3: true })).toBeNull();
  });

  it('signs a streamed PUT with UNSIGNED-PAYLOAD and streams the body', async () => {
    const { port } = hostWith(present, credentials);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('part one, '));
        controller.enqueue(new TextEncoder().encode('part two'));
        controller.close();
      },
    });
    await readText(await port.fetch({ method: 'PUT', url: `${server.origin}/bucket/streamed`, body, headers: { 'content-length': '18' } }));
    const request = last();
    expect(request.body.toString()).toBe('part one, part two');
    expect(request.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(sigV4Problem(request, secretAccessKey, { s3: true })).toBeNull();
  });

  it('ignores x-amz-* headers the connector forges, so they cannot replace signed values', async () => {
    const { port } = hostWith(present, credentials);
    await readText(
      await port.fetch({
        method: 'PUT',
        url: `${server.origin}/bucket/k`,
        body: new TextEncoder().encode('data'),
        headers: { 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': '20000101T000000Z', 'x-amz-security-token': 'forged', Authorization: 'AWS4-HMAC-SHA256 forged' },
      }),
    );
    const request = last();
    expect(request.headers['x-amz-content-sha256']).not.toBe('UNSIGNED-PAYLOAD');
    expect(request.headers['x-amz-date']).not.toBe('20000101T000000Z');
    expect(request.headers['x-amz-security-token']).toBeUndefined();
    expect(sigV4Problem(request, secretAccessKey, { s3: true })).toBeNull();
  });

  it('double-encodes the path for services other than s3', async () => {
    const { port } = hostWith([{ ...present[0]!, service: 'execute-api' } as AuthPresent], credentials);
    await readText(await port.fetch({ method: 'GET', url: `${server.origin}/stage/a%20b` }));
    expect(sigV4Problem(last(), secretAccessKey, { s3: false })).toBeNull();
  });
});
