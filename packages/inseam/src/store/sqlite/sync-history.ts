/** A host's sync history in SQLite (see ../sync-history-types.ts). */
import { NotFoundError } from '@neuralis/package-system/contracts';
import { SYNC_HISTORY_KEEP, type SyncHistoryStore, type SyncRecord, type SyncStop } from '../sync-history-types.js';
import type { CrawlMode, CrawlRunState } from '../types.js';
import { attempt, type SqliteDatabase } from './database.js';

export interface SyncRow {
  readonly run_id: number | string;
  readonly mode: string;
  readonly state: string;
  readonly started_at: number | string;
  readonly ended_at: number | string;
  readonly elapsed_ms: number | string;
  readonly entries: number | string;
  readonly added: number | string;
  readonly changed: number | string;
  readonly removed: number | string;
  readonly moved: number | string;
  readonly errors: number | string;
  readonly error_code: string | null;
  readonly error_message: string | null;
  readonly catalog_entries: number | string | null;
  readonly catalog_bytes: number | string | null;
}

/** The upsert both stores run: a stop adds its stretch's added and changed, and takes the run's totals and the catalog's size. */
export const UPSERT_COLUMNS = 'run_id, host_id, mode, state, started_at, ended_at, elapsed_ms, entries, added, changed, removed, moved, errors, error_code, error_message, catalog_entries, catalog_bytes';
export const UPSERT_CONFLICT = `ON CONFLICT (run_id) DO UPDATE SET
  state = excluded.state, ended_at = excluded.ended_at, elapsed_ms = excluded.elapsed_ms, entries = excluded.entries,
  added = host_syncs.added + excluded.added, changed = host_syncs.changed + excluded.changed,
  removed = excluded.removed, moved = excluded.moved, errors = excluded.errors,
  error_code = excluded.error_code, error_message = excluded.error_message,
  catalog_entries = excluded.catalog_entries, catalog_bytes = excluded.catalog_bytes`;

export function stopValues(hostId: number, stop: SyncStop): unknown[] {
  return [
    stop.runId, hostId, stop.mode, stop.state, stop.startedAt, stop.endedAt, Math.max(0, Math.round(stop.elapsedMs)), stop.entries, stop.added, stop.changed, stop.removed, stop.moved, stop.errors,
    stop.error?.code ?? null, stop.error?.message ?? null, stop.catalog?.entries ?? null, stop.catalog?.bytes ?? null,
  ];
}

export function toSyncRecord(row: SyncRow): SyncRecord {
  return {
    runId: Number(row.run_id),
    mode: row.mode as CrawlMode,
    state: row.state as CrawlRunState,
    startedAt: Number(row.started_at),
    endedAt: Number(row.ended_at),
    elapsedMs: Number(row.elapsed_ms),
    entries: Number(row.entries),
    added: Number(row.added),
    changed: Number(row.changed),
    removed: Number(row.removed),
    moved: Number(row.moved),
    errors: Number(row.errors),
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    catalog: row.catalog_entries === null || row.catalog_bytes === null ? null : { entries: Number(row.catalog_entries), bytes: Number(row.catalog_bytes) },
  };
}

export function missingHostId(hostId: number): NotFoundError {
  return new NotFoundError('There is no such host (was it removed?).', { details: { hostId } });
}

export function checkKeep(keep: number): number {
  return Number.isSafeInteger(keep) && keep >= 1 ? keep : SYNC_HISTORY_KEEP;
}

export class SqliteSyncHistoryStore implements SyncHistoryStore {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  record(hostId: number, stop: SyncStop, keep = SYNC_HISTORY_KEEP): Promise<SyncRecord> {
    return attempt('record the sync', () =>
      this.#db.transaction(() => {
        if (this.#db.prepare('SELECT 1 FROM hosts WHERE id = ?').get(hostId) === undefined) throw missingHostId(hostId);
        const row = this.#db
          .prepare(`INSERT INTO host_syncs (${UPSERT_COLUMNS}) VALUES (${stopValues(hostId, stop).map(() => '?').join(', ')}) ${UPSERT_CONFLICT} RETURNING *`)
          .get(...stopValues(hostId, stop)) as SyncRow;
        this.#db
          .prepare('DELETE FROM host_syncs WHERE host_id = ? AND run_id NOT IN (SELECT run_id FROM host_syncs WHERE host_id = ? ORDER BY run_id DESC LIMIT ?)')
          .run(hostId, hostId, checkKeep(keep));
        return toSyncRecord(row);
      })(),
    );
  }

  list(hostId: number, limit = 10): Promise<SyncRecord[]> {
    return attempt('read the sync history', () =>
      (this.#db.prepare('SELECT * FROM host_syncs WHERE host_id = ? ORDER BY run_id DESC LIMIT ?').all(hostId, Math.max(1, Math.min(limit, SYNC_HISTORY_KEEP))) as SyncRow[]).map(toSyncRecord),
    );
  }
}
