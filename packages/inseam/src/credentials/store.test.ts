import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectNoSecrets, rejectionOf } from './__fixtures__/secrets.js';
import { memoryStore } from './__fixtures__/stores.js';
import { RecordCipher } from './cipher.js';
import { agentScope, associatedData, deploymentScope, projectScope, userScope } from './scope.js';
import { CREDENTIAL_SCHEMA_VERSION, SqliteCredentialRecordStore } from './sqlite-record-store.js';
import { CredentialStore, openSqliteCredentialStore } from './store.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inseam-store-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SECRET = 'sk_live_0123456789abcdef';

describe('RecordCipher', () => {
  it('seals with a fresh 12-byte IV and a 16-byte tag per write', () => {
    const cipher = new RecordCipher(randomBytes(32));
    const aad = associatedData(projectScope('home'), 'a');
    const first = cipher.seal(Buffer.from(SECRET), aad);
    const second = cipher.seal(Buffer.from(SECRET), aad);
    expect(first[0]).toBe(1);
    expect(first.length).toBe(1 + 12 + 16 + SECRET.length);
    expect(first.subarray(1, 13).equals(second.subarray(1, 13))).toBe(false);
    expect(first.includes(Buffer.from(SECRET))).toBe(false);
    expect(cipher.open(first, aad).toString()).toBe(SECRET);
  });

  it('fails authentication for a flipped bit, a truncated tag, another record id or another scope', () => {
    const cipher = new RecordCipher(randomBytes(32));
    const aad = associatedData(projectScope('home'), 'a');
    const sealed = cipher.seal(Buffer.from(SECRET), aad);
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    const cases: [Buffer, Buffer][] = [
      [flipped, aad],
      [sealed.subarray(0, 20), aad],
      [sealed, associatedData(projectScope('home'), 'b')],
      [sealed, associatedData(projectScope('work'), 'a')],
      [sealed, associatedData(userScope('home', 'u1'), 'a')],
    ];
    for (const [bytes, data] of cases) {
      let error: unknown;
      try {
        cipher.open(bytes, data);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'integrity_check_failed' } });
    }
  });

  it('refuses a master key that is not 32 bytes', () => {
    expect(() => new RecordCipher(randomBytes(16))).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });
});

