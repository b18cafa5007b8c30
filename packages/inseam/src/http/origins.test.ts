/**
 * DNS rebinding and cross-origin pages, over real HTTP: the server answers only to the names it
 * listens on (and a configured public URL), refuses a foreign Origin on /mcp and on every request
 * that may change something, and grants no CORS. The rebinding case sends `Host: evil.example`
 * the way a browser would after the attacker's name was re-pointed at 127.0.0.1: a real lookup
 * of evil.example answering 127.0.0.1.
 */
import { request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicOrigin, requestGuard } from './origins.js';
import { SessionService } from './sessions.js';
import { call, q, startApi, type Api, type Answer } from './__fixtures__/api.js';

let api: Api;
let port: number;

beforeAll(async () => {
  api = await startApi({ mcp: {} });
  port = Number(new URL(api.url).port);
});

afterAll(async () => {
  await api?.close();
});

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/**
 * A request to `http://<name>:<port><path>` where the name resolves to 127.0.0.1 — what the
 * attacker's DNS answers once it has re-pointed the name — so the Host header is the name.
 */
function viaName(name: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      {
        host: name,
        port,
        method,
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) },
        lookup: (_hostname, options, callback) => {
          if ((options as { all?: boolean }).all === true) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
          else callback(null, '127.0.0.1', 4);
        },
      },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

function refused(answer: Reply | Answer, reason: string): void {
  expect(answer.status, answer.text).toBe(403);
  expect(JSON.parse(answer.text)).toEqual({ error: { code: 'permission_denied', message: expect.any(String), details: { reason } } });
  expect(answer.headers['access-control-allow-origin']).toBeUndefined();
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'origin-test', version: '1.0.0' } } });
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

describe('Host: only the names the server listens on', () => {
  it('refuses a rebound name on every surface: the page, /v1 and /mcp', async () => {
    refused(await viaName('evil.example', 'GET', '/'), 'host_not_allowed');
    refused(await viaName('evil.example', 'GET', '/web/js/app.js'), 'host_not_allowed');
    refused(await viaName('evil.example', 'GET', '/v1/openapi.json'), 'host_not_allowed');
    refused(await viaName('evil.example', 'GET', '/v1/hosts', { authorization: `Bearer ${api.admin}` }), 'host_not_allowed');
    const mcp = await viaName('evil.example', 'POST', '/mcp', { authorization: `Bearer ${api.admin}`, ...MCP_HEADERS }, initialize);
    refused(mcp, 'host_not_allowed');
    expect(mcp.headers['mcp-session-id']).toBeUndefined();
    // A name of this machine that is not loopback's is no better.
    refused(await viaName('evil.example', 'GET', '/v1/hosts', { authorization: `Bearer ${api.admin}`, host: `localhost.evil.example:${port}` }), 'host_not_allowed');
  });

  it('answers to localhost, 127.0.0.1 and [::1] on its own port, and to nothing else', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect((await call(api, 'GET', '/v1/openapi.json', { headers: { host } })).status, host).toBe(200);
    }
    for (const host of ['localhost', '127.0.0.1', `127.0.0.1:${port + 1}`, `127.0.0.2:${port}`, `localhost.:${port}`, `evil.example:${port}`, `127.0.0.1:${port}@evil.example`, '']) {
      refused(await call(api, 'GET', '/v1/openapi.json', { headers: { host } }), 'host_not_allowed');
    }
  });
});

