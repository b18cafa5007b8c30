/** The `host-memo` component on SQLite (see ../host-memo-types.ts). */
import type { SchemaComponent } from './migrations.js';

/** The table on both stores; only the column types differ. */
export function hostMemoTable(id: string, time: string): string {
  return `
    CREATE TABLE host_memos (
      host_id    ${id}   NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
      key        TEXT    NOT NULL,
      value      TEXT    NOT NULL,
      updated_at ${time} NOT NULL,
      PRIMARY KEY (host_id, key)
    );
  `;
}

export const HOST_MEMO_SCHEMA: SchemaComponent = {
  component: 'host-memo',
  migrations: [{ version: 1, sql: hostMemoTable('INTEGER', 'INTEGER') }],
};
