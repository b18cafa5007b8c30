/**
 * The web page's sign-in: one-time codes and the sessions they become.
 *
 * A sign-in link is `<server>/#code=<code>`: `inseam up` prints one at every start and
 * `inseam signin` makes one for a running server (it writes the code into the shared store). A
 * code is 32 random bytes (base64url), works once and for SIGNIN_CODE_TTL_MS, and only its
 * SHA-256 is stored. 256 bits cannot be guessed, so the exchange needs no rate limit; it is
 * looked up by hash (an attacker learns nothing from the timing of a lookup keyed by the hash of
 * a guess) and spent by deleting it, so two exchanges of one code cannot both succeed.
 *
 * The page exchanges the code (`POST /v1/sessions`, no token) for a session: a bearer secret
 * `inseam_ses_` + 43 base64url characters that carries the code's user and features — those of
 * the person at the machine who made the code — and never an agent. A session lasts
 * SESSION_IDLE_MS after its last use, renewed while used, and never beyond SESSION_MAX_MS after
 * it was made; it is listed and revoked like a token (`inseam signin ls|revoke`), and signing out
 * of the page revokes it. The admin token itself never appears in a URL.
 */
import { randomBytes } from 'node:crypto';
import { NotFoundError } from '@neuralis/package-system/contracts';
import type { SessionRecord, SessionStore } from '../store/index.js';
import { hashToken, sameHash } from './tokens.js';

/** How long a sign-in code works: 10 minutes. */
export const SIGNIN_CODE_TTL_MS = 10 * 60_000;
/** A session ends this long after its last use: 12 hours. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
/** …and at the latest this long after it was made: 7 days. */
export const SESSION_MAX_MS = 7 * 24 * 60 * 60_000;
/** A session's use is written (and its expiry moved) at most this often, so reads do not each write. */
const RENEW_INTERVAL_MS = 60_000;

const SESSION_PREFIX = 'inseam_ses_';
const SESSION_PATTERN = /^inseam_ses_[A-Za-z0-9_-]{43}$/;
const CODE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface SignInCode {
  /** The secret of the link, shown once. */
  readonly code: string;
  readonly expiresAt: number;
}

/** A session as listings and the exchange show it: never its secret or hash. */
export interface SessionView {
  readonly id: string;
  readonly userId: string;
  readonly features: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface StartedSession {
  /** The bearer secret, given to the page once. */
  readonly token: string;
  readonly session: SessionView;
}

/** Whether a bearer secret has the form of a session's (not whether it is one). */
export function looksLikeSession(value: string): boolean {
  return SESSION_PATTERN.test(value);
}

/** The path and fragment of a sign-in link for `code`; put the server's origin before it. */
export function signInPath(code: string): string {
  return `/#code=${code}`;
}

export class SessionService {
  readonly #store: SessionStore;
  readonly #now: () => number;
  readonly #renewed = new Map<string, number>();

  constructor(store: SessionStore, options: { readonly now?: () => number } = {}) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
  }

  /** A new sign-in code for `userId` with `features`. */
  async createCode(input: { readonly userId: string; readonly features: readonly string[] }): Promise<SignInCode> {
    const code = randomBytes(32).toString('base64url');
    const now = this.#now();
    const expiresAt = now + SIGNIN_CODE_TTL_MS;
    await this.#store.addCode({ codeHash: hashToken(code), userId: input.userId, features: [...input.features].sort(), expiresAt }, now);
    return { code, expiresAt };
  }

  /** Spends `code` for a new session; null when it is malformed, unknown, used or expired (one answer for all). */
  async exchange(code: string): Promise<StartedSession | null> {
    if (!CODE_PATTERN.test(code)) return null;
    const token = `${SESSION_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.#now();
    const record = await this.#store.redeem(hashToken(code), { id: `ses_${randomBytes(8).toString('hex')}`, secretHash: hashToken(token), expiresAt: now + SESSION_IDLE_MS }, now);
    return record === null ? null : { token, session: sessionView(record) };
  }

  /** The active session a bearer secret names, or null (malformed, unknown, revoked, expired); a use renews it. */
  async verify(secret: string): Promise<SessionRecord | null> {
    if (!looksLikeSession(secret)) return null;
    const hash = hashToken(secret);
    const now = this.#now();
    const record = await this.#store.findActive(hash, now);
    if (record === null || !sameHash(record.secretHash, hash)) return null;
    const last = this.#renewed.get(record.id) ?? record.lastUsedAt ?? record.createdAt;
    if (now - last >= RENEW_INTERVAL_MS) {
      this.#renewed.set(record.id, now);
      await this.#store.renew(record.id, Math.min(now + SESSION_IDLE_MS, record.createdAt + SESSION_MAX_MS), now);
    }
    return record;
  }

  /** A user's sessions, newest first (ended ones for 30 days). */
  async list(userId: string): Promise<SessionView[]> {
    return (await this.#store.listByUser(userId)).map(sessionView);
  }

  /** Ends a session by id. Throws `not_found` when there is no such active session. */
  async revoke(id: string): Promise<void> {
    if (!(await this.#store.revoke(id, this.#now()))) {
      throw new NotFoundError(`There is no active session "${id}"; list them with \`inseam signin ls\`.`, { details: { argument: 'id' } });
    }
    this.#renewed.delete(id);
  }
}

function sessionView(record: SessionRecord): SessionView {
  return {
    id: record.id,
    userId: record.userId,
    features: [...record.features],
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    lastUsedAt: record.lastUsedAt,
    revokedAt: record.revokedAt,
  };
}
