import type { AuthSpec, OAuth2Acquire } from '@inseam/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockAuthorizationServer } from './__fixtures__/oauth-servers.js';
import type { MockAuthorizationServer } from './__fixtures__/oauth-servers.js';
import { expectNoSecrets, rejectionOf } from './__fixtures__/secrets.js';
import { memoryStore } from './__fixtures__/stores.js';
import { HostCredentials } from './host-credentials.js';
import type { HostCredentialsOptions } from './host-credentials.js';
import { hostRecordId } from './host-record.js';
import type { HostRef } from './host-record.js';
import type { CredentialRecordStore } from './record-store.js';
import { projectScope } from './scope.js';
import { CredentialStore } from './store.js';
import { SqliteCredentialRecordStore } from './sqlite-record-store.js';
import { randomBytes } from 'node:crypto';

const REDIRECT = 'http://127.0.0.1:9/oauth/callback';
const HOST: HostRef = { scope: projectScope('home'), host: 'drive' };

let server: MockAuthorizationServer;
let clock: number;

beforeAll(async () => {
  server = await startMockAuthorizationServer();
});

afterAll(async () => {
  await server.stop();
});

beforeEach(() => {
  server.tokenRequests.length = 0;
  server.issuedRefreshTokens.length = 0;
  server.issuedAccessTokens.length = 0;
  server.iss = server.issuer;
  clock = Date.now();
});

function authSpec(overrides: Partial<OAuth2Acquire> = {}): AuthSpec {
  return {
    acquire: {
      type: 'oauth2',
      grant: 'authorization_code',
      authorizationUrl: server.authorizationUrl,
      tokenUrl: server.tokenUrl,
      scopes: ['files.read', 'offline_access'],
      pkce: true,
      clientSources: ['inseam'],
      ...overrides,
    },
    present: [{ in: 'header', name: 'authorization', value: 'Bearer {{access_token}}' }],
    origins: ['https://api.example.com'],
  };
}

async function service(overrides: Partial<HostCredentialsOptions> = {}, store?: CredentialStore): Promise<{ credentials: HostCredentials; store: CredentialStore }> {
  const used = store ?? (await memoryStore()).store;
  const credentials = new HostCredentials({
    store: used,
    oauth: { redirectUri: REDIRECT, clients: [{ tokenUrl: server.tokenUrl, clientId: 'inseam-public-client' }] },
    http: { allowInsecureLoopback: true },
    now: () => clock,
    ...overrides,
  });
  return { credentials, store: used };
}

/** Plays the person's browser: follows the authorization URL to the redirect it answers with. */
async function authorize(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = response.headers.get('location');
  expect(location).not.toBeNull();
  return location ?? '';
}

async function authorizedHost(credentials: HostCredentials, auth = authSpec()): Promise<void> {
  const start = await credentials.beginAuthorization(HOST, auth);
  await credentials.completeAuthorization(await authorize(start.authorizationUrl), { flowId: start.flowId });
}

