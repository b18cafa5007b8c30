import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { echoHandler, readText, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest, rejection } from './__fixtures__/gate-helpers.js';
import type { ReadEndpoint } from '@inseam/connector';

const KEY = 'Key-9f8e7d6c5b4a';
let a: TestServer;
let b: TestServer;
let undeclared: TestServer;

function redirect(res: ServerResponse, status: number, location: string): void {
  res.statusCode = status;
  res.setHeader('location', location);
  res.end('moved');
}

function routes(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname;
  const loop = /^\/loop\/(\d+)$/.exec(path);
  if (loop !== null) return redirect(res, 302, `/loop/${Number(loop[1]) + 1}`);
  const status = /^\/status\/(\d+)$/.exec(path);
  if (status !== null) return redirect(res, Number(status[1]), '/echo');
  switch (path) {
    case '/to-same':
      return redirect(res, 302, '/echo?from=same');
    case '/to-b':
      return redirect(res, 302, `${b.origin}/echo`);
    case '/to-b-echoing-query':
      return redirect(res, 302, `${b.origin}/echo${url.search}`);
    case '/to-b-key-in-path':
      return redirect(res, 302, `${b.origin}/echo/${url.searchParams.get('api_key') ?? ''}`);
    case '/to-undeclared':
      return redirect(res, 302, `${undeclared.origin}/echo?secret-looking=1`);
    case '/to-metadata':
      return redirect(res, 302, 'http://169.254.169.254/latest/meta-data/');
    case '/to-key-host':
      return redirect(res, 302, `http://${url.searchParams.get('api_key') ?? ''}.example.test/`);
    default:
      void echoHandler(req, res, body);
  }
}

beforeAll(async () => {
  a = await startServer(routes);
  b = await startServer(routes);
  undeclared = await startServer(routes);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), undeclared.close()]);
});

function setup(options: { redirects?: 'follow' | 'return'; mode?: 'enforce' | 'audit'; maxRedirects?: number; readEndpoints?: readonly ReadEndpoint[] } = {}) {
  const under = gateUnderTest(options.maxRedirects === undefined ? {} : { maxRedirects: options.maxRedirects });
  const port = under.host({
    auth: {
      origins: [a.origin, b.origin],
      present: [{ in: 'query', name: 'api_key', value: '{{key}}' }, { in: 'header', name: 'X-Api-Key', value: '{{key}}' }],
      ...(options.readEndpoints === undefined ? {} : { readEndpoints: options.readEndpoints }),
    },
    allowPrivateOrigins: [a.origin, b.origin],
    credentials: { fields: async () => ({ key: KEY }) },
    ...(options.redirects === undefined ? {} : { redirects: options.redirects }),
    ...(options.mode === undefined ? {} : { mode: options.mode }),
  });
  return { ...under, port };
}

const lastOf = (server: TestServer) => server.requests[server.requests.length - 1]!;

