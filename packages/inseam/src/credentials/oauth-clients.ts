/**
 * The OAuth client a grant is requested for, from the AuthSpec's `clientSources`, tried in the
 * declared order; the first source that yields a client is used:
 *
 * - `inseam`: a client registration built into this deployment, supplied by configuration and
 *   matched by the exact token URL.
 * - `dcr`: RFC 7591 dynamic client registration at the `registration_endpoint` the server's
 *   metadata names (see oauth-server.ts), registering a public client (`none`, PKCE-protected).
 *   The registered client is stored, encrypted, in the network's scope and reused by every host
 *   of the network with the same server, grant and redirect URI until its secret expires.
 * - `network`: a client the network's admin stored for the exact token URL.
 *
 * Clients are keyed by the token URL they were made for, so a connector that declares some other
 * token URL can never obtain a configured client's secret. When no source yields a client the
 * error lists why each one did not (`invalid_config`).
 *
 * At refresh the grant's own client is used: a `dcr` client as it was stored in the grant; an
 * `inseam` or `network` client is looked up again (its secret may have rotated) and must still
 * have the same client id, else the person has to authorize again.
 */
import { createHash } from 'node:crypto';
import type { OAuth2Acquire } from '@inseam/connector';
import * as oauth from 'oauth4webapi';
import { InvalidArgumentError, InvalidConfigError, PermissionDeniedError } from '@neuralis/package-system/contracts';
import type { GrantClient, OAuthClientSource, TokenEndpointAuthMethod } from './host-record.js';
import type { HttpPolicy } from './http.js';
import { oauthFailure } from './oauth-errors.js';
import { oauthRequestOptions } from './oauth-options.js';
import { checkName, projectScope } from './scope.js';
import type { CredentialStore } from './store.js';

export interface OAuthClientRegistration {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** Default: `client_secret_basic` when there is a secret, `none` when there is not. */
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

/** A client registration built into the deployment, for one token URL. */
export interface InseamOAuthClient extends OAuthClientRegistration {
  readonly tokenUrl: string;
}

const AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'none'];
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export function networkClientId(tokenUrl: string): string {
  return `oauth-client/network/${tokenUrl}`;
}

function dcrClientId(issuer: string, acquire: OAuth2Acquire, redirectUri: string | undefined): string {
  const digest = createHash('sha256').update(JSON.stringify([issuer, acquire.tokenUrl, acquire.grant, redirectUri ?? null])).digest('base64url');
  return `oauth-client/dcr/${digest}`;
}

/** Throws `invalid_argument` when a registration is malformed. */
export function checkRegistration(registration: OAuthClientRegistration): OAuthClientRegistration {
  checkName(registration.clientId, 'OAuth client id');
  if (registration.clientSecret !== undefined && (typeof registration.clientSecret !== 'string' || registration.clientSecret === '')) {
    throw new InvalidArgumentError('An OAuth client secret, when given, must be a non-empty string.', { details: { argument: 'clientSecret' } });
  }
  const method = registration.tokenEndpointAuthMethod;
  if (method !== undefined && !AUTH_METHODS.includes(method)) {
    throw new InvalidArgumentError(`tokenEndpointAuthMethod must be one of ${AUTH_METHODS.join(', ')}.`, { details: { argument: 'tokenEndpointAuthMethod' } });
  }
  if (method !== undefined && method !== 'none' && registration.clientSecret === undefined) {
    throw new InvalidArgumentError(`tokenEndpointAuthMethod ${method} needs a client secret.`, { details: { argument: 'clientSecret' } });
  }
  return registration;
}

function toGrantClient(source: OAuthClientSource, registration: OAuthClientRegistration, keepSecret: boolean): GrantClient {
  const authMethod = registration.tokenEndpointAuthMethod ?? (registration.clientSecret === undefined ? 'none' : 'client_secret_basic');
  return {
    source,
    clientId: registration.clientId,
    authMethod,
    ...(keepSecret && registration.clientSecret !== undefined ? { clientSecret: registration.clientSecret } : {}),
  };
}

/** How oauth4webapi authenticates `client` at the token endpoint. */
export function clientAuthentication(client: GrantClient, secret: string | undefined): oauth.ClientAuth {
  switch (client.authMethod ?? (secret === undefined ? 'none' : 'client_secret_basic')) {
    case 'client_secret_post':
      return oauth.ClientSecretPost(secret ?? '');
    case 'client_secret_basic':
      return oauth.ClientSecretBasic(secret ?? '');
    case 'none':
      return oauth.None();
  }
}

