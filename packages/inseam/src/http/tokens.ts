/**
 * API tokens. A token is `inseam_` followed by 43 base64url characters (32 random bytes); it is
 * shown once, when it is made, and only its SHA-256 is stored (store.tokens). A request's bearer
 * token is hashed, looked up, and compared again in constant time with the stored hash.
 *
 * A token carries who calls — a user, optionally an agent acting for them — the network it is
 * limited to (null: any network), its features: the feature ids the caller is granted (the
 * authorization table's FEATURES, and any entry feature a kind asks for), and for an agent its
 * grants: where it may write, delete and run commands (fs/grants.ts). Identity never comes from a
 * request body; it comes from here.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidArgumentError, NotFoundError } from '@neuralis/package-system/contracts';
import { checkNetworkSlug } from '../address/index.js';
import { checkGrants, type Grant } from '../fs/grants.js';
import { ALL_FEATURES, FEATURES } from '../platform/authorization.js';
import type { TokenRecord, TokenStore } from '../store/index.js';

/** What the first admin token of `inseam up` may do: every feature of the authorization table. */
export const ADMIN_FEATURES: readonly string[] = ALL_FEATURES;

const TOKEN_PREFIX = 'inseam_';
const TOKEN_PATTERN = /^inseam_[A-Za-z0-9_-]{43}$/;
const FEATURE_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;
const NAME_MAX = 200;
/** Last-use times are written at most this often per token, so reads do not each write. */
const TOUCH_INTERVAL_MS = 60_000;

export interface TokenInput {
  readonly name: string;
  readonly userId: string;
  readonly agentId?: string | null;
  /** null or absent: the token works in every network. */
  readonly network?: string | null;
  readonly features?: readonly string[];
  /**
   * An agent's grants: `{ right, address }` or `right[,right…]:address` (fs/grants.ts). A
   * person's token takes none (the host's tree alone decides for a person).
   */
  readonly grants?: readonly (Grant | string)[];
  /** Milliseconds since the epoch; absent: it does not expire. */
  readonly expiresAt?: number | null;
}

export interface CreatedToken {
  /** The secret, shown once. */
  readonly token: string;
  readonly record: TokenView;
}

/** A token as listings show it: never the secret or its hash. */
export interface TokenView {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  readonly agentId: string | null;
  readonly network: string | null;
  readonly features: readonly string[];
  readonly grants: readonly Grant[];
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

/** SHA-256 (hex) of a token: what the store keeps. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether two hex SHA-256 hashes are equal, compared in constant time (a lookup by hash is confirmed with it). */
export function sameHash(stored: string, given: string): boolean {
  const expected = Buffer.from(stored, 'hex');
  const actual = Buffer.from(given, 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Whether a string has the form of a token (not whether it is one). */
export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export class TokenService {
  readonly #store: TokenStore;
  readonly #now: () => number;
  readonly #touched = new Map<string, number>();

  constructor(store: TokenStore, options: { readonly now?: () => number } = {}) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Makes a token. Throws `invalid_argument` naming a bad field, `invalid_uri` for a bad network
   * slug, `not_found` when the network does not exist.
   */
  async create(input: TokenInput): Promise<CreatedToken> {
    const name = checkName(input.name);
    const userId = checkId(input.userId, 'user');
    const agentId = input.agentId === undefined || input.agentId === null ? null : checkId(input.agentId, 'agent');
    const network = input.network === undefined || input.network === null ? null : checkNetworkSlug(input.network);
    const features = checkFeatures(input.features ?? []);
    const grants = input.grants === undefined ? [] : checkGrants(input.grants, network);
    if (grants.length > 0 && agentId === null) {
      throw new InvalidArgumentError('Grants narrow what an agent may change; a person\'s token takes none (the host\'s permission tree decides for a person). Name the agent with agentId (`--agent`).', {
        details: { argument: 'grants' },
      });
    }
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= this.#now())) {
      throw new InvalidArgumentError('expiresAt must be a time in the future (milliseconds since the epoch).', { details: { argument: 'expiresAt' } });
    }
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const record = await this.#store.create(
      { id: `tok_${randomBytes(8).toString('hex')}`, network, userId, agentId, name, secretHash: hashToken(token), scopes: features, grants, expiresAt },
      this.#now(),
    );
    return { token, record: tokenView(record) };
  }

  /**
   * The active token a bearer secret names, or null (malformed, unknown, revoked, expired). The
   * hashes are compared again in constant time after the lookup.
   */
  async verify(secret: string): Promise<TokenRecord | null> {
    if (!looksLikeToken(secret)) return null;
    const hash = hashToken(secret);
    const now = this.#now();
    const record = await this.#store.findActive(hash, now);
    if (record === null || !sameHash(record.secretHash, hash)) return null;
    const last = this.#touched.get(record.id) ?? record.lastUsedAt ?? 0;
    if (now - last >= TOUCH_INTERVAL_MS) {
      this.#touched.set(record.id, now);
      await this.#store.touch(record.id, now);
    }
    return record;
  }

  /** A user's tokens (revoked ones too), newest first. */
  async list(userId: string): Promise<TokenView[]> {
    return (await this.#store.listByUser(checkId(userId, 'user'))).map(tokenView);
  }

  /** Revokes a token by id. Throws `not_found` when there is no such active token. */
  async revoke(id: string): Promise<void> {
    if (typeof id !== 'string' || !(await this.#store.revoke(id, this.#now()))) {
      throw new NotFoundError(`There is no active token "${String(id)}"; list tokens with \`inseam token ls\`.`, { details: { argument: 'id' } });
    }
  }
}

export function tokenView(record: TokenRecord): TokenView {
  return {
    id: record.id,
    name: record.name,
    userId: record.userId,
    agentId: record.agentId,
    network: record.network,
    features: [...record.scopes],
    grants: record.grants.map((grant) => ({ ...grant }) as Grant),
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    lastUsedAt: record.lastUsedAt,
    revokedAt: record.revokedAt,
  };
}

function checkName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > NAME_MAX || /[\u0000-\u001f]/.test(value)) {
    throw new InvalidArgumentError(`A token's name is one line of 1–${NAME_MAX} characters saying what it is for.`, { details: { argument: 'name' } });
  }
  return value.trim();
}

function checkId(value: unknown, what: 'user' | 'agent'): string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    throw new InvalidArgumentError(`The ${what} id must be 1–128 letters, digits, ".", "_", "@" or "-", starting with a letter or digit.`, { details: { argument: what } });
  }
  return value;
}

function checkFeatures(values: readonly unknown[]): string[] {
  const features = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string' || !FEATURE_PATTERN.test(value)) {
      throw new InvalidArgumentError(`Feature ids are lowercase words joined by ".", "_" or "-", such as ${FEATURES.hostsManage} or ${FEATURES.execMachine}.`, { details: { argument: 'features' } });
    }
    features.add(value);
  }
  return [...features].sort();
}
