import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthSpec, ExchangeAcquire } from '@inseam/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectNoSecrets, rejectionOf } from './__fixtures__/secrets.js';
import { memoryStore } from './__fixtures__/stores.js';
import { HostCredentials } from './host-credentials.js';
import type { HostRef } from './host-record.js';
import { projectScope } from './scope.js';

const API_KEY = 'good-api-key&123';
const HOST: HostRef = { scope: projectScope('home'), host: 'crm' };

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

let http: Server;
let origin: string;
let seen: Seen[];
let issued: number;
let clock: number;

beforeAll(async () => {
  http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
      let key: string | undefined;
      if (url.pathname === '/json') key = (JSON.parse(body) as { credentials?: { key?: string } }).credentials?.key;
      if (url.pathname === '/form') key = new URLSearchParams(body).get('key') ?? undefined;
      if (url.pathname === '/query') key = url.searchParams.get('key') ?? undefined;
      if (key !== API_KEY) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'bad key', echoed: key }));
        return;
      }
      issued += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: { token: `session-${issued}`, ttl: 120, expires: new Date(clock + 90_000).toISOString(), epoch: Math.floor((clock + 600_000) / 1000) },
          account: [{ id: 42 }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  issued = 0;
  clock = Date.now();
});

function authSpec(acquire: Partial<ExchangeAcquire> = {}): AuthSpec {
  return {
    fields: [
      { name: 'api_key', label: 'API key', secret: true },
      { name: 'tenant', label: 'Tenant', secret: false, pattern: '[a-z]+' },
    ],
    acquire: {
      type: 'exchange',
      request: { method: 'POST', url: `${origin}/json`, headers: { 'x-tenant': '{{tenant}}' }, json: { credentials: { key: '{{api_key}}' }, keep: 1 } },
      extract: { session: '$.data.token', account: '$.account[0].id' },
      expiresIn: '$.data.ttl',
      ...acquire,
    },
    present: [{ in: 'header', name: 'authorization', value: 'Session {{session}}' }],
    origins: [origin],
  };
}

async function service(): Promise<HostCredentials> {
  const { store } = await memoryStore();
  const credentials = new HostCredentials({ store, http: { allowInsecureLoopback: true }, now: () => clock });
  return credentials;
}

async function withFields(auth: AuthSpec, apiKey = API_KEY): Promise<HostCredentials> {
  const credentials = await service();
  await credentials.setFields(HOST, auth, { api_key: apiKey, tenant: 'acme' });
  return credentials;
}

