/**
 * The OAuth 2 grants of an `oauth2` AuthSpec, with oauth4webapi doing the protocol work.
 *
 * authorization_code: `begin` picks a client, makes a PKCE S256 verifier, a random `state` and a
 * flow id, and returns the authorization URL; the pending flow (verifier included) stays in this
 * process's memory for ten minutes. `complete` takes the redirect's parameters and checks, in
 * order: the flow exists (by flow id, or else by `state`) and has not expired; `state` equals the
 * flow's (constant-time); `iss` (RFC 9207) equals the server's issuer when present, and is
 * present when the server's metadata says it sends it — a different issuer is a mix-up attack and
 * is refused before the code goes anywhere. A flow is used once, whatever the outcome.
 *
 * device_code (RFC 8628): `begin` requests a device code; `complete` polls the token endpoint,
 * waiting `interval` seconds (default 5) before each poll, adding 5 seconds on every
 * `slow_down`, doubling the wait after a poll that got no answer, and giving up at `expires_in`.
 *
 * refresh: uses the grant's own client and issuer and the AuthSpec's token URL; the new grant —
 * with the rotated refresh token when the server rotated it — is written to the store before
 * it is returned, so no one uses a new access token whose refresh token could still be lost.
 * `invalid_grant` clears the stored grant: the person has to authorize again.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthSpec, OAuth2Acquire } from '@inseam/connector';
import * as oauth from 'oauth4webapi';
import { InvalidArgumentError, InvalidConfigError, PermissionDeniedError, TimeoutError, UnavailableError, hasErrorCode } from '@neuralis/package-system/contracts';
import { oauth2Acquire } from './acquire.js';
import { acquireFingerprint } from './host-record.js';
import type { HostRecords, HostRef, OAuthGrant } from './host-record.js';
import type { HttpPolicy } from './http.js';
import type { OAuthClients, UsableClient } from './oauth-clients.js';
import { oauthErrorCode, oauthFailure, responseErrorCode } from './oauth-errors.js';
import { oauthRequestOptions } from './oauth-options.js';
import type { AuthorizationServers } from './oauth-server.js';

export const AUTHORIZATION_FLOW_TTL_MS = 10 * 60 * 1000;
const MAX_PENDING_FLOWS = 256;
const DEFAULT_DEVICE_INTERVAL_S = 5;
const SLOW_DOWN_STEP_S = 5;
const MAX_DEVICE_INTERVAL_S = 120;

export interface OAuthContext {
  readonly records: HostRecords;
  readonly servers: AuthorizationServers;
  readonly clients: OAuthClients;
  readonly policy: HttpPolicy;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** What a person opens to authorize a host, and the id that completes the flow. */
export interface AuthorizationStart {
  /** Hand this back to `completeAuthorization` (e.g. from the session that started the flow). */
  readonly flowId: string;
  readonly authorizationUrl: string;
  /** Epoch milliseconds after which the flow can no longer complete. */
  readonly expiresAt: number;
}

export interface DeviceAuthorization {
  readonly userCode: string;
  readonly verificationUri: string;
  readonly verificationUriComplete?: string;
  /** Epoch milliseconds after which the device code is void. */
  readonly expiresAt: number;
  /** The server's initial polling interval, in seconds. */
  readonly interval: number;
  /**
   * Polls until the person approves, then stores the grant. Rejects with `permission_denied`
   * when they deny, `timeout` when the code expires, `unavailable`/`invalid_config` as the
   * server answers. Calling it again returns the same promise.
   */
  complete(options?: { readonly signal?: AbortSignal }): Promise<void>;
}

