/** Host memos on SQLite (see ../host-memo-types.ts); the table is the same on PostgreSQL. */
import { InvalidArgumentError, NotFoundError } from '@neuralis/package-system/contracts';
import { HOST_MEMO_KEY_MAX, HOST_MEMO_VALUE_MAX, type HostMemoStore } from '../host-memo-types.js';
import { attempt, type SqliteDatabase } from './database.js';

/** Throws `invalid_argument` unless the key and value fit (both stores check before writing). */
export function checkMemo(key: string, value: string | null): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > HOST_MEMO_KEY_MAX) {
    throw new InvalidArgumentError(`A host memo's key must be 1 to ${HOST_MEMO_KEY_MAX} characters.`, { details: { field: 'key' } });
  }
  if (value !== null && (typeof value !== 'string' || Buffer.byteLength(value) > HOST_MEMO_VALUE_MAX)) {
    throw new InvalidArgumentError(`A host memo's value must be text of at most ${HOST_MEMO_VALUE_MAX} bytes.`, { details: { field: 'value', max: HOST_MEMO_VALUE_MAX } });
  }
}

export function memoHostGone(hostId: number): NotFoundError {
  return new NotFoundError('There is no such host (was it removed?).', { details: { hostId } });
}

export class SqliteHostMemoStore implements HostMemoStore {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  get(hostId: number, key: string): Promise<string | null> {
    return attempt('read a host memo', () => {
      const row = this.#db.prepare('SELECT value FROM host_memos WHERE host_id = ? AND key = ?').get(hostId, key) as { value: string } | undefined;
      return row === undefined ? null : row.value;
    });
  }

  put(hostId: number, key: string, value: string | null, now = Date.now()): Promise<void> {
    return attempt('write a host memo', () => {
      checkMemo(key, value);
      this.#db.transaction(() => {
        if (this.#db.prepare('SELECT 1 FROM hosts WHERE id = ?').get(hostId) === undefined) throw memoHostGone(hostId);
        if (value === null) this.#db.prepare('DELETE FROM host_memos WHERE host_id = ? AND key = ?').run(hostId, key);
        else {
          this.#db
            .prepare('INSERT INTO host_memos (host_id, key, value, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (host_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at')
            .run(hostId, key, value, now);
        }
      })();
    });
  }

  keys(hostId: number): Promise<string[]> {
    return attempt('list host memos', () =>
      (this.#db.prepare('SELECT key FROM host_memos WHERE host_id = ? ORDER BY key').all(hostId) as { key: string }[]).map((row) => row.key),
    );
  }
}
