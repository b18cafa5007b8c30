import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCredentialRecordStore } from '../../credentials/sqlite-record-store.js';
import { SqliteStore } from '../sqlite/store.js';
import { runCredentialRecordConformance } from './credential-conformance.js';
import { runHostMemoConformance } from './host-memo-conformance.js';
import { runStoreConformance, type ConformanceStore } from './store-conformance.js';
import { runSyncHistoryConformance } from './sync-history-conformance.js';
import { runVectorConformance } from './vector-conformance.js';

async function tempDatabase(): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'inseam-conformance-'));
  return { path: join(dir, 'inseam.db'), remove: () => rm(dir, { recursive: true, force: true }) };
}

async function openSqlite(): Promise<ConformanceStore> {
  const { path, remove } = await tempDatabase();
  const others: SqliteStore[] = [];
  return {
    store: SqliteStore.open({ path }),
    another: async () => {
      others.push(SqliteStore.open({ path }));
      return others[others.length - 1]!;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
      await remove();
    },
  };
}

runStoreConformance('sqlite', openSqlite);
runVectorConformance('sqlite', openSqlite);
runSyncHistoryConformance('sqlite', openSqlite);
runHostMemoConformance('sqlite', openSqlite);

runCredentialRecordConformance('sqlite', async () => {
  const { path, remove } = await tempDatabase();
  const opened = [SqliteCredentialRecordStore.open(path)];
  return {
    records: opened[0]!,
    reopen: async () => {
      opened.push(SqliteCredentialRecordStore.open(path));
      return opened[opened.length - 1]!;
    },
    cleanup: async () => {
      for (const records of opened) records.close();
      await remove();
    },
  };
});
