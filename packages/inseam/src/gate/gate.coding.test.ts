/**
 * The gate owns content coding, against a real server on 127.0.0.1 that codes its answers the way
 * real servers do: whatever the connector asks for, the gate asks for the codings it decodes
 * itself (identity for HEAD and ranges), hands back decoded and redacted bytes without
 * `content-encoding`/`content-length`, refuses a coding it did not ask for, stops a decompression
 * bomb, and reports a corrupt coded body. Secrets are also found in response headers and
 * redirect `location`s in any spelling, and trailers never reach the connector.
 */
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DECODE_FREE_BYTES } from './coding.js';
import { readText, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest, rejection } from './__fixtures__/gate-helpers.js';
import { base64Embedded, leaks } from './__fixtures__/spellings.js';

const TOKEN = 'tok_live_51HxQ2eZvKYlo2C';

const CODERS: Readonly<Record<string, (data: Buffer) => Buffer>> = {
  gzip: (data) => gzipSync(data),
  'x-gzip': (data) => gzipSync(data),
  deflate: (data) => deflateSync(data),
  br: (data) => brotliCompressSync(data),
};

const BOMB_BYTES = 64 * 1024 * 1024;
const bombs = new Map<string, Buffer>();
/** 64 MiB of zeros, coded (about 64 KiB in gzip, far less in brotli). */
function bomb(coding: string): Buffer {
  let coded = bombs.get(coding);
  if (coded === undefined) {
    const zeros = Buffer.alloc(BOMB_BYTES);
    coded = coding === 'br' ? brotliCompressSync(zeros, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }) : gzipSync(zeros, { level: 1 });
    bombs.set(coding, coded);
  }
  return coded;
}

/** Answers with `coding` when asked (`?coding=`), or regardless (`&force=1`), echoing the request. */
function codingServer(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const coding = url.searchParams.get('coding') ?? 'gzip';
  const force = url.searchParams.get('force') === '1';
  const accepted = String(req.headers['accept-encoding'] ?? '');
  const body = Buffer.from(JSON.stringify({ headers: req.headers, token: req.headers['x-api-key'] }));
  res.setHeader('content-type', 'application/json');
  if (url.pathname === '/raw-deflate') {
    const coded = deflateRawSync(body);
    res.writeHead(200, { 'content-encoding': 'deflate', 'content-length': String(coded.length) });
    res.end(coded);
    return;
  }
  if (url.pathname === '/bomb') {
    const coded = bomb(coding);
    res.writeHead(200, { 'content-encoding': coding, 'content-length': String(coded.length) });
    res.end(coded);
    return;
  }
  if (url.pathname === '/corrupt') {
    const coded = gzipSync(body);
    coded[coded.length - 12] = (coded[coded.length - 12] ?? 0) ^ 0xff;
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.end(coded.subarray(0, coded.length - 4));
    return;
  }
  const encoder = CODERS[coding];
  if (encoder !== undefined && (force || accepted.split(',').some((token) => token.trim() === coding.replace('x-', '')))) {
    const coded = encoder(body);
    res.writeHead(req.headers['range'] !== undefined ? 206 : 200, { 'content-encoding': coding, 'content-length': String(coded.length), etag: '"v1"' });
    res.end(req.method === 'HEAD' ? undefined : coded);
    return;
  }
  if (url.searchParams.get('coding') !== null && encoder === undefined) {
    // A coding the gate does not know, sent regardless.
    res.writeHead(200, { 'content-encoding': coding });
    res.end(body);
    return;
  }
  res.writeHead(200, { 'content-length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/reflect-headers') {
      const key = String(req.headers['x-api-key']);
      res.setHeader('x-b64', base64Embedded(key, 1));
      res.setHeader('x-b64url', base64Embedded(`Bearer ${key}`, 2, true));
      res.setHeader('x-html', [...key].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''));
      res.setHeader('x-upper-hex', Buffer.from(key).toString('hex').toUpperCase());
      res.setHeader(`x-${Buffer.from(key).toString('hex')}`, 'named after it');
      res.setHeader('location', `/next?t=${encodeURIComponent(encodeURIComponent(key))}&u=${key.toUpperCase()}`);
      res.writeHead(302, { trailer: 'x-trailer-token' });
      res.addTrailers({ 'x-trailer-token': key });
      res.end(`moved; ${JSON.stringify(key).replace(/_/g, '\\u005F')}`);
      return;
    }
    codingServer(req, res);
  });
});
afterAll(async () => {
  await server.close();
});

function setup(options: { redirects?: 'follow' | 'return' } = {}) {
  const under = gateUnderTest();
  return {
    ...under,
    port: under.host({
      auth: { origins: [server.origin], present: [{ in: 'header', name: 'X-Api-Key', value: '{{token}}' }] },
      allowPrivateOrigins: [server.origin],
      credentials: { fields: async () => ({}), tokens: async () => ({ token: TOKEN }) },
      ...options,
    }),
  };
}

