/** A host's sync history on PostgreSQL (see ../sync-history-types.ts). */
import { SYNC_HISTORY_KEEP, type SyncHistoryStore, type SyncRecord, type SyncStop } from '../sync-history-types.js';
import { UPSERT_COLUMNS, UPSERT_CONFLICT, checkKeep, missingHostId, stopValues, toSyncRecord, type SyncRow } from '../sqlite/sync-history.js';
import { attempt, type Db } from './database.js';

export class PostgresSyncHistoryStore implements SyncHistoryStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  record(hostId: number, stop: SyncStop, keep = SYNC_HISTORY_KEEP): Promise<SyncRecord> {
    return attempt('record the sync', () =>
      this.#db.transaction(async (db) => {
        // Locks the host row, so two stops of its runs prune one after the other, and a removed host is seen.
        if ((await db.one('SELECT 1 AS found FROM hosts WHERE id = $1 FOR UPDATE', [hostId])) === undefined) throw missingHostId(hostId);
        const values = stopValues(hostId, stop);
        const row = (await db.one<SyncRow>(`INSERT INTO host_syncs (${UPSERT_COLUMNS}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')}) ${UPSERT_CONFLICT} RETURNING *`, values))!;
        await db.run('DELETE FROM host_syncs WHERE host_id = $1 AND run_id NOT IN (SELECT run_id FROM host_syncs WHERE host_id = $1 ORDER BY run_id DESC LIMIT $2)', [hostId, checkKeep(keep)]);
        return toSyncRecord(row);
      }),
    );
  }

  list(hostId: number, limit = 10): Promise<SyncRecord[]> {
    return attempt('read the sync history', async () =>
      (await this.#db.query<SyncRow>('SELECT * FROM host_syncs WHERE host_id = $1 ORDER BY run_id DESC LIMIT $2', [hostId, Math.max(1, Math.min(limit, SYNC_HISTORY_KEEP))])).map(toSyncRecord),
    );
  }
}
