/**
 * OAuth 2 from the web page: connecting a host whose kind acquires its credential by `oauth2`.
 * The protocol work is the credential store's (OAuthFlows: PKCE S256, state, RFC 9207 `iss`,
 * RFC 8628 polling); these routes only start flows for a host, complete them, and report how
 * they ended.
 *
 * - `POST /v1/oauth/authorize { host, network? }` starts an authorization-code flow for a host
 *   already added (an `oauth2` host is added without credentials and connected afterwards, so
 *   the grant is stored under the host it belongs to). It answers the authorization URL, which
 *   the page opens in a new window, and a flow id to poll.
 * - `GET /v1/oauth/callback` is where the authorization server sends the person back. It needs
 *   no token (a redirect cannot carry one): `state` ties it to the pending flow, and the code is
 *   exchanged with the flow's PKCE verifier, which never left this process. It answers a small
 *   page saying the host is connected (or why not) and that the window can be closed; it never
 *   shows the code, the state or a token.
 * - `POST /v1/oauth/device { host, network? }` starts a device-code flow: the answer carries the
 *   user code and the verification link to show; the server polls the token endpoint itself.
 * - `GET /v1/oauth/flows/{id}` tells the token that started a flow whether it is still pending,
 *   authorized or failed (with the error's code and message).
 *
 * Starting needs `hosts.manage` and a host the caller can use. Flows live in this server's memory
 * for ten minutes (device flows until their code expires); no answer carries a secret.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isConnectorError, NotFoundError, type ErrorCode } from '@neuralis/package-system/contracts';
import type { AuthSpec } from '@inseam/connector';
import type { HostCredentials } from '../../credentials/index.js';
import { hostCredentialRef } from '../../platform/index.js';
import type { HostRecord } from '../../store/index.js';
import { HTTP_STATUS } from '../errors.js';
import type { Call, RouteSpec } from '../route.js';
import { hostSlug, networkSlug } from '../schemas.js';

const TAG = 'oauth';
/** The path of the callback route; the redirect URI is this path on the server's own origin unless configured. */
export const OAUTH_CALLBACK_PATH = '/v1/oauth/callback';
const MAX_FLOWS = 256;
/** Finished flows are kept this long for the page's last poll. */
const FINISHED_TTL_MS = 10 * 60 * 1000;

export type OAuthFlowState = 'pending' | 'authorized' | 'failed';

/** What `GET /v1/oauth/flows/{id}` answers. */
export interface OAuthFlowView {
  readonly id: string;
  readonly grant: 'authorization_code' | 'device_code';
  readonly network: string;
  readonly host: string;
  readonly state: OAuthFlowState;
  /** Epoch ms after which a pending flow can no longer complete. */
  readonly expiresAt: number;
  readonly error: { readonly code: string; readonly message: string } | null;
}

interface FlowRecord {
  view: OAuthFlowView;
  /** The token that started it: only that token may see it. */
  readonly tokenId: string;
  /** authorization_code: the credential store's flow id and the state the callback must carry. */
  readonly storeFlowId?: string;
  readonly state?: string;
  readonly abort?: AbortController;
}

