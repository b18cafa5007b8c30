/**
 * Real authorization servers on loopback for the OAuth tests.
 *
 * `startMockAuthorizationServer` is oauth2-mock-server as it ships (authorization code with PKCE,
 * refresh tokens rotated on every refresh, OpenID discovery). `startRegisteringAuthorizationServer`
 * serves the same mock behind a small front that adds what the mock lacks: RFC 8414 metadata
 * with `registration_endpoint` and `authorization_response_iss_parameter_supported`, and an RFC
 * 7591 registration endpoint. `startDeviceAuthorizationServer` is a small RFC 8628 server (the
 * mock has no device grant).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Issuer, OAuth2Server, OAuth2Service } from 'oauth2-mock-server';

export interface TokenRequest {
  readonly body: Record<string, string>;
  readonly authorization: string | undefined;
}

export interface MockAuthorizationServer {
  readonly issuer: string;
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  readonly service: OAuth2Service;
  /** Every token endpoint request, in order. */
  readonly tokenRequests: TokenRequest[];
  /** Refresh tokens the server issued, in order. */
  readonly issuedRefreshTokens: string[];
  /** Access tokens the server issued, in order. */
  readonly issuedAccessTokens: string[];
  /** What the authorize redirect carries as `iss`: the issuer (default), another value, or nothing. */
  iss: string | null;
  stop(): Promise<void>;
}

function instrument(service: OAuth2Service, server: Omit<MockAuthorizationServer, 'service' | 'stop'>): void {
  // Tokens signed in the same second would otherwise be identical.
  service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    token.payload['jti'] = randomUUID();
  });
  service.on('beforeResponse', (response: { body: Record<string, unknown>; statusCode: number }, req: IncomingMessage & { body: Record<string, string> }) => {
    server.tokenRequests.push({ body: { ...req.body }, authorization: req.headers.authorization });
    if (typeof response.body['refresh_token'] === 'string') server.issuedRefreshTokens.push(response.body['refresh_token']);
    if (typeof response.body['access_token'] === 'string') server.issuedAccessTokens.push(response.body['access_token']);
  });
  service.on('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
    if (server.iss !== null) redirect.url.searchParams.set('iss', server.iss);
  });
}

export async function startMockAuthorizationServer(): Promise<MockAuthorizationServer> {
  const mock = new OAuth2Server();
  await mock.issuer.keys.generate('RS256');
  await mock.start(0, '127.0.0.1');
  const issuer = `http://127.0.0.1:${mock.address().port}`;
  // The mock names itself "localhost"; the tests talk to 127.0.0.1.
  mock.issuer.url = issuer;
  const server: MockAuthorizationServer = {
    issuer,
    authorizationUrl: `${issuer}/authorize`,
    tokenUrl: `${issuer}/token`,
    service: mock.service,
    tokenRequests: [],
    issuedRefreshTokens: [],
    issuedAccessTokens: [],
    iss: issuer,
    stop: () => mock.stop(),
  };
  instrument(mock.service, server);
  return server;
}

export interface RegisteringAuthorizationServer extends MockAuthorizationServer {
  /** Bodies of the registration requests. */
  readonly registrations: Record<string, unknown>[];
  /** When set, the registration endpoint answers 400 with this OAuth error. */
  refuseRegistration: string | null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function startRegisteringAuthorizationServer(): Promise<RegisteringAuthorizationServer> {
  const issuerState = new OAuth2Issuer();
  await issuerState.keys.generate('RS256');
  const service = new OAuth2Service(issuerState);
  let state!: RegisteringAuthorizationServer;
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/.well-known/oauth-authorization-server') {
      json(res, 200, {
        issuer: state.issuer,
        authorization_endpoint: state.authorizationUrl,
        token_endpoint: state.tokenUrl,
        registration_endpoint: `${state.issuer}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
      return;
    }
    if (req.method === 'POST' && path === '/register') {
      void readBody(req).then((text) => {
        const body = JSON.parse(text) as Record<string, unknown>;
        state.registrations.push(body);
        if (state.refuseRegistration !== null) {
          json(res, 400, { error: state.refuseRegistration });
          return;
        }
        json(res, 201, { ...body, client_id: `dcr-${randomUUID()}`, client_id_issued_at: Math.floor(Date.now() / 1000) });
      });
      return;
    }
    (service.requestHandler)(req, res);
  });
  const port = await listen(http);
  const issuer = `http://127.0.0.1:${port}`;
  issuerState.url = issuer;
  state = {
    issuer,
    authorizationUrl: `${issuer}/authorize`,
    tokenUrl: `${issuer}/token`,
    service,
    tokenRequests: [],
    issuedRefreshTokens: [],
    issuedAccessTokens: [],
    iss: issuer,
    registrations: [],
    refuseRegistration: null,
    stop: () => close(http),
  };
  instrument(service, state);
  return state;
}

export interface DeviceAuthorizationServer {
  readonly origin: string;
  readonly deviceUrl: string;
  readonly tokenUrl: string;
  /** What each successive device_code poll answers: an OAuth error code, or `grant` for tokens. */
  readonly script: string[];
  /** Bodies of the device_code token requests. */
  readonly polls: Record<string, string>[];
  readonly deviceRequests: Record<string, string>[];
  readonly refreshRequests: Record<string, string>[];
  interval: number | undefined;
  /** Tokens issued so far; they are numbered from it. */
  issued: number;
  stop(): Promise<void>;
}

export async function startDeviceAuthorizationServer(): Promise<DeviceAuthorizationServer> {
  let state!: DeviceAuthorizationServer;
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    void readBody(req).then((text) => {
      const body = Object.fromEntries(new URLSearchParams(text));
      if (req.method === 'POST' && path === '/device') {
        state.deviceRequests.push(body);
        json(res, 200, {
          device_code: 'device-code-secret-0001',
          user_code: 'WDJB-MJHT',
          verification_uri: `${state.origin}/activate`,
          verification_uri_complete: `${state.origin}/activate?user_code=WDJB-MJHT`,
          expires_in: 600,
          ...(state.interval === undefined ? {} : { interval: state.interval }),
        });
        return;
      }
      if (req.method === 'POST' && path === '/token' && body['grant_type'] === 'urn:ietf:params:oauth:grant-type:device_code') {
        state.polls.push(body);
        if (body['device_code'] !== 'device-code-secret-0001') {
          json(res, 400, { error: 'invalid_grant' });
          return;
        }
        const next = state.script.shift() ?? 'grant';
        if (next !== 'grant') {
          json(res, 400, { error: next });
          return;
        }
        state.issued += 1;
        json(res, 200, { access_token: `device-access-${state.issued}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `device-refresh-${state.issued}` });
        return;
      }
      if (req.method === 'POST' && path === '/token' && body['grant_type'] === 'refresh_token') {
        state.refreshRequests.push(body);
        state.issued += 1;
        json(res, 200, { access_token: `device-access-${state.issued}`, token_type: 'bearer', expires_in: 3600, refresh_token: `device-refresh-${state.issued}` });
        return;
      }
      json(res, 404, { error: 'not_found' });
    });
  });
  const port = await listen(http);
  const origin = `http://127.0.0.1:${port}`;
  state = {
    origin,
    deviceUrl: `${origin}/device`,
    tokenUrl: `${origin}/token`,
    script: [],
    polls: [],
    deviceRequests: [],
    refreshRequests: [],
    interval: 1,
    issued: 0,
    stop: () => close(http),
  };
  return state;
}
