/**
 * Credentials of sandboxed hosts: storing what a person enters, running the AuthSpec's
 * acquisition, and serving the values the egress gate fills `present` templates with.
 *
 * Acquisition forms:
 * - `none`: nothing is stored or served.
 * - `static`: the AuthSpec's fields, checked (fields.ts) and stored; served by `fields()`.
 * - `oauth2`: authorization_code or device_code (oauth-flows.ts); `tokens()` serves
 *   `access_token`, refreshing it (single-flight) a minute before it expires.
 * - `exchange`: the exchange (exchange.ts) runs on first use and again before expiry or on a
 *   `renewOn` status; `tokens()` serves the extracted values.
 *
 * The gate's `HostCredentialSource` (packages/inseam/src/gate) is implemented by `source()`,
 * which adds `onStatus`: the gate reports a host's answer status, and when that status means
 * the credential went stale (401 for OAuth 2, `renewOn` — default [401] — for an exchange) the
 * credential is renewed and `onStatus` resolves true: send the request once more. Concurrent
 * reports share one renewal, and a report within ten seconds of the value being obtained or
 * renewed resolves true without renewing again (the answer was to a request that was already in
 * flight, or the fresh value is refused too and one retry tells).
 */
import type { AuthSpec, ExchangeAcquire, OAuth2Acquire } from '@inseam/connector';
import { setTimeout as delay } from 'node:timers/promises';
import type { HostCredentialSource } from '../gate/index.js';
import { DEFAULT_RENEW_ON, checkOAuth2, exchangeAcquire } from './acquire.js';
import { runExchange } from './exchange.js';
import { checkFieldValues } from './fields.js';
import { HostRecords, acquireFingerprint, checkHostRef, hostKey } from './host-record.js';
import type { ExchangeGrant, HostRecord, HostRef, OAuthGrant } from './host-record.js';
import { httpPolicy } from './http.js';
import type { HttpPolicy, HttpPolicyOptions } from './http.js';
import { OAuthClients } from './oauth-clients.js';
import type { InseamOAuthClient, OAuthClientRegistration } from './oauth-clients.js';
import { OAuthFlows } from './oauth-flows.js';
import type { AuthorizationStart, DeviceAuthorization } from './oauth-flows.js';
import { AuthorizationServers } from './oauth-server.js';
import { SingleFlight } from './single-flight.js';
import type { CredentialStore } from './store.js';

/** Renew this long before a known expiry, so a request never leaves with a value about to lapse. */
export const RENEW_BEFORE_EXPIRY_MS = 60_000;
/** A stale-status report this soon after a renewal is answered by the renewal already made. */
export const RENEW_COOLDOWN_MS = 10_000;

/** What the gate reads a host's credential through: the gate's HostCredentialSource, with `tokens` and `onStatus` always present. */
export interface StoredHostCredentialSource extends HostCredentialSource {
  /** The stored values of the fields the AuthSpec declares. */
  fields(): Promise<Readonly<Record<string, string>>>;
  /**
   * Values the acquisition produced: `access_token` for OAuth 2, the `extract` names for an
   * exchange, nothing for `none`/`static`. Obtains or renews them first when needed. Resolves
   * `{}` when an OAuth 2 host is not authorized (yet, or any more); rejects with the typed
   * error of a failed exchange or refresh.
   */
  tokens(): Promise<Readonly<Record<string, string>>>;
  /**
   * The host answered `status`. Resolves true when the credential was renewed because of it
   * (send the request once more, at most once); false when the status says nothing about the
   * credential or it cannot be renewed. Rejects with the renewal's typed error.
   */
  onStatus(status: number): Promise<boolean>;
}

export interface HostCredentialsOptions {
  readonly store: CredentialStore;
  readonly oauth?: {
    /** The platform's OAuth callback URL, used when `beginAuthorization` is not given one. */
    readonly redirectUri?: string;
    /** Client registrations built into this deployment (the `inseam` client source). */
    readonly clients?: readonly InseamOAuthClient[];
    /** `client_name` at dynamic client registration. Default `inseam`. */
    readonly clientName?: string;
  };
  readonly http?: HttpPolicyOptions;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** Waits between device-code polls. Default: a timer that ends early when `signal` aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
}

