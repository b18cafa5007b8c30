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
    expect(Object.fromEntries(schemaVersions(store.database))).toEqual({ network: 2, catalog: 1, trial: 1, 'detached-run': 1, token: 1 });
    await store.close();
    const again = SqliteStore.open({ path });
    const rows = again.database.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number };
    expect(rows.n).toBe(STORE_SCHEMA.reduce((sum, component) => sum + component.migrations.length, 0));
    await again.close();
  });

  it('refuses a database whose schema is newer than this code', () => {
    const path = tempDb();
    SqliteStore.open({ path }).database.close();
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (component, version, applied_at) VALUES ('catalog', 2, 0)").run();
    db.close();
    let error: unknown;
    try {
      SqliteStore.open({ path });
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorCode(error, 'invalid_config')).toBe(true);
    expect((error as Error).message).toContain('"catalog" schema is at version 2');
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
    expect(schemaVersions(store.database).get('catalog')).toBe(1);
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

describe('networks and hosts', () => {
  it('creates, reads, updates and deletes, with typed errors', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    const home = await store.networks.create({ slug: 'home', label: 'Home' }, 10);
    expect(home).toMatchObject({ slug: 'home', label: 'Home', createdAt: 10, updatedAt: 10 });
    expect(await codeOf(store.networks.create({ slug: 'home' }))).toBe('already_exists');
    expect((await store.networks.update('home', { label: 'House' }, 20)).label).toBe('House');
    expect(await codeOf(store.networks.update('nope', { label: 'x' }))).toBe('not_found');

    const host = await store.hosts.create(
      'home',
      {
        slug: 'notes',
        kind: 'local',
        config: { root: 'data' },
        scope: { limits: { maxEntries: 5 } },
        sync: { trigger: 'auto', exclude: ['_pending/**'], alwaysActive: true },
        honoursOrder: true,
      },
      30,
    );
    expect(host).toMatchObject({ network: 'home', slug: 'notes', label: 'notes', kind: 'local', config: { root: 'data' }, honoursOrder: true, permissions: null });
    expect(host.sync).toEqual({ trigger: 'auto', exclude: ['_pending/**'], alwaysActive: true });
    expect(host).toMatchObject({ ownership: 'project', ownerId: null, privateOrigins: [] });
    const owned = await store.hosts.create('home', { slug: 'mine', kind: 'local', ownership: 'user', ownerId: 'ann', privateOrigins: ['http://127.0.0.1:9000'] });
    expect(owned).toMatchObject({ ownership: 'user', ownerId: 'ann', privateOrigins: ['http://127.0.0.1:9000'] });
    expect(await store.hosts.update({ network: 'home', host: 'mine' }, { privateOrigins: [] })).toMatchObject({ privateOrigins: [] });
    await store.hosts.delete({ network: 'home', host: 'mine' });
    expect(await codeOf(store.hosts.create('home', { slug: 'notes', kind: 'local' }))).toBe('already_exists');
    expect(await codeOf(store.hosts.create('nowhere', { slug: 'notes', kind: 'local' }))).toBe('not_found');

    const updated = await store.hosts.update({ network: 'home', host: 'notes' }, { scope: null, description: 'My notes' }, 40);
    expect(updated).toMatchObject({ scope: null, description: 'My notes', updatedAt: 40, createdAt: 30 });
    expect(await codeOf(store.hosts.update({ network: 'home', host: 'gone' }, { label: 'x' }))).toBe('not_found');
    expect((await store.hosts.list('home')).map((h) => h.slug)).toEqual(['notes']);
    expect(await store.hosts.delete({ network: 'home', host: 'notes' })).toBe(true);
    expect(await store.hosts.delete({ network: 'home', host: 'notes' })).toBe(false);
    expect(await store.networks.delete('home')).toBe(true);
    expect(await store.networks.list()).toEqual([]);
  });

  it('never gives a deleted host id to a new host', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    await store.networks.create({ slug: 'home' });
    const first = await store.hosts.create('home', { slug: 'a', kind: 'local' });
    await store.hosts.delete({ network: 'home', host: 'a' });
    const second = await store.hosts.create('home', { slug: 'a', kind: 'local' });
    expect(second.id).toBeGreaterThan(first.id);
  });
});

