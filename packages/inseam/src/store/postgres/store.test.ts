import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SchemaComponent } from '../sqlite/migrations.js';
import { openStore } from '../open.js';
import { SqliteStore } from '../sqlite/store.js';
import type { EntryPut } from '../types.js';
import { startTestPostgres, type TestPostgres } from './__fixtures__/test-postgres.js';
import { Db } from './database.js';
import { PostgresCatalogStore } from './catalog.js';
import { migrate, schemaVersions } from './migrations.js';
import { pathVector, searchVector } from './search-text.js';
import { POSTGRES_STORE_SCHEMA } from './schema.js';
import { PostgresStore } from './store.js';

let server: TestPostgres;
const opened: PostgresStore[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

afterAll(async () => {
  await server?.stop();
});

async function open(url: string, components?: readonly SchemaComponent[]): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url, ...(components === undefined ? {} : { components }) });
  opened.push(store);
  return store;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}

function indexed(text: string): EntryPut['content'] {
  return { state: 'indexed', key: 'k', text, bytes: Buffer.byteLength(text) };
}

function put(path: string, content?: EntryPut['content']): EntryPut {
  return {
    row: { path, size: 1, mtime: null, etag: null, mime: null, nativeHash: null, nativeId: null, decision: 'include', dimensions: '{}', extra: null, envelope: null },
    ...(content === undefined ? {} : { content }),
  };
}

