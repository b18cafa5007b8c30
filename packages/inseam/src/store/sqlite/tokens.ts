/** API tokens in SQLite: only the hash of each secret is kept. */
import { AlreadyExistsError } from '@neuralis/package-system/contracts';
import type { TokenInput, TokenRecord, TokenStore } from '../types.js';
import { attempt, cachedPrepare, isUniqueViolation, type SqliteDatabase } from './database.js';
import { missingNetwork } from './networks.js';
import { type TokenRow, toToken } from '../rows.js';

const SELECT = 'SELECT t.*, n.slug AS network FROM tokens t LEFT JOIN networks n ON n.id = t.network_id';

export class SqliteTokenStore implements TokenStore {
  readonly #db: SqliteDatabase;
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#prepare = cachedPrepare(db);
  }

  create(input: TokenInput, now = Date.now()): Promise<TokenRecord> {
    return attempt('store the token', () =>
      this.#db.transaction(() => {
        let networkId: number | null = null;
        if (input.network !== null) {
          const row = this.#prepare<[string], { id: number }>('SELECT id FROM networks WHERE slug = ?').get(input.network);
          if (row === undefined) throw missingNetwork(input.network);
          networkId = row.id;
        }
        try {
          this.#prepare('INSERT INTO tokens (id, network_id, user_id, agent_id, name, secret_hash, scopes, grants, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
            .run(input.id, networkId, input.userId, input.agentId, input.name, input.secretHash, JSON.stringify(input.scopes), JSON.stringify(input.grants ?? []), now, input.expiresAt);
        } catch (error) {
          // Which of the two collided is not said: a secret hash is not something to confirm.
          if (isUniqueViolation(error)) throw new AlreadyExistsError('A token with that id or secret exists already; generate a new one.', { details: { reason: 'token_exists' } });
          throw error;
        }
        return toToken(this.#prepare<[string], TokenRow>(`${SELECT} WHERE t.id = ?`).get(input.id)!);
      })(),
    );
  }

  findActive(secretHash: string, now = Date.now()): Promise<TokenRecord | null> {
    return attempt('read the token', () => {
      const row = this.#prepare<[string, number], TokenRow>(`${SELECT} WHERE t.secret_hash = ? AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)`)
        .get(secretHash, now);
      return row === undefined ? null : toToken(row);
    });
  }

  listByUser(userId: string): Promise<TokenRecord[]> {
    return attempt('read the tokens', () =>
      this.#prepare<[string], TokenRow>(`${SELECT} WHERE t.user_id = ? ORDER BY t.created_at DESC, t.rowid DESC`).all(userId).map(toToken),
    );
  }

  touch(id: string, now = Date.now()): Promise<void> {
    return attempt('store the token use', () => {
      this.#prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(now, id);
    });
  }

  revoke(id: string, now = Date.now()): Promise<boolean> {
    return attempt('revoke the token', () => this.#prepare('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id).changes > 0);
  }
}