describe('CredentialStore', () => {
  it('round-trips records per scope; scopes never see each other', async () => {
    const { store } = await memoryStore();
    await store.put(projectScope('home'), 'x', { value: 'home' });
    await store.put(userScope('home', 'u1'), 'x', { value: 'user' });
    await store.put(agentScope('home', 'a1'), 'x', { value: 'agent' });
    await store.put(deploymentScope(), 'x', { value: 'deployment' });
    expect(await store.get(projectScope('home'), 'x')).toEqual({ value: 'home' });
    expect(await store.get(userScope('home', 'u1'), 'x')).toEqual({ value: 'user' });
    expect(await store.get(agentScope('home', 'a1'), 'x')).toEqual({ value: 'agent' });
    expect(await store.get(deploymentScope(), 'x')).toEqual({ value: 'deployment' });
    expect(await store.get(userScope('home', 'u2'), 'x')).toBeNull();
    expect(await store.get(projectScope('work'), 'x')).toBeNull();
    expect(await store.list(projectScope('home'))).toEqual(['x']);
    expect(await store.delete(projectScope('home'), 'x')).toBe(true);
    expect(await store.delete(projectScope('home'), 'x')).toBe(false);
    expect(await store.get(userScope('home', 'u1'), 'x')).toEqual({ value: 'user' });
  });

  it('lists by prefix, sorted', async () => {
    const { store } = await memoryStore();
    for (const id of ['host/b', 'host/a', 'package/p/x', 'host%']) await store.put(projectScope('home'), id, { v: 1 });
    expect(await store.list(projectScope('home'), 'host/')).toEqual(['host/a', 'host/b']);
  });

  it('refuses a ciphertext copied to another record id (swap attack), without leaking the secret', async () => {
    const { store, records } = await memoryStore();
    const scope = projectScope('home');
    await store.put(scope, 'victim', { value: SECRET });
    await store.put(scope, 'attacker', { value: 'mine' });
    const stolen = await records.get(scope, 'victim');
    expect(stolen).not.toBeNull();
    await records.put(scope, 'attacker', stolen ?? new Uint8Array());
    const error = await rejectionOf(store.get(scope, 'attacker'));
    expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'integrity_check_failed' } });
    expectNoSecrets(error, [SECRET]);
    expect(await store.get(scope, 'victim')).toEqual({ value: SECRET });
  });

  it('refuses a ciphertext moved to another network or owner', async () => {
    const { store, records } = await memoryStore();
    await store.put(projectScope('home'), 'token', { value: SECRET });
    const sealed = (await records.get(projectScope('home'), 'token')) ?? new Uint8Array();
    for (const scope of [projectScope('work'), userScope('home', 'u1'), deploymentScope()]) {
      await records.put(scope, 'token', sealed);
      await expect(store.get(scope, 'token')).rejects.toMatchObject({ details: { reason: 'integrity_check_failed' } });
    }
  });

  it('refuses a tampered ciphertext', async () => {
    const { store, records } = await memoryStore();
    const scope = projectScope('home');
    await store.put(scope, 'token', { value: SECRET });
    const sealed = Buffer.from((await records.get(scope, 'token')) ?? new Uint8Array());
    for (const offset of [0, 5, 20, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[offset] = (tampered[offset] ?? 0) ^ 0x80;
      await records.put(scope, 'token', tampered);
      const error = await rejectionOf(store.get(scope, 'token'));
      expect(error).toMatchObject({ code: 'unavailable' });
      expectNoSecrets(error, [SECRET]);
    }
  });

  it('never stores the plaintext', async () => {
    const path = join(dir, 'c.db');
    const { store, records } = await openSqliteCredentialStore({ database: path, masterKey: randomBytes(32) });
    await store.put(projectScope('home'), 'token', { value: SECRET });
    records.close();
    const db = new Database(path, { readonly: true });
    const rows = db.prepare<[], { sealed: Buffer }>('SELECT sealed FROM credential_records').all();
    db.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed.includes(Buffer.from(SECRET))).toBe(false);
  });

  it('refuses to open with another master key, saying so', async () => {
    const path = join(dir, 'c.db');
    const first = await openSqliteCredentialStore({ database: path, masterKey: randomBytes(32) });
    await first.store.put(projectScope('home'), 'token', { value: SECRET });
    first.records.close();
    const error = await rejectionOf(openSqliteCredentialStore({ database: path, masterKey: randomBytes(32) }));
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'master_key_mismatch' } });
  });

  it('validates scopes and ids with typed errors', async () => {
    const { store } = await memoryStore();
    await expect(store.get({ network: 'home', owner: 'user' }, 'x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.get({ network: null, owner: 'agent', ownerId: 'a' }, 'x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.get({ network: 'home', owner: 'project', ownerId: 'u' }, 'x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.get({ network: 'home', owner: 'root' as 'project' }, 'x')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.get(projectScope('home'), '')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.get(projectScope('home'), 'a\nb')).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('SqliteCredentialRecordStore', () => {
  it('opens a path in WAL mode with mode 0600 and records its schema version in the shared migration table', async () => {
    const path = join(dir, 'c.db');
    const records = SqliteCredentialRecordStore.open(path);
    records.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.prepare("SELECT version FROM schema_migrations WHERE component = 'credentials'").pluck().all()).toEqual([CREDENTIAL_SCHEMA_VERSION]);
    db.close();
  });

  it('shares a Database instance it does not own, leaving it open, and migrates once', async () => {
    const db = new Database(join(dir, 'shared.db'));
    db.exec('CREATE TABLE platform_things (id INTEGER PRIMARY KEY)');
    const masterKey = randomBytes(32);
    const first = await CredentialStore.open({ records: SqliteCredentialRecordStore.open(db), masterKey });
    await first.put(projectScope('home'), 'x', { value: SECRET });
    const records = SqliteCredentialRecordStore.open(db);
    records.close();
    expect(db.open).toBe(true);
    const second = await CredentialStore.open({ records: SqliteCredentialRecordStore.open(db), masterKey });
    expect(await second.get(projectScope('home'), 'x')).toEqual({ value: SECRET });
    expect(db.prepare("SELECT count(*) FROM schema_migrations WHERE component = 'credentials'").pluck().get()).toBe(1);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'platform_things'").pluck().get()).toBe(1);
    db.close();
  });

  it('refuses a database whose credential schema is newer than this code', () => {
    const db = new Database(':memory:');
    SqliteCredentialRecordStore.open(db);
    db.prepare("INSERT INTO schema_migrations (component, version, applied_at) VALUES ('credentials', ?, ?)").run(CREDENTIAL_SCHEMA_VERSION + 1, Date.now());
    expect(() => SqliteCredentialRecordStore.open(db)).toThrow(expect.objectContaining({ code: 'invalid_config', details: expect.objectContaining({ reason: 'schema_too_new' }) }));
    db.close();
  });

  it('reports a closed database as unavailable', async () => {
    const db = new Database(':memory:');
    const records = SqliteCredentialRecordStore.open(db);
    db.close();
    await expect(records.get(projectScope('home'), 'x')).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'store_unavailable' } });
  });
});