describe('gate: redirects', () => {
  it('follows a same-origin redirect with the credential on every hop, recording each hop', async () => {
    const { port, recorder } = setup();
    const response = await port.fetch({ method: 'GET', url: `${a.origin}/to-same` });
    expect(response.status).toBe(200);
    await readText(response);
    expect(lastOf(a).url).toBe(`/echo?from=same&api_key=${KEY}`);
    expect(lastOf(a).headers['x-api-key']).toBe(KEY);
    expect(recorder.records.map((entry) => [entry.hop, entry.status, entry.credentialed])).toEqual([
      [0, 302, true],
      [1, 200, true],
    ]);
  });

  it('follows to another declared origin without the credential', async () => {
    const { port, recorder } = setup();
    const response = await port.fetch({ method: 'GET', url: `${a.origin}/to-b` });
    expect(response.status).toBe(200);
    await readText(response);
    const hop = lastOf(b);
    expect(hop.url).toBe('/echo');
    expect(hop.headers['x-api-key']).toBeUndefined();
    expect(recorder.records.map((entry) => [entry.origin, entry.credentialed])).toEqual([
      [a.origin, true],
      [b.origin, false],
    ]);
  });

  it('removes a query credential the redirect echoes onward to another origin', async () => {
    const { port } = setup();
    await readText(await port.fetch({ method: 'GET', url: `${a.origin}/to-b-echoing-query?x=1` }));
    const hop = lastOf(b);
    expect(hop.url).toBe('/echo?x=1');
    expect(JSON.stringify(hop)).not.toContain(KEY);
  });

  it('refuses a redirect that carries the credential to another origin in its path', async () => {
    const { port, recorder } = setup();
    const before = b.requests.length;
    const error = await rejection(port.fetch({ method: 'GET', url: `${a.origin}/to-b-key-in-path` }));
    expect(error.reason).toBe('secret_in_url');
    expect(b.requests.length).toBe(before);
    expect(JSON.stringify(recorder.records)).not.toContain(KEY);
  });

  it('refuses a redirect to an undeclared origin, naming that origin and nothing else', async () => {
    const { port, recorder } = setup();
    const before = undeclared.connections;
    const error = await rejection(port.fetch({ method: 'GET', url: `${a.origin}/to-undeclared` }));
    expect(error.failure).toBe('origin_refused');
    expect(error.origin).toBe(undeclared.origin);
    expect(error.message).not.toContain('secret-looking');
    expect(undeclared.connections).toBe(before);
    expect(recorder.refusals()).toMatchObject([{ origin: undeclared.origin, hop: 1, reason: 'origin_not_declared' }]);
  });

  it('refuses a redirect to the metadata address', async () => {
    const { port } = setup();
    const error = await rejection(port.fetch({ method: 'GET', url: `${a.origin}/to-metadata` }));
    expect(error.reason).toBe('origin_not_declared');
    expect(error.origin).toBe('http://169.254.169.254');
  });

  it('never names the credential when a redirect puts it in a hostname', async () => {
    const { port, recorder } = setup();
    const error = await rejection(port.fetch({ method: 'GET', url: `${a.origin}/to-key-host` }));
    expect(error.message).not.toContain(KEY.toLowerCase());
    expect(error.origin).not.toContain(KEY.toLowerCase());
    expect(JSON.stringify(recorder.records).toLowerCase()).not.toContain(KEY.toLowerCase());
  });

  it('stops after maxRedirects hops', async () => {
    const { port, recorder } = setup({ maxRedirects: 3 });
    const error = await rejection(port.fetch({ method: 'GET', url: `${a.origin}/loop/0` }));
    expect(error.reason).toBe('too_many_redirects');
    expect(recorder.records.filter((entry) => entry.decision === 'allow')).toHaveLength(4);
  });

  it.each([
    [303, 'POST', 'GET'],
    [303, 'PUT', 'GET'],
    [301, 'POST', 'GET'],
    [302, 'POST', 'GET'],
    [301, 'PUT', 'PUT'],
    [307, 'POST', 'POST'],
    [308, 'PUT', 'PUT'],
  ])('a %i answer to %s continues as %s', async (status, method, expected) => {
    const { port } = setup();
    const response = await port.fetch({
      method: method as 'POST',
      url: `${a.origin}/status/${status}`,
      body: new TextEncoder().encode('payload'),
      headers: { 'content-type': 'text/plain' },
    });
    const echoed = JSON.parse(await readText(response));
    expect(echoed.method).toBe(expected);
    if (expected === 'GET') {
      expect(echoed.body).toBe('');
      expect(echoed.headers['content-type']).toBeUndefined();
    } else {
      expect(echoed.body).toBe('payload');
    }
  });

  it('hands back a 307 whose streamed body cannot be sent again', async () => {
    const { port } = setup();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('once'));
        controller.close();
      },
    });
    const response = await port.fetch({ method: 'PUT', url: `${a.origin}/status/307`, body, headers: { 'content-length': '4' } });
    expect(response.status).toBe(307);
    expect(response.headers['location']).toBe('/echo');
    await readText(response);
  });

  it('hands every redirect back unfollowed when the host asks for that', async () => {
    const { port, recorder } = setup({ redirects: 'return' });
    const response = await port.fetch({ method: 'GET', url: `${a.origin}/to-b` });
    expect(response.status).toBe(302);
    expect(response.headers['location']).toBe(`${b.origin}/echo`);
    await readText(response);
    expect(recorder.records).toHaveLength(1);
  });
});

