/** The `sync-history` component on SQLite (see ../sync-history-types.ts). */
import type { SchemaComponent } from './migrations.js';

/** The table on both stores; only the column types differ (`BIGINT` reads as an integer in SQLite). */
export function syncHistoryTable(id: string, time: string): string {
  return `
    CREATE TABLE host_syncs (
      run_id        ${id}  NOT NULL PRIMARY KEY,
      host_id       ${id}  NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
      mode          TEXT   NOT NULL,
      state         TEXT   NOT NULL,
      started_at    ${time} NOT NULL,
      ended_at      ${time} NOT NULL,
      elapsed_ms    ${time} NOT NULL,
      entries       ${time} NOT NULL,
      added         ${time} NOT NULL,
      changed       ${time} NOT NULL,
      removed       ${time} NOT NULL,
      moved         ${time} NOT NULL,
      errors        ${time} NOT NULL,
      error_code    TEXT,
      error_message TEXT
    );
    CREATE INDEX host_syncs_by_host ON host_syncs (host_id, run_id);
  `;
}

/**
 * Version 2 on both stores: the catalog's size (entries and bytes) when the run stopped, for the
 * host view's chart of the catalog over time. Null in records written before it.
 */
export function syncHistoryCatalogSize(count: string): string {
  return `
    ALTER TABLE host_syncs ADD COLUMN catalog_entries ${count};
    ALTER TABLE host_syncs ADD COLUMN catalog_bytes ${count};
  `;
}

export const SYNC_HISTORY_SCHEMA: SchemaComponent = {
  component: 'sync-history',
  migrations: [
    { version: 1, sql: syncHistoryTable('INTEGER', 'INTEGER') },
    { version: 2, sql: syncHistoryCatalogSize('INTEGER') },
  ],
};
