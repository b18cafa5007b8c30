import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import { SqliteCredentialRecordStore } from '../../credentials/sqlite-record-store.js';
import { migrate, schemaVersions, type SchemaComponent } from './migrations.js';
import { STORE_SCHEMA } from './schema.js';
import { SqliteStore } from './store.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'inseam-store-'));
  dirs.push(dir);
  return join(dir, 'inseam.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

describe('opening and migrations', () => {
  it('creates the file owner-only, in WAL mode with synchronous=NORMAL, and records every component once', async () => {
    const path = tempDb();
    const store = SqliteStore.open({ path });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.database.pragma('synchronous', { simple: true })).toBe(1);
    expect(store.database.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(Object.fromEntries(schemaVersions(store.database))).toEqual({ network: 3, catalog: 2, trial: 1, 'detached-run': 1, token: 2, 'webhook-key': 1, vector: 1, session: 1, 'sync-history': 2, package: 1, 'host-memo': 1 });
    // Every connection loads sqlite-vec: the vector index's triggers reach vec0 tables.
    expect(store.database.prepare('SELECT vec_version() AS v').get()).toEqual({ v: expect.stringMatching(/^v0\./) });
    await store.close();
    const again = SqliteStore.open({ path });
    const rows = again.database.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number };
    expect(rows.n).toBe(STORE_SCHEMA.reduce((sum, component) => sum + component.migrations.length, 0));
    await again.close();
  });

  it('keeps what hosts stored before the read-only default had: their old kind default, written down; tokens get no grants', async () => {
    const path = tempDb();
    const before = new Database(path);
    // The schema as it was: network at version 2, token at version 1.
    const older = STORE_SCHEMA.map((component) => ({ ...component, migrations: component.migrations.slice(0, component.component === 'network' ? 2 : component.component === 'token' ? 1 : undefined) }));
    migrate(before, older);
    before.prepare("INSERT INTO networks (slug, label, created_at, updated_at) VALUES ('home', 'home', 1, 1)").run();
    const host = before.prepare("INSERT INTO hosts (network_id, slug, kind, label, description, config, permissions, created_at, updated_at) VALUES (1, ?, ?, ?, '', '{}', ?, 1, 1)");
    const readOnly = '{"default":{"read":true,"write":false,"exec":false}}';
    host.run('files', 'fs', 'files', null);
    host.run('pad', 'bucket', 'Pad', null);
    host.run('data', 'local', 'data', null);
    host.run('kept', 'fs', 'kept', readOnly);
    host.run('notes', 'notes-api', 'notes', null);
    before.prepare("INSERT INTO tokens (id, network_id, user_id, agent_id, name, secret_hash, scopes, created_at) VALUES ('k1', 1, 'ann', 'helper', 'old agent', 'h1', '[]', 1)").run();
    before.close();
    const store = SqliteStore.open({ path });
    const rights = async (slug: string) => (await store.hosts.get({ network: 'home', host: slug }))?.permissions ?? null;
    const writable = { default: { read: true, write: true, exec: false } };
    expect(await rights('files')).toEqual(writable);
    expect(await rights('pad')).toEqual(writable);
    expect(await rights('data')).toEqual(writable);
    expect(await rights('kept')).toEqual(JSON.parse(readOnly));
    // A kind from a package keeps following its own default.
    expect(await rights('notes')).toBeNull();
    expect((await store.tokens.findActive('h1'))?.grants).toEqual([]);
    await store.close();
  });

  it('keeps the syncs recorded before the catalog\'s size was: their size reads as null', async () => {
    const path = tempDb();
    const before = new Database(path);
    migrate(before, STORE_SCHEMA.map((component) => ({ ...component, migrations: component.migrations.slice(0, component.component === 'sync-history' ? 1 : undefined) })));
    before.prepare("INSERT INTO networks (slug, label, created_at, updated_at) VALUES ('home', 'home', 1, 1)").run();
    before.prepare("INSERT INTO hosts (network_id, slug, kind, label, description, config, created_at, updated_at) VALUES (1, 'files', 'fs', 'files', '', '{}', 1, 1)").run();
    before.prepare("INSERT INTO host_syncs VALUES (1, 1, 'full', 'completed', 10, 20, 10, 3, 3, 0, 0, 0, 0, NULL, NULL)").run();
    before.close();
    const store = SqliteStore.open({ path });
    expect(await store.syncHistory.list(1)).toEqual([expect.objectContaining({ runId: 1, entries: 3, catalog: null })]);
    await store.close();
  });

  it('rebuilds a catalog indexed before prefix indexes with them, keeping every text, its entry id and the trigger that removes it', async () => {
    const path = tempDb();
    const before = new Database(path);
    migrate(before, STORE_SCHEMA.map((component) => ({ ...component, migrations: component.migrations.slice(0, component.component === 'catalog' ? 1 : undefined) })));
    before.prepare("INSERT INTO networks (slug, label, created_at, updated_at) VALUES ('home', 'home', 1, 1)").run();
    before.prepare("INSERT INTO hosts (network_id, slug, kind, label, description, config, created_at, updated_at) VALUES (1, 'files', 'fs', 'files', '', '{}', 1, 1)").run();
    const entry = before.prepare("INSERT INTO catalog_entries (id, host_id, path, decision, dimensions, content_state, updated_at) VALUES (?, 1, ?, 'index', '{}', 'indexed', 1)");
    const text = before.prepare('INSERT INTO catalog_content (rowid, path, body) VALUES (?, ?, ?)');
    const documents = [
      [7, 'notes/quarterly.md', 'The quarterly budget review is on Friday.'],
      [12, 'notes/network.md', 'Network latency spiked during the backup.'],
      [40, 'café.txt', 'Une façade naïve.'],
    ] as const;
    for (const [id, entryPath, body] of documents) {
      entry.run(id, entryPath);
      text.run(id, entryPath, body);
    }
    before.close();

    const store = SqliteStore.open({ path });
    expect(schemaVersions(store.database).get('catalog')).toBe(2);
    const definition = store.database.prepare("SELECT sql FROM sqlite_schema WHERE name = 'catalog_content'").get() as { sql: string };
    expect(definition.sql).toContain("prefix = '2 3'");
    expect(store.database.prepare('SELECT rowid, path, body FROM catalog_content ORDER BY rowid').all()).toEqual(documents.map(([rowid, entryPath, body]) => ({ rowid, path: entryPath, body })));
    const found = async (text: string) => (await store.catalog.search({ text })).map((hit) => hit.path);
    expect(await found('qu*')).toEqual(['notes/quarterly.md']);
    expect(await found('net*')).toEqual(['notes/network.md']);
    expect(await found('faca*')).toEqual(['café.txt']);
    expect(await found('"budget review"')).toEqual(['notes/quarterly.md']);
    store.database.prepare("INSERT INTO catalog_content (catalog_content, rank) VALUES ('integrity-check', 1)").run();
    // The trigger came back with the table: an entry's text goes with it.
    store.database.prepare('DELETE FROM catalog_entries WHERE id = 12').run();
    expect(await found('net*')).toEqual([]);
    expect(store.database.prepare('SELECT rowid FROM catalog_content ORDER BY rowid').all()).toEqual([{ rowid: 7 }, { rowid: 40 }]);
    await store.close();
  });

  it('refuses a database whose schema is newer than this code', () => {
    const path = tempDb();
    SqliteStore.open({ path }).database.close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (component, version, applied_at) VALUES ('catalog', 3, 0)").run();
    db.close();
    let error: unknown;
    try {
      SqliteStore.open({ path });
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorCode(error, 'invalid_config')).toBe(true);
    expect((error as Error).message).toContain('"catalog" schema is at version 3');
    expect((error as Error).message).not.toContain(path);
  });

  it('applies a component all or nothing: a failing migration leaves the earlier version in place', () => {
    const db = new Database(':memory:');
    const component = (migrations: SchemaComponent['migrations']): SchemaComponent => ({ component: 'demo', migrations });
    migrate(db, [component([{ version: 1, sql: 'CREATE TABLE demo_a (x INTEGER)' }])]);
    expect(() =>
      migrate(db, [
        component([
          { version: 1, sql: 'CREATE TABLE demo_a (x INTEGER)' },
          { version: 2, sql: 'CREATE TABLE demo_b (y INTEGER)' },
          { version: 3, sql: 'CREATE TABLE demo_a (duplicate INTEGER)' },
        ]),
      ]),
    ).toThrow();
    expect(schemaVersions(db).get('demo')).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'demo_b'").get()).toBeUndefined();
    expect(() => migrate(db, [component([{ version: 2, sql: 'SELECT 1' }])])).toThrow(/versions run 1, 2, 3/);
  });

  it('shares one file with the credential record store, on one connection or two', async () => {
    const path = tempDb();
    const store = SqliteStore.open({ path });
    const credentials = SqliteCredentialRecordStore.open(store.database);
    await credentials.put({ network: 'home', owner: 'project' }, 'api', new Uint8Array([1, 2, 3]));
    await store.networks.create({ slug: 'home' });
    // A second process opens the same file the other way round.
    const otherCredentials = SqliteCredentialRecordStore.open(path);
    const otherStore = SqliteStore.open({ path });
    expect(await otherCredentials.get({ network: 'home', owner: 'project' }, 'api')).toEqual(new Uint8Array([1, 2, 3]));
    expect((await otherStore.networks.get('home'))?.slug).toBe('home');
    const tables = store.database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['credential_records', 'schema_migrations', 'catalog_entries', 'hosts']));
    // One migration table: each part of the platform is a component in it.
    expect(schemaVersions(store.database).get('credentials')).toBe(1);
    expect(schemaVersions(store.database).get('catalog')).toBe(2);
    otherCredentials.close();
    await otherStore.close();
    await store.close();
  });

  it('accepts exactly one of a path and a connection, and answers unavailable once closed', async () => {
    expect(() => SqliteStore.open({})).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    const db = new Database(':memory:');
    expect(() => SqliteStore.open({ path: ':memory:', database: db })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    const store = SqliteStore.open({ database: db });
    await store.close();
    // A connection handed in stays open for its owner.
    expect(db.open).toBe(true);
    db.close();
    expect(await codeOf(store.networks.list())).toBe('unavailable');
  });
});