describe('opening and migrations', () => {
  it('applies every component once, even when several processes open a new database at once', async () => {
    const url = await server.createSchema();
    const stores = await Promise.all(Array.from({ length: 6 }, () => open(url)));
    const versions = await schemaVersions(stores[0]!.database);
    expect(Object.fromEntries(versions)).toEqual({ network: 2, catalog: 2, trial: 1, 'detached-run': 1, token: 2, 'webhook-key': 1, vector: 1, session: 1, 'sync-history': 2, package: 1, 'host-memo': 1 });
    const rows = await stores[0]!.database.query<{ n: number }>('SELECT count(*) AS n FROM inseam_migrations');
    expect(rows[0]!.n).toBe(POSTGRES_STORE_SCHEMA.reduce((sum, component) => sum + component.migrations.length, 0));
    // Ids come back as numbers, and pg's own parsers (other users of pg in the process) are untouched.
    await stores[1]!.networks.create({ slug: 'home' });
    expect(typeof (await stores[2]!.networks.get('home'))?.id).toBe('number');
    expect(pg.types.getTypeParser(20)('12')).toBe('12');
  });

  it('keeps what hosts stored before the read-only default had: their old kind default, written down; tokens get no grants', async () => {
    const url = await server.createSchema();
    // The schema as it was: network and token at version 1.
    const older = POSTGRES_STORE_SCHEMA.map((component) => ({ ...component, migrations: component.migrations.slice(0, component.component === 'network' || component.component === 'token' ? 1 : undefined) }));
    const pool = new pg.Pool({ connectionString: url });
    const before = { database: Db.onPool(pool, () => false) };
    await migrate(before.database, older);
    await before.database.run("INSERT INTO networks (slug, label, created_at, updated_at) VALUES ('home', 'home', 1, 1)");
    const readOnly = '{"default":{"read":true,"write":false,"exec":false}}';
    for (const [slug, kind, permissions] of [['files', 'fs', null], ['pad', 'bucket', null], ['data', 'local', null], ['kept', 'fs', readOnly], ['notes', 'notes-api', null]] as const) {
      await before.database.run("INSERT INTO hosts (network_id, slug, kind, label, description, config, permissions, created_at, updated_at) SELECT id, $1, $2, $1, '', '{}', $3, 1, 1 FROM networks WHERE slug = 'home'", [slug, kind, permissions]);
    }
    await before.database.run("INSERT INTO tokens (id, network_id, user_id, agent_id, name, secret_hash, scopes, created_at) VALUES ('k1', NULL, 'ann', 'helper', 'old agent', 'h1', '[]', 1)");
    await pool.end();
    const store = await open(url);
    const rights = async (slug: string) => (await store.hosts.get({ network: 'home', host: slug }))?.permissions ?? null;
    const writable = { default: { read: true, write: true, exec: false } };
    expect(await rights('files')).toEqual(writable);
    expect(await rights('pad')).toEqual(writable);
    expect(await rights('data')).toEqual(writable);
    expect(await rights('kept')).toEqual(JSON.parse(readOnly));
    // A kind from a package keeps following its own default.
    expect(await rights('notes')).toBeNull();
    expect((await store.tokens.findActive('h1'))?.grants).toEqual([]);
  });

  it('refuses a database whose schema is newer than this code, without naming the URL', async () => {
    const url = await server.createSchema();
    const first = await open(url);
    await first.database.run("INSERT INTO inseam_migrations (component, version, applied_at) VALUES ('catalog', 3, 0)");
    const error = await rejection(PostgresStore.open({ url }));
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'schema_too_new', component: 'catalog', version: 3 } });
    expect(error.message).toContain('"catalog" schema is at version 3');
    expect(error.message).not.toContain('postgres');
  });

  it('applies a component all or nothing: a failing migration leaves the earlier version in place', async () => {
    const url = await server.createSchema();
    const component = (migrations: SchemaComponent['migrations']): SchemaComponent => ({ component: 'demo', migrations });
    const store = await open(url, [component([{ version: 1, sql: 'CREATE TABLE demo_a (x int)' }])]);
    const error = await rejection(
      PostgresStore.open({
        url,
        components: [
          component([
            { version: 1, sql: 'CREATE TABLE demo_a (x int)' },
            { version: 2, sql: 'CREATE TABLE demo_b (y int)' },
            { version: 3, sql: 'CREATE TABLE demo_a (duplicate int)' },
          ]),
        ],
      }),
    );
    expect(error).toMatchObject({ code: 'unavailable', details: { postgres: '42P07' } });
    expect((await schemaVersions(store.database)).get('demo')).toBe(1);
    expect(await store.database.query("SELECT 1 FROM pg_tables WHERE tablename = 'demo_b'")).toEqual([]);
    expect((await rejection(PostgresStore.open({ url, components: [component([{ version: 2, sql: 'SELECT 1' }])] }))).message).toMatch(/versions run 1, 2, 3/);
  });

  it('answers unavailable with the SQLSTATE or socket error, never the URL or its password', async () => {
    const unreachable = 'postgresql://inseam:s3cret-password@localhost:5432/nowhere?host=/nonexistent-socket-dir';
    const error = await rejection(PostgresStore.open({ url: unreachable, connectTimeoutMs: 2000 }));
    expect(error).toMatchObject({ code: 'unavailable', details: { reason: 'store_unavailable', postgres: 'ENOENT' } });
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(/s3cret|nonexistent|nowhere/);
    const wrongDatabase = new URL(server.url);
    wrongDatabase.pathname = '/no_such_database';
    expect(await rejection(PostgresStore.open({ url: wrongDatabase.href }))).toMatchObject({ code: 'unavailable', details: { postgres: '3D000' } });
    expect(await rejection(PostgresStore.open({ url: 'mysql://x@y/z' }))).toMatchObject({ code: 'invalid_argument' });
  });
});

describe('openStore', () => {
  it('opens PostgreSQL for postgres:// and postgresql://, SQLite otherwise, and refuses other schemes', async () => {
    const url = await server.createSchema();
    const postgres = await openStore(url);
    expect(postgres).toBeInstanceOf(PostgresStore);
    await postgres.close();
    const alias = await openStore(url.replace(/^postgresql:/, 'postgres:'));
    expect(alias).toBeInstanceOf(PostgresStore);
    await alias.close();
    for (const sqlite of [await openStore(), await openStore(''), await openStore(':memory:'), await openStore(undefined, { defaultPath: ':memory:' })]) {
      expect(sqlite).toBeInstanceOf(SqliteStore);
      await sqlite.close();
    }
    const error = await rejection(openStore('mongodb://user:hunter2@host/db'));
    expect(error).toMatchObject({ code: 'invalid_argument', details: { reason: 'store_url' } });
    expect(error.message).not.toContain('hunter2');
  });
});

