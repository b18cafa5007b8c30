/**
 * The sandbox, the egress gate and the credential store together, against real servers on
 * 127.0.0.1. A module loaded by SandboxHost sends through `gate.forHost(...)` bound to the
 * AuthSpec its own describe() declared and to a credential source of a store on a temp SQLite
 * file. Attacks from inside the module: reading the secret back (an echo route reflects the
 * request), undeclared origins, loopback written in every legacy IPv4 form and IPv6-mapped,
 * redirects out of the declared origins, writes in audit mode. The platform (this process) and
 * the sandbox process must stay up, and the gate must have recorded every attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorError } from '@neuralis/package-system/contracts';
import { createEgressGate, InMemoryEgressRecorder } from '../gate/index.js';
import type { EgressGate, EgressRecord, HostEgressPolicy } from '../gate/index.js';
import { startServer } from '../gate/__fixtures__/servers.js';
import type { TestServer } from '../gate/__fixtures__/servers.js';
import { SandboxHost, type SandboxLogRecord } from './host.js';
import type { SandboxedConnector } from './sandboxed-connector.js';
import {
  HOME,
  SECRETS,
  deferredEgress,
  gatedAuth,
  gatedRunner,
  loopbackResolver,
  openStoreUnderTest,
  redirectTo,
  reflect,
  secretForms,
} from './__fixtures__/gated.js';
import type { StoreUnderTest } from './__fixtures__/gated.js';

let api: TestServer;
let second: TestServer;
let outside: TestServer;
let store: StoreUnderTest;
let gate: EgressGate;
const recorder = new InMemoryEgressRecorder();
const gateWarnings: string[] = [];
const logs: SandboxLogRecord[] = [];
const host = new SandboxHost({ log: (record) => logs.push(record), limits: { callTimeoutMs: 10_000 } });
/** The declared origins, spelled as the module declares them. */
let apiOrigin: string;
let secondOrigin: string;
let enforced: SandboxedConnector;
let sandboxPid: number | undefined;

/** What the gate must have recorded, test by test: every attempt, allowed or refused. */
const expectedRecords: Partial<EgressRecord>[] = [];

async function loadGated(label: string, mode: HostEgressPolicy['mode']): Promise<SandboxedConnector> {
  const egress = deferredEgress();
  const source = gatedRunner(gatedAuth([apiOrigin, secondOrigin]));
  const config = { api: apiOrigin, second: secondOrigin, outside: outside.origin, port: api.port };
  const connector = await host.load({ source, label, config, egress });
  const auth = connector.describe().auth;
  egress.bind(
    gate.forHost({
      hostId: label,
      auth,
      credentials: await store.sourceFor({ scope: HOME, host: label }, auth),
      allowPrivateOrigins: [apiOrigin, secondOrigin],
      ...(mode === undefined ? {} : { mode }),
    }),
  );
  return connector;
}

/** Runs `code` in the module; returns its value, or `{ threw }` when it threw. */
async function run(connector: SandboxedConnector, code: string): Promise<unknown> {
  const extra = (await connector.list({ prefix: code })).entries[0]?.extra as { value?: unknown; error?: string };
  return extra.error === undefined ? extra.value : { threw: extra.error };
}

/** The records the gate made while `work` ran. */
async function recorded(work: () => Promise<void>): Promise<EgressRecord[]> {
  const before = recorder.records.length;
  await work();
  return recorder.records.slice(before);
}

function expectRecords(records: readonly EgressRecord[], expected: Partial<EgressRecord>[]): void {
  expect(records).toEqual(expected.map((entry) => expect.objectContaining(entry)));
  expectedRecords.push(...expected);
}

/** A snippet that fetches, reads and reports everything the module can see of each answer. */
const LOOK = `
  const seen = [];
  const look = async (label, url, init) => {
    try {
      const response = await fetch(url, init);
      const headers = [...response.headers];
      const text = await response.text();
      const entry = { label, status: response.status, headers, text };
      seen.push(entry);
      console.log('seen ' + JSON.stringify(entry));
    } catch (error) {
      const entry = { label, error: String(error && error.name) + ': ' + String(error && error.message), cause: error && error.cause ? error.cause : null };
      seen.push(entry);
      console.log('failed ' + JSON.stringify(entry));
    }
  };`;

