import { randomBytes } from 'node:crypto';
import { SqliteCredentialRecordStore } from '../sqlite-record-store.js';
import { CredentialStore } from '../store.js';

export async function memoryStore(masterKey: Uint8Array = randomBytes(32)): Promise<{ store: CredentialStore; records: SqliteCredentialRecordStore }> {
  const records = SqliteCredentialRecordStore.open(':memory:');
  return { store: await CredentialStore.open({ records, masterKey }), records };
}
