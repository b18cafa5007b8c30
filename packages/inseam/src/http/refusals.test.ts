/**
 * Every refusal of the server — its own, Fastify's and Node's HTTP parser's — is the documented
 * envelope `{ error: { code, message, details } }` with a stable code, and never repeats the URL,
 * a header or the body (any of which may carry a secret). Bad input is refused, not coerced and
 * stored: a wrong type, a list where a string belongs, a key given twice.
 *
 * Requests go over real sockets: undici, and raw `net` writes where a client would tidy the
 * request up (a 100,000-character query line, no Content-Type).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_STATUS } from './errors.js';
import { call, q, startApi, type Api, type Answer } from './__fixtures__/api.js';

/** What a secret looks like to a reader of logs: the tests put it where a careless answer would echo it. */
const SECRET = 'inseam_SECRETSECRETSECRETSECRETSECRETSECRETSECR';

let api: Api;

beforeAll(async () => {
  api = await startApi();
});

afterAll(async () => {
  await api?.close();
});

interface RawAnswer {
  readonly status: number;
  readonly headers: string;
  readonly body: string;
}

/** Writes `head` (and `body`) on a fresh connection and reads the answer until the server closes or sends it whole. */
function raw(head: string, body = ''): Promise<RawAnswer> {
  const url = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    const done = (): void => {
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`No answer: ${JSON.stringify(text.slice(0, 200))}`));
      const headers = text.slice(0, end);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: text.slice(end + 4) });
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text.slice(end + 4)) >= Number(length)) {
        socket.destroy();
        done();
      }
    });
    socket.on('end', done);
    socket.on('error', (error) => (text === '' ? reject(error) : done()));
    socket.write(head + body);
  });
}

/** Asserts the documented envelope: JSON, exactly code/message/details, the code's status (or `status`), and no echo. */
function expectEnvelope(status: number, contentType: string, text: string, code: string, options: { readonly status?: number; readonly without?: readonly string[] } = {}): Record<string, unknown> {
  expect(status, text).toBe(options.status ?? HTTP_STATUS[code as keyof typeof HTTP_STATUS]);
  expect(contentType).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'details', 'message']);
  expect(body.error['code']).toBe(code);
  expect(typeof body.error['message']).toBe('string');
  for (const echo of [SECRET, ...(options.without ?? [])]) expect(text).not.toContain(echo);
  return body.error;
}

function envelopeOf(answer: Answer, code: string, options: { readonly status?: number; readonly without?: readonly string[] } = {}): Record<string, unknown> {
  return expectEnvelope(answer.status, String(answer.headers['content-type']), answer.text, code, options);
}

function rawEnvelope(answer: RawAnswer, code: string, options: { readonly status?: number; readonly without?: readonly string[] } = {}): Record<string, unknown> {
  return expectEnvelope(answer.status, /content-type: ([^\r\n]+)/i.exec(answer.headers)?.[1] ?? '', answer.body, code, options);
}

function host(): string {
  return `${new URL(api.url).host}`;
}