describe('oauth2 authorization_code', () => {
  it('authorizes with PKCE S256, state and iss, and serves the access token', async () => {
    const { credentials } = await service();
    const auth = authSpec();
    const start = await credentials.beginAuthorization(HOST, auth);
    const url = new URL(start.authorizationUrl);
    expect(url.origin + url.pathname).toBe(server.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(url.searchParams.get('client_id')).toBe('inseam-public-client');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(url.searchParams.get('scope')).toBe('files.read offline_access');

    const location = await authorize(start.authorizationUrl);
    expect(new URL(location).searchParams.get('iss')).toBe(server.issuer);
    const host = await credentials.completeAuthorization(location, { flowId: start.flowId });
    expect(host).toEqual(HOST);

    expect(server.tokenRequests).toHaveLength(1);
    const exchange = server.tokenRequests[0]?.body ?? {};
    expect(exchange['grant_type']).toBe('authorization_code');
    expect(exchange['code_verifier']).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(exchange['redirect_uri']).toBe(REDIRECT);

    const tokens = await credentials.source(HOST, auth).tokens();
    expect(tokens['access_token']?.split('.')).toHaveLength(3);
    expect(await credentials.source(HOST, auth).fields()).toEqual({});
  });

  it('finds the flow by state when no flow id is given', async () => {
    const { credentials } = await service();
    const auth = authSpec();
    const start = await credentials.beginAuthorization(HOST, auth);
    await credentials.completeAuthorization(new URL(await authorize(start.authorizationUrl)).search);
    expect(Object.keys(await credentials.source(HOST, auth).tokens())).toEqual(['access_token']);
  });

  it('refuses a state mismatch (forged or replayed callback) before the code is exchanged', async () => {
    const { credentials } = await service();
    const start = await credentials.beginAuthorization(HOST, authSpec());
    const genuine = new URL(await authorize(start.authorizationUrl));
    const code = genuine.searchParams.get('code') ?? '';
    const forged = new URL(genuine);
    forged.searchParams.set('state', 'attacker-chosen-state');

    const withFlow = await rejectionOf(credentials.completeAuthorization(forged, { flowId: start.flowId }));
    expect(withFlow).toMatchObject({ code: 'permission_denied', details: { reason: 'state_mismatch' } });
    expectNoSecrets(withFlow, [code, start.flowId]);

    const unknown = await rejectionOf(credentials.completeAuthorization(`${REDIRECT}?code=${code}&state=not-a-pending-state`));
    expect(unknown).toMatchObject({ code: 'permission_denied', details: { reason: 'state_mismatch' } });

    // The forged attempt used the flow up: even the genuine callback is refused now.
    await expect(credentials.completeAuthorization(genuine)).rejects.toMatchObject({ details: { reason: 'state_mismatch' } });
    expect(server.tokenRequests).toHaveLength(0);
  });

  it('uses each flow once', async () => {
    const { credentials } = await service();
    const start = await credentials.beginAuthorization(HOST, authSpec());
    const location = await authorize(start.authorizationUrl);
    await credentials.completeAuthorization(location, { flowId: start.flowId });
    await expect(credentials.completeAuthorization(location, { flowId: start.flowId })).rejects.toMatchObject({ details: { reason: 'state_mismatch' } });
    expect(server.tokenRequests).toHaveLength(1);
  });

  it('refuses an issuer mismatch (mix-up attack) before the code goes anywhere', async () => {
    const { credentials } = await service();
    server.iss = 'https://attacker.example';
    const start = await credentials.beginAuthorization(HOST, authSpec());
    const location = await authorize(start.authorizationUrl);
    const code = new URL(location).searchParams.get('code') ?? '';
    const error = await rejectionOf(credentials.completeAuthorization(location, { flowId: start.flowId }));
    expect(error).toMatchObject({ code: 'permission_denied', details: { reason: 'issuer_mismatch', expected: server.issuer } });
    expectNoSecrets(error, [code]);
    expect(server.tokenRequests).toHaveLength(0);
    expect(await credentials.source(HOST, authSpec()).tokens()).toEqual({});
  });

  it('refuses an expired flow', async () => {
    const { credentials } = await service();
    const start = await credentials.beginAuthorization(HOST, authSpec());
    const location = await authorize(start.authorizationUrl);
    clock += 11 * 60 * 1000;
    await expect(credentials.completeAuthorization(location, { flowId: start.flowId })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('reports an authorization the person denied', async () => {
    const { credentials } = await service();
    server.service.once('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
    });
    const start = await credentials.beginAuthorization(HOST, authSpec());
    const error = await rejectionOf(credentials.completeAuthorization(await authorize(start.authorizationUrl), { flowId: start.flowId }));
    expect(error).toMatchObject({ code: 'permission_denied', details: { reason: 'authorization_denied', oauthError: 'access_denied' } });
  });

  it('takes clients from clientSources in the declared order', async () => {
    const { credentials } = await service();
    // Alphanumeric: the mock does not form-decode Basic credentials (RFC 6749 §2.3.1).
    await credentials.setNetworkClient('home', server.tokenUrl, { clientId: 'networkClient', clientSecret: 'networkClientSecret123' });
    const networkFirst = authSpec({ clientSources: ['network', 'inseam'] });
    const start = await credentials.beginAuthorization(HOST, networkFirst);
    expect(new URL(start.authorizationUrl).searchParams.get('client_id')).toBe('networkClient');
    await credentials.completeAuthorization(await authorize(start.authorizationUrl), { flowId: start.flowId });
    const basic = server.tokenRequests[0]?.authorization ?? '';
    expect(Buffer.from(basic.replace(/^Basic /, ''), 'base64').toString()).toBe('networkClient:networkClientSecret123');

    const inseamFirst = await credentials.beginAuthorization(HOST, authSpec({ clientSources: ['inseam', 'network'] }));
    expect(new URL(inseamFirst.authorizationUrl).searchParams.get('client_id')).toBe('inseam-public-client');
  });

  it('explains why no client source applied, without the secrets of other token URLs', async () => {
    const { credentials } = await service({ oauth: { redirectUri: REDIRECT, clients: [{ tokenUrl: 'https://other.example/token', clientId: 'x', clientSecret: 'other-secret-value' }] } });
    const error = await rejectionOf(credentials.beginAuthorization(HOST, authSpec({ clientSources: ['inseam', 'dcr', 'network'] })));
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'no_oauth_client' } });
    expect((error as Error).message).toMatch(/inseam: .*; dcr: .*registration endpoint.*; network: /);
    expectNoSecrets(error, ['other-secret-value']);
  });

  it('refuses plain http endpoints unless loopback http is allowed', async () => {
    const { credentials } = await service({ http: {} });
    expect(() => credentials.source(HOST, authSpec())).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    await expect(credentials.beginAuthorization(HOST, authSpec())).rejects.toMatchObject({ code: 'invalid_config' });
  });
});

