import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { PostgresStore, postgresSchemaVersions } from '../store/index.js';
import { POSTGRES_CREDENTIAL_SCHEMA_VERSION, PostgresCredentialRecordStore } from './postgres-record-store.js';
import { projectScope } from './scope.js';
import { CredentialStore } from './store.js';

let server: TestPostgres;

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await server?.stop();
});

describe('PostgresCredentialRecordStore', () => {
  it('shares the platform store\'s database, leaving it open, with its component in the shared migration table', async () => {
    const store = await PostgresStore.open({ url: await server.createSchema() });
    try {
      const records = await PostgresCredentialRecordStore.open(store);
      const credentials = await CredentialStore.open({ records, masterKey: randomBytes(32) });
      await credentials.put(projectScope('home'), 'x', { value: 'secret' });
      await records.close();
      await store.networks.create({ slug: 'still-open' });
      expect(Object.fromEntries(await postgresSchemaVersions(store.database))).toMatchObject({ credentials: POSTGRES_CREDENTIAL_SCHEMA_VERSION, network: expect.any(Number), catalog: expect.any(Number) });
      const [row] = await store.database.query<{ sealed: Buffer }>('SELECT sealed FROM credential_records');
      expect(Buffer.isBuffer(row!.sealed)).toBe(true);
      expect(row!.sealed.includes(Buffer.from('secret'))).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('refuses a database whose credential schema is newer, and URLs that are not postgres://', async () => {
    const url = await server.createSchema();
    const records = await PostgresCredentialRecordStore.open(url);
    await records.close();
    const store = await PostgresStore.open({ url });
    try {
      await store.database.run("INSERT INTO inseam_migrations (component, version, applied_at) VALUES ('credentials', $1, 0)", [POSTGRES_CREDENTIAL_SCHEMA_VERSION + 1]);
      await expect(PostgresCredentialRecordStore.open(store)).rejects.toMatchObject({ code: 'invalid_config', details: { reason: 'schema_too_new' } });
    } finally {
      await store.close();
    }
    await expect(PostgresCredentialRecordStore.open('sqlite:///tmp/x.db')).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('reports a closed database as unavailable, naming the SQLSTATE-or-closed under details.postgres', async () => {
    const records = await PostgresCredentialRecordStore.open(await server.createSchema());
    await records.close();
    await expect(records.get(projectScope('home'), 'x')).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'store_unavailable', postgres: 'closed' } });
  });
});