describe('every refusal is the documented envelope, echoing nothing', () => {
  it('an unknown route: not_found, without the path', async () => {
    const error = envelopeOf(await call(api, 'GET', `/v1/nothing/${SECRET}?token=${SECRET}`, { token: api.admin }), 'not_found');
    expect(error['details']).toEqual({ reason: 'no_route' });
  });

  it('a path parameter over the router\'s limit: 414 too_large, without the URL', async () => {
    const error = envelopeOf(await call(api, 'GET', `/v1/runs/${SECRET.repeat(4)}`, { token: api.admin }), 'too_large', { status: 414 });
    expect(error['details']).toEqual({ reason: 'path_parameter_too_long' });
  });

  it('a malformed percent-encoding in the path: invalid_argument, without the URL', async () => {
    const answer = await raw(`GET /v1/runs/${SECRET}%E0%A4%A HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${api.admin}\r\nConnection: close\r\n\r\n`);
    const error = rawEnvelope(answer, 'invalid_argument');
    expect(error['details']).toEqual({ reason: 'bad_url' });
  });

  it('a 100,000-character query: 431 too_large from the HTTP parser itself, without the query', async () => {
    const answer = await raw(`GET /v1/search?q=${SECRET}${'a'.repeat(100_000)} HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\n`);
    const error = rawEnvelope(answer, 'too_large', { status: 431 });
    expect(error['details']).toEqual({ reason: 'headers_too_large' });
    expect(answer.headers).toMatch(/connection: close/i);
  });

  it('a header block over the limit: 431 too_large, without the header', async () => {
    const answer = await raw(`GET /v1/hosts HTTP/1.1\r\nHost: ${host()}\r\nX-Note: ${SECRET}${'b'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    rawEnvelope(answer, 'too_large', { status: 431 });
  });

  it('something that is not HTTP: 400 invalid_argument', async () => {
    const answer = await raw(`GET /v1/hosts HTTP/1.1\r\nHost: ${host()}\r\nBad Header ${SECRET}\r\n\r\n`);
    rawEnvelope(answer, 'invalid_argument');
  });

  it('a JSON body over its route\'s limit: 413 too_large', async () => {
    const answer = await call(api, 'POST', '/v1/hosts', { token: api.admin, body: { slug: 'big', kind: 'fs', label: SECRET + 'x'.repeat(2 * 1024 * 1024) } });
    envelopeOf(answer, 'too_large');
  });

  it('a body without Content-Type, or of a type the route does not take: 415 unsupported_media_type', async () => {
    const body = JSON.stringify({ slug: 'typeless', kind: 'fs', config: { root: api.folder }, label: SECRET });
    const answer = await raw(`POST /v1/hosts HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${api.admin}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`, body);
    expect(rawEnvelope(answer, 'unsupported_media_type')['details']).toEqual({ argument: 'content-type', accepted: ['application/json'] });
    const plain = await call(api, 'POST', '/v1/hosts', { token: api.admin, body, headers: { 'content-type': 'text/plain' } });
    envelopeOf(plain, 'unsupported_media_type');
    expect(await api.platform.store.hosts.get({ network: 'home', host: 'typeless' })).toBeNull();
  });

  it('JSON that does not parse: invalid_argument with the position, never the text around it', async () => {
    const answer = await call(api, 'POST', '/v1/hosts', { token: api.admin, body: `{"slug": "x", "label": "${SECRET}" "kind": "fs"}`, headers: { 'content-type': 'application/json' } });
    const error = envelopeOf(answer, 'invalid_argument');
    expect(error['details']).toMatchObject({ argument: 'body', reason: 'invalid_json' });
    const empty = await call(api, 'POST', '/v1/hosts', { token: api.admin, body: '', headers: { 'content-type': 'application/json' } });
    expect(envelopeOf(empty, 'invalid_argument')['details']).toMatchObject({ argument: 'body' });
  });

  it('a body that fails its schema: invalid_argument naming the field', async () => {
    const answer = await call(api, 'POST', '/v1/hosts', { token: api.admin, body: { slug: 'x', kind: 'fs', [SECRET]: 1 } });
    // The unknown field's name is the client's own, and named so it can be fixed; nothing else is repeated.
    expect(answer.status).toBe(400);
    expect(answer.json().error).toMatchObject({ code: 'invalid_argument', details: { argument: `body.${SECRET}` } });
  });

  it('an unauthenticated call: the same envelope with WWW-Authenticate', async () => {
    const answer = await call(api, 'GET', '/v1/hosts', { headers: { authorization: `Bearer ${SECRET}` } });
    envelopeOf(answer, 'unauthenticated');
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer /);
  });
});

describe('wrong types are refused, not coerced and stored', () => {
  const add = (body: unknown): Promise<Answer> => call(api, 'POST', '/v1/hosts', { token: api.admin, body });

  it('refuses a list where a string belongs, and a number where a slug belongs', async () => {
    const listed = await add({ slug: 'listed', kind: ['fs'], config: { root: api.folder } });
    expect(envelopeOf(listed, 'invalid_argument')['details']).toEqual({ argument: 'body.kind' });
    const numbered = await add({ slug: 123, kind: 'fs', config: { root: api.folder } });
    expect(envelopeOf(numbered, 'invalid_argument')['details']).toEqual({ argument: 'body.slug' });
    const stringly = await add({ slug: 'stringly', kind: 'fs', config: { root: api.folder }, sync: { trigger: 'manual' }, permissions: { default: { read: 'true' } } });
    expect(envelopeOf(stringly, 'invalid_argument')['details']).toEqual({ argument: 'body.permissions.default.read' });
    for (const slug of ['listed', '123', 'stringly']) expect(await api.platform.store.hosts.get({ network: 'home', host: slug })).toBeNull();
  });

  it('refuses a key given twice, naming it, at any depth — and stores nothing', async () => {
    const json = (text: string): Promise<Answer> => call(api, 'POST', '/v1/hosts', { token: api.admin, body: text, headers: { 'content-type': 'application/json' } });
    const top = await json(`{"slug":"twice","kind":"fs","config":{"root":${JSON.stringify(api.folder)}},"slug":"other"}`);
    const error = envelopeOf(top, 'invalid_argument');
    expect(error['details']).toEqual({ argument: 'body.slug', reason: 'duplicate_key' });
    expect(error['message']).toContain('"slug"');
    const nested = await json(`{"slug":"nested","kind":"fs","config":{"root":${JSON.stringify(api.folder)},"root":"/"}}`);
    expect(envelopeOf(nested, 'invalid_argument')['details']).toEqual({ argument: 'body.config.root', reason: 'duplicate_key' });
    // The same key spelt with an escape is the same key.
    const escaped = await json(`{"slug":"escaped","kind":"fs","config":{"root":${JSON.stringify(api.folder)}},"k\\u0069nd":"shell"}`);
    expect(envelopeOf(escaped, 'invalid_argument')['details']).toEqual({ argument: 'body.kind', reason: 'duplicate_key' });
    for (const slug of ['twice', 'other', 'nested', 'escaped']) expect(await api.platform.store.hosts.get({ network: 'home', host: slug })).toBeNull();
  });

  it('PATCH a host: wrong types and a key given twice change nothing', async () => {
    const path = '/v1/hosts/home/files';
    const before = (await call(api, 'GET', path, { token: api.admin })).json().settings;
    expect(before).toMatchObject({ config: { root: api.folder } });
    const patch = (body: unknown): Promise<Answer> => call(api, 'PATCH', path, { token: api.admin, body });
    expect(envelopeOf(await patch({ label: 123 }), 'invalid_argument')['details']).toEqual({ argument: 'body.label' });
    expect(envelopeOf(await patch({ label: ['Files'] }), 'invalid_argument')['details']).toEqual({ argument: 'body.label' });
    expect(envelopeOf(await patch({ description: false }), 'invalid_argument')['details']).toEqual({ argument: 'body.description' });
    const twice = await call(api, 'PATCH', path, { token: api.admin, body: '{"label":"One","label":"Two"}', headers: { 'content-type': 'application/json' } });
    expect(envelopeOf(twice, 'invalid_argument')['details']).toEqual({ argument: 'body.label', reason: 'duplicate_key' });
    expect((await call(api, 'GET', path, { token: api.admin })).json().settings).toEqual(before);
  });

  it('refuses prototype keys as Fastify\'s own parser did', async () => {
    const json = (text: string): Promise<Answer> => call(api, 'POST', '/v1/hosts', { token: api.admin, body: text, headers: { 'content-type': 'application/json' } });
    expect(envelopeOf(await json('{"slug":"p","kind":"fs","__proto__":{"admin":true}}'), 'invalid_argument')['details']).toMatchObject({ argument: 'body.__proto__' });
    expect(envelopeOf(await json('{"slug":"p","kind":"fs","config":{"constructor":{"prototype":{"x":1}}}}'), 'invalid_argument')['details']).toMatchObject({ argument: 'body.config.constructor.prototype' });
  });

  it('still reads numbers and repeated parameters from a query string', async () => {
    const listed = await call(api, 'GET', `/v1/fs/list?address=${q('files://notes')}&limit=1`, { token: api.admin });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json().entries).toHaveLength(1);
    const bad = await call(api, 'GET', `/v1/fs/list?address=${q('files://notes')}&limit=one`, { token: api.admin });
    expect(envelopeOf(bad, 'invalid_argument')['details']).toEqual({ argument: 'querystring.limit' });
    const searched = await call(api, 'GET', '/v1/search?q=alpha&host=files', { token: api.admin });
    expect(searched.status, searched.text).toBe(200);
  });
});
