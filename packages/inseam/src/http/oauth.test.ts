/**
 * Connecting an oauth2 host over HTTP, against real authorization servers on loopback
 * (oauth2-mock-server for the authorization code with PKCE, a small RFC 8628 server for the device
 * code): the routes start the flow for a host, the person's browser comes back to the public
 * callback, the grant is stored for the host, and no answer ever carries a code, a verifier or a
 * token. Forged, replayed and denied callbacks are refused.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostCredentials } from '../credentials/index.js';
import { startDeviceAuthorizationServer, startMockAuthorizationServer, type DeviceAuthorizationServer, type MockAuthorizationServer } from '../credentials/__fixtures__/oauth-servers.js';
import { hostCredentialRef, openPlatform, type Platform } from '../platform/index.js';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { call, type Answer } from './__fixtures__/api.js';
import { registerOAuthKind } from './__fixtures__/oauth-connector.js';
import { OAuthSessions } from './oauth-sessions.js';
import { createServer } from './server.js';
import { ADMIN_FEATURES, TokenService } from './tokens.js';

let dataDir: string;
let platform: Platform;
let app: FastifyInstance;
let url: string;
let admin: string;
let other: string;
let reader: string;
let credentials: HostCredentials;
let mock: MockAuthorizationServer;
let device: DeviceAuthorizationServer;

beforeAll(async () => {
  mock = await startMockAuthorizationServer();
  device = await startDeviceAuthorizationServer();
  dataDir = await tempDir('oauth-http');
  platform = await openPlatform({ dataDir, env: {} });
  await registerOAuthKind(platform, { grant: 'authorization_code', authorizationUrl: mock.authorizationUrl, tokenUrl: mock.tokenUrl });
  await platform.networks.init('home');
  await platform.networks.addHost({ network: 'home', slug: 'drive', kind: 'cloud-drive', config: { grant: 'authorization_code', authorizationUrl: mock.authorizationUrl, tokenUrl: mock.tokenUrl } });
  await platform.networks.addHost({ network: 'home', slug: 'tv', kind: 'cloud-drive', config: { grant: 'device_code', deviceUrl: device.deviceUrl, tokenUrl: device.tokenUrl } });
  const tokens = new TokenService(platform.store.tokens);
  admin = (await tokens.create({ name: 'admin', userId: 'ann', features: ADMIN_FEATURES })).token;
  other = (await tokens.create({ name: 'other', userId: 'ann', features: ADMIN_FEATURES })).token;
  reader = (await tokens.create({ name: 'reader', userId: 'bob', network: 'home' })).token;
  // The mock servers speak plain http on loopback, which only a store told so accepts.
  credentials = new HostCredentials({
    store: platform.credentialStore,
    oauth: { clients: [{ tokenUrl: mock.tokenUrl, clientId: 'inseam-web' }, { tokenUrl: device.tokenUrl, clientId: 'inseam-tv' }] },
    http: { allowInsecureLoopback: true },
  });
  app = await createServer({ platform, tokens, mcp: false, oauth: { credentials } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await platform?.close();
  await mock?.stop();
  await device?.stop();
  if (dataDir !== undefined) await removeDir(dataDir);
});

/** The person's browser at the authorization server: it answers with a redirect to the callback. */
async function authorizeAt(authorizationUrl: string): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location') ?? '');
}

/** GETs the callback the redirect names, on the server (no token, like a browser). */
function followCallback(location: URL): Promise<Answer> {
  return call({ url }, 'GET', `${location.pathname}${location.search}`);
}

async function grantOf(host: string): Promise<Readonly<Record<string, string>>> {
  const record = await platform.networks.hostRecord({ network: 'home', host });
  const auth = (await platform.kinds.describe(record)).auth;
  return credentials.source(hostCredentialRef(record), auth).tokens();
}

function expectNoSecret(answers: readonly Answer[], secrets: readonly string[]): void {
  for (const answer of answers) for (const secret of secrets) expect(answer.text).not.toContain(secret);
}