describe('transactions', () => {
  it('commits the store\'s writes and the caller\'s own statements together, or none of them', async () => {
    const store = await open(await server.createSchema());
    await store.database.run('CREATE TABLE jobs (name text PRIMARY KEY)');
    await store.transaction(async (tx) => {
      await tx.networks.create({ slug: 'home' });
      await tx.hosts.create('home', { slug: 'notes', kind: 'local' });
      await tx.executeSql('INSERT INTO jobs (name) VALUES ($1)', ['crawl notes']);
    });
    expect((await store.hosts.list('home')).map((host) => host.slug)).toEqual(['notes']);
    const failure = new Error('the caller changed its mind');
    await expect(
      store.transaction(async (tx) => {
        await tx.hosts.create('home', { slug: 'mail', kind: 'imap' });
        await tx.executeSql('INSERT INTO jobs (name) VALUES ($1)', ['crawl mail']);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect((await store.hosts.list('home')).map((host) => host.slug)).toEqual(['notes']);
    expect(await store.database.query('SELECT name FROM jobs')).toEqual([{ name: 'crawl notes' }]);
  });

  it('keeps a transaction usable after a store error it caught', async () => {
    const store = await open(await server.createSchema());
    await store.networks.create({ slug: 'home' });
    await store.transaction(async (tx) => {
      await expect(tx.networks.create({ slug: 'home' })).rejects.toMatchObject({ code: 'already_exists' });
      await expect(tx.hosts.create('nowhere', { slug: 'x', kind: 'local' })).rejects.toMatchObject({ code: 'not_found' });
      await tx.networks.create({ slug: 'work' });
    });
    expect((await store.networks.list()).map((network) => network.slug)).toEqual(['home', 'work']);
  });
});

describe('catalog on a shared database', () => {
  it('writes a batch of thousands of entries in a fixed number of statements', async () => {
    const store = await open(await server.createSchema());
    await store.networks.create({ slug: 'home' });
    const hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
    const run = await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: 'me', totalEstimate: null, now: 1 });
    const puts = Array.from({ length: 3000 }, (_, i) => put(`dir/${String(i).padStart(5, '0')}.md`, i % 2 === 0 ? indexed(`document number ${i}`) : undefined));
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await store.catalog.commit({ hostId, marker: run.id, puts, now: 2, checkpoint: { runId: run.id, owner: 'me', cursor: 'c1', now: 2 } });
      const first = query.mock.calls.length;
      expect(first).toBeLessThanOrEqual(10);
      query.mockClear();
      // The same entries again, a third of them with new text, and a few moves and deletes.
      const again = puts.map((entry, i) => (i % 3 === 0 ? { ...entry, content: indexed(`revised ${i}`) } : entry));
      await store.catalog.commit({
        hostId,
        marker: run.id,
        puts: [...again, { ...put('moved/a.md'), movedFrom: 'dir/00001.md' }, { ...put('moved/b.md'), movedFrom: 'dir/00002.md' }],
        deletes: ['dir/00003.md', 'dir/00004.md'],
        now: 3,
        checkpoint: { runId: run.id, owner: 'me', cursor: 'c2', now: 3 },
      });
      expect(query.mock.calls.length).toBeLessThanOrEqual(14);
    } finally {
      query.mockRestore();
    }
    expect(await store.catalog.countEntries(hostId)).toBe(3000);
    expect((await store.catalog.search({ text: 'revised 2997' })).map((hit) => hit.path)).toEqual(['dir/02997.md']);
    expect(await store.catalog.contentText(hostId, 'moved/b.md')).toBe('document number 2');
    expect((await store.catalog.getRun(run.id))?.counters).toMatchObject({ entries: 3002, moved: 2, deleted: 2 });
  });

  it('serialises one host\'s batches from several processes, losing none', async () => {
    const url = await server.createSchema();
    const stores = await Promise.all([open(url), open(url), open(url)]);
    await stores[0].networks.create({ slug: 'home' });
    const hostId = (await stores[0].hosts.create('home', { slug: 'notes', kind: 'local' })).id;
    // Every process writes the same paths and some of its own, at once, many times.
    await Promise.all(
      stores.flatMap((store, n) =>
        Array.from({ length: 8 }, (_, round) =>
          store.catalog.commit({ hostId, marker: null, puts: [put('shared.md', indexed(`round ${round} of ${n}`)), put(`own-${n}-${round}.md`, indexed('mine'))], now: round }),
        ),
      ),
    );
    expect(await stores[1].catalog.countEntries(hostId)).toBe(1 + 3 * 8);
    expect((await stores[2].catalog.search({ text: 'round' })).map((hit) => hit.path)).toEqual(['shared.md']);
  });

  it('lets a run be claimed by another process only between batches, never during one', async () => {
    const url = await server.createSchema();
    const [one, two] = await Promise.all([open(url), open(url)]);
    await one.networks.create({ slug: 'home' });
    const hostId = (await one.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
    const run = await one.catalog.createRun({ hostId, mode: 'full', since: null, owner: 'one', totalEstimate: null, now: 1 });
    const outcomes = await Promise.allSettled([
      one.catalog.commit({ hostId, marker: run.id, puts: Array.from({ length: 500 }, (_, i) => put(`f${i}`, indexed(`text ${i}`))), now: 2, checkpoint: { runId: run.id, owner: 'one', cursor: 'after-500', now: 2 } }),
      two.catalog.claimRun(run.id, 'one', 'two', 2),
    ]);
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: true });
    const stored = await two.catalog.getRun(run.id);
    // Either the batch committed whole before the claim, or it was refused and wrote nothing.
    if (outcomes[0].status === 'fulfilled') {
      expect(stored).toMatchObject({ owner: 'two', cursor: 'after-500', counters: expect.objectContaining({ entries: 500 }) });
      expect(await two.catalog.countEntries(hostId)).toBe(500);
    } else {
      expect(outcomes[0].reason).toMatchObject({ code: 'binding_conflict' });
      expect(stored).toMatchObject({ owner: 'two', cursor: null });
      expect(await two.catalog.countEntries(hostId)).toBe(0);
    }
  });

  it('indexes what PostgreSQL text search cannot hold without failing the batch', async () => {
    const store = await open(await server.createSchema());
    await store.networks.create({ slug: 'home' });
    const hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
    const distinct = Array.from({ length: 150_000 }, (_, i) => `w${i.toString(36)}x${i}`).join(' ');
    const longWord = '語'.repeat(700);
    await store.catalog.commit({
      hostId,
      marker: null,
      puts: [put('nul.txt', indexed('before\u0000after findable')), put('distinct.txt', indexed(`${distinct} tail`)), put('long.txt', indexed(`${longWord} short`))],
      now: 1,
    });
    expect(await store.catalog.contentText(hostId, 'nul.txt')).toBe('before\uFFFDafter findable');
    expect((await store.catalog.search({ text: 'findable' })).map((hit) => hit.path)).toEqual(['nul.txt']);
    expect((await store.catalog.search({ text: 'w0x0' })).map((hit) => hit.path)).toEqual(['distinct.txt']);
    expect((await store.catalog.search({ text: 'short' })).map((hit) => hit.path)).toEqual(['long.txt']);
    expect(await store.catalog.search({ text: longWord })).toEqual([]);
    expect((await store.catalog.contentText(hostId, 'distinct.txt'))?.endsWith(' tail')).toBe(true);
  });

  it('cuts the snippet of a long text around a hit far into it', async () => {
    const store = await open(await server.createSchema());
    await store.networks.create({ slug: 'home' });
    const hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
    const filler = 'lorem ipsum dolor sit amet '.repeat(20_000);
    await store.catalog.commit({ hostId, marker: null, puts: [put('big.txt', indexed(`${filler}the Needle is here. ${filler}`))], now: 1 });
    const [hit] = await store.catalog.search({ text: 'needle' });
    expect(hit!.snippet.startsWith('…')).toBe(true);
    expect(hit!.snippet.endsWith('…')).toBe(true);
    expect(hit!.highlights.map(([start, end]) => hit!.snippet.slice(start, end))).toEqual(['Needle']);
  });
});

