/**
 * Who calls, from the `Authorization: Bearer <token>` header alone. A principal is the token's
 * user, agent, network limit and features; a `Caller` for the filesystem service is made from it
 * for one network at a time:
 *
 * - a token limited to a network works in that network only; naming another one (in the path, in
 *   a body's `network`, or in the `Inseam-Network` header) is `permission_denied`;
 * - a token for every network works in the network the route names, else the `Inseam-Network`
 *   header, else the only network there is (with several, the caller must say which:
 *   `invalid_argument`).
 */
import type { FastifyRequest } from 'fastify';
import { InvalidArgumentError, NotFoundError, PermissionDeniedError } from '@neuralis/package-system/contracts';
import { checkNetworkSlug } from '../address/index.js';
import type { Caller } from '../fs/index.js';
import type { Grant } from '../fs/grants.js';
import type { Store } from '../store/index.js';
import { unauthenticated } from './errors.js';
import { looksLikeSession, type SessionService } from './sessions.js';
import type { TokenService } from './tokens.js';

/** The header a token for every network names the network with. */
export const NETWORK_HEADER = 'inseam-network';

export interface Principal {
  /** The token's id, or the web session's (`ses_…`). */
  readonly tokenId: string;
  /** What the bearer secret is: an API token, or a web session a sign-in code became (sessions.ts). */
  readonly credential: 'token' | 'session';
  readonly userId: string;
  readonly agentId: string | null;
  /** The network the token is limited to; null: any. */
  readonly network: string | null;
  readonly features: ReadonlySet<string>;
  /** An agent's grants (fs/grants.ts); none for a person. */
  readonly grants: readonly Grant[];
}

/**
 * The principal of a request: an API token, or a web session (with `sessions`). Throws the 401
 * `unauthenticated` error for a missing or malformed header and for a token or session that is
 * unknown, revoked or expired (one message for all, so a probe learns nothing about which).
 */
const NO_GRANTS: readonly Grant[] = Object.freeze([]);

export async function authenticate(header: string | undefined, tokens: TokenService, sessions?: SessionService): Promise<Principal> {
  if (header === undefined || header === '') {
    throw unauthenticated('This call needs an API token: send `Authorization: Bearer <token>` (make one with `inseam token create`).', 'missing_token');
  }
  const secret = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header)?.[1];
  if (secret !== undefined && sessions !== undefined && looksLikeSession(secret)) {
    const session = await sessions.verify(secret);
    if (session === null) throw unauthenticated('The sign-in session has ended (it expired or was signed out); sign in again with a new link from `inseam signin`.', 'session_ended');
    return Object.freeze({
      tokenId: session.id,
      credential: 'session',
      userId: session.userId,
      agentId: null,
      network: null,
      features: Object.freeze(new Set(session.features)),
      // A session is a person's: the host's tree alone decides, as for a person's token.
      grants: NO_GRANTS,
    });
  }
  const record = secret === undefined ? null : await tokens.verify(secret);
  if (record === null) throw unauthenticated('The API token is not valid: it is malformed, unknown, revoked or expired.', 'invalid_token');
  return Object.freeze({
    tokenId: record.id,
    credential: 'token',
    userId: record.userId,
    agentId: record.agentId,
    network: record.network,
    features: Object.freeze(new Set(record.scopes)),
    grants: Object.freeze(record.grants as Grant[]),
  });
}

/**
 * The network a request works in (see the module comment). `named` is the network the route
 * itself names (a path parameter or body field), if any. Throws `permission_denied`,
 * `invalid_uri`, `invalid_argument` (several networks and none named), `not_found` (no network).
 */
export async function networkOf(principal: Principal, request: Pick<FastifyRequest, 'headers'>, store: Pick<Store, 'networks'>, named?: string): Promise<string> {
  const header = request.headers[NETWORK_HEADER];
  const fromHeader = typeof header === 'string' && header !== '' ? checkNetworkSlug(header) : undefined;
  const given = named === undefined ? fromHeader : checkNetworkSlug(named);
  if (principal.network !== null) {
    for (const other of [given, fromHeader]) {
      if (other !== undefined && other !== principal.network) {
        throw new PermissionDeniedError(`This token works in network "${principal.network}" only, not in "${other}".`, { details: { network: principal.network } });
      }
    }
    return principal.network;
  }
  if (given !== undefined) return given;
  const networks = await store.networks.list();
  if (networks.length === 1) return networks[0]!.slug;
  if (networks.length === 0) throw new NotFoundError('There is no network yet; create one with POST /v1/networks.', { details: { reason: 'no_network' } });
  throw new InvalidArgumentError(`Which network? There are ${networks.length}; name one with the Inseam-Network header.`, { details: { argument: NETWORK_HEADER } });
}

/** The filesystem service's caller for the principal in `network`. */
export function callerOf(principal: Principal, network: string): Caller {
  return {
    session: {
      userId: principal.userId,
      ...(principal.agentId === null ? {} : { agentId: principal.agentId }),
      projectId: network,
      features: principal.features,
    },
    grants: principal.grants,
  };
}
