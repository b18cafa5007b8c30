/** The `host-memo` component on PostgreSQL: the same table as on SQLite (../sqlite/host-memo-schema.ts). */
import type { SchemaComponent } from '../sqlite/migrations.js';
import { hostMemoTable } from '../sqlite/host-memo-schema.js';

export const POSTGRES_HOST_MEMO_SCHEMA: SchemaComponent = {
  component: 'host-memo',
  migrations: [{ version: 1, sql: hostMemoTable('bigint', 'bigint') }],
};