export class HostCredentials {
  readonly #records: HostRecords;
  readonly #clients: OAuthClients;
  readonly #flows: OAuthFlows;
  readonly #policy: HttpPolicy;
  readonly #now: () => number;
  readonly #redirectUri: string | undefined;
  readonly #refreshes = new SingleFlight<OAuthGrant | null>();
  readonly #exchanges = new SingleFlight<ExchangeGrant>();
  readonly #renewedAt = new Map<string, number>();

  constructor(options: HostCredentialsOptions) {
    this.#policy = httpPolicy(options.http);
    this.#now = options.now ?? Date.now;
    this.#records = new HostRecords(options.store);
    this.#redirectUri = options.oauth?.redirectUri;
    this.#clients = new OAuthClients({
      store: options.store,
      policy: this.#policy,
      now: this.#now,
      ...(options.oauth?.clients === undefined ? {} : { inseamClients: options.oauth.clients }),
      ...(options.oauth?.clientName === undefined ? {} : { clientName: options.oauth.clientName }),
    });
    this.#flows = new OAuthFlows({
      records: this.#records,
      servers: new AuthorizationServers(this.#policy, this.#now),
      clients: this.#clients,
      policy: this.#policy,
      now: this.#now,
      sleep: options.sleep ?? defaultSleep,
    });
  }

  /**
   * Stores the values a person entered for the AuthSpec's fields, replacing earlier ones (and
   * dropping exchanged values made from them). Throws `invalid_argument` naming missing, unknown
   * or malformed fields (never a value), `invalid_config` for an uncompilable pattern.
   */
  async setFields(ref: HostRef, auth: AuthSpec, values: Readonly<Record<string, string>>): Promise<void> {
    const host = checkHostRef(ref);
    const fields = checkFieldValues(auth.fields, values);
    await this.#records.update(host, ({ exchange: _stale, ...record }) => ({ ...record, fields }));
  }

  /** Starts an authorization_code grant; see OAuthFlows. `redirectUri` defaults to the configured one. */
  beginAuthorization(ref: HostRef, auth: AuthSpec, options: { readonly redirectUri?: string } = {}): Promise<AuthorizationStart> {
    return this.#flows.beginAuthorization(checkHostRef(ref), auth, options.redirectUri ?? this.#redirectUri);
  }

  /** Completes an authorization_code grant from the redirect; see OAuthFlows.completeAuthorization. */
  completeAuthorization(response: URL | URLSearchParams | string, options: { readonly flowId?: string } = {}): Promise<HostRef> {
    return this.#flows.completeAuthorization(response, options.flowId);
  }

  /** Starts a device_code grant; the person enters `userCode` at `verificationUri`, then `complete()` stores the grant. */
  beginDeviceAuthorization(ref: HostRef, auth: AuthSpec): Promise<DeviceAuthorization> {
    return this.#flows.beginDeviceAuthorization(checkHostRef(ref), auth);
  }

  /**
   * Stores (replacing) the network admin's OAuth client for `tokenUrl` (the `network` client
   * source), encrypted in the network's scope. Throws `invalid_argument` for a malformed
   * registration (a secret-using auth method without a secret, a bad client id).
   */
  setNetworkClient(network: string, tokenUrl: string, registration: OAuthClientRegistration): Promise<void> {
    return this.#clients.setNetworkClient(network, tokenUrl, registration);
  }

  /** Removes the network's client for `tokenUrl`; false when there was none. */
  removeNetworkClient(network: string, tokenUrl: string): Promise<boolean> {
    return this.#clients.removeNetworkClient(network, tokenUrl);
  }

  /** Forgets everything stored for the host: fields and grants. */
  remove(ref: HostRef): Promise<boolean> {
    return this.#records.remove(checkHostRef(ref));
  }

  /**
   * The source the egress gate reads this host's credential through. Throws `invalid_argument`
   * for a bad ref and `invalid_config` for an AuthSpec whose acquisition the store cannot run
   * safely (see acquire.ts).
   */
  source(ref: HostRef, auth: AuthSpec): StoredHostCredentialSource {
    const host = checkHostRef(ref);
    const declared = (auth.fields ?? []).map((field) => field.name);
    const acquire = auth.acquire;
    let tokens: () => Promise<Readonly<Record<string, string>>> = () => Promise.resolve({});
    let onStatus: (status: number) => Promise<boolean> = () => Promise.resolve(false);
    if (acquire.type === 'oauth2') {
      checkOAuth2(acquire, this.#policy);
      tokens = () => this.#oauthTokens(host, acquire);
      onStatus = (status) => (status === 401 ? this.#renewAfterStatus(host, () => this.#renewOAuth(host, acquire, true)) : Promise.resolve(false));
    } else if (acquire.type === 'exchange') {
      const checked = exchangeAcquire(auth, this.#policy);
      const renewOn = checked.renewOn ?? DEFAULT_RENEW_ON;
      tokens = () => this.#exchangeTokens(host, checked);
      onStatus = (status) => (renewOn.includes(status) ? this.#renewAfterStatus(host, () => this.#renewExchange(host, checked, true)) : Promise.resolve(false));
    }
    return {
      fields: async () => {
        const record = await this.#records.load(host);
        const out: Record<string, string> = {};
        for (const name of declared) {
          const value = record.fields[name];
          if (value !== undefined) out[name] = value;
        }
        return out;
      },
      tokens,
      onStatus,
    };
  }

  #fresh(expiresAt: number | undefined): boolean {
    return expiresAt === undefined || expiresAt - this.#now() > RENEW_BEFORE_EXPIRY_MS;
  }

  #currentGrant(record: HostRecord, acquire: OAuth2Acquire): OAuthGrant | undefined {
    return record.oauth !== undefined && record.oauth.spec === acquireFingerprint(acquire) ? record.oauth : undefined;
  }

  async #oauthTokens(host: HostRef, acquire: OAuth2Acquire): Promise<Readonly<Record<string, string>>> {
    let grant: OAuthGrant | null | undefined = this.#currentGrant(await this.#records.load(host), acquire);
    if (grant === undefined) return {};
    if (!this.#fresh(grant.expiresAt)) {
      if (grant.refreshToken !== undefined) grant = await this.#renewOAuth(host, acquire, false);
      else if (grant.expiresAt !== undefined && grant.expiresAt <= this.#now()) grant = null;
    }
    return grant === null ? {} : { access_token: grant.accessToken };
  }

  /** One refresh per host at a time. Without `force`, a grant another caller already renewed is used as it is. */
  #renewOAuth(host: HostRef, acquire: OAuth2Acquire, force: boolean): Promise<OAuthGrant | null> {
    return this.#refreshes.run(hostKey(host), async () => {
      const grant = this.#currentGrant(await this.#records.load(host), acquire);
      if (grant === undefined || grant.refreshToken === undefined) return null;
      if (!force && this.#fresh(grant.expiresAt)) return grant;
      const renewed = await this.#flows.refresh(host, acquire, grant);
      this.#renewedAt.set(hostKey(host), this.#now());
      return renewed;
    });
  }

  async #exchangeTokens(host: HostRef, acquire: ExchangeAcquire): Promise<Readonly<Record<string, string>>> {
    const record = await this.#records.load(host);
    const grant = record.exchange;
    if (grant !== undefined && grant.spec === acquireFingerprint(acquire) && this.#fresh(grant.expiresAt)) return grant.tokens;
    return (await this.#renewExchange(host, acquire, false)).tokens;
  }

  #renewExchange(host: HostRef, acquire: ExchangeAcquire, force: boolean): Promise<ExchangeGrant> {
    return this.#exchanges.run(hostKey(host), async () => {
      const spec = acquireFingerprint(acquire);
      const record = await this.#records.load(host);
      if (!force && record.exchange !== undefined && record.exchange.spec === spec && this.#fresh(record.exchange.expiresAt)) return record.exchange;
      const grant = await runExchange(acquire, spec, record.fields, this.#policy, this.#now);
      // Stored before anyone is handed the values.
      await this.#records.update(host, (current) => ({ ...current, exchange: grant }));
      this.#renewedAt.set(hostKey(host), this.#now());
      return grant;
    });
  }

  async #renewAfterStatus(host: HostRef, renew: () => Promise<unknown>): Promise<boolean> {
    const last = this.#renewedAt.get(hostKey(host));
    if (last !== undefined && this.#now() - last < RENEW_COOLDOWN_MS) return true;
    return (await renew()) !== null;
  }
}