describe('catalog writes and ranking statistics', () => {
  /** Each entry's row version (xmin and ctid change with every write) and its text's and vector's. */
  async function versions(store: PostgresStore): Promise<unknown[]> {
    return store.database.query(
      `SELECT e.path, e.xmin::text AS entry, e.ctid::text AS at, t.xmin::text AS text, s.xmin::text AS search
       FROM catalog_entries e LEFT JOIN catalog_text t ON t.entry_id = e.id LEFT JOIN catalog_search s ON s.entry_id = e.id ORDER BY e.path`,
    );
  }

  async function corpus(store: PostgresStore): Promise<{ stored: { docs: number; words: number }; actual: { docs: number; words: number } }> {
    const [stored] = await store.database.query<{ docs: number; words: number }>('SELECT sum(docs)::int AS docs, sum(words)::int AS words FROM catalog_search_stats');
    const [actual] = await store.database.query<{ docs: number; words: number }>('SELECT count(*)::int AS docs, coalesce(sum(words), 0)::int AS words FROM catalog_search');
    return { stored: stored!, actual: actual! };
  }

  it('writes no row version for an entry a batch leaves as it was, and only the mark for one a rescan saw again', async () => {
    const store = await open(await server.createSchema());
    await store.networks.create({ slug: 'home' });
    const hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
    const puts = [put('a.md', indexed('alpha text')), put('b.md', indexed('beta text')), put('c.md')];
    await store.catalog.commit({ hostId, marker: null, puts, now: 1 });
    const before = await versions(store);
    // The same entries and texts again, as an incremental sync or a repeated event sends them.
    await store.catalog.commit({ hostId, marker: null, puts, now: 2 });
    await store.catalog.commit({ hostId, marker: null, puts: puts.map((entry) => ({ row: entry.row })), now: 3 });
    expect(await versions(store)).toEqual(before);
    expect((await store.catalog.getEntry(hostId, 'a.md'))?.updatedAt).toBe(1);

    const run = await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: 'me', totalEstimate: null, now: 4 });
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await store.catalog.commit({ hostId, marker: run.id, puts: puts.map((entry) => ({ row: entry.row })), now: 5 });
      const statements = query.mock.calls.map(([text]) => String(text));
      expect(statements.filter((text) => /^UPDATE catalog_entries e SET seen_run = u\.seen_run/.test(text))).toHaveLength(1);
      expect(statements.filter((text) => /catalog_text|catalog_search/.test(text))).toEqual([]);
    } finally {
      query.mockRestore();
    }
    const rescanned = await store.database.query<{ path: string; seen_run: number; updated_at: number }>('SELECT path, seen_run, updated_at FROM catalog_entries ORDER BY path');
    expect(rescanned).toEqual(['a.md', 'b.md', 'c.md'].map((path) => ({ path, seen_run: run.id, updated_at: 1 })));
    // The texts and vectors were not touched by the mark.
    const after = (await versions(store)) as { text: string | null; search: string | null }[];
    expect(after.map((row) => [row.text, row.search])).toEqual((before as { text: string | null; search: string | null }[]).map((row) => [row.text, row.search]));
  });

  it('keeps the corpus statistics bm25 reads equal to the indexed entries through every kind of change', async () => {
    const store = await open(await server.createSchema());
    await store.networks.create({ slug: 'home' });
    const hostId = (await store.hosts.create('home', { slug: 'notes', kind: 'local' })).id;
    const other = (await store.hosts.create('home', { slug: 'other', kind: 'local' })).id;
    await store.catalog.commit({ hostId, marker: null, puts: Array.from({ length: 40 }, (_, i) => put(`f${i}.md`, indexed(`word `.repeat(i + 1)))), now: 1 });
    await store.catalog.commit({ hostId: other, marker: null, puts: [put('x.md', indexed('one two three'))], now: 1 });
    expect((await corpus(store)).stored).toEqual({ docs: 41, words: 820 + 40 * 2 + 3 + 2 });
    const steps: (() => Promise<unknown>)[] = [
      // New text, text removed, a move keeping its text, deletes.
      () => store.catalog.commit({ hostId, marker: null, puts: [put('f0.md', indexed('now three words')), put('f1.md', { state: 'binary', key: 'b', bytes: 0 } as never)], now: 2 }),
      () => store.catalog.commit({ hostId, marker: null, puts: [{ ...put('moved/to a much longer name.md'), movedFrom: 'f2.md' }], deletes: ['f3.md', 'f4.md'], now: 3 }),
      // A sweep of a full run that saw a few entries only.
      async () => {
        const run = await store.catalog.createRun({ hostId, mode: 'full', since: null, owner: 'me', totalEstimate: null, now: 4 });
        await store.catalog.commit({ hostId, marker: run.id, puts: [put('f5.md', indexed('word '.repeat(6)))], now: 5, checkpoint: { runId: run.id, owner: 'me', now: 5 } });
        while ((await store.catalog.sweep({ hostId, runId: run.id, owner: 'me', limit: 7, now: 6 })) > 0);
      },
      // A host deleted with its entries.
      () => store.hosts.delete({ network: 'home', host: 'other' }),
    ];
    for (const step of steps) {
      await step();
      const { stored, actual } = await corpus(store);
      expect(stored).toEqual(actual);
    }
    expect((await corpus(store)).actual.docs).toBe(1);
  });

  it('counts what a database migrated from version 1 already holds, and searches it through the GIN index', async () => {
    const url = await server.createSchema();
    // The catalog as version 1 left it, written by this code's catalog (which needs nothing of version 2 to write).
    const pool = new pg.Pool({ connectionString: url, types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser } });
    const db = Db.onPool(pool, () => false);
    const [network, catalog] = POSTGRES_STORE_SCHEMA;
    await migrate(db, [network!, { ...catalog!, migrations: catalog!.migrations.slice(0, 1) }]);
    await db.run("INSERT INTO networks (slug, label, created_at, updated_at) VALUES ('home', 'home', 0, 0)");
    const [{ id: hostId }] = (await db.query<{ id: number }>(
      "INSERT INTO hosts (network_id, slug, kind, label, description, config, created_at, updated_at) SELECT id, 'notes', 'local', 'notes', '', '{}', 0, 0 FROM networks RETURNING id",
    )) as [{ id: number }];
    await new PostgresCatalogStore(db).commit({ hostId, marker: null, puts: Array.from({ length: 2000 }, (_, i) => put(`f${i}.md`, indexed(`common words ${i % 500 === 0 ? 'rare scarce' : ''} here`))), now: 1 });
    await pool.end();
    const store = await open(url);
    const { stored, actual } = await corpus(store);
    expect(stored).toEqual(actual);
    expect(stored.docs).toBe(2000);
    // As a crawl of any size leaves it: the index's pending entries merged into its tree.
    await store.database.run("SELECT gin_clean_pending_list('catalog_search_words')");
    await store.database.run('ANALYZE');
    // The search's own statement, planned as it runs it.
    const query = vi.spyOn(pg.Client.prototype, 'query');
    let search: { text: string; values: unknown[] } | undefined;
    try {
      expect(await store.catalog.search({ text: 'rare scarce', limit: 3 })).toHaveLength(3);
      const call = query.mock.calls.find(([text]) => String(text).includes('terms AS MATERIALIZED'));
      search = { text: String(call![0]), values: call![1] as unknown[] };
    } finally {
      query.mockRestore();
    }
    // A table this small is read whole; one too big to (sequential scans priced out) is searched through its index.
    const plan = await store.database.transaction(async (tx) => {
      await tx.run('SET LOCAL enable_seqscan = off');
      return (await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${search.text}`, search.values)).map((row) => row['QUERY PLAN']).join('\n');
    });
    // The match, and the count each term makes.
    expect(plan.match(/Bitmap Index Scan on catalog_search_words/g)).toHaveLength(2);
  });
});

describe('search vectors', () => {
  it('gives a moved entry the vector it would have been built with: its text\'s words, then its new path\'s', async () => {
    const store = await open(await server.createSchema());
    const text = 'alpha beta alpha. notes gamma';
    for (const [from, to] of [['notes/old name.md', 'archive/2024/new.md'], ['a', 'a much longer path/with/many words.txt'], ['x', 'x']]) {
      const [row] = await store.database.query<{ same: boolean }>("SELECT (ts_filter($1::tsvector, '{d}') || $2::tsvector) = $3::tsvector AS same", [
        searchVector(text, from!).literal,
        pathVector(to!).literal,
        searchVector(text, to!).literal,
      ]);
      expect(row, `${from} → ${to}`).toEqual({ same: true });
    }
  });
});

describe('Db', () => {
  it('rolls back a transaction whose work fails, and refuses work once its owner is closed', async () => {
    const pool = new pg.Pool({ connectionString: await server.createSchema() });
    let closed = false;
    const db = Db.onPool(pool, () => closed);
    await db.run('CREATE TABLE t (x int)');
    await expect(db.transaction(async (tx) => {
      await tx.run('INSERT INTO t VALUES (1)');
      throw new Error('no');
    })).rejects.toThrow('no');
    expect(await db.query('SELECT x FROM t')).toEqual([]);
    closed = true;
    await expect(db.query('SELECT 1')).rejects.toMatchObject({ code: 'unavailable', details: { postgres: 'closed' } });
    await pool.end();
  });
});