beforeAll(async () => {
  api = await startServer((req, res, body) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/redirect') redirectTo(req, res);
    else reflect(req, res, body);
  });
  second = await startServer(reflect);
  outside = await startServer(reflect);
  apiOrigin = `http://localhost:${api.port}`;
  secondOrigin = `http://localhost:${second.port}`;
  store = await openStoreUnderTest();
  gate = createEgressGate({ recorder, resolver: loopbackResolver, logger: { warn: (line) => gateWarnings.push(line) }, retry: { baseDelayMs: 1 } });
  enforced = await loadGated('gated-enforce', undefined);
  sandboxPid = host.pid;
});

afterAll(async () => {
  await host.close();
  await gate.close();
  await store.close();
  await Promise.all([api.close(), second.close(), outside.close()]);
});

describe('no secret reaches the isolate', () => {
  it('the echo reflects the credential the gate attached; the module sees none of it in bodies, headers, errors or console lines', async () => {
    const forms = secretForms();
    let seen: unknown;
    const records = await recorded(async () => {
      seen = await run(
        enforced,
        `${LOOK}
        await look('plain', config.api + '/echo?x=1');
        await look('forged', config.api + '/echo?api_key=guess&x=2', {
          headers: { 'X-Api-Token': 'forged', Authorization: 'Bearer forged', Cookie: 'sid=forged', 'X-Probe': '{{token}} {{password}} {{apiKey}}' },
        });
        await look('post', config.api + '/echo', { method: 'POST', body: JSON.stringify({ ask: '{{session}}' }), headers: { 'content-type': 'application/json' } });
        const streamed = await fetch(config.api + '/echo?x=3');
        const reader = streamed.body.getReader();
        const bytes = [];
        for (let r = await reader.read(); !r.done; r = await reader.read()) bytes.push(...r.value);
        seen.push({ label: 'streamed', text: new TextDecoder().decode(new Uint8Array(bytes)), setCookie: streamed.headers.get('set-cookie') });
        await look('credentials in the URL', 'http://' + 'user:guess@' + config.api.slice(7) + '/echo');
        await look('undeclared', config.outside + '/echo');
        return seen;`,
      );
    });
    // The gate attached every form of the credential: the echo server received each one.
    const received = api.requests.filter((request) => request.url.startsWith('/echo'));
    expect(received).toHaveLength(4);
    for (const request of received) {
      expect(request.headers['x-api-token']).toBe(SECRETS.token);
      expect(request.headers['authorization']).toBe(`Basic ${Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64')}`);
      expect(request.headers['cookie']).toBe(`sid=${SECRETS.session}`);
      expect(new URL(request.url, 'http://x').searchParams.getAll('api_key')).toEqual([SECRETS.apiKey]);
    }
    // The module's own header values were dropped and its templates were not expanded.
    expect(received[1]?.headers['x-probe']).toBe('{{token}} {{password}} {{apiKey}}');
    expect(JSON.parse(received[2]?.body.toString('utf8') ?? '{}')).toEqual({ ask: '{{session}}' });

    // Everything the module saw, and everything it logged, is free of every secret form.
    const moduleLines = logs.filter((record) => record.module === 'gated-enforce' && record.origin === 'console').map((record) => record.message);
    const everything = `${JSON.stringify(seen)}\n${moduleLines.join('\n')}`;
    expect(moduleLines.length).toBeGreaterThanOrEqual(5);
    for (const form of forms) expect(everything).not.toContain(form);
    // It did get the answers (redacted), not errors in their place.
    const entries = seen as { label: string; status?: number; text?: string; error?: string; headers?: [string, string][] }[];
    expect(entries.filter((entry) => entry.status === 200).map((entry) => entry.label)).toEqual(['plain', 'forged', 'post']);
    expect(entries.find((entry) => entry.label === 'plain')?.headers).toEqual(expect.arrayContaining([['x-echo-token', '[redacted]']]));
    expect(entries.find((entry) => entry.label === 'streamed')?.text).toContain('"x-api-token":"*');
    expect(entries.find((entry) => entry.label === 'credentials in the URL')?.error).toMatch(/^TypeError: /);
    expect(entries.find((entry) => entry.label === 'undeclared')?.error).toContain(outside.origin);
    // The gate's own log lines are redacted too.
    for (const form of forms) expect(gateWarnings.join('\n')).not.toContain(form);

    expectRecords(records, [
      { origin: apiOrigin, method: 'GET', decision: 'allow', status: 200, credentialed: true },
      { origin: apiOrigin, method: 'GET', decision: 'allow', status: 200, credentialed: true },
      { origin: apiOrigin, method: 'POST', decision: 'allow', status: 200, credentialed: true },
      { origin: apiOrigin, method: 'GET', decision: 'allow', status: 200, credentialed: true },
      { origin: outside.origin, method: 'GET', decision: 'refuse', reason: 'origin_not_declared', credentialed: false },
    ]);
  });
});