describe('exchange acquisition', () => {
  it('builds the request from {{field}} templates and serves the extracted values', async () => {
    const auth = authSpec();
    const credentials = await withFields(auth);
    const source = credentials.source(HOST, auth);
    expect(await source.tokens()).toEqual({ session: 'session-1', account: '42' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.headers['x-tenant']).toBe('acme');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ credentials: { key: API_KEY }, keep: 1 });
    expect(await source.fields()).toEqual({ api_key: API_KEY, tenant: 'acme' });
    expect(await source.tokens()).toEqual({ session: 'session-1', account: '42' });
    expect(seen).toHaveLength(1);
  });

  it('percent-encodes values in the URL of a GET and sends a form body for form', async () => {
    const get = authSpec({ request: { method: 'GET', url: `${origin}/query?key={{api_key}}&t={{tenant}}` } });
    expect(await (await withFields(get)).source(HOST, get).tokens()).toMatchObject({ session: 'session-1' });
    expect(seen[0]?.query).toEqual({ key: API_KEY, t: 'acme' });

    const form = authSpec({ request: { method: 'POST', url: `${origin}/form`, form: { key: '{{api_key}}', grant: 'session' } } });
    expect(await (await withFields(form)).source(HOST, form).tokens()).toMatchObject({ session: 'session-2' });
    expect(seen[1]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(seen[1]?.body))).toEqual({ key: API_KEY, grant: 'session' });
  });

  it('renews a minute before expiresIn (a JSON path) runs out', async () => {
    const auth = authSpec();
    const source = (await withFields(auth)).source(HOST, auth);
    await source.tokens();
    clock += 50_000;
    expect((await source.tokens())['session']).toBe('session-1');
    clock += 20_000;
    expect((await source.tokens())['session']).toBe('session-2');
  });

  it('takes expiresIn seconds, expiresAt (ISO or epoch seconds), and the earlier of both', async () => {
    const cases: [Partial<ExchangeAcquire>, number][] = [
      [{ expiresIn: 300 }, 300_000],
      [{ expiresIn: '300' }, 300_000],
      [{ expiresIn: undefined, expiresAt: '$.data.expires' }, 90_000],
      [{ expiresIn: undefined, expiresAt: '$.data.epoch' }, 600_000],
      [{ expiresIn: 300, expiresAt: '$.data.expires' }, 90_000],
    ];
    for (const [acquire, lifetime] of cases) {
      const auth = authSpec(acquire);
      const source = (await withFields(auth)).source(HOST, auth);
      const start = clock;
      await source.tokens();
      const before = issued;
      clock = start + lifetime - 61_000;
      await source.tokens();
      expect(issued).toBe(before);
      clock = start + lifetime - 59_000;
      await source.tokens();
      expect(issued).toBe(before + 1);
      clock = start;
    }
  });

  it('without an expiry, keeps the values until a renewOn status', async () => {
    const auth = authSpec({ expiresIn: undefined, renewOn: [401, 419] });
    const source = (await withFields(auth)).source(HOST, auth);
    await source.tokens();
    clock += 365 * 24 * 3600 * 1000;
    expect((await source.tokens())['session']).toBe('session-1');
    expect(await source.onStatus(404)).toBe(false);
    expect(await source.onStatus(419)).toBe(true);
    expect((await source.tokens())['session']).toBe('session-2');
    expect(await source.onStatus(401)).toBe(true);
    expect(issued).toBe(2);
    clock += 11_000;
    expect(await source.onStatus(401)).toBe(true);
    expect((await source.tokens())['session']).toBe('session-3');
  });

  it('renews on 401 by default, and only 401', async () => {
    const auth = authSpec();
    const source = (await withFields(auth)).source(HOST, auth);
    await source.tokens();
    // A 401 within the cooldown is an answer to the value just obtained: retried, not renewed.
    expect(await source.onStatus(401)).toBe(true);
    expect(issued).toBe(1);
    clock += 11_000;
    expect(await source.onStatus(403)).toBe(false);
    expect(await source.onStatus(401)).toBe(true);
    expect(issued).toBe(2);
  });

  it('runs one exchange for concurrent callers', async () => {
    const auth = authSpec();
    const credentials = await withFields(auth);
    const results = await Promise.all(Array.from({ length: 10 }, () => credentials.source(HOST, auth).tokens()));
    expect(seen).toHaveLength(1);
    expect(new Set(results.map((tokens) => tokens['session']))).toEqual(new Set(['session-1']));
  });

  it('re-exchanges after the fields change', async () => {
    const auth = authSpec();
    const credentials = await withFields(auth);
    await credentials.source(HOST, auth).tokens();
    await credentials.setFields(HOST, auth, { api_key: API_KEY, tenant: 'other' });
    expect((await credentials.source(HOST, auth).tokens())['session']).toBe('session-2');
    expect(seen[1]?.headers['x-tenant']).toBe('other');
  });

  it('reports a refused exchange without the key or the answer', async () => {
    const auth = authSpec();
    const wrongKey = 'wrong-key-secret-999';
    const error = await rejectionOf((await withFields(auth, wrongKey)).source(HOST, auth).tokens());
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'exchange_refused', status: 401 } });
    expectNoSecrets(error, [wrongKey, 'bad key']);
  });

  it('reports a missing extracted value without quoting the answer', async () => {
    const auth = authSpec({ extract: { session: '$.data.missing' } });
    const error = await rejectionOf((await withFields(auth)).source(HOST, auth).tokens());
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'exchange_extract', value: 'session' } });
    expectNoSecrets(error, ['session-1', API_KEY]);
  });

  it('refuses to send fields to an origin the AuthSpec does not declare, or one chosen by a field', async () => {
    const credentials = await service();
    const elsewhere = { ...authSpec(), origins: ['https://api.example.com'] };
    expect(() => credentials.source(HOST, elsewhere)).toThrow(expect.objectContaining({ code: 'invalid_config', details: { field: 'auth.acquire.request.url' } }));
    const hostFromField = authSpec({ request: { method: 'GET', url: 'https://{{tenant}}.example.com/token' } });
    expect(() => credentials.source(HOST, { ...hostFromField, origins: ['https://*.example.com'] })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it('refuses malformed exchange blocks', async () => {
    const credentials = await service();
    const malformed: Partial<ExchangeAcquire>[] = [
      { extract: {} },
      { extract: { session: 'data.token' } },
      { request: { method: 'GET' as const, url: `${origin}/json`, json: {} } },
      { request: { method: 'POST' as const, url: `${origin}/json`, json: {}, form: {} } },
      { expiresIn: -5 },
      { renewOn: [200] },
    ];
    for (const acquire of malformed) {
      expect(() => credentials.source(HOST, authSpec(acquire))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });
});

describe('none and static acquisition', () => {
  it('none: serves nothing and never renews', async () => {
    const credentials = await service();
    const auth: AuthSpec = { acquire: { type: 'none' }, present: [], origins: [origin] };
    const source = credentials.source(HOST, auth);
    expect(await source.fields()).toEqual({});
    expect(await source.tokens()).toEqual({});
    expect(await source.onStatus(401)).toBe(false);
  });

  it('static: stores checked fields and serves only the declared ones', async () => {
    const credentials = await service();
    const auth: AuthSpec = { ...authSpec(), acquire: { type: 'static' } };
    const badTenant = await rejectionOf(credentials.setFields(HOST, auth, { api_key: API_KEY, tenant: 'ACME-1' }));
    expect(badTenant).toMatchObject({ code: 'invalid_argument', details: { fields: ['tenant'] } });
    expectNoSecrets(badTenant, [API_KEY]);
    await credentials.setFields(HOST, auth, { api_key: API_KEY, tenant: 'acme' });
    const narrowed: AuthSpec = { ...auth, fields: [{ name: 'api_key', label: 'API key', secret: true }] };
    expect(await credentials.source(HOST, narrowed).fields()).toEqual({ api_key: API_KEY });
    expect(await credentials.source(HOST, auth).tokens()).toEqual({});
    expect(await credentials.remove(HOST)).toBe(true);
    expect(await credentials.source(HOST, auth).fields()).toEqual({});
  });

  it('keeps each owner scope apart', async () => {
    const credentials = await service();
    const auth: AuthSpec = { ...authSpec(), acquire: { type: 'static' } };
    await credentials.setFields(HOST, auth, { api_key: API_KEY, tenant: 'acme' });
    expect(await credentials.source({ scope: projectScope('work'), host: 'crm' }, auth).fields()).toEqual({});
    expect(() => credentials.source({ scope: { network: null, owner: 'project' }, host: 'crm' }, auth)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