describe('oauth2 token refresh', () => {
  it('refreshes before expiry and persists the rotated refresh token', async () => {
    const { credentials, store } = await service();
    const auth = authSpec();
    await authorizedHost(credentials, auth);
    const first = await credentials.source(HOST, auth).tokens();
    clock += 3600 * 1000 - 30_000;
    const second = await credentials.source(HOST, auth).tokens();
    expect(second['access_token']).not.toBe(first['access_token']);

    const refresh = server.tokenRequests[1]?.body ?? {};
    expect(refresh['grant_type']).toBe('refresh_token');
    expect(refresh['refresh_token']).toBe(server.issuedRefreshTokens[0]);
    const stored = await store.get(HOST.scope, hostRecordId(HOST.host));
    expect((stored?.['oauth'] as { refreshToken?: string } | undefined)?.refreshToken).toBe(server.issuedRefreshTokens[1]);

    clock += 3600 * 1000;
    await credentials.source(HOST, auth).tokens();
    expect(server.tokenRequests[2]?.body['refresh_token']).toBe(server.issuedRefreshTokens[1]);
  });

  it('sends exactly one token request for concurrent callers with an expired token', async () => {
    const { credentials } = await service();
    const auth = authSpec();
    await authorizedHost(credentials, auth);
    clock += 2 * 3600 * 1000;
    const source = credentials.source(HOST, auth);
    const results = await Promise.all(Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? source.tokens() : credentials.source(HOST, auth).tokens())));
    const refreshes = server.tokenRequests.filter((request) => request.body['grant_type'] === 'refresh_token');
    expect(refreshes).toHaveLength(1);
    expect(new Set(results.map((tokens) => tokens['access_token'])).size).toBe(1);
  });

  it('hands out no new access token when its rotated refresh token cannot be stored', async () => {
    const records = SqliteCredentialRecordStore.open(':memory:');
    let failWrites = false;
    const failing: CredentialRecordStore = {
      get: (scope, id) => records.get(scope, id),
      put: (scope, id, sealed) => (failWrites ? Promise.reject(new Error('disk full')) : records.put(scope, id, sealed)),
      delete: (scope, id) => records.delete(scope, id),
      list: (scope, prefix) => records.list(scope, prefix),
      keyCheck: (candidate) => records.keyCheck(candidate),
    };
    const store = await CredentialStore.open({ records: failing, masterKey: randomBytes(32) });
    const { credentials } = await service({}, store);
    const auth = authSpec();
    await authorizedHost(credentials, auth);
    const before = await credentials.source(HOST, auth).tokens();
    clock += 2 * 3600 * 1000;
    failWrites = true;
    const error = await rejectionOf(credentials.source(HOST, auth).tokens());
    expect(error).toMatchObject({ code: 'unavailable' });
    expect(server.tokenRequests.filter((request) => request.body['grant_type'] === 'refresh_token')).toHaveLength(1);
    const unstoredAccess = server.issuedAccessTokens[1] ?? '';
    const unstoredRefresh = server.issuedRefreshTokens[1] ?? '';
    expectNoSecrets(error, [unstoredAccess, unstoredRefresh]);
    failWrites = false;
    const after = await credentials.source(HOST, auth).tokens();
    // The access token whose refresh token was lost was never served; the next call refreshed again.
    expect(server.tokenRequests.filter((request) => request.body['grant_type'] === 'refresh_token')).toHaveLength(2);
    expect(after['access_token']).toBe(server.issuedAccessTokens[2]);
    expect(after['access_token']).not.toBe(unstoredAccess);
    expect(after['access_token']).not.toBe(before['access_token']);
  });

  it('clears a grant the server no longer accepts (invalid_grant) and asks for a new authorization', async () => {
    const { credentials } = await service();
    const auth = authSpec();
    await authorizedHost(credentials, auth);
    const refreshToken = server.issuedRefreshTokens[0] ?? '';
    clock += 2 * 3600 * 1000;
    server.service.once('beforeResponse', (response: { body: Record<string, unknown>; statusCode: number }) => {
      response.statusCode = 400;
      response.body = { error: 'invalid_grant', error_description: `refresh token ${refreshToken} revoked` };
    });
    const error = await rejectionOf(credentials.source(HOST, auth).tokens());
    expect(error).toMatchObject({ code: 'permission_denied', details: { reason: 'reauthorization_required', oauthError: 'invalid_grant' } });
    expectNoSecrets(error, [refreshToken]);
    expect(await credentials.source(HOST, auth).tokens()).toEqual({});
  });

  it('renews on a 401 from the host once, and answers further 401s from the renewal just made', async () => {
    const { credentials } = await service();
    const auth = authSpec();
    await authorizedHost(credentials, auth);
    const source = credentials.source(HOST, auth);
    const before = await source.tokens();
    expect(await source.onStatus(500)).toBe(false);
    expect(await Promise.all([source.onStatus(401), source.onStatus(401), source.onStatus(401)])).toEqual([true, true, true]);
    expect(await source.onStatus(401)).toBe(true);
    expect(server.tokenRequests.filter((request) => request.body['grant_type'] === 'refresh_token')).toHaveLength(1);
    expect((await source.tokens())['access_token']).not.toBe(before['access_token']);
    clock += 11_000;
    expect(await source.onStatus(401)).toBe(true);
    expect(server.tokenRequests.filter((request) => request.body['grant_type'] === 'refresh_token')).toHaveLength(2);
  });

  it('does not use a grant obtained under another AuthSpec (another token URL or scopes)', async () => {
    const { credentials } = await service();
    await authorizedHost(credentials, authSpec());
    expect(await credentials.source(HOST, authSpec({ scopes: ['files.write'] })).tokens()).toEqual({});
    clock += 2 * 3600 * 1000;
    expect(await credentials.source(HOST, authSpec({ scopes: ['files.write'] })).tokens()).toEqual({});
    expect(server.tokenRequests.filter((request) => request.body['grant_type'] === 'refresh_token')).toHaveLength(0);
  });
});