describe('undeclared origins', () => {
  it('a fetch to an undeclared origin is refused, the error names the origin, and nothing reaches it', async () => {
    const connections = outside.connections;
    let answer: unknown;
    const records = await recorded(async () => {
      answer = await run(
        enforced,
        `try { await fetch(config.outside + '/collect?from=module'); return 'answered'; }
         catch (error) { return { name: error.name, message: error.message, cause: error.cause }; }`,
      );
    });
    expect(answer).toEqual({
      name: 'TypeError',
      message: expect.stringContaining(outside.origin),
      cause: { failure: 'origin_refused', origin: outside.origin },
    });
    expect((answer as { message: string }).message).not.toContain('/collect');
    expect(outside.connections).toBe(connections);
    expectRecords(records, [{ origin: outside.origin, method: 'GET', decision: 'refuse', reason: 'origin_not_declared', hop: 0 }]);
  });

  it('rethrown from the call, the refusal fails it with egress_refused naming the origin', async () => {
    let failure: ConnectorError | undefined;
    const records = await recorded(async () => {
      failure = await enforced.list({ prefix: `await fetch(config.outside + '/x');`, since: 'rethrow' }).then(
        () => undefined,
        (error: ConnectorError) => error,
      );
    });
    expect(failure?.code).toBe('egress_refused');
    expect(failure?.details).toMatchObject({ origin: outside.origin });
    expect(failure?.message).toContain(outside.origin);
    expectRecords(records, [{ origin: outside.origin, method: 'GET', decision: 'refuse', reason: 'origin_not_declared' }]);
  });

  it('loopback written as decimal, octal, hex, short and IPv6-mapped is refused when only localhost is declared', async () => {
    const port = api.port;
    const forms: [string, string][] = [
      [`http://2130706433:${port}/echo`, `http://127.0.0.1:${port}`],
      [`http://0177.0.0.1:${port}/echo`, `http://127.0.0.1:${port}`],
      [`http://0x7f.0.0.1:${port}/echo`, `http://127.0.0.1:${port}`],
      [`http://127.1:${port}/echo`, `http://127.0.0.1:${port}`],
      [`http://[::ffff:127.0.0.1]:${port}/echo`, `http://[::ffff:7f00:1]:${port}`],
      [`http://127.0.0.1:${port}/echo`, `http://127.0.0.1:${port}`],
      [`http://localhost.:${port}/echo`, `http://localhost.:${port}`],
    ];
    const requests = api.requests.length;
    let answers: unknown;
    const records = await recorded(async () => {
      answers = await run(
        enforced,
        `const out = [];
         for (const url of ${JSON.stringify(forms.map(([url]) => url))}) {
           try { await fetch(url); out.push('answered'); } catch (error) { out.push({ message: error.message, cause: error.cause }); }
         }
         return out;`,
      );
    });
    expect(answers).toEqual(forms.map(([, origin]) => ({ message: expect.stringContaining(origin), cause: { failure: 'origin_refused', origin } })));
    expect(api.requests.length).toBe(requests);
    expectRecords(
      records,
      forms.map(([, origin]) => ({ origin, method: 'GET', decision: 'refuse', reason: 'origin_not_declared', credentialed: false })),
    );
    // The declared spelling itself still works (upper case is the same origin).
    expect(await run(enforced, `return (await fetch('http://LOCALHOST:${port}/echo')).status;`)).toBe(200);
    expectedRecords.push({ origin: apiOrigin, method: 'GET', decision: 'allow', status: 200 });
  });
});

