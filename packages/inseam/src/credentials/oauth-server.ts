/**
 * Who the authorization server of an `oauth2` AuthSpec is. The AuthSpec names endpoints, not an
 * issuer, so the issuer identifier (what RFC 9207's `iss` and id tokens are checked against) and
 * the registration endpoint (for dynamic client registration) come from the server's metadata:
 *
 * - Candidate issuers are the origin of the grant's front endpoint (`authorizationUrl`, or
 *   `deviceUrl` for device_code), then that origin with the endpoint's leading path segments
 *   (at most three, shortest first), e.g. `https://id.example/realms/a`.
 * - For each, RFC 8414 (`/.well-known/oauth-authorization-server` inserted before the path) is
 *   tried, then OpenID Connect Discovery (`/.well-known/openid-configuration` appended).
 * - A document counts only when its `issuer` is that candidate and its `token_endpoint` is the
 *   AuthSpec's `tokenUrl`: metadata must describe the server the person approved.
 *
 * Endpoints are always the AuthSpec's own; metadata contributes the issuer, the registration
 * endpoint, `authorization_response_iss_parameter_supported` and the id token signing algorithms
 * (an id token the server adds is checked against them). A server without metadata is
 * taken to have the front endpoint's origin as its issuer. Metadata is cached for an hour, its
 * absence for five minutes.
 */
import type { OAuth2Acquire } from '@inseam/connector';
import type { AuthorizationServer } from 'oauth4webapi';
import { isConnectorError } from '@neuralis/package-system/contracts';
import { checkAcquisitionUrl, readJson, send } from './http.js';
import type { HttpPolicy } from './http.js';

const CACHE_TTL_MS = 60 * 60 * 1000;
// A server that answered nothing may be back soon; look again sooner.
const MISS_TTL_MS = 5 * 60 * 1000;
const MAX_PATH_CANDIDATES = 3;

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href.replace(/\/$/, '') === new URL(b).href.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/** The front endpoint a grant starts at: where discovery looks. */
export function frontEndpoint(acquire: OAuth2Acquire): string {
  return (acquire.grant === 'device_code' ? acquire.deviceUrl : acquire.authorizationUrl) ?? acquire.tokenUrl;
}

function candidateIssuers(front: URL): string[] {
  const segments = front.pathname.split('/').filter((segment) => segment !== '').slice(0, -1).slice(0, MAX_PATH_CANDIDATES);
  const candidates = [front.origin];
  for (let length = 1; length <= segments.length; length++) candidates.push(`${front.origin}/${segments.slice(0, length).join('/')}`);
  return candidates;
}

function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [new URL(`${url.origin}/.well-known/oauth-authorization-server${path}`), new URL(`${url.origin}${path}/.well-known/openid-configuration`)];
}

interface Metadata {
  readonly issuer: string;
  readonly registrationEndpoint?: string;
  readonly issParameterSupported: boolean;
  readonly idTokenSigningAlgs?: readonly string[];
}

export class AuthorizationServers {
  readonly #policy: HttpPolicy;
  readonly #now: () => number;
  readonly #cache = new Map<string, { readonly metadata: Metadata | null; readonly until: number }>();

  constructor(policy: HttpPolicy, now: () => number) {
    this.#policy = policy;
    this.#now = now;
  }

  /** The server description oauth4webapi works with, for `acquire` (endpoints already validated). */
  async describe(acquire: OAuth2Acquire): Promise<AuthorizationServer> {
    const front = new URL(frontEndpoint(acquire));
    const metadata = await this.#metadata(front, acquire.tokenUrl);
    return {
      issuer: metadata?.issuer ?? front.origin,
      token_endpoint: acquire.tokenUrl,
      ...(acquire.authorizationUrl === undefined ? {} : { authorization_endpoint: acquire.authorizationUrl }),
      ...(acquire.deviceUrl === undefined ? {} : { device_authorization_endpoint: acquire.deviceUrl }),
      ...(metadata?.registrationEndpoint === undefined ? {} : { registration_endpoint: metadata.registrationEndpoint }),
      ...(metadata?.issParameterSupported === true ? { authorization_response_iss_parameter_supported: true } : {}),
      ...(metadata?.idTokenSigningAlgs === undefined ? {} : { id_token_signing_alg_values_supported: [...metadata.idTokenSigningAlgs] }),
    };
  }

  async #metadata(front: URL, tokenUrl: string): Promise<Metadata | null> {
    const key = JSON.stringify([front.href, tokenUrl]);
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.until > this.#now()) return cached.metadata;
    let found: Metadata | null = null;
    search: for (const candidate of candidateIssuers(front)) {
      for (const url of metadataUrls(candidate)) {
        found = await this.#fetchMetadata(url, candidate, tokenUrl);
        if (found !== null) break search;
      }
    }
    this.#cache.set(key, { metadata: found, until: this.#now() + (found === null ? MISS_TTL_MS : CACHE_TTL_MS) });
    return found;
  }

  async #fetchMetadata(url: URL, issuer: string, tokenUrl: string): Promise<Metadata | null> {
    try {
      const response = await send(this.#policy, url, { method: 'GET', headers: { accept: 'application/json' } });
      if (response.status !== 200) {
        await response.body?.cancel();
        return null;
      }
      const document = await readJson(response, url.origin);
      if (typeof document !== 'object' || document === null) return null;
      const fields = document as Record<string, unknown>;
      if (typeof fields['issuer'] !== 'string' || !sameUrl(fields['issuer'], issuer)) return null;
      if (typeof fields['token_endpoint'] !== 'string' || !sameUrl(fields['token_endpoint'], tokenUrl)) return null;
      let registrationEndpoint: string | undefined;
      if (typeof fields['registration_endpoint'] === 'string') {
        try {
          registrationEndpoint = checkAcquisitionUrl(fields['registration_endpoint'], 'registration_endpoint', this.#policy).href;
        } catch {
          registrationEndpoint = undefined;
        }
      }
      const algs = fields['id_token_signing_alg_values_supported'];
      return {
        issuer: fields['issuer'],
        ...(registrationEndpoint === undefined ? {} : { registrationEndpoint }),
        issParameterSupported: fields['authorization_response_iss_parameter_supported'] === true,
        ...(Array.isArray(algs) && algs.every((alg) => typeof alg === 'string') ? { idTokenSigningAlgs: algs } : {}),
      };
    } catch (error) {
      // No metadata is an answer too: the server is used with the AuthSpec's endpoints only.
      if (isConnectorError(error)) return null;
      throw error;
    }
  }
}
