/**
 * An imap host with `auth: "xoauth2"` signing in to a real Dovecot with the token the OAuth flow
 * stored: Dovecot's oauth2 passdb asks a token authority on loopback (RFC 7662 introspection)
 * whether the bearer token is active and whose it is. The tokens come from oauth2-mock-server
 * through the authorization-code flow with PKCE (HostCredentials, as the web page drives it).
 *
 * The introspection endpoint is a small server here: the mock has none. It answers from what the
 * mock issued and what the test declared expired or revoked — the authority's view, which the
 * client cannot see until the server refuses the token.
 *
 * The HostCredentials is the test's own, told to accept the mock's plain http on loopback (the
 * platform's refuses it); the bridge from it to the imap kind is the platform's (imapCredentials).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createImapHost, imapAuth, parseImapConfig, type ImapHost } from '@inseam/connector-imap';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDovecot, type Dovecot } from '../../../../connectors/imap/src/__fixtures__/dovecot.mjs';
import { startMockAuthorizationServer, type MockAuthorizationServer } from '../credentials/__fixtures__/oauth-servers.js';
import { expectNoSecrets, rejectionOf } from '../credentials/__fixtures__/secrets.js';
import { memoryStore } from '../credentials/__fixtures__/stores.js';
import { HostCredentials, projectScope, type HostRef } from '../credentials/index.js';
import { imapCredentials } from './imap-credentials.js';

const USER = 'alice';
const REDIRECT = 'http://127.0.0.1:9/oauth/callback';
const HOST: HostRef = { scope: projectScope('home'), host: 'mail' };

let mock: MockAuthorizationServer;
let authority: Server;
let dovecot: Dovecot;
/** Tokens the authority no longer takes (expired or revoked there). */
const refused = new Set<string>();
/** Every token Dovecot asked the authority about, in order. */
const introspected: string[] = [];
let refuseAll = false;
const hosts: ImapHost[] = [];

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

beforeAll(async () => {
  mock = await startMockAuthorizationServer();
  authority = createServer((req, res) => {
    void body(req).then((text) => {
      const token = new URLSearchParams(text).get('token') ?? '';
      introspected.push(token);
      const active = !refuseAll && mock.issuedAccessTokens.includes(token) && !refused.has(token);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(active ? { active: true, username: USER } : { active: false }));
    });
  });
  await new Promise<void>((resolve) => authority.listen(0, '127.0.0.1', resolve));
  const port = (authority.address() as AddressInfo).port;
  dovecot = await startDovecot({ users: [{ name: USER, password: `unused-${Math.random().toString(36).slice(2)}` }], oauth: { introspectionUrl: `http://127.0.0.1:${port}/introspect` } });
}, 60_000);

afterAll(async () => {
  for (const host of hosts) await host.dispose().catch(() => undefined);
  await dovecot?.stop();
  authority?.closeAllConnections();
  await new Promise<void>((resolve) => (authority === undefined ? resolve() : authority.close(() => resolve())));
  await mock?.stop();
});

beforeEach(() => {
  refused.clear();
  introspected.length = 0;
  refuseAll = false;
});

function config(): Record<string, unknown> {
  return { host: '127.0.0.1', port: dovecot.port, ca: dovecot.ca, auth: 'xoauth2', oauthAuthorizationUrl: mock.authorizationUrl, oauthTokenUrl: mock.tokenUrl, oauthScopes: ['mail', 'offline_access'] };
}

/** A host signed in through the flow: the username stored as a field, the grant by the authorization-code flow. */
async function connectedHost(now: () => number = Date.now): Promise<{ credentials: HostCredentials; host: () => ImapHost }> {
  const { store } = await memoryStore();
  const credentials = new HostCredentials({ store, oauth: { redirectUri: REDIRECT, clients: [{ tokenUrl: mock.tokenUrl, clientId: 'inseam-mail' }] }, http: { allowInsecureLoopback: true }, now });
  const auth = imapAuth(parseImapConfig(config()));
  await credentials.setFields(HOST, auth, { username: USER });
  const start = await credentials.beginAuthorization(HOST, auth);
  const redirect = await fetch(start.authorizationUrl, { redirect: 'manual' });
  await credentials.completeAuthorization(redirect.headers.get('location') ?? '', { flowId: start.flowId });
  const source = credentials.source(HOST, auth);
  return {
    credentials,
    host: () => {
      const host = createImapHost(config(), { credentials: imapCredentials(source, parseImapConfig(config())) });
      hosts.push(host);
      return host;
    },
  };
}

const refreshes = (): number => mock.tokenRequests.filter((request) => request.body['grant_type'] === 'refresh_token').length;

describe('an xoauth2 imap host against Dovecot', () => {
  it('signs in with the access token the authorization-code flow stored', async () => {
    const { host } = await connectedHost();
    const issued = mock.issuedAccessTokens.at(-1)!;
    const mail = host();
    const listed = await mail.list();
    expect(listed.entries).toEqual([]);
    expect(introspected).toEqual([issued]);
    expect(await mail.session.reachability.probe()).toEqual({ connected: true });
  });

  it('renews a token past its expiry once, before signing in, for two connections opened at the same time', async () => {
    let clock = Date.now();
    const { host } = await connectedHost(() => clock);
    const first = mock.issuedAccessTokens.at(-1)!;
    // The mock's tokens live an hour.
    clock += 2 * 3600_000;
    const before = refreshes();
    const [a, b] = [host(), host()];
    await Promise.all([a.session.client(), b.session.client()]);
    expect(refreshes() - before).toBe(1);
    const renewed = mock.issuedAccessTokens.at(-1)!;
    expect(introspected).toEqual([renewed, renewed]);
    expect(introspected).not.toContain(first);
  });

  it('renews a token the authority calls expired once, for two connections refused at the same time, and signs both in', async () => {
    const { host } = await connectedHost();
    const first = mock.issuedAccessTokens.at(-1)!;
    refused.add(first);
    const before = refreshes();
    const [a, b] = [host(), host()];
    await Promise.all([a.session.client(), b.session.client()]);
    expect(refreshes() - before).toBe(1);
    const renewed = mock.issuedAccessTokens.at(-1)!;
    expect(renewed).not.toBe(first);
    expect(introspected.filter((token) => token === first)).toHaveLength(2);
    expect(introspected.filter((token) => token === renewed)).toHaveLength(2);
    expect((await a.list()).entries).toEqual([]);
  });

  it('maps a token the server keeps refusing to permission_denied, renewing once, with no token in any message', async () => {
    const { host } = await connectedHost();
    refuseAll = true;
    const before = refreshes();
    const mail = host();
    const error = await rejectionOf(mail.list());
    expect(error).toMatchObject({ code: 'permission_denied' });
    expect(refreshes() - before).toBe(1);
    expect(mock.issuedAccessTokens.length).toBeGreaterThan(0);
    expectNoSecrets(error, [...mock.issuedAccessTokens, ...mock.issuedRefreshTokens]);
    expect(await mail.session.reachability.probe()).toEqual({ connected: false, reason: 'store_unreachable', code: 'permission_denied' });
  });
});
