import type { AuthSpec, OAuth2Acquire } from '@inseam/connector';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRegisteringAuthorizationServer } from './__fixtures__/oauth-servers.js';
import type { RegisteringAuthorizationServer } from './__fixtures__/oauth-servers.js';
import { rejectionOf } from './__fixtures__/secrets.js';
import { memoryStore } from './__fixtures__/stores.js';
import { HostCredentials } from './host-credentials.js';
import type { HostRef } from './host-record.js';
import { projectScope, userScope } from './scope.js';
import type { CredentialStore } from './store.js';

const REDIRECT = 'http://127.0.0.1:9/oauth/callback';
const HOST: HostRef = { scope: projectScope('home'), host: 'docs' };

let server: RegisteringAuthorizationServer;
let clock: number;

beforeAll(async () => {
  server = await startRegisteringAuthorizationServer();
});

afterAll(async () => {
  await server.stop();
});

beforeEach(() => {
  server.tokenRequests.length = 0;
  server.issuedRefreshTokens.length = 0;
  server.issuedAccessTokens.length = 0;
  server.registrations.length = 0;
  server.refuseRegistration = null;
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
      scopes: ['docs.read'],
      pkce: true,
      clientSources: ['dcr'],
      ...overrides,
    },
    present: [{ in: 'header', name: 'authorization', value: 'Bearer {{access_token}}' }],
    origins: ['https://api.example.com'],
  };
}

async function service(): Promise<{ credentials: HostCredentials; store: CredentialStore }> {
  const { store } = await memoryStore();
  return { credentials: new HostCredentials({ store, oauth: { redirectUri: REDIRECT, clientName: 'inseam test' }, http: { allowInsecureLoopback: true }, now: () => clock }), store };
}

async function authorize(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  return response.headers.get('location') ?? '';
}

describe('oauth2 with dynamic client registration (RFC 7591)', () => {
  it('registers a public client at the registration endpoint from the RFC 8414 metadata and authorizes with it', async () => {
    const { credentials } = await service();
    const auth = authSpec();
    const start = await credentials.beginAuthorization(HOST, auth);
    expect(server.registrations).toEqual([
      {
        client_name: 'inseam test',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        scope: 'docs.read',
      },
    ]);
    const clientId = new URL(start.authorizationUrl).searchParams.get('client_id');
    expect(clientId).toMatch(/^dcr-/);
    await credentials.completeAuthorization(await authorize(start.authorizationUrl), { flowId: start.flowId });
    expect(server.tokenRequests[0]?.body['client_id']).toBe(clientId);
    expect(Object.keys(await credentials.source(HOST, auth).tokens())).toEqual(['access_token']);

    clock += 2 * 3600 * 1000;
    await credentials.source(HOST, auth).tokens();
    expect(server.tokenRequests[1]?.body).toMatchObject({ grant_type: 'refresh_token', client_id: clientId });
  });

  it('reuses the registered client for other hosts and owners of the network', async () => {
    const { credentials } = await service();
    const first = await credentials.beginAuthorization(HOST, authSpec());
    const second = await credentials.beginAuthorization({ scope: userScope('home', 'u1'), host: 'other' }, authSpec());
    expect(server.registrations).toHaveLength(1);
    expect(new URL(second.authorizationUrl).searchParams.get('client_id')).toBe(new URL(first.authorizationUrl).searchParams.get('client_id'));
  });

  it('requires iss when the metadata says the server sends it', async () => {
    const { credentials } = await service();
    server.iss = null;
    const start = await credentials.beginAuthorization(HOST, authSpec());
    const error = await rejectionOf(credentials.completeAuthorization(await authorize(start.authorizationUrl), { flowId: start.flowId }));
    expect(error).toMatchObject({ code: 'permission_denied', details: { reason: 'issuer_missing' } });
    expect(server.tokenRequests).toHaveLength(0);
  });

  it('falls through to the next declared source when registration is refused', async () => {
    const { credentials } = await service();
    server.refuseRegistration = 'invalid_client_metadata';
    await credentials.setNetworkClient('home', server.tokenUrl, { clientId: 'adminclient' });
    const start = await credentials.beginAuthorization(HOST, authSpec({ clientSources: ['dcr', 'network'] }));
    expect(server.registrations).toHaveLength(1);
    expect(new URL(start.authorizationUrl).searchParams.get('client_id')).toBe('adminclient');

    const error = await rejectionOf(credentials.beginAuthorization(HOST, authSpec({ clientSources: ['dcr'] })));
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'no_oauth_client' } });
    expect((error as Error).message).toContain('dcr: registration at');
  });
});