interface PendingAuthorization {
  readonly id: string;
  readonly ref: HostRef;
  readonly acquire: OAuth2Acquire;
  readonly server: oauth.AuthorizationServer;
  readonly client: UsableClient;
  readonly state: string;
  readonly verifier: string;
  readonly redirectUri: string;
  readonly expiresAt: number;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The grant a token response establishes. Throws `invalid_config` for a token type other than Bearer. */
export function grantFromTokens(
  tokens: oauth.TokenEndpointResponse,
  base: Pick<OAuthGrant, 'spec' | 'issuer' | 'client'>,
  previousRefreshToken: string | undefined,
  now: number,
  origin: string,
): OAuthGrant {
  if (tokens.token_type !== 'bearer') {
    throw new InvalidConfigError(`The authorization server ${origin} issued a "${oauthErrorCode(tokens.token_type)}" token; inseam presents Bearer tokens only.`, {
      details: { origin, reason: 'oauth_unsupported' },
    });
  }
  const refreshToken = tokens.refresh_token ?? previousRefreshToken;
  return {
    spec: base.spec,
    issuer: base.issuer,
    client: base.client,
    accessToken: tokens.access_token,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(tokens.expires_in === undefined ? {} : { expiresAt: now + tokens.expires_in * 1000 }),
    ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
  };
}

function callbackParameters(response: URL | URLSearchParams | string): URLSearchParams {
  if (response instanceof URLSearchParams) return new URLSearchParams(response);
  if (response instanceof URL) return new URLSearchParams(response.search);
  const text = response.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).searchParams;
    } catch {
      throw new InvalidArgumentError('The authorization response is not a URL or a query string.', { details: { argument: 'response' } });
    }
  }
  return new URLSearchParams(text.startsWith('?') ? text.slice(1) : text);
}

function checkRedirectUri(value: string | undefined): string {
  if (value === undefined) {
    throw new InvalidConfigError('No OAuth redirect URI is configured; set oauth.redirectUri to the platform callback URL, or pass one.', { details: { reason: 'redirect_uri_missing' } });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidConfigError('The OAuth redirect URI is not an absolute URL.', { details: { reason: 'redirect_uri_invalid' } });
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash !== '') {
    throw new InvalidConfigError('The OAuth redirect URI must be an http(s) URL without a fragment.', { details: { reason: 'redirect_uri_invalid' } });
  }
  return url.href;
}

export class OAuthFlows {
  readonly #context: OAuthContext;
  readonly #pending = new Map<string, PendingAuthorization>();

  constructor(context: OAuthContext) {
    this.#context = context;
  }

