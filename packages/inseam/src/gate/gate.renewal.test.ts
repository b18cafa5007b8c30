import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readText, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest } from './__fixtures__/gate-helpers.js';
import type { HostCredentialSource } from './credentials.js';

// Answers 401 unless the bearer token is the current one, like an API whose token expired.
let server: TestServer;
let validToken = 'fresh';
beforeAll(async () => {
  server = await startServer((req, res) => {
    const ok = req.headers['authorization'] === `Bearer ${validToken}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' });
    res.end(ok ? 'ok' : 'expired');
  });
});
afterAll(async () => {
  await server.close();
});

/** A credential source whose token is stale until onStatus renews it. */
function renewingSource(renewOn: number[]) {
  let token = 'stale';
  const statuses: number[] = [];
  const source: HostCredentialSource = {
    fields: async () => ({}),
    tokens: async () => ({ access_token: token }),
    onStatus: async (status) => {
      statuses.push(status);
      if (!renewOn.includes(status) || token === 'fresh') return false;
      token = 'fresh';
      return true;
    },
  };
  return { source, statuses };
}

function portFor(credentials: HostCredentialSource) {
  const { host } = gateUnderTest();
  return host({
    auth: { origins: [server.origin], present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{access_token}}' }] },
    allowPrivateOrigins: [server.origin],
    credentials,
  });
}

describe('gate: credential renewal on a stale answer', () => {
  it('resends a replayable request once with the renewed credential', async () => {
    validToken = 'fresh';
    const { source, statuses } = renewingSource([401]);
    const before = server.requests.length;
    const response = await portFor(source).fetch({ method: 'GET', url: `${server.origin}/me` });
    expect(response.status).toBe(200);
    expect(await readText(response)).toBe('ok');
    const sent = server.requests.slice(before).map((request) => request.headers['authorization']);
    expect(sent).toEqual(['Bearer stale', 'Bearer fresh']);
    expect(statuses).toEqual([401]);
  });

  it('renews at most once: a credential that stays rejected returns the 401 to the connector', async () => {
    validToken = 'never-valid';
    const { source } = renewingSource([401]);
    const before = server.requests.length;
    const response = await portFor(source).fetch({ method: 'GET', url: `${server.origin}/me` });
    expect(response.status).toBe(401);
    await readText(response);
    expect(server.requests.length - before).toBe(2);
  });

  it('never replays a streamed body: the stale answer goes back as it came', async () => {
    validToken = 'fresh';
    const { source, statuses } = renewingSource([401]);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('payload'));
        controller.close();
      },
    });
    const before = server.requests.length;
    const response = await portFor(source).fetch({ method: 'PUT', url: `${server.origin}/doc`, body });
    expect(response.status).toBe(401);
    await readText(response);
    expect(server.requests.length - before).toBe(1);
    expect(statuses).toEqual([]);
  });
});