describe('Origin: only the server\'s own page may drive it', () => {
  it('refuses a foreign Origin on /mcp: no session is opened', async () => {
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null']) {
      const answer = await call(api, 'POST', '/mcp', { token: api.admin, body: initialize, headers: { 'content-type': 'application/json', ...MCP_HEADERS, origin } });
      refused(answer, 'origin_not_allowed');
      expect(answer.headers['mcp-session-id'], origin).toBeUndefined();
    }
    // The GET stream too: a page elsewhere cannot listen.
    refused(await call(api, 'GET', '/mcp', { token: api.admin, headers: { accept: 'text/event-stream', origin: 'http://evil.example' } }), 'origin_not_allowed');
    // The server's own origin, and no Origin at all (an MCP client that is not a browser), open sessions.
    for (const headers of [{ origin: api.url }, {}] as Record<string, string>[]) {
      const answer = await call(api, 'POST', '/mcp', { token: api.admin, body: initialize, headers: { 'content-type': 'application/json', ...MCP_HEADERS, ...headers } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers['mcp-session-id']).toEqual(expect.any(String));
    }
  });

  it('refuses a foreign Origin on every request that may change something, with the token it stole', async () => {
    const write = await call(api, 'PUT', `/v1/fs/write?address=${q('files://planted.txt')}`, { token: api.admin, body: 'planted', headers: { 'content-type': 'text/plain', origin: 'http://evil.example' } });
    refused(write, 'origin_not_allowed');
    await expect(readFile(join(api.folder, 'planted.txt'))).rejects.toThrow();
    refused(await call(api, 'DELETE', `/v1/fs/delete?address=${q('files://notes/a.txt')}`, { token: api.admin, headers: { origin: 'https://attacker.test' } }), 'origin_not_allowed');
    expect(await readFile(join(api.folder, 'notes/a.txt'), 'utf8')).toBe('alpha beta gamma\n');
    refused(await call(api, 'POST', '/v1/networks', { token: api.admin, body: { slug: 'evil' }, headers: { origin: 'http://evil.example' } }), 'origin_not_allowed');
    expect(await api.platform.store.networks.get('evil')).toBeNull();
  });

  it('refuses a foreign Origin spending a sign-in code, which stays good for the page it was meant for', async () => {
    const sessions = new SessionService(api.platform.store.sessions);
    const { code } = await sessions.createCode({ userId: 'ann', features: [] });
    refused(await call(api, 'POST', '/v1/sessions', { body: { code }, headers: { origin: 'http://evil.example' } }), 'origin_not_allowed');
    const own = await call(api, 'POST', '/v1/sessions', { body: { code }, headers: { origin: api.url } });
    expect(own.status, own.text).toBe(201);
  });

  it('tells the server\'s own origins from look-alikes', async () => {
    const post = (origin: string): Promise<Answer> => call(api, 'POST', '/v1/networks', { token: api.reader, body: { slug: 'probe' }, headers: { origin } });
    // Allowed through the origin check, then refused for the feature the reader lacks.
    for (const origin of [api.url, `http://localhost:${port}`, `http://[::1]:${port}`]) expect((await post(origin)).json().error.details, origin).toEqual({ missingFeatures: ['networks.manage'] });
    for (const origin of [`https://127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`, 'http://127.0.0.1', `http://127.0.0.1:${port}/`, `http://127.0.0.1:${port}.evil.example`, `http://user@127.0.0.1:${port}`, 'null', '']) {
      refused(await post(origin), 'origin_not_allowed');
    }
  });

  it('lets a read from elsewhere through without granting it to the page: no CORS header, and preflights refused', async () => {
    const read = await call(api, 'GET', '/v1/hosts', { token: api.admin, headers: { origin: 'http://evil.example' } });
    expect(read.status).toBe(200);
    expect(Object.keys(read.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = await call(api, 'OPTIONS', '/v1/hosts', { headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    refused(preflight, 'origin_not_allowed');
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('the names of the connection\'s own end', () => {
  // The guard reads only these fields; a server bound to every address (`--host 0.0.0.0`, `::`) sees each connection's real local address here.
  const guard = requestGuard();
  const verdict = (localAddress: string, host: string): string => {
    try {
      guard({ headers: { host }, method: 'GET', url: '/v1/hosts', raw: { socket: { localAddress, localPort: 7341 } } } as never);
      return 'ok';
    } catch (error) {
      return (error as { details: { reason: string } }).details.reason;
    }
  };

  it('takes loopback names only on a loopback connection, and an address literal as itself', () => {
    expect(verdict('::ffff:127.0.0.1', 'localhost:7341')).toBe('ok');
    expect(verdict('::ffff:127.0.0.1', '127.0.0.1:7341')).toBe('ok');
    expect(verdict('::1', '[::1]:7341')).toBe('ok');
    expect(verdict('::1', 'localhost:7341')).toBe('ok');
    expect(verdict('127.0.0.5', '127.0.0.5:7341')).toBe('ok');
    expect(verdict('192.168.1.5', '192.168.1.5:7341')).toBe('ok');
    expect(verdict('::ffff:192.168.1.5', '192.168.1.5:7341')).toBe('ok');
    expect(verdict('fe80::1', '[fe80::1]:7341')).toBe('ok');
    // A LAN connection is not a loopback one, and a machine name needs --public-url.
    expect(verdict('192.168.1.5', 'localhost:7341')).toBe('host_not_allowed');
    expect(verdict('192.168.1.5', 'box.lan:7341')).toBe('host_not_allowed');
    expect(verdict('192.168.1.5', '192.168.1.6:7341')).toBe('host_not_allowed');
    expect(verdict('::ffff:127.0.0.1', 'localhost:7342')).toBe('host_not_allowed');
  });
});

describe('a public URL', () => {
  it('adds its name to Host and its origin to Origin, and nothing more', async () => {
    const proxied = await startApi({ publicUrl: 'https://inseam.example.com' });
    try {
      for (const host of ['inseam.example.com', 'inseam.example.com:443', 'INSEAM.example.com', `127.0.0.1:${new URL(proxied.url).port}`]) {
        expect((await call(proxied, 'GET', '/v1/openapi.json', { headers: { host } })).status, host).toBe(200);
      }
      for (const host of ['inseam.example.com:8443', 'other.example.com', 'example.com']) refused(await call(proxied, 'GET', '/v1/openapi.json', { headers: { host } }), 'host_not_allowed');
      const post = (origin: string): Promise<Answer> => call(proxied, 'POST', '/v1/networks', { token: proxied.admin, body: { slug: 'via-proxy' }, headers: { host: 'inseam.example.com', origin } });
      refused(await post('http://inseam.example.com'), 'origin_not_allowed');
      refused(await post('https://inseam.example.com:8443'), 'origin_not_allowed');
      expect((await post('https://inseam.example.com')).status).toBe(201);
    } finally {
      await proxied.close();
    }
  });

  it('is an origin: http(s), a host, no path', () => {
    expect(publicOrigin('https://inseam.example.com/')).toBe('https://inseam.example.com');
    expect(publicOrigin('http://box.lan:8080')).toBe('http://box.lan:8080');
    for (const bad of ['inseam.example.com', 'ftp://inseam.example.com', 'https://inseam.example.com/inseam', 'https://u:p@inseam.example.com', 'https://inseam.example.com/?x=1', 'https://inseam.example.com/#x']) {
      expect(() => publicOrigin(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});
