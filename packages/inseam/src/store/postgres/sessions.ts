/** The web page's sign-in codes and sessions on PostgreSQL: only hashes of their secrets are kept. */
import { AlreadyExistsError } from '@neuralis/package-system/contracts';
import { ENDED_SESSION_KEEP_MS } from '../sqlite/sessions.js';
import type { SessionRecord, SessionStore, SignInCodeInput } from '../types.js';
import { attempt, isUniqueViolation, type Db } from './database.js';
import { type SessionRow, toSession } from '../rows.js';

const COLUMNS = 'id, user_id, features, secret_hash, created_at, expires_at, last_used_at, revoked_at';

export class PostgresSessionStore implements SessionStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  addCode(input: SignInCodeInput, now = Date.now()): Promise<void> {
    return attempt('store the sign-in code', () =>
      this.#db.transaction(async (db) => {
        await db.run('DELETE FROM signin_codes WHERE expires_at <= $1', [now]);
        try {
          await db.isolated((inner) =>
            inner.run('INSERT INTO signin_codes (code_hash, user_id, features, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
              input.codeHash,
              input.userId,
              JSON.stringify(input.features),
              now,
              input.expiresAt,
            ]),
          );
        } catch (error) {
          if (isUniqueViolation(error)) throw new AlreadyExistsError('That sign-in code exists already; generate a new one.', { details: { reason: 'code_exists' } });
          throw error;
        }
      }),
    );
  }

  redeem(codeHash: string, session: Pick<SessionRecord, 'id' | 'secretHash' | 'expiresAt'>, now = Date.now()): Promise<SessionRecord | null> {
    return attempt('redeem the sign-in code', () =>
      this.#db.transaction(async (db) => {
        // Deleting is what spends the code: of two redeems, the row lock lets only one delete it.
        const code = await db.one<{ user_id: string; features: string }>('DELETE FROM signin_codes WHERE code_hash = $1 AND expires_at > $2 RETURNING user_id, features', [codeHash, now]);
        if (code === undefined) return null;
        await db.run('DELETE FROM sessions WHERE coalesce(revoked_at, expires_at) < $1', [now - ENDED_SESSION_KEEP_MS]);
        const row = await db.one<SessionRow>(
          `INSERT INTO sessions (id, secret_hash, user_id, features, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
          [session.id, session.secretHash, code.user_id, code.features, now, session.expiresAt],
        );
        return toSession(row!);
      }),
    );
  }

  findActive(secretHash: string, now = Date.now()): Promise<SessionRecord | null> {
    return attempt('read the session', async () => {
      const row = await this.#db.one<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE secret_hash = $1 AND revoked_at IS NULL AND expires_at > $2`, [secretHash, now]);
      return row === undefined ? null : toSession(row);
    });
  }

  renew(id: string, expiresAt: number, now = Date.now()): Promise<void> {
    return attempt('renew the session', async () => {
      await this.#db.run('UPDATE sessions SET last_used_at = $1, expires_at = $2 WHERE id = $3 AND revoked_at IS NULL AND expires_at > $1', [now, expiresAt, id]);
    });
  }

  listByUser(userId: string): Promise<SessionRecord[]> {
    return attempt('read the sessions', async () => (await this.#db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE user_id = $1 ORDER BY created_at DESC, seq DESC`, [userId])).map(toSession));
  }

  revoke(id: string, now = Date.now()): Promise<boolean> {
    return attempt('revoke the session', async () => (await this.#db.run('UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0);
  }
}