describe('gate: the gate decides content coding', () => {
  it.each(Object.keys(CODERS))('asks for the codings it decodes, whatever the connector asked, and decodes %s itself', async (coding) => {
    const { port } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/echo?coding=${coding}`, headers: { 'Accept-Encoding': 'identity', accept: 'application/json' } });
    const text = await readText(response);
    expect(server.requests.at(-1)?.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe(TOKEN);
    const body = JSON.parse(text) as { headers: Record<string, string>; token: string };
    expect(body.token).toBe('*'.repeat(TOKEN.length));
    expect(leaks(text, TOKEN)).toBe(false);
    // The bytes are not coded any more, so nothing says they are, and the coded length is gone.
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['content-length']).toBeUndefined();
    expect(response.headers['etag']).toBe('"v1"');
  });

  it('the connector\'s own Accept-Encoding is dropped in any case: it cannot make the server send bytes the gate would pass on coded', async () => {
    const { port } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/echo?coding=gzip`, headers: { 'ACCEPT-ENCODING': 'gzip' } });
    expect(leaks(await readText(response), TOKEN)).toBe(false);
    expect(String(server.requests.at(-1)?.headers['accept-encoding'])).toBe('gzip, deflate, br');
  });

  it('decodes raw deflate (no zlib header), which some servers send as "deflate"', async () => {
    const { port } = setup();
    const text = await readText(await port.fetch({ method: 'GET', url: `${server.origin}/raw-deflate` }));
    expect(JSON.parse(text)).toMatchObject({ token: '*'.repeat(TOKEN.length) });
  });

  it('asks for identity on HEAD and on a ranged GET, so lengths and ranges mean the bytes the connector gets', async () => {
    const { port } = setup();
    const head = await port.fetch({ method: 'HEAD', url: `${server.origin}/echo` });
    expect(server.requests.at(-1)?.headers['accept-encoding']).toBe('identity');
    expect(head.headers['content-length']).toMatch(/^\d+$/);
    const ranged = await port.fetch({ method: 'GET', url: `${server.origin}/echo`, headers: { range: 'bytes=0-9' } });
    expect(server.requests.at(-1)?.headers['accept-encoding']).toBe('identity');
    await readText(ranged);
  });

  it('a HEAD answered with a coding anyway loses its coded length and coding headers', async () => {
    const { port } = setup();
    const head = await port.fetch({ method: 'HEAD', url: `${server.origin}/echo?coding=gzip&force=1` });
    expect(head.body).toBeNull();
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBeUndefined();
  });
});

describe('gate: a coding the gate did not ask for is refused', () => {
  it.each([
    ['a coded answer to a ranged request (it asked for identity)', '/echo?coding=gzip&force=1', { range: 'bytes=0-99' }],
    ['a coding it does not know', '/echo?coding=zstd', {}],
    ['two codings stacked', '/echo?coding=gzip,%20gzip', {}],
  ] as const)('%s: unrequested_content_encoding, recorded, body never handed over', async (_label, path, headers) => {
    const { port, recorder } = setup();
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}${path}`, headers }));
    expect(error.failure).toBe('origin_refused');
    expect(error.reason).toBe('unrequested_content_encoding');
    expect(error.origin).toBe(server.origin);
    expect(error.message).toContain('did not ask for');
    expect(leaks(error.message, TOKEN)).toBe(false);
    expect(recorder.records.at(-1)).toMatchObject({ decision: 'refuse', reason: 'unrequested_content_encoding', status: expect.any(Number), credentialed: true });
  });
});

describe('gate: decoding is bounded', () => {
  it.each(['gzip', 'br'])('a %s decompression bomb ends the body with decompression_limit, recorded', async (coding) => {
    const { port, recorder } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/bomb?coding=${coding}` });
    const reader = response.body!.getReader();
    let decoded = 0;
    let failure: unknown;
    try {
      for (let step = await reader.read(); step.done !== true; step = await reader.read()) decoded += step.value.byteLength;
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ failure: 'origin_refused', reason: 'decompression_limit', origin: server.origin });
    expect(decoded).toBeGreaterThanOrEqual(DECODE_FREE_BYTES / 2);
    expect(decoded).toBeLessThan(BOMB_BYTES);
    expect(recorder.refusals()).toMatchObject([{ reason: 'decompression_limit', status: 200 }]);
  });

  it('a bomb is decoded only as far as the reader reads', async () => {
    const { port } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/bomb?coding=gzip` });
    const reader = response.body!.getReader();
    const first = await reader.read();
    const before = process.memoryUsage().arrayBuffers;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Had it inflated ahead, 64 MiB would sit in buffers now.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024);
    expect(first.value?.byteLength).toBeGreaterThan(0);
    await reader.cancel();
  });

  it('a corrupt coded body fails the read as unreachable, naming the origin only', async () => {
    const { port } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/corrupt` });
    const failure = await readText(response).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ failure: 'unreachable', origin: server.origin });
    expect(String((failure as Error).message)).toContain('could not be decoded');
  });
});

describe('gate: secrets in response headers, redirect locations and trailers', () => {
  it('every spelling is removed from header values and names and from an unfollowed location; trailers never reach the connector', async () => {
    const { port } = setup({ redirects: 'return' });
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/reflect-headers` });
    const text = await readText(response);
    expect(response.status).toBe(302);
    const seen = `${JSON.stringify(response.headers)}\n${text}`;
    expect(leaks(seen, TOKEN)).toBe(false);
    expect(response.headers['location']).toMatch(/^\/next\?t=\[redacted\]&u=\[redacted\]$/);
    expect(Object.keys(response.headers)).toContain('x-[redacted]');
    expect(seen).not.toContain('x-trailer-token:');
    expect(text).toMatch(/^moved; "\*+"$/);
  });
});
