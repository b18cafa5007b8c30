import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoHandler, readText, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest, rejection } from './__fixtures__/gate-helpers.js';
import type { Resolver } from './addresses.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(echoHandler);
});
afterAll(async () => {
  await server.close();
});

describe('gate: origins and addresses', () => {
  it('reaches a loopback origin that is declared and approved as private', async () => {
    const { host, recorder } = gateUnderTest();
    const port = host({ auth: { origins: [server.origin], present: [] }, allowPrivateOrigins: [server.origin] });
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/hello?x=1` });
    expect(response.status).toBe(200);
    expect(JSON.parse(await readText(response)).url).toBe('/hello?x=1');
    expect(recorder.originsUsed()).toEqual([server.origin]);
  });

  it('refuses an undeclared origin before any connection, naming the origin only', async () => {
    const { host, recorder } = gateUnderTest();
    const before = server.connections;
    const port = host({ auth: { origins: ['https://api.example.test'], present: [] } });
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}/private/path?token=abc123` }));
    expect(error.failure).toBe('origin_refused');
    expect(error.reason).toBe('origin_not_declared');
    expect(error.origin).toBe(server.origin);
    expect(error.message).toContain(server.origin);
    expect(error.message).not.toContain('abc123');
    expect(error.message).not.toContain('/private');
    expect(server.connections).toBe(before);
    expect(recorder.refusals()).toMatchObject([{ origin: server.origin, decision: 'refuse', reason: 'origin_not_declared', method: 'GET' }]);
  });

  it('refuses a declared loopback origin that was not approved as private', async () => {
    const { host } = gateUnderTest();
    const before = server.connections;
    const port = host({ auth: { origins: [server.origin], present: [] } });
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}/` }));
    expect(error.reason).toBe('address_forbidden');
    expect(error.message).toContain('loopback');
    expect(server.connections).toBe(before);
  });

  const forms = (p: number): string[] => [
    `http://2130706433:${p}/`,
    `http://0177.0.0.1:${p}/`,
    `http://0x7f.0.0.1:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://127.1:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://[::127.0.0.1]:${p}/`,
    `http://[64:ff9b::127.0.0.1]:${p}/`,
    `http://[2002:7f00:1::]:${p}/`,
    `http://[::1]:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://169.254.169.254:${p}/`,
    `http://[fd00:ec2::254]:${p}/`,
    `http://100.64.0.1:${p}/`,
    `http://10.0.0.1:${p}/`,
  ];

  it('refuses every spelling of a loopback or private address when it is not declared', async () => {
    const { host } = gateUnderTest();
    const before = server.connections;
    const port = host({ auth: { origins: ['https://api.example.test'], present: [] } });
    for (const url of forms(server.port)) {
      const error = await rejection(port.fetch({ method: 'GET', url }));
      expect(error.reason, url).toBe('origin_not_declared');
    }
    expect(server.connections).toBe(before);
  });

  it('refuses every such spelling even when declared, unless approved as private', async () => {
    const { host, recorder } = gateUnderTest();
    const before = server.connections;
    for (const url of forms(server.port)) {
      const origin = new URL(url).origin;
      const port = host({ auth: { origins: [origin], present: [] } });
      const error = await rejection(port.fetch({ method: 'GET', url }));
      expect(error.reason, url).toBe('address_forbidden');
    }
    expect(server.connections).toBe(before);
    expect(recorder.refusals().map((entry) => entry.addressClass)).toEqual([
      'loopback', 'loopback', 'loopback', 'loopback', 'loopback', 'loopback', 'loopback', 'loopback', 'loopback', 'loopback', 'loopback',
      'unspecified', 'metadata', 'metadata', 'cgnat', 'private',
    ]);
  });

  it('never reaches a metadata address, even for an origin approved as private', async () => {
    const resolver: Resolver = async () => [{ address: '::ffff:169.254.169.254', family: 6 }];
    const { host } = gateUnderTest({ resolver });
    const origin = 'http://metadata.internal.test';
    const port = host({ auth: { origins: [origin], present: [] }, allowPrivateOrigins: [origin] });
    const error = await rejection(port.fetch({ method: 'GET', url: `${origin}/latest/meta-data/` }));
    expect(error.reason).toBe('address_forbidden');
    expect(error.message).toContain('never reachable');
  });

  it('refuses a name when any of its addresses is forbidden', async () => {
    const resolver: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const { host } = gateUnderTest({ resolver });
    const port = host({ auth: { origins: ['https://mixed.example.test'], present: [] } });
    const error = await rejection(port.fetch({ method: 'GET', url: 'https://mixed.example.test/' }));
    expect(error.reason).toBe('address_forbidden');
  });

  it('resolves once and connects to the pinned address, never asking DNS again', async () => {
    const asked: string[] = [];
    // The first answer is what the check sees; a rebinding resolver would answer differently
    // later, and the system resolver does not know the name at all.
    const resolver: Resolver = async (hostname) => {
      asked.push(hostname);
      return asked.length === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }];
    };
    const { host } = gateUnderTest({ resolver });
    const origin = `http://rebind.inseam-test.invalid:${server.port}`;
    const port = host({ auth: { origins: [origin], present: [] }, allowPrivateOrigins: [origin] });
    const response = await port.fetch({ method: 'GET', url: `${origin}/pinned` });
    expect(response.status).toBe(200);
    const echoed = JSON.parse(await readText(response));
    expect(echoed.headers.host).toBe(`rebind.inseam-test.invalid:${server.port}`);
    expect(asked).toEqual(['rebind.inseam-test.invalid']);
  });

  it('reports a name that does not resolve as unreachable, recorded', async () => {
    const resolver: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const { host, recorder } = gateUnderTest({ resolver });
    const port = host({ auth: { origins: ['https://gone.example.test'], present: [] } });
    const error = await rejection(port.fetch({ method: 'GET', url: 'https://gone.example.test/x' }));
    expect(error.failure).toBe('unreachable');
    expect(recorder.records).toMatchObject([{ origin: 'https://gone.example.test', decision: 'allow', failure: 'unreachable' }]);
  });

  it('reports a refused connection as unreachable', async () => {
    const closed = await startServer(echoHandler);
    await closed.close();
    const { host } = gateUnderTest();
    const port = host({ auth: { origins: [closed.origin], present: [] }, allowPrivateOrigins: [closed.origin] });
    const error = await rejection(port.fetch({ method: 'GET', url: `${closed.origin}/` }));
    expect(error.failure).toBe('unreachable');
    expect(error.origin).toBe(closed.origin);
  });

  it('rejects approvals that are not exact declared origins', () => {
    const { host } = gateUnderTest();
    expect(() => host({ auth: { origins: ['https://*.example.test'], present: [] }, allowPrivateOrigins: ['https://*.example.test'] })).toThrow(/allowPrivateOrigins/);
    expect(() => host({ auth: { origins: ['https://a.example.test'], present: [] }, allowPrivateOrigins: ['https://b.example.test'] })).toThrow(/allowPrivateOrigins/);
  });

  it('rejects malformed requests without sending them', async () => {
    const { host } = gateUnderTest();
    const port = host({ auth: { origins: [server.origin], present: [] }, allowPrivateOrigins: [server.origin] });
    const before = server.connections;
    expect((await rejection(port.fetch({ method: 'GET', url: '/relative' }))).failure).toBe('invalid_request');
    expect((await rejection(port.fetch({ method: 'GET', url: 'file:///etc/passwd' }))).failure).toBe('invalid_request');
    expect((await rejection(port.fetch({ method: 'GET', url: `http://user:pw@127.0.0.1:${server.port}/` }))).failure).toBe('invalid_request');
    expect((await rejection(port.fetch({ method: 'GET', url: `${server.origin}/`, headers: { 'x-a': 'b\r\nx-injected: 1' } }))).failure).toBe('invalid_request');
    expect((await rejection(port.fetch({ method: 'G ET' as 'GET', url: `${server.origin}/` }))).failure).toBe('invalid_request');
    expect((await rejection(port.fetch({ method: 'POST', url: `${server.origin}/`, body: 'text' as unknown as Uint8Array }))).failure).toBe('invalid_request');
    const trace = await rejection(port.fetch({ method: 'TRACE' as 'GET', url: `${server.origin}/` }));
    expect(trace.reason).toBe('method_forbidden');
    expect(server.connections).toBe(before);
  });
});