describe('gate: audit mode', () => {
  it.each(['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'REPORT', 'SEARCH'])('lets the read method %s through', async (method) => {
    const { port } = setup({ mode: 'audit' });
    const response = await port.fetch({ method: method as 'GET', url: `${a.origin}/echo` });
    expect(response.status).toBe(200);
    await readText(response);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'MKCOL', 'MOVE', 'PROPPATCH'])('refuses the write method %s, naming the origin, before sending', async (method) => {
    const { port, recorder } = setup({ mode: 'audit' });
    const before = a.requests.length;
    const error = await rejection(port.fetch({ method: method as 'POST', url: `${a.origin}/echo?q=${KEY}` }));
    expect(error.failure).toBe('origin_refused');
    expect(error.reason).toBe('write_in_audit_mode');
    expect(error.origin).toBe(a.origin);
    expect(error.message).toContain(a.origin);
    expect(error.message).not.toContain(KEY);
    expect(a.requests.length).toBe(before);
    expect(recorder.refusals()).toMatchObject([{ origin: a.origin, method, reason: 'write_in_audit_mode' }]);
  });

  describe('a POST declared in auth.readEndpoints', () => {
    const graphql = (): ReadEndpoint[] => [{ method: 'POST', origin: a.origin, path: '/echo' }];

    it('passes to exactly that origin and path, with any query, credential attached', async () => {
      const { port } = setup({ mode: 'audit', readEndpoints: graphql() });
      const response = await port.fetch({ method: 'POST', url: `${a.origin}/echo?op=search`, body: new TextEncoder().encode('{"query":"{ items }"}') });
      expect(response.status).toBe(200);
      expect(JSON.parse(await readText(response))).toMatchObject({ method: 'POST', body: '{"query":"{ items }"}' });
      expect(lastOf(a).headers['x-api-key']).toBe(KEY);
    });

    it.each([
      ['another path on the origin', () => `${a.origin}/echo/more`],
      ['the same path with a trailing slash', () => `${a.origin}/echo/`],
      ['the same path on another declared origin', () => `${b.origin}/echo`],
    ])('is still refused to %s', async (_name, url) => {
      const { port, recorder } = setup({ mode: 'audit', readEndpoints: graphql() });
      const error = await rejection(port.fetch({ method: 'POST', url: url(), body: new TextEncoder().encode('{}') }));
      expect(error.reason).toBe('write_in_audit_mode');
      expect(error.message).toContain('auth.readEndpoints');
      expect(recorder.refusals()).toHaveLength(1);
    });

    it('is refused for another method to the same path, and for a redirect hop to an undeclared path', async () => {
      const { port } = setup({ mode: 'audit', readEndpoints: [{ method: 'POST', origin: a.origin, path: '/status/307' }] });
      expect((await rejection(port.fetch({ method: 'PUT', url: `${a.origin}/status/307`, body: new TextEncoder().encode('{}') }))).reason).toBe('write_in_audit_mode');
      const before = a.requests.length;
      const error = await rejection(port.fetch({ method: 'POST', url: `${a.origin}/status/307`, body: new TextEncoder().encode('{}') }));
      expect(error.reason).toBe('write_in_audit_mode');
      expect(a.requests.length).toBe(before + 1);
    });

    it('still may not carry a method override', async () => {
      const { port } = setup({ mode: 'audit', readEndpoints: graphql() });
      const error = await rejection(port.fetch({ method: 'POST', url: `${a.origin}/echo`, headers: { 'X-HTTP-Method-Override': 'DELETE' } }));
      expect(error.reason).toBe('method_override_in_audit_mode');
    });

    it('must name an exact declared origin', () => {
      expect(() => setup({ mode: 'audit', readEndpoints: [{ method: 'POST', origin: undeclared.origin, path: '/echo' }] })).toThrow(/readEndpoints/);
    });
  });
});
