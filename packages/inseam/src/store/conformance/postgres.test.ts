import { afterAll, beforeAll } from 'vitest';
import { PostgresCredentialRecordStore } from '../../credentials/postgres-record-store.js';
import { startTestPostgres, type TestPostgres } from '../postgres/__fixtures__/test-postgres.js';
import { PostgresStore } from '../postgres/store.js';
import { runCredentialRecordConformance } from './credential-conformance.js';
import { runHostMemoConformance } from './host-memo-conformance.js';
import { runStoreConformance, type ConformanceStore } from './store-conformance.js';
import { runSyncHistoryConformance } from './sync-history-conformance.js';
import { runVectorConformance } from './vector-conformance.js';

let server: TestPostgres;

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await server?.stop();
});

async function openPostgres(): Promise<ConformanceStore> {
  const url = await server.createSchema();
  const others: PostgresStore[] = [];
  return {
    store: await PostgresStore.open({ url }),
    another: async () => {
      others.push(await PostgresStore.open({ url }));
      return others[others.length - 1]!;
    },
    cleanup: async () => {
      for (const other of others) await other.close();
    },
  };
}

runStoreConformance('postgres', openPostgres);
runVectorConformance('postgres', openPostgres);
runSyncHistoryConformance('postgres', openPostgres);
runHostMemoConformance('postgres', openPostgres);

runCredentialRecordConformance('postgres', async () => {
  const url = await server.createSchema();
  const opened = [await PostgresCredentialRecordStore.open(url)];
  return {
    records: opened[0]!,
    reopen: async () => {
      opened.push(await PostgresCredentialRecordStore.open(url));
      return opened[opened.length - 1]!;
    },
    cleanup: async () => {
      for (const records of opened) await records.close();
    },
  };
});
