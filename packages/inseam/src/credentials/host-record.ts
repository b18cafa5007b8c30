/**
 * What the store keeps for one sandboxed host (record id `host/{host}`): the field values a
 * person entered, and what an acquisition produced — an OAuth 2 grant or exchanged tokens.
 *
 * A grant remembers a fingerprint of the `acquire` block it was obtained under. When the host's
 * AuthSpec changes (another token URL, other scopes, another exchange request), the old grant is
 * not used: a refresh token is only ever sent to the token endpoint that issued it.
 */
import { createHash } from 'node:crypto';
import type { AuthAcquire } from '@inseam/connector';
import { InvalidArgumentError, UnavailableError } from '@neuralis/package-system/contracts';
import { checkName, checkScope } from './scope.js';
import type { CredentialScope } from './scope.js';
import type { CredentialStore, CredentialValue, JsonValue } from './store.js';

export type OAuthClientSource = 'inseam' | 'dcr' | 'network';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** The client a grant was issued to. A `dcr` client's secret is kept here; the others are looked up again at refresh. */
export interface GrantClient {
  readonly source: OAuthClientSource;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly authMethod?: TokenEndpointAuthMethod;
}

export interface OAuthGrant {
  readonly spec: string;
  /** The authorization server's issuer identifier (id tokens and `iss` are checked against it). */
  readonly issuer: string;
  readonly client: GrantClient;
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch milliseconds; absent when the server did not say. */
  readonly expiresAt?: number;
  readonly scope?: string;
}

export interface ExchangeGrant {
  readonly spec: string;
  readonly tokens: Readonly<Record<string, string>>;
  /** Epoch milliseconds; absent when the exchange declares no expiry. */
  readonly expiresAt?: number;
}

export interface HostRecord {
  readonly fields: Readonly<Record<string, string>>;
  readonly oauth?: OAuthGrant;
  readonly exchange?: ExchangeGrant;
}

export const EMPTY_HOST_RECORD: HostRecord = Object.freeze({ fields: Object.freeze({}) });

export function hostRecordId(host: string): string {
  return `host/${host}`;
}

/** A fingerprint of an `acquire` block: equal blocks, equal fingerprints. */
export function acquireFingerprint(acquire: AuthAcquire): string {
  return createHash('sha256').update(canonicalJson(acquire)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function malformed(): UnavailableError {
  return new UnavailableError("The host's stored credential is not in a format this inseam reads; store it again.", { details: { reason: 'record_malformed' } });
}

function stringMap(value: JsonValue | undefined): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed();
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') throw malformed();
    out[key] = item;
  }
  return out;
}

function text(value: JsonValue | undefined): string {
  if (typeof value !== 'string') throw malformed();
  return value;
}

function optionalText(value: JsonValue | undefined): string | undefined {
  return value === undefined ? undefined : text(value);
}

function optionalNumber(value: JsonValue | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw malformed();
  return value;
}

function object(value: JsonValue | undefined): { readonly [key: string]: JsonValue } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed();
  return value as { readonly [key: string]: JsonValue };
}

const SOURCES: readonly string[] = ['inseam', 'dcr', 'network'];
const AUTH_METHODS: readonly string[] = ['client_secret_basic', 'client_secret_post', 'none'];

function parseClient(value: JsonValue | undefined): GrantClient {
  const client = object(value);
  const source = text(client['source']);
  const authMethod = optionalText(client['authMethod']);
  if (!SOURCES.includes(source) || (authMethod !== undefined && !AUTH_METHODS.includes(authMethod))) throw malformed();
  const clientSecret = optionalText(client['clientSecret']);
  return {
    source: source as OAuthClientSource,
    clientId: text(client['clientId']),
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(authMethod === undefined ? {} : { authMethod: authMethod as TokenEndpointAuthMethod }),
  };
}

/** Reads a stored host record. Throws `unavailable` (record_malformed) when its shape is wrong. */
export function parseHostRecord(value: CredentialValue): HostRecord {
  const fields = stringMap(value['fields']);
  let oauth: OAuthGrant | undefined;
  if (value['oauth'] !== undefined) {
    const grant = object(value['oauth']);
    const refreshToken = optionalText(grant['refreshToken']);
    const expiresAt = optionalNumber(grant['expiresAt']);
    const scope = optionalText(grant['scope']);
    oauth = {
      spec: text(grant['spec']),
      issuer: text(grant['issuer']),
      client: parseClient(grant['client']),
      accessToken: text(grant['accessToken']),
      ...(refreshToken === undefined ? {} : { refreshToken }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(scope === undefined ? {} : { scope }),
    };
  }
  let exchange: ExchangeGrant | undefined;
  if (value['exchange'] !== undefined) {
    const grant = object(value['exchange']);
    const expiresAt = optionalNumber(grant['expiresAt']);
    exchange = { spec: text(grant['spec']), tokens: stringMap(grant['tokens']), ...(expiresAt === undefined ? {} : { expiresAt }) };
  }
  return { fields, ...(oauth === undefined ? {} : { oauth }), ...(exchange === undefined ? {} : { exchange }) };
}

/** The record as stored. */
export function serializeHostRecord(record: HostRecord): CredentialValue {
  return JSON.parse(JSON.stringify(record)) as CredentialValue;
}

/** One host's credential: the scope that owns the host (a network, or a user or agent in it) and the host's slug. */
export interface HostRef {
  readonly scope: CredentialScope;
  readonly host: string;
}

/** A validated copy of `ref`. Throws `invalid_argument` for a bad scope or host name, or a deployment scope (hosts live in a network). */
export function checkHostRef(ref: HostRef): HostRef {
  const scope = checkScope(ref.scope);
  if (scope.network === null) throw new InvalidArgumentError('A host belongs to a network; its credential scope must name one.', { details: { argument: 'scope.network' } });
  return { scope, host: checkName(ref.host, 'host') };
}

/** A key naming `ref` uniquely, for in-process bookkeeping (single-flight, cooldowns). */
export function hostKey(ref: HostRef): string {
  return JSON.stringify([ref.scope.network, ref.scope.owner, ref.scope.ownerId ?? null, ref.host]);
}

/**
 * Host records in the encrypted store. Updates of one host's record run one after another in
 * this process, so a refresh and a field change never overwrite each other's result.
 */
export class HostRecords {
  readonly #store: CredentialStore;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(store: CredentialStore) {
    this.#store = store;
  }

  /** The host's record, or an empty one when nothing is stored. */
  async load(ref: HostRef): Promise<HostRecord> {
    const value = await this.#store.get(ref.scope, hostRecordId(ref.host));
    return value === null ? EMPTY_HOST_RECORD : parseHostRecord(value);
  }

  /** Reads, changes and writes the record back; resolves with what was written. */
  update(ref: HostRef, change: (record: HostRecord) => HostRecord): Promise<HostRecord> {
    return this.#serialised(ref, async () => {
      const next = change(await this.load(ref));
      await this.#store.put(ref.scope, hostRecordId(ref.host), serializeHostRecord(next));
      return next;
    });
  }

  remove(ref: HostRef): Promise<boolean> {
    return this.#serialised(ref, () => this.#store.delete(ref.scope, hostRecordId(ref.host)));
  }

  #serialised<T>(ref: HostRef, work: () => Promise<T>): Promise<T> {
    const key = hostKey(ref);
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(key, settled);
    void settled.then(() => {
      if (this.#queues.get(key) === settled) this.#queues.delete(key);
    });
    return result;
  }
}