describe('redirects', () => {
  it('a declared origin redirecting to an undeclared one is refused at the hop; the second origin got nothing', async () => {
    const connections = outside.connections;
    const target = `${outside.origin}/steal?x=1`;
    let answer: unknown;
    const records = await recorded(async () => {
      answer = await run(
        enforced,
        `try { await fetch(config.api + '/redirect?to=' + encodeURIComponent(${JSON.stringify(target)})); return 'answered'; }
         catch (error) { return { message: error.message, cause: error.cause }; }`,
      );
    });
    expect(answer).toEqual({ message: expect.stringContaining(outside.origin), cause: { failure: 'origin_refused', origin: outside.origin } });
    expect(outside.connections).toBe(connections);
    expect(api.requests.at(-1)?.headers['x-api-token']).toBe(SECRETS.token);
    expectRecords(records, [
      { origin: apiOrigin, method: 'GET', decision: 'allow', status: 302, hop: 0, credentialed: true },
      { origin: outside.origin, method: 'GET', decision: 'refuse', reason: 'origin_not_declared', hop: 1, credentialed: false },
    ]);
  });

  it('a redirect to another declared origin is followed without the credential', async () => {
    const target = `${secondOrigin}/echo?next=1`;
    let answer: unknown;
    const records = await recorded(async () => {
      answer = await run(enforced, `const r = await fetch(config.api + '/redirect?to=' + encodeURIComponent(${JSON.stringify(target)})); return { status: r.status, body: await r.json() };`);
    });
    expect(answer).toMatchObject({ status: 200, body: { url: '/echo?next=1' } });
    const hop = second.requests.at(-1);
    expect(hop?.url).toBe('/echo?next=1');
    expect(hop?.headers['x-api-token']).toBeUndefined();
    expect(hop?.headers['authorization']).toBeUndefined();
    expect(hop?.headers['cookie']).toBeUndefined();
    for (const form of secretForms()) expect(JSON.stringify(hop?.headers) + hop?.url).not.toContain(form);
    expectRecords(records, [
      { origin: apiOrigin, method: 'GET', decision: 'allow', status: 302, hop: 0, credentialed: true },
      { origin: secondOrigin, method: 'GET', decision: 'allow', status: 200, hop: 1, credentialed: false },
    ]);
  });
});

describe('audit mode', () => {
  it('GET passes; PUT is refused before it is sent, naming the origin', async () => {
    const audited = await loadGated('gated-audit', 'audit');
    const puts = api.requests.filter((request) => request.method === 'PUT').length;
    let answer: unknown;
    const records = await recorded(async () => {
      answer = await run(
        audited,
        `const got = await fetch(config.api + '/echo?audit=1');
         const out = { get: got.status };
         try { await fetch(config.api + '/echo', { method: 'PUT', body: 'overwrite' }); out.put = 'answered'; }
         catch (error) { out.put = { message: error.message, cause: error.cause }; }
         return out;`,
      );
    });
    expect(answer).toEqual({ get: 200, put: { message: expect.stringContaining(apiOrigin), cause: { failure: 'origin_refused', origin: apiOrigin } } });
    expect((answer as { put: { message: string } }).put.message).toMatch(/audit mode/);
    expect(api.requests.filter((request) => request.method === 'PUT')).toHaveLength(puts);
    expectRecords(records, [
      { hostId: 'gated-audit', origin: apiOrigin, method: 'GET', decision: 'allow', status: 200 },
      { hostId: 'gated-audit', origin: apiOrigin, method: 'PUT', decision: 'refuse', reason: 'write_in_audit_mode' },
    ]);
  });
});

describe('after every attack', () => {
  it('the platform and the sandbox process stayed up, and the gate recorded every attempt', async () => {
    expect(host.pid).toBe(sandboxPid);
    expect(logs.filter((record) => record.origin === 'sandbox' && record.code === 'sandbox_limit')).toEqual([]);
    expect(await run(enforced, 'return 40 + 2;')).toBe(42);
    expect(recorder.records).toEqual(expectedRecords.map((entry) => expect.objectContaining(entry)));
    expect(recorder.refusals()).toHaveLength(expectedRecords.filter((entry) => entry.decision === 'refuse').length);
    for (const form of secretForms()) expect(JSON.stringify(recorder.records)).not.toContain(form);
  });
});
