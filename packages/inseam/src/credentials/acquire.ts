/**
 * Checks on an AuthSpec's `acquire` block before the store acts on it. describe() validation
 * elsewhere checks shapes; these are the rules the store itself depends on, so it never sends
 * a secret somewhere the AuthSpec did not make safe. Every failure is `invalid_config` naming
 * the field.
 */
import type { AuthSpec, ExchangeAcquire, OAuth2Acquire } from '@inseam/connector';
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import { OriginAllowlist } from '../gate/index.js';
import { checkAcquisitionUrl } from './http.js';
import type { HttpPolicy } from './http.js';
import { parseJsonPath } from './json-path.js';

const CLIENT_SOURCES: readonly string[] = ['inseam', 'dcr', 'network'];
/** The statuses that renew an exchanged credential when `renewOn` is absent. */
export const DEFAULT_RENEW_ON: readonly number[] = [401];

function refuse(field: string, why: string): never {
  throw new InvalidConfigError(`auth.acquire.${field} ${why}`, { details: { field: `auth.acquire.${field}` } });
}

/**
 * `auth.acquire` as an `oauth2` block for `grant`. Requires `pkce: true`; `authorizationUrl` for
 * authorization_code and `deviceUrl` for device_code; https endpoints (see http.ts); string
 * scopes; a non-empty list of known client sources.
 */
export function oauth2Acquire(auth: AuthSpec, grant: OAuth2Acquire['grant'], policy: HttpPolicy): OAuth2Acquire {
  const acquire = auth.acquire;
  if (acquire.type !== 'oauth2') throw new InvalidConfigError(`This host's AuthSpec acquires its credential by "${acquire.type}", not OAuth 2.`, { details: { field: 'auth.acquire.type' } });
  if (acquire.grant !== grant) refuse('grant', `is "${acquire.grant}"; this operation needs "${grant}".`);
  checkOAuth2(acquire, policy);
  return acquire;
}

/** The same checks for an `oauth2` block of either grant. */
export function checkOAuth2(acquire: OAuth2Acquire, policy: HttpPolicy): void {
  if (acquire.pkce !== true) refuse('pkce', 'must be true: every OAuth 2 grant uses PKCE (S256).');
  if (acquire.grant !== 'authorization_code' && acquire.grant !== 'device_code') refuse('grant', 'must be "authorization_code" or "device_code".');
  checkAcquisitionUrl(acquire.tokenUrl, 'auth.acquire.tokenUrl', policy);
  if (acquire.grant === 'authorization_code') {
    if (acquire.authorizationUrl === undefined) refuse('authorizationUrl', 'is required for the authorization_code grant.');
    checkAcquisitionUrl(acquire.authorizationUrl, 'auth.acquire.authorizationUrl', policy);
  } else {
    if (acquire.deviceUrl === undefined) refuse('deviceUrl', 'is required for the device_code grant.');
    checkAcquisitionUrl(acquire.deviceUrl, 'auth.acquire.deviceUrl', policy);
  }
  if (!Array.isArray(acquire.scopes) || !acquire.scopes.every((scope) => typeof scope === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) {
    refuse('scopes', 'must be a list of scope tokens (printable, no spaces, quotes or backslashes).');
  }
  if (!Array.isArray(acquire.clientSources) || acquire.clientSources.length === 0 || !acquire.clientSources.every((source) => CLIENT_SOURCES.includes(source))) {
    refuse('clientSources', 'must list one or more of "inseam", "dcr", "network".');
  }
}

/**
 * `auth.acquire` as an `exchange` block. The request URL's origin must be one of `auth.origins`
 * (the exchange sends stored fields, and secrets only ever go to declared origins), and https;
 * `extract` must name at least one value by a supported JSON path; a GET carries no body; `json`
 * and `form` exclude each other; `expiresIn` is positive seconds or a JSON path; `expiresAt` a
 * JSON path; `renewOn` HTTP statuses.
 */
export function exchangeAcquire(auth: AuthSpec, policy: HttpPolicy): ExchangeAcquire {
  const acquire = auth.acquire;
  if (acquire.type !== 'exchange') throw new InvalidConfigError(`This host's AuthSpec acquires its credential by "${acquire.type}", not an exchange.`, { details: { field: 'auth.acquire.type' } });
  const { request } = acquire;
  if (request.method !== 'GET' && request.method !== 'POST') refuse('request.method', 'must be GET or POST.');
  // The URL may hold {{field}} placeholders; its origin may not.
  const origin = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#{}]*/.exec(request.url)?.[0];
  if (origin === undefined) refuse('request.url', 'must be an absolute URL whose origin contains no {{placeholder}}.');
  const url = checkAcquisitionUrl(origin, 'auth.acquire.request.url', policy);
  if (!new OriginAllowlist(auth.origins).allows(url)) refuse('request.url', `has origin ${url.origin}, which is not one of auth.origins; declare it there.`);
  if (request.json !== undefined && request.form !== undefined) refuse('request', 'may carry json or form, not both.');
  if (request.method === 'GET' && (request.json !== undefined || request.form !== undefined)) refuse('request', 'is a GET and cannot carry a body.');
  const extract = Object.entries(acquire.extract ?? {});
  if (extract.length === 0) refuse('extract', 'must name at least one value to extract.');
  for (const [name, path] of extract) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) refuse(`extract.${name}`, 'must be named like a template field (letters, digits, _ . -).');
    parseJsonPath(path, `auth.acquire.extract.${name}`);
  }
  if (typeof acquire.expiresIn === 'number') {
    if (!Number.isFinite(acquire.expiresIn) || acquire.expiresIn <= 0) refuse('expiresIn', 'must be a positive number of seconds or a JSON path.');
  } else if (acquire.expiresIn !== undefined && !/^\d+$/.test(acquire.expiresIn)) {
    parseJsonPath(acquire.expiresIn, 'auth.acquire.expiresIn');
  }
  if (acquire.expiresAt !== undefined) parseJsonPath(acquire.expiresAt, 'auth.acquire.expiresAt');
  if (acquire.renewOn !== undefined && !acquire.renewOn.every((status) => Number.isInteger(status) && status >= 400 && status <= 599)) {
    refuse('renewOn', 'must list HTTP error statuses (400–599).');
  }
  return acquire;
}