describe('the authorization-code flow from the web page', () => {
  it('starts a PKCE flow for a host, completes it at the callback, and stores the grant for the host', async () => {
    const started = await call({ url }, 'POST', '/v1/oauth/authorize', { token: admin, body: { host: 'drive' } });
    expect(started.status, started.text).toBe(201);
    const { flow, authorizationUrl } = started.json();
    expect(flow).toMatchObject({ grant: 'authorization_code', network: 'home', host: 'drive', state: 'pending', error: null });
    const asked = new URL(authorizationUrl);
    expect(asked.origin + asked.pathname).toBe(mock.authorizationUrl);
    expect(asked.searchParams.get('redirect_uri')).toBe(`${url}/v1/oauth/callback`);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('client_id')).toBe('inseam-web');

    const location = await authorizeAt(authorizationUrl);
    expect(location.pathname).toBe('/v1/oauth/callback');
    const code = location.searchParams.get('code') ?? '';
    const page = await followCallback(location);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('Host home/drive is connected.');
    expect(page.text).toContain('You can close this window.');

    const status = await call({ url }, 'GET', `/v1/oauth/flows/${flow.id}`, { token: admin });
    expect(status.json()).toMatchObject({ id: flow.id, state: 'authorized', error: null });
    const exchange = mock.tokenRequests.at(-1)?.body ?? {};
    expect(exchange['grant_type']).toBe('authorization_code');
    expect(exchange['code_verifier']).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    const tokens = await grantOf('drive');
    expect(tokens['access_token']).toBe(mock.issuedAccessTokens.at(-1));
    expectNoSecret([started, page, status], [code, exchange['code_verifier']!, tokens['access_token']!]);
    // The state travels in the authorization URL, by design; the callback page never repeats it.
    expectNoSecret([page, status], [asked.searchParams.get('state')!]);
  });

  it('shows a flow only to the token that started it, and refuses people without hosts.manage', async () => {
    const started = (await call({ url }, 'POST', '/v1/oauth/authorize', { token: admin, body: { host: 'drive' } })).json();
    expect((await call({ url }, 'GET', `/v1/oauth/flows/${started.flow.id}`, { token: other })).status).toBe(404);
    expect((await call({ url }, 'GET', `/v1/oauth/flows/${started.flow.id}`)).status).toBe(401);
    const denied = await call({ url }, 'POST', '/v1/oauth/authorize', { token: reader, body: { host: 'drive' } });
    expect(denied.status).toBe(403);
    expect(denied.json().error.details.missingFeatures).toEqual(['hosts.manage']);
    expect((await call({ url }, 'POST', '/v1/oauth/authorize', { token: admin, body: { host: 'nowhere' } })).status).toBe(404);
    const pad = await call({ url }, 'POST', '/v1/oauth/authorize', { token: admin, body: { host: 'pad' } });
    expect(pad.status).toBe(400);
    expect(pad.json().error.code).toBe('invalid_config');
  });

  it('refuses a forged or replayed callback, exchanging nothing and echoing nothing', async () => {
    const started = (await call({ url }, 'POST', '/v1/oauth/authorize', { token: admin, body: { host: 'drive' } })).json();
    const genuine = await authorizeAt(started.authorizationUrl);
    const code = genuine.searchParams.get('code') ?? '';
    const exchanges = mock.tokenRequests.length;
    const forged = new URL(genuine);
    forged.searchParams.set('state', 'attacker-chosen-state');
    const refused = await followCallback(forged);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('The host could not be connected.');
    expect(refused.text).toContain('state mismatch');
    expect(mock.tokenRequests.length).toBe(exchanges);

    expect((await followCallback(genuine)).status).toBe(200);
    const replayed = await followCallback(genuine);
    expect(replayed.status).toBe(403);
    expect(mock.tokenRequests.length).toBe(exchanges + 1);
    expectNoSecret([refused, replayed], [code, genuine.searchParams.get('state') ?? '']);
  });

  it('reports an authorization the person denied, on the page and on the flow', async () => {
    const started = (await call({ url }, 'POST', '/v1/oauth/authorize', { token: admin, body: { host: 'drive' } })).json();
    mock.service.once('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
    });
    const page = await followCallback(await authorizeAt(started.authorizationUrl));
    expect(page.status).toBe(403);
    expect(page.text).toContain('was not granted (access_denied)');
    const flow = (await call({ url }, 'GET', `/v1/oauth/flows/${started.flow.id}`, { token: admin })).json();
    expect(flow).toMatchObject({ state: 'failed', error: { code: 'permission_denied' } });
  });
});

describe('the flows a server keeps', () => {
  it('fails a flow left pending past its expiry with timeout, and shows it only to its token', async () => {
    let clock = Date.now();
    const sessions = new OAuthSessions({ credentials, now: () => clock });
    const record = await platform.networks.hostRecord({ network: 'home', host: 'drive' });
    const auth = (await platform.kinds.describe(record)).auth;
    const { flow, authorizationUrl } = await sessions.authorize('tok_a', record, auth, 'http://127.0.0.1:9');
    expect(new URL(authorizationUrl).searchParams.get('redirect_uri')).toBe('http://127.0.0.1:9/v1/oauth/callback');
    expect(sessions.flow('tok_a', flow.id).state).toBe('pending');
    expect(() => sessions.flow('tok_b', flow.id)).toThrow(expect.objectContaining({ code: 'not_found' }));
    clock += 11 * 60 * 1000;
    expect(sessions.flow('tok_a', flow.id)).toMatchObject({ state: 'failed', error: { code: 'timeout' } });
  });
});

describe('the device-code flow from the web page', () => {
  it('answers the code and the link to show, polls in the background and stores the grant', async () => {
    device.interval = 1;
    device.script.push('authorization_pending');
    const started = await call({ url }, 'POST', '/v1/oauth/device', { token: admin, body: { host: 'tv' } });
    expect(started.status, started.text).toBe(201);
    expect(started.json()).toMatchObject({
      userCode: 'WDJB-MJHT',
      verificationUri: `${device.origin}/activate`,
      verificationUriComplete: `${device.origin}/activate?user_code=WDJB-MJHT`,
      flow: { grant: 'device_code', host: 'tv', state: 'pending' },
    });
    expect(started.text).not.toContain('device-code-secret-0001');
    let flow = started.json().flow;
    for (let attempt = 0; attempt < 100 && flow.state === 'pending'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      flow = (await call({ url }, 'GET', `/v1/oauth/flows/${flow.id}`, { token: admin })).json();
    }
    expect(flow).toMatchObject({ state: 'authorized', error: null });
    expect(device.polls.length).toBeGreaterThanOrEqual(2);
    expect((await grantOf('tv'))['access_token']).toMatch(/^device-access-\d+$/);
  }, 20_000);

  it('refuses the device grant for a host that uses the authorization code', async () => {
    const wrong = await call({ url }, 'POST', '/v1/oauth/device', { token: admin, body: { host: 'drive' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json().error.code).toBe('invalid_config');
  });
});