  async beginAuthorization(ref: HostRef, auth: AuthSpec, redirectUri: string | undefined): Promise<AuthorizationStart> {
    const { policy, now } = this.#context;
    const acquire = oauth2Acquire(auth, 'authorization_code', policy);
    const redirect = checkRedirectUri(redirectUri);
    const server = await this.#context.servers.describe(acquire);
    const client = await this.#context.clients.choose(acquire, server, ref.scope.network ?? '', redirect);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(acquire.authorizationUrl ?? '');
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', client.grant.clientId);
    url.searchParams.set('redirect_uri', redirect);
    if (acquire.scopes.length > 0) url.searchParams.set('scope', acquire.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    const flow: PendingAuthorization = {
      id: randomBytes(18).toString('base64url'),
      ref,
      acquire,
      server,
      client,
      state,
      verifier,
      redirectUri: redirect,
      expiresAt: now() + AUTHORIZATION_FLOW_TTL_MS,
    };
    this.#remember(flow);
    return { flowId: flow.id, authorizationUrl: url.href, expiresAt: flow.expiresAt };
  }

  /**
   * Completes an authorization_code flow from the redirect's parameters (the callback URL, its
   * query string, or the parameters). With `flowId`, that flow must be the one; without it the
   * flow is found by `state`. Throws `permission_denied` with details.reason `state_mismatch`,
   * `issuer_mismatch`, `issuer_missing` or `authorization_denied`; `timeout` for an expired flow;
   * and the typed errors of the code exchange. Resolves with the host whose grant was stored.
   */
  async completeAuthorization(response: URL | URLSearchParams | string, flowId?: string): Promise<HostRef> {
    const params = callbackParameters(response);
    const flow = this.#take(params, flowId);
    const { server, client } = flow;
    const origin = new URL(flow.acquire.tokenUrl).origin;
    if (flow.expiresAt <= this.#context.now()) {
      throw new TimeoutError('The authorization took longer than ten minutes; start it again.', { details: { reason: 'flow_expired' } });
    }
    const state = params.get('state');
    if (state === null || !sameSecret(state, flow.state)) throw stateMismatch();
    const iss = params.get('iss');
    if (iss !== null && iss !== server.issuer) {
      throw new PermissionDeniedError(`The authorization response names issuer "${oauthErrorCode(iss)}", not the server this flow was started with (${server.issuer}); it was refused as a mix-up attack.`, {
        details: { reason: 'issuer_mismatch', expected: server.issuer },
      });
    }
    if (iss === null && server.authorization_response_iss_parameter_supported === true) {
      throw new PermissionDeniedError(`The authorization response carries no "iss", though ${server.issuer} always sends one; it was refused.`, {
        details: { reason: 'issuer_missing', expected: server.issuer },
      });
    }
    let tokens: oauth.TokenEndpointResponse;
    try {
      const validated = oauth.validateAuthResponse(server, client.metadata, params, flow.state);
      const answer = await oauth.authorizationCodeGrantRequest(
        server,
        client.metadata,
        client.auth,
        validated,
        flow.redirectUri,
        flow.verifier,
        oauthRequestOptions(this.#context.policy, new URL(flow.acquire.tokenUrl)),
      );
      tokens = await oauth.processAuthorizationCodeResponse(server, client.metadata, answer);
    } catch (error) {
      throw oauthFailure(error, origin, 'the authorization code exchange');
    }
    const grant = grantFromTokens(tokens, { spec: acquireFingerprint(flow.acquire), issuer: server.issuer, client: client.grant }, undefined, this.#context.now(), origin);
    await this.#context.records.update(flow.ref, (record) => ({ ...record, oauth: grant }));
    return flow.ref;
  }

  async beginDeviceAuthorization(ref: HostRef, auth: AuthSpec): Promise<DeviceAuthorization> {
    const { policy, now } = this.#context;
    const acquire = oauth2Acquire(auth, 'device_code', policy);
    const server = await this.#context.servers.describe(acquire);
    const client = await this.#context.clients.choose(acquire, server, ref.scope.network ?? '', undefined);
    const deviceUrl = new URL(acquire.deviceUrl ?? '');
    let answer: oauth.DeviceAuthorizationResponse;
    try {
      const response = await oauth.deviceAuthorizationRequest(
        server,
        client.metadata,
        client.auth,
        acquire.scopes.length === 0 ? {} : { scope: acquire.scopes.join(' ') },
        oauthRequestOptions(policy, deviceUrl),
      );
      answer = await oauth.processDeviceAuthorizationResponse(server, client.metadata, response);
    } catch (error) {
      throw oauthFailure(error, deviceUrl.origin, 'the device authorization request');
    }
    const interval = typeof answer.interval === 'number' && answer.interval > 0 ? answer.interval : DEFAULT_DEVICE_INTERVAL_S;
    const expiresAt = now() + answer.expires_in * 1000;
    let completion: Promise<void> | undefined;
    return {
      userCode: answer.user_code,
      verificationUri: answer.verification_uri,
      ...(answer.verification_uri_complete === undefined ? {} : { verificationUriComplete: answer.verification_uri_complete }),
      expiresAt,
      interval,
      complete: (options) => {
        completion ??= this.#pollDevice(ref, acquire, server, client, answer.device_code, interval, expiresAt, options?.signal);
        return completion;
      },
    };
  }

  /** A fresh grant from `grant`'s refresh token, stored before it is returned. */
  async refresh(ref: HostRef, acquire: OAuth2Acquire, grant: OAuthGrant): Promise<OAuthGrant> {
    const tokenUrl = new URL(acquire.tokenUrl);
    const refreshToken = grant.refreshToken;
    if (refreshToken === undefined) throw new PermissionDeniedError("The host's access token expired and there is no refresh token; authorize the host again.", { details: { reason: 'reauthorization_required' } });
    const server: oauth.AuthorizationServer = { issuer: grant.issuer, token_endpoint: acquire.tokenUrl };
    const client = await this.#context.clients.forRefresh(grant.client, acquire, ref.scope.network ?? '');
    let tokens: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.refreshTokenGrantRequest(server, client.metadata, client.auth, refreshToken, oauthRequestOptions(this.#context.policy, tokenUrl));
      tokens = await oauth.processRefreshTokenResponse(server, client.metadata, response);
    } catch (error) {
      const failure = oauthFailure(error, tokenUrl.origin, 'the token refresh');
      if (hasErrorCode(failure, 'permission_denied')) {
        // The grant is dead; keep nothing that looks usable.
        await this.#context.records.update(ref, (record) => (record.oauth?.refreshToken === refreshToken ? withoutGrant(record) : record));
      }
      throw failure;
    }
    const next = grantFromTokens(tokens, grant, refreshToken, this.#context.now(), tokenUrl.origin);
    await this.#context.records.update(ref, (record) => ({ ...record, oauth: next }));
    return next;
  }

  #remember(flow: PendingAuthorization): void {
    const now = this.#context.now();
    for (const [id, pending] of this.#pending) if (pending.expiresAt <= now) this.#pending.delete(id);
    while (this.#pending.size >= MAX_PENDING_FLOWS) {
      const oldest = this.#pending.keys().next();
      if (oldest.done === true) break;
      this.#pending.delete(oldest.value);
    }
    this.#pending.set(flow.id, flow);
  }

  #take(params: URLSearchParams, flowId: string | undefined): PendingAuthorization {
    let flow: PendingAuthorization | undefined;
    if (flowId !== undefined) {
      flow = this.#pending.get(flowId);
    } else {
      const state = params.get('state');
      if (state !== null) for (const pending of this.#pending.values()) if (sameSecret(state, pending.state)) flow = pending;
    }
    if (flow === undefined) throw stateMismatch();
    this.#pending.delete(flow.id);
    return flow;
  }

  async #pollDevice(
    ref: HostRef,
    acquire: OAuth2Acquire,
    server: oauth.AuthorizationServer,
    client: UsableClient,
    deviceCode: string,
    initialInterval: number,
    expiresAt: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { now, policy, sleep } = this.#context;
    const tokenUrl = new URL(acquire.tokenUrl);
    let interval = initialInterval;
    for (;;) {
      await sleep(interval * 1000, signal);
      if (signal?.aborted === true) throw new TimeoutError('The device authorization was cancelled.', { details: { reason: 'cancelled' } });
      if (now() >= expiresAt) throw deviceExpired();
      let tokens: oauth.TokenEndpointResponse;
      try {
        const response = await oauth.deviceCodeGrantRequest(server, client.metadata, client.auth, deviceCode, oauthRequestOptions(policy, tokenUrl, signal));
        tokens = await oauth.processDeviceCodeResponse(server, client.metadata, response);
      } catch (error) {
        const code = responseErrorCode(error);
        if (code === 'authorization_pending') continue;
        if (code === 'slow_down') {
          interval = Math.min(interval + SLOW_DOWN_STEP_S, MAX_DEVICE_INTERVAL_S);
          continue;
        }
        if (code === 'access_denied') throw new PermissionDeniedError('The person declined the device authorization.', { details: { reason: 'authorization_denied', oauthError: code } });
        if (code === 'expired_token') throw deviceExpired();
        if (error instanceof UnavailableError && error.details['reason'] === 'unreachable') {
          // RFC 8628 §3.5: back off when the server does not answer.
          interval = Math.min(interval * 2, MAX_DEVICE_INTERVAL_S);
          continue;
        }
        throw oauthFailure(error, tokenUrl.origin, 'the device code exchange');
      }
      const grant = grantFromTokens(tokens, { spec: acquireFingerprint(acquire), issuer: server.issuer, client: client.grant }, undefined, now(), tokenUrl.origin);
      await this.#context.records.update(ref, (record) => ({ ...record, oauth: grant }));
      return;
    }
  }
}

function withoutGrant<T extends { readonly oauth?: unknown }>(record: T): Omit<T, 'oauth'> {
  const { oauth: _dropped, ...rest } = record;
  return rest;
}

function stateMismatch(): PermissionDeniedError {
  return new PermissionDeniedError('The authorization response does not belong to a pending authorization of this platform (state mismatch); start the authorization again.', {
    details: { reason: 'state_mismatch' },
  });
}

function deviceExpired(): TimeoutError {
  return new TimeoutError('The device code expired before the person approved it; start the device authorization again.', { details: { reason: 'device_code_expired' } });
}
