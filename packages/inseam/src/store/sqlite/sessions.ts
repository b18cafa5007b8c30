/** The web page's sign-in codes and sessions in SQLite: only hashes of their secrets are kept. */
import { AlreadyExistsError } from '@neuralis/package-system/contracts';
import type { SessionRecord, SessionStore, SignInCodeInput } from '../types.js';
import { attempt, cachedPrepare, isUniqueViolation, type SqliteDatabase } from './database.js';
import { type SessionRow, toSession } from '../rows.js';

/** Ended sessions stay listed this long after they ended. */
export const ENDED_SESSION_KEEP_MS = 30 * 24 * 60 * 60_000;

export class SqliteSessionStore implements SessionStore {
  readonly #db: SqliteDatabase;
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#prepare = cachedPrepare(db);
  }

  addCode(input: SignInCodeInput, now = Date.now()): Promise<void> {
    return attempt('store the sign-in code', () =>
      this.#db.transaction(() => {
        this.#prepare('DELETE FROM signin_codes WHERE expires_at <= ?').run(now);
        try {
          this.#prepare('INSERT INTO signin_codes (code_hash, user_id, features, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
            .run(input.codeHash, input.userId, JSON.stringify(input.features), now, input.expiresAt);
        } catch (error) {
          if (isUniqueViolation(error)) throw new AlreadyExistsError('That sign-in code exists already; generate a new one.', { details: { reason: 'code_exists' } });
          throw error;
        }
      })(),
    );
  }

  redeem(codeHash: string, session: Pick<SessionRecord, 'id' | 'secretHash' | 'expiresAt'>, now = Date.now()): Promise<SessionRecord | null> {
    return attempt('redeem the sign-in code', () =>
      this.#db.transaction(() => {
        // Deleting is what spends the code: of two redeems, only one deletes the row.
        const code = this.#prepare<[string, number], { user_id: string; features: string }>('DELETE FROM signin_codes WHERE code_hash = ? AND expires_at > ? RETURNING user_id, features')
          .get(codeHash, now);
        if (code === undefined) return null;
        this.#prepare('DELETE FROM sessions WHERE coalesce(revoked_at, expires_at) < ?').run(now - ENDED_SESSION_KEEP_MS);
        this.#prepare('INSERT INTO sessions (id, secret_hash, user_id, features, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
          .run(session.id, session.secretHash, code.user_id, code.features, now, session.expiresAt);
        return toSession(this.#prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?').get(session.id)!);
      }).immediate(),
    );
  }

  findActive(secretHash: string, now = Date.now()): Promise<SessionRecord | null> {
    return attempt('read the session', () => {
      const row = this.#prepare<[string, number], SessionRow>('SELECT * FROM sessions WHERE secret_hash = ? AND revoked_at IS NULL AND expires_at > ?').get(secretHash, now);
      return row === undefined ? null : toSession(row);
    });
  }

  renew(id: string, expiresAt: number, now = Date.now()): Promise<void> {
    return attempt('renew the session', () => {
      this.#prepare('UPDATE sessions SET last_used_at = ?, expires_at = ? WHERE id = ? AND revoked_at IS NULL AND expires_at > ?').run(now, expiresAt, id, now);
    });
  }

  listByUser(userId: string): Promise<SessionRecord[]> {
    return attempt('read the sessions', () =>
      this.#prepare<[string], SessionRow>('SELECT * FROM sessions WHERE user_id = ? ORDER BY created_at DESC, rowid DESC').all(userId).map(toSession),
    );
  }

  revoke(id: string, now = Date.now()): Promise<boolean> {
    return attempt('revoke the session', () => this.#prepare('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id).changes > 0);
  }
}
