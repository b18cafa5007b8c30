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
import { isConnectorError, NotFoundError, type ErrorCode } from '@neuralis/package-system/contracts';
import type { AuthSpec } from '@inseam/connector';
import type { HostRecord } from '../../store/index.js';
import { HTTP_STATUS } from '../errors.js';
import { errorOf, OAUTH_CALLBACK_PATH, type CallbackOutcome } from '../oauth-sessions.js';
import type { Call, RouteSpec } from '../route.js';
import { hostSlug, networkSlug } from '../schemas.js';

const TAG = 'oauth';

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