/** A client ready for a request: what oauth4webapi needs, and the secret to authenticate with. */
export interface UsableClient {
  readonly grant: GrantClient;
  readonly secret: string | undefined;
  readonly metadata: oauth.Client;
  readonly auth: oauth.ClientAuth;
}

function usable(grant: GrantClient, secret: string | undefined): UsableClient {
  return { grant, secret, metadata: { client_id: grant.clientId }, auth: clientAuthentication(grant, secret) };
}

export interface OAuthClientsOptions {
  readonly store: CredentialStore;
  readonly policy: HttpPolicy;
  readonly now: () => number;
  readonly inseamClients?: readonly InseamOAuthClient[];
  /** `client_name` sent at dynamic registration. Default `inseam`. */
  readonly clientName?: string;
}

export class OAuthClients {
  readonly #options: OAuthClientsOptions;
  readonly #inseam: ReadonlyMap<string, OAuthClientRegistration>;

  constructor(options: OAuthClientsOptions) {
    this.#options = options;
    const inseam = new Map<string, OAuthClientRegistration>();
    for (const client of options.inseamClients ?? []) inseam.set(client.tokenUrl, checkRegistration(client));
    this.#inseam = inseam;
  }

  /** Stores (replacing) the network admin's client for `tokenUrl`. */
  async setNetworkClient(network: string, tokenUrl: string, registration: OAuthClientRegistration): Promise<void> {
    const checked = checkRegistration(registration);
    await this.#options.store.put(projectScope(network), networkClientId(checkName(tokenUrl, 'token URL')), {
      clientId: checked.clientId,
      ...(checked.clientSecret === undefined ? {} : { clientSecret: checked.clientSecret }),
      ...(checked.tokenEndpointAuthMethod === undefined ? {} : { tokenEndpointAuthMethod: checked.tokenEndpointAuthMethod }),
    });
  }

  async removeNetworkClient(network: string, tokenUrl: string): Promise<boolean> {
    return this.#options.store.delete(projectScope(network), networkClientId(tokenUrl));
  }

  /** The first client the declared sources yield. Throws `invalid_config` listing each source's reason when none does. */
  async choose(acquire: OAuth2Acquire, server: oauth.AuthorizationServer, network: string, redirectUri: string | undefined): Promise<UsableClient> {
    const reasons: string[] = [];
    for (const source of acquire.clientSources) {
      const found = await this.#fromSource(source, acquire, server, network, redirectUri, reasons);
      if (found !== null) return found;
    }
    throw new InvalidConfigError(`No OAuth client is available for ${new URL(acquire.tokenUrl).origin}: ${reasons.join('; ')}.`, {
      details: { reason: 'no_oauth_client', tried: [...acquire.clientSources] },
    });
  }

  /** The grant's client, ready for a refresh. Throws `permission_denied` (authorize again) when it is gone or changed. */
  async forRefresh(client: GrantClient, acquire: OAuth2Acquire, network: string): Promise<UsableClient> {
    if (client.source === 'dcr') return usable(client, client.clientSecret);
    const registration = client.source === 'inseam' ? (this.#inseam.get(acquire.tokenUrl) ?? null) : await this.#networkClient(network, acquire.tokenUrl);
    if (registration === null || registration.clientId !== client.clientId) {
      throw new PermissionDeniedError(`The OAuth client this host was authorized with (${client.source}) is no longer configured; authorize the host again.`, {
        details: { reason: 'reauthorization_required', clientSource: client.source },
      });
    }
    return usable(toGrantClient(client.source, registration, false), registration.clientSecret);
  }

  async #fromSource(
    source: OAuthClientSource,
    acquire: OAuth2Acquire,
    server: oauth.AuthorizationServer,
    network: string,
    redirectUri: string | undefined,
    reasons: string[],
  ): Promise<UsableClient | null> {
    switch (source) {
      case 'inseam': {
        const registration = this.#inseam.get(acquire.tokenUrl);
        if (registration === undefined) {
          reasons.push('inseam: no built-in client is configured for this token URL');
          return null;
        }
        return usable(toGrantClient('inseam', registration, false), registration.clientSecret);
      }
      case 'network': {
        const registration = await this.#networkClient(network, acquire.tokenUrl);
        if (registration === null) {
          reasons.push("network: the network's admin stored no client for this token URL");
          return null;
        }
        return usable(toGrantClient('network', registration, false), registration.clientSecret);
      }
      case 'dcr':
        return this.#registered(acquire, server, network, redirectUri, reasons);
    }
  }

  async #networkClient(network: string, tokenUrl: string): Promise<OAuthClientRegistration | null> {
    const stored = await this.#options.store.get(projectScope(network), networkClientId(tokenUrl));
    if (stored === null || typeof stored['clientId'] !== 'string') return null;
    const secret = stored['clientSecret'];
    const method = stored['tokenEndpointAuthMethod'];
    return {
      clientId: stored['clientId'],
      ...(typeof secret === 'string' ? { clientSecret: secret } : {}),
      ...(typeof method === 'string' && (AUTH_METHODS as readonly string[]).includes(method) ? { tokenEndpointAuthMethod: method as TokenEndpointAuthMethod } : {}),
    };
  }

  async #registered(
    acquire: OAuth2Acquire,
    server: oauth.AuthorizationServer,
    network: string,
    redirectUri: string | undefined,
    reasons: string[],
  ): Promise<UsableClient | null> {
    if (server.registration_endpoint === undefined) {
      reasons.push('dcr: the server publishes no registration endpoint in its metadata');
      return null;
    }
    const scope = projectScope(network);
    const id = dcrClientId(server.issuer, acquire, redirectUri);
    const stored = await this.#options.store.get(scope, id);
    if (stored !== null && typeof stored['clientId'] === 'string') {
      const expiresAt = stored['secretExpiresAt'];
      if (typeof expiresAt !== 'number' || expiresAt === 0 || expiresAt > this.#options.now()) {
        const secret = typeof stored['clientSecret'] === 'string' ? stored['clientSecret'] : undefined;
        const method = stored['authMethod'];
        const registration: OAuthClientRegistration = {
          clientId: stored['clientId'],
          ...(secret === undefined ? {} : { clientSecret: secret }),
          ...(typeof method === 'string' && (AUTH_METHODS as readonly string[]).includes(method) ? { tokenEndpointAuthMethod: method as TokenEndpointAuthMethod } : {}),
        };
        return usable(toGrantClient('dcr', registration, true), secret);
      }
    }
    const endpoint = new URL(server.registration_endpoint);
    let registered: Awaited<ReturnType<typeof oauth.processDynamicClientRegistrationResponse>>;
    try {
      const device = acquire.grant === 'device_code';
      const response = await oauth.dynamicClientRegistrationRequest(
        server,
        {
          client_name: this.#options.clientName ?? 'inseam',
          grant_types: [device ? DEVICE_GRANT : 'authorization_code', 'refresh_token'],
          response_types: device ? [] : ['code'],
          ...(redirectUri === undefined ? {} : { redirect_uris: [redirectUri] }),
          token_endpoint_auth_method: 'none',
          ...(acquire.scopes.length === 0 ? {} : { scope: acquire.scopes.join(' ') }),
        },
        oauthRequestOptions(this.#options.policy, endpoint),
      );
      registered = await oauth.processDynamicClientRegistrationResponse(response);
    } catch (error) {
      const failure = oauthFailure(error, endpoint.origin, 'dynamic client registration');
      reasons.push(`dcr: registration at ${endpoint.origin} failed (${failure.code})`);
      return null;
    }
    const secret = typeof registered.client_secret === 'string' && registered.client_secret !== '' ? registered.client_secret : undefined;
    const rawMethod = registered['token_endpoint_auth_method'];
    const method: TokenEndpointAuthMethod =
      typeof rawMethod === 'string' && (AUTH_METHODS as readonly string[]).includes(rawMethod) ? (rawMethod as TokenEndpointAuthMethod) : secret === undefined ? 'none' : 'client_secret_basic';
    const secretExpiresAt = typeof registered['client_secret_expires_at'] === 'number' ? registered['client_secret_expires_at'] * 1000 : 0;
    await this.#options.store.put(scope, id, {
      clientId: registered.client_id,
      ...(secret === undefined ? {} : { clientSecret: secret }),
      authMethod: method,
      secretExpiresAt,
    });
    return usable(toGrantClient('dcr', { clientId: registered.client_id, tokenEndpointAuthMethod: method, ...(secret === undefined ? {} : { clientSecret: secret }) }, true), secret);
  }
}
