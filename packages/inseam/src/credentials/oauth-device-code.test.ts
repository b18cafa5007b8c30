import type { AuthSpec, OAuth2Acquire } from '@inseam/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDeviceAuthorizationServer } from './__fixtures__/oauth-servers.js';
import type { DeviceAuthorizationServer } from './__fixtures__/oauth-servers.js';
import { expectNoSecrets, rejectionOf } from './__fixtures__/secrets.js';
import { memoryStore } from './__fixtures__/stores.js';
import { HostCredentials } from './host-credentials.js';
import type { HostRef } from './host-record.js';
import { agentScope } from './scope.js';

const HOST: HostRef = { scope: agentScope('home', 'agent-7'), host: 'tv' };
const DEVICE_CODE = 'device-code-secret-0001';

let server: DeviceAuthorizationServer;
let clock: number;
let sleeps: number[];

beforeAll(async () => {
  server = await startDeviceAuthorizationServer();
});

afterAll(async () => {
  await server.stop();
});

beforeEach(() => {
  server.script.length = 0;
  server.polls.length = 0;
  server.deviceRequests.length = 0;
  server.refreshRequests.length = 0;
  server.interval = 1;
  server.issued = 0;
  clock = Date.now();
  sleeps = [];
});

function authSpec(overrides: Partial<OAuth2Acquire> = {}): AuthSpec {
  return {
    acquire: { type: 'oauth2', grant: 'device_code', deviceUrl: server.deviceUrl, tokenUrl: server.tokenUrl, scopes: ['tv.read'], pkce: true, clientSources: ['inseam'], ...overrides },
    present: [{ in: 'header', name: 'authorization', value: 'Bearer {{access_token}}' }],
    origins: ['https://api.example.com'],
  };
}

async function service(): Promise<HostCredentials> {
  const { store } = await memoryStore();
  return new HostCredentials({
    store,
    oauth: { clients: [{ tokenUrl: server.tokenUrl, clientId: 'tvclient' }] },
    http: { allowInsecureLoopback: true },
    now: () => clock,
    // Waiting is simulated: the clock moves, the test does not.
    sleep: (ms) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  });
}

describe('oauth2 device_code (RFC 8628, against a loopback device-code server)', () => {
  it('polls at the interval, adds 5 s on slow_down, keeps polling while pending, then stores the grant', async () => {
    const credentials = await service();
    const auth = authSpec();
    server.script.push('authorization_pending', 'slow_down', 'authorization_pending', 'slow_down', 'grant');
    const device = await credentials.beginDeviceAuthorization(HOST, auth);
    expect(device).toMatchObject({ userCode: 'WDJB-MJHT', verificationUri: `${server.origin}/activate`, interval: 1 });
    expect(device.verificationUriComplete).toBe(`${server.origin}/activate?user_code=WDJB-MJHT`);
    expect(server.deviceRequests[0]).toEqual({ client_id: 'tvclient', scope: 'tv.read' });
    expect(await credentials.source(HOST, auth).tokens()).toEqual({});

    await device.complete();
    expect(sleeps).toEqual([1000, 1000, 6000, 6000, 11000]);
    expect(server.polls).toHaveLength(5);
    expect(server.polls[0]).toEqual({ client_id: 'tvclient', device_code: DEVICE_CODE, grant_type: 'urn:ietf:params:oauth:grant-type:device_code' });
    expect(await credentials.source(HOST, auth).tokens()).toEqual({ access_token: 'device-access-1' });
  });

  it('waits 5 s between polls when the server names no interval', async () => {
    const credentials = await service();
    server.interval = undefined;
    const device = await credentials.beginDeviceAuthorization(HOST, authSpec());
    expect(device.interval).toBe(5);
    await device.complete();
    expect(sleeps).toEqual([5000]);
  });

  it('returns the same completion to every caller', async () => {
    const credentials = await service();
    server.script.push('authorization_pending');
    const device = await credentials.beginDeviceAuthorization(HOST, authSpec());
    await Promise.all([device.complete(), device.complete()]);
    expect(server.polls).toHaveLength(2);
  });

  it('reports a denial and an expired code as typed errors without the device code', async () => {
    const credentials = await service();
    server.script.push('authorization_pending', 'access_denied');
    const denied = await rejectionOf((await credentials.beginDeviceAuthorization(HOST, authSpec())).complete());
    expect(denied).toMatchObject({ code: 'permission_denied', details: { reason: 'authorization_denied' } });
    expectNoSecrets(denied, [DEVICE_CODE]);

    server.script.push('expired_token');
    const expired = await rejectionOf((await credentials.beginDeviceAuthorization(HOST, authSpec())).complete());
    expect(expired).toMatchObject({ code: 'timeout', details: { reason: 'device_code_expired' } });
    expectNoSecrets(expired, [DEVICE_CODE]);
  });

  it('gives up when expires_in passes while the person has not approved', async () => {
    const credentials = await service();
    server.interval = 300;
    server.script.push('authorization_pending', 'authorization_pending', 'authorization_pending');
    const error = await rejectionOf((await credentials.beginDeviceAuthorization(HOST, authSpec())).complete());
    expect(error).toMatchObject({ code: 'timeout', details: { reason: 'device_code_expired' } });
    expect(server.polls).toHaveLength(1);
  });

  it('stops polling when the caller aborts', async () => {
    const credentials = await service();
    server.script.push('authorization_pending', 'authorization_pending');
    const device = await credentials.beginDeviceAuthorization(HOST, authSpec());
    const controller = new AbortController();
    const polled = server.polls.length;
    controller.abort();
    await expect(device.complete({ signal: controller.signal })).rejects.toMatchObject({ code: 'timeout', details: { reason: 'cancelled' } });
    expect(server.polls).toHaveLength(polled);
  });

  it('refreshes a device grant with its client, persisting the rotated refresh token', async () => {
    const credentials = await service();
    const auth = authSpec();
    await (await credentials.beginDeviceAuthorization(HOST, auth)).complete();
    clock += 3600 * 1000;
    expect(await credentials.source(HOST, auth).tokens()).toEqual({ access_token: 'device-access-2' });
    expect(server.refreshRequests[0]).toEqual({ client_id: 'tvclient', grant_type: 'refresh_token', refresh_token: 'device-refresh-1' });
    clock += 3600 * 1000;
    await credentials.source(HOST, auth).tokens();
    expect(server.refreshRequests[1]?.['refresh_token']).toBe('device-refresh-2');
  });

  it('needs a deviceUrl for the device_code grant', async () => {
    const credentials = await service();
    const auth = authSpec();
    const { deviceUrl: _omitted, ...acquire } = auth.acquire as OAuth2Acquire;
    await expect(credentials.beginDeviceAuthorization(HOST, { ...auth, acquire })).rejects.toMatchObject({ code: 'invalid_config', details: { field: 'auth.acquire.deviceUrl' } });
  });
});
