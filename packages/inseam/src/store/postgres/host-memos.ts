/** Host memos on PostgreSQL: the same table and checks as on SQLite (../sqlite/host-memos.ts). */
import type { HostMemoStore } from '../host-memo-types.js';
import { checkMemo, memoHostGone } from '../sqlite/host-memos.js';
import { attempt, type Db } from './database.js';

export class PostgresHostMemoStore implements HostMemoStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  get(hostId: number, key: string): Promise<string | null> {
    return attempt('read a host memo', async () => (await this.#db.one<{ value: string }>('SELECT value FROM host_memos WHERE host_id = $1 AND key = $2', [hostId, key]))?.value ?? null);
  }

  put(hostId: number, key: string, value: string | null, now = Date.now()): Promise<void> {
    return attempt('write a host memo', async () => {
      checkMemo(key, value);
      if (value === null) {
        await this.#db.run('DELETE FROM host_memos WHERE host_id = $1 AND key = $2', [hostId, key]);
        return;
      }
      // The foreign key answers a removed host; the upsert is one statement, so the value is whole.
      try {
        await this.#db.run(
          'INSERT INTO host_memos (host_id, key, value, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (host_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
          [hostId, key, value, now],
        );
      } catch (error) {
        if ((error as { code?: unknown }).code === '23503') throw memoHostGone(hostId);
        throw error;
      }
    });
  }

  keys(hostId: number): Promise<string[]> {
    return attempt('list host memos', async () => (await this.#db.query<{ key: string }>('SELECT key FROM host_memos WHERE host_id = $1 ORDER BY key', [hostId])).map((row) => row.key));
  }
}