describe('trials, detached runs and tokens', () => {
  it('records and approves trials, refusing to approve a failed or approved one', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    await store.networks.create({ slug: 'home' });
    const base = { network: 'home', kind: 'notion', moduleHash: 'ab'.repeat(32), report: { kind: 'notion', passed: true, checks: [] }, origins: ['https://api.notion.com'] };
    await store.trials.record({ ...base, id: 't1', passed: false }, 1);
    await store.trials.record({ ...base, id: 't2', passed: true }, 2);
    expect(await codeOf(store.trials.record({ ...base, id: 't2', passed: true }))).toBe('already_exists');
    expect((await store.trials.latest('home', 'notion'))?.id).toBe('t2');
    expect(await codeOf(store.trials.approve('t1', 'ann'))).toBe('precondition_failed');
    const approved = await store.trials.approve('t2', 'ann', 3);
    expect(approved).toMatchObject({ approvedBy: 'ann', approvedAt: 3, origins: ['https://api.notion.com'], report: base.report });
    expect(await codeOf(store.trials.approve('t2', 'bob'))).toBe('precondition_failed');
    expect(await codeOf(store.trials.approve('t9', 'bob'))).toBe('not_found');
  });

  it('records who owns a detached run and releases it once', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    await store.networks.create({ slug: 'home' });
    await store.hosts.create('home', { slug: 'box', kind: 'desktop' });
    await store.detachedRuns.record({ runId: 'r1', network: 'home', host: 'box', userId: 'u1', agentId: null }, 1);
    await store.detachedRuns.record({ runId: 'r2', network: 'home', host: 'box', userId: 'u1', agentId: 'a1' }, 2);
    expect(await codeOf(store.detachedRuns.record({ runId: 'r1', network: 'home', host: 'box', userId: 'u2', agentId: null }))).toBe('already_exists');
    expect(await codeOf(store.detachedRuns.record({ runId: 'r3', network: 'home', host: 'nope', userId: 'u2', agentId: null }))).toBe('not_found');
    expect((await store.detachedRuns.listByUser('home', 'u1')).map((r) => r.runId)).toEqual(['r2', 'r1']);
    expect(await store.detachedRuns.release('r1', 5)).toBe(true);
    expect(await store.detachedRuns.release('r1', 6)).toBe(false);
    expect((await store.detachedRuns.get('r1'))?.releasedAt).toBe(5);
    expect((await store.detachedRuns.listByUser('home', 'u1')).map((r) => r.runId)).toEqual(['r2']);
  });

  it('finds tokens by secret hash only while neither revoked nor expired', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    await store.networks.create({ slug: 'home' });
    await store.tokens.create({ id: 'k1', network: 'home', userId: 'u1', agentId: null, name: 'cli', secretHash: 'h1', scopes: ['read'], expiresAt: 100 }, 1);
    await store.tokens.create({ id: 'k2', network: null, userId: 'u1', agentId: null, name: 'all', secretHash: 'h2', scopes: [], expiresAt: null }, 2);
    expect(await codeOf(store.tokens.create({ id: 'k3', network: null, userId: 'u1', agentId: null, name: 'dup', secretHash: 'h1', scopes: [], expiresAt: null }))).toBe('already_exists');
    expect(await codeOf(store.tokens.create({ id: 'k4', network: 'nope', userId: 'u1', agentId: null, name: 'x', secretHash: 'h4', scopes: [], expiresAt: null }))).toBe('not_found');
    expect((await store.tokens.findActive('h1', 50))?.scopes).toEqual(['read']);
    expect(await store.tokens.findActive('h1', 100)).toBeNull();
    await store.tokens.touch('k2', 7);
    expect((await store.tokens.findActive('h2', 8))?.lastUsedAt).toBe(7);
    expect(await store.tokens.revoke('k2', 9)).toBe(true);
    expect(await store.tokens.revoke('k2', 10)).toBe(false);
    expect(await store.tokens.findActive('h2', 11)).toBeNull();
    expect((await store.tokens.listByUser('u1')).map((t) => t.id)).toEqual(['k2', 'k1']);
  });
});
