/** API tokens on PostgreSQL: only the hash of each secret is kept. */
import { AlreadyExistsError } from '@neuralis/package-system/contracts';
import { missingNetwork } from '../sqlite/networks.js';
import type { TokenInput, TokenRecord, TokenStore } from '../types.js';
import { attempt, isUniqueViolation, type Db } from './database.js';
import { type TokenRow, toToken } from '../rows.js';

const SELECT = `SELECT t.id, n.slug AS network, t.user_id, t.agent_id, t.name, t.secret_hash, t.scopes, t.grants, t.created_at, t.expires_at, t.last_used_at, t.revoked_at
  FROM tokens t LEFT JOIN networks n ON n.id = t.network_id`;

export class PostgresTokenStore implements TokenStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  create(input: TokenInput, now = Date.now()): Promise<TokenRecord> {
    return attempt('store the token', () =>
      this.#db.isolated(async (db) => {
        let inserted: number;
        try {
          // A token limited to a network names one that exists; a token for every network has no network row to find.
          inserted = await db.run(
            `INSERT INTO tokens (id, network_id, user_id, agent_id, name, secret_hash, scopes, grants, created_at, expires_at)
             SELECT $1, n.id, $3, $4, $5, $6, $7, $10, $8, $9 FROM (SELECT NULL) AS one LEFT JOIN networks n ON n.slug = $2
             WHERE $2::text IS NULL OR n.id IS NOT NULL`,
            [input.id, input.network, input.userId, input.agentId, input.name, input.secretHash, JSON.stringify(input.scopes), now, input.expiresAt, JSON.stringify(input.grants ?? [])],
          );
        } catch (error) {
          // Which of the two collided is not said: a secret hash is not something to confirm.
          if (isUniqueViolation(error)) throw new AlreadyExistsError('A token with that id or secret exists already; generate a new one.', { details: { reason: 'token_exists' } });
          throw error;
        }
        if (inserted === 0) throw missingNetwork(input.network!);
        return toToken((await db.one<TokenRow>(`${SELECT} WHERE t.id = $1`, [input.id]))!);
      }),
    );
  }

  findActive(secretHash: string, now = Date.now()): Promise<TokenRecord | null> {
    return attempt('read the token', async () => {
      const row = await this.#db.one<TokenRow>(`${SELECT} WHERE t.secret_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`, [secretHash, now]);
      return row === undefined ? null : toToken(row);
    });
  }

  listByUser(userId: string): Promise<TokenRecord[]> {
    return attempt('read the tokens', async () => (await this.#db.query<TokenRow>(`${SELECT} WHERE t.user_id = $1 ORDER BY t.created_at DESC, t.seq DESC`, [userId])).map(toToken));
  }

  touch(id: string, now = Date.now()): Promise<void> {
    return attempt('store the token use', async () => {
      await this.#db.run('UPDATE tokens SET last_used_at = $1 WHERE id = $2', [now, id]);
    });
  }

  revoke(id: string, now = Date.now()): Promise<boolean> {
    return attempt('revoke the token', async () => (await this.#db.run('UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0);
  }
}
