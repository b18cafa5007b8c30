/** The `sync-history` component on PostgreSQL: the same table as on SQLite (../sqlite/sync-history-schema.ts). */
import type { SchemaComponent } from '../sqlite/migrations.js';
import { syncHistoryCatalogSize, syncHistoryTable } from '../sqlite/sync-history-schema.js';

export const POSTGRES_SYNC_HISTORY_SCHEMA: SchemaComponent = {
  component: 'sync-history',
  migrations: [
    { version: 1, sql: syncHistoryTable('bigint', 'bigint') },
    { version: 2, sql: syncHistoryCatalogSize('bigint') },
  ],
};