/** How a callback ended, for the page the person sees. */
export interface CallbackOutcome {
  readonly connected: boolean;
  /** `network/host`. */
  readonly host?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface OAuthSessionsOptions {
  /** The credential store the grants go to. */
  readonly credentials: HostCredentials;
  /** The redirect URI registered with authorization servers; default: the callback on the origin the page was loaded from. */
  readonly redirectUri?: string;
  readonly now?: () => number;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function errorOf(error: unknown): { code: string; message: string } {
  if (isConnectorError(error)) return { code: error.code, message: error.message };
  return { code: 'internal', message: 'The authorization failed unexpectedly; see the server log.' };
}

/** The OAuth flows one server started, and how each ended. */
export class OAuthSessions {
  readonly #credentials: HostCredentials;
  readonly #redirectUri: string | undefined;
  readonly #now: () => number;
  readonly #flows = new Map<string, FlowRecord>();

  constructor(options: OAuthSessionsOptions) {
    this.#credentials = options.credentials;
    this.#redirectUri = options.redirectUri;
    this.#now = options.now ?? Date.now;
  }

  /** Starts an authorization-code flow for `host`. Throws what HostCredentials.beginAuthorization throws. */
  async authorize(tokenId: string, host: HostRecord, auth: AuthSpec, origin: string): Promise<{ readonly flow: OAuthFlowView; readonly authorizationUrl: string }> {
    const redirectUri = this.#redirectUri ?? `${origin}${OAUTH_CALLBACK_PATH}`;
    const started = await this.#credentials.beginAuthorization(hostCredentialRef(host), auth, { redirectUri });
    const state = new URL(started.authorizationUrl).searchParams.get('state') ?? '';
    const record = this.#add(tokenId, host, 'authorization_code', started.expiresAt, { storeFlowId: started.flowId, state });
    return { flow: record.view, authorizationUrl: started.authorizationUrl };
  }

  /**
   * Completes the authorization-code flow the callback's `state` names: resolves with how it
   * ended (a refused code exchange is a failed flow, not a rejection). A callback that matches no
   * flow of this server goes to the credential store all the same, which refuses it
   * (`permission_denied`, `state_mismatch`) as it refuses any forged callback.
   */
  async complete(params: URLSearchParams): Promise<CallbackOutcome> {
    const state = params.get('state') ?? '';
    const record = [...this.#flows.values()].find((item) => item.state !== undefined && item.view.state === 'pending' && sameText(item.state, state));
    if (record === undefined) {
      const ref = await this.#credentials.completeAuthorization(params);
      return { connected: true, host: `${ref.scope.network ?? ''}/${ref.host}` };
    }
    try {
      await this.#credentials.completeAuthorization(params, { flowId: record.storeFlowId! });
      this.#finish(record, 'authorized', null);
      return { connected: true, host: `${record.view.network}/${record.view.host}` };
    } catch (error) {
      const failure = errorOf(error);
      this.#finish(record, 'failed', failure);
      return { connected: false, host: `${record.view.network}/${record.view.host}`, error: failure };
    }
  }

  /** Starts a device-code flow for `host` and polls for its grant in the background. */
  async device(tokenId: string, host: HostRecord, auth: AuthSpec): Promise<{ readonly flow: OAuthFlowView; readonly userCode: string; readonly verificationUri: string; readonly verificationUriComplete: string | null; readonly interval: number }> {
    const started = await this.#credentials.beginDeviceAuthorization(hostCredentialRef(host), auth);
    const abort = new AbortController();
    const record = this.#add(tokenId, host, 'device_code', started.expiresAt, { abort });
    started.complete({ signal: abort.signal }).then(
      () => this.#finish(record, 'authorized', null),
      (error: unknown) => this.#finish(record, 'failed', errorOf(error)),
    );
    return { flow: record.view, userCode: started.userCode, verificationUri: started.verificationUri, verificationUriComplete: started.verificationUriComplete ?? null, interval: started.interval };
  }

  /**
   * The flow, for the token that started it; a pending flow past its expiry is failed with
   * `timeout`. Throws `not_found` for another token's flow or one no longer kept.
   */
  flow(tokenId: string, id: string): OAuthFlowView {
    const record = this.#flows.get(id);
    if (record === undefined || record.tokenId !== tokenId) throw new NotFoundError(`There is no OAuth flow "${id}" started with this token (flows are kept ten minutes).`, { details: { flow: id } });
    if (record.view.state === 'pending' && record.view.expiresAt <= this.#now()) {
      record.abort?.abort();
      this.#finish(record, 'failed', { code: 'timeout', message: 'The authorization was not finished in time; start it again.' });
    }
    return record.view;
  }

  /** Stops polling every device flow (the server is closing). */
  close(): void {
    for (const record of this.#flows.values()) record.abort?.abort();
  }

  #add(tokenId: string, host: HostRecord, grant: OAuthFlowView['grant'], expiresAt: number, extra: Pick<FlowRecord, 'storeFlowId' | 'state' | 'abort'>): FlowRecord {
    this.#prune();
    const record: FlowRecord = {
      view: { id: `oauth-${randomBytes(12).toString('base64url')}`, grant, network: host.network, host: host.slug, state: 'pending', expiresAt, error: null },
      tokenId,
      ...extra,
    };
    this.#flows.set(record.view.id, record);
    return record;
  }

  #finish(record: FlowRecord, state: OAuthFlowState, error: OAuthFlowView['error']): void {
    if (record.view.state !== 'pending') return;
    record.view = { ...record.view, state, error, expiresAt: Math.max(record.view.expiresAt, this.#now() + FINISHED_TTL_MS) };
  }

  #prune(): void {
    const now = this.#now();
    for (const [id, record] of this.#flows) {
      if (record.view.expiresAt <= now) {
        record.abort?.abort();
        this.#flows.delete(id);
      }
    }
    while (this.#flows.size >= MAX_FLOWS) {
      const [id, record] = this.#flows.entries().next().value as [string, FlowRecord];
      record.abort?.abort();
      this.#flows.delete(id);
    }
  }
}

/** The host the body names, as the caller may use it, with its AuthSpec. */
async function oauthHost(call: Call): Promise<{ record: HostRecord; auth: AuthSpec }> {
  const body = call.request.body as { host: string; network?: string };
  const network = await call.network(body.network);
  const caller = await call.caller(network);
  const visible = (await call.services.fs.hosts(caller)).some((host) => host.slug === body.host);
  if (!visible) throw new NotFoundError(`Network "${network}" has no host "${body.host}" this caller can use.`, { details: { network, host: body.host } });
  const record = await call.services.platform.networks.hostRecord({ network, host: body.host });
  return { record, auth: (await call.services.platform.kinds.describe(record)).auth };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The page the person's browser lands on after the authorization server. */
export function callbackPage(outcome: CallbackOutcome): string {
  const title = outcome.connected ? 'Connected' : 'Not connected';
  const lead = outcome.connected ? `Host ${outcome.host ?? ''} is connected.` : 'The host could not be connected.';
  const detail = outcome.connected ? 'inseam stored the grant; the page you started from shows it.' : (outcome.error?.message ?? '');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>inseam — ${escape(title)}</title>
    <link rel="stylesheet" href="/web/app.css">
  </head>
  <body class="standalone">
    <main class="card narrow" data-outcome="${outcome.connected ? 'connected' : 'failed'}">
      <p class="brand"><img src="/web/favicon.svg" alt="" width="20" height="20"><span>inseam</span></p>
      <h1>${escape(lead)}</h1>
      <p>${escape(detail)}</p>
      <p class="muted">You can close this window.</p>
    </main>
  </body>
</html>
`;
}

const CALLBACK_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
});

const hostBody = {
  type: 'object',
  properties: { host: hostSlug, network: networkSlug },
  required: ['host'],
  additionalProperties: false,
};
const flowView = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    grant: { type: 'string', enum: ['authorization_code', 'device_code'] },
    network: { type: 'string' },
    host: { type: 'string' },
    state: { type: 'string', enum: ['pending', 'authorized', 'failed'] },
    expiresAt: { type: 'integer' },
    error: { anyOf: [{ type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } }, { type: 'null' }] },
  },
  required: ['id', 'grant', 'network', 'host', 'state', 'expiresAt', 'error'],
};

export const oauthRoutes: readonly RouteSpec[] = [
  {
    method: 'POST',
    url: '/v1/oauth/authorize',
    operationId: 'startOAuthAuthorization',
    action: 'oauth.start',
    summary: 'Start connecting an oauth2 host: the authorization-code flow with PKCE',
    description:
      'For a host whose kind acquires its credential by OAuth 2 with the authorization_code grant. Answers the URL to open (in a new window) and a flow to poll. The redirect URI is this server\'s `/v1/oauth/callback`. Another grant is `invalid_config`.',
    tag: TAG,
    body: hostBody,
    responses: {
      201: {
        description: 'Started; open authorizationUrl.',
        schema: { type: 'object', properties: { flow: flowView, authorizationUrl: { type: 'string' } }, required: ['flow', 'authorizationUrl'] },
      },
    },
    handler: async (call) => {
      const { record, auth } = await oauthHost(call);
      const origin = `${call.request.protocol}://${call.request.host}`;
      const started = await call.services.oauth.authorize(call.principal.tokenId, record, auth, origin);
      call.reply.code(201);
      return started;
    },
  },
  {
    method: 'GET',
    url: OAUTH_CALLBACK_PATH,
    operationId: 'completeOAuthAuthorization',
    action: 'oauth.callback',
    summary: 'Where the authorization server sends the person back',
    description:
      'Needs no token: `state` names the pending flow, and the code is exchanged with its PKCE verifier. Answers a small HTML page (connected, or why not); a callback that matches no pending flow is 403 `permission_denied`. Never shows the code, the state or a token.',
    tag: TAG,
    querystring: { type: 'object', additionalProperties: { type: 'string' } },
    responses: {
      200: { description: 'Connected: a page saying so.', contentType: 'text/html', schema: { type: 'string' } },
      403: { description: 'Refused (state mismatch, denied, issuer mismatch): a page saying why.', contentType: 'text/html', schema: { type: 'string' } },
    },
    handler: async (call) => {
      const params = new URLSearchParams(call.request.query as Record<string, string>);
      let outcome: CallbackOutcome;
      try {
        outcome = await call.services.oauth.complete(params);
      } catch (error) {
        if (!isConnectorError(error)) call.request.log.error({ err: error }, 'unexpected error completing an OAuth authorization');
        outcome = { connected: false, error: errorOf(error) };
      }
      const status = outcome.connected ? 200 : (HTTP_STATUS[(outcome.error?.code ?? 'internal') as ErrorCode] ?? 500);
      return call.reply.code(status).headers(CALLBACK_HEADERS).send(callbackPage(outcome));
    },
  },
  {
    method: 'POST',
    url: '/v1/oauth/device',
    operationId: 'startOAuthDevice',
    action: 'oauth.start',
    summary: 'Start connecting an oauth2 host: the device-code flow',
    description:
      'For a host whose kind uses the device_code grant. Answers the code the person enters and the link where they enter it; the server polls the token endpoint and stores the grant. Poll the flow for the outcome.',
    tag: TAG,
    body: hostBody,
    responses: {
      201: {
        description: 'Started; show userCode and verificationUri.',
        schema: {
          type: 'object',
          properties: {
            flow: flowView,
            userCode: { type: 'string' },
            verificationUri: { type: 'string' },
            verificationUriComplete: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            interval: { type: 'integer' },
          },
          required: ['flow', 'userCode', 'verificationUri', 'verificationUriComplete', 'interval'],
        },
      },
    },
    handler: async (call) => {
      const { record, auth } = await oauthHost(call);
      const started = await call.services.oauth.device(call.principal.tokenId, record, auth);
      call.reply.code(201);
      return started;
    },
  },
  {
    method: 'GET',
    url: '/v1/oauth/flows/:id',
    operationId: 'getOAuthFlow',
    action: 'oauth.flow',
    summary: 'How an OAuth flow this token started stands',
    tag: TAG,
    params: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 64 } }, required: ['id'], additionalProperties: false },
    responses: { 200: { description: 'The flow.', schema: flowView } },
    handler: async (call) => call.services.oauth.flow(call.principal.tokenId, (call.request.params as { id: string }).id),
  },
];
