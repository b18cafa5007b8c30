/**
 * PostgreSQL for tests, with nothing set up by hand.
 *
 *   const server = await startTestPostgres();          // in beforeAll
 *   const url = await server.createDatabase();         // an empty database of this file's own
 *   …
 *   await server.stop();                               // in afterAll
 *
 * With INSEAM_TEST_DATABASE_URL set (a server the tests may create databases on, e.g. the one
 * global-setup.ts starts once for a whole run), databases are made there and dropped at `stop()`.
 * Otherwise a private throwaway cluster starts: `initdb` from /usr/lib/postgresql/<newest>/bin
 * (or PATH) into a temporary folder — as user `postgres` when the tests run as root, since the
 * server refuses root — and `pg_ctl start` listening on a Unix socket in that folder only (no TCP,
 * so no port can clash; fsync off, nothing here needs to survive a crash). `stop()` stops it and
 * removes the folder; so does the process exiting without calling it. Each test file gets its
 * own databases (CREATE DATABASE … TEMPLATE template0), so files run in parallel.
 *
 * Without any PostgreSQL binaries this fails, saying to install `postgresql`: a suite that
 * silently skipped its PostgreSQL half would prove nothing about it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DATABASE_URL_ENV = 'INSEAM_TEST_DATABASE_URL';

export interface TestPostgres {
  /** A URL of the server's `postgres` database, for statements about the server itself. */
  readonly url: string;
  /** Creates an empty database and answers its URL. */
  createDatabase(): Promise<string>;
  /**
   * A URL whose connections see only a new, empty schema (their search_path), in a database this
   * server made for the caller: a store of a test's own, in milliseconds rather than the quarter
   * second a database takes.
   */
  createSchema(): Promise<string>;
  /** Drops the databases made here; a private cluster is stopped and its folder removed. */
  stop(): Promise<void>;
}

/** `url` with its database replaced by `database`. */
export function databaseUrl(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.href;
}

/** Starts (or reuses, see the module comment) a PostgreSQL server for a test file. */
export async function startTestPostgres(): Promise<TestPostgres> {
  const given = process.env[TEST_DATABASE_URL_ENV];
  if (given !== undefined && given !== '') return onServer(given, async () => undefined);
  const cluster = await startCluster();
  return onServer(cluster.url, cluster.stop);
}

/** `url` with its connections' search_path set to `schema` only. */
export function schemaUrl(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.href;
}

function onServer(url: string, stopServer: () => Promise<void>): TestPostgres {
  const made: string[] = [];
  let schemas: Promise<{ url: string; client: pg.Client }> | undefined;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    async createDatabase() {
      const name = `inseam_test_${randomBytes(6).toString('hex')}`;
      await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`));
      made.push(name);
      return databaseUrl(url, name);
    },
    async createSchema() {
      schemas ??= this.createDatabase().then(async (database) => {
        const client = new pg.Client({ connectionString: database });
        await client.connect();
        return { url: database, client };
      });
      const { url: database, client } = await schemas;
      const schema = `s_${randomBytes(6).toString('hex')}`;
      await client.query(`CREATE SCHEMA ${schema}`);
      return schemaUrl(database, schema);
    },
    async stop() {
      try {
        if (schemas !== undefined) await (await schemas).client.end();
        if (made.length > 0) await admin(async (client) => {
          for (const name of made.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        });
      } finally {
        await stopServer();
      }
    },
  };
}

/** The folder of the newest PostgreSQL's programs, or null when none is installed. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const initdb = found.status === 0 ? found.stdout.trim() : '';
  return initdb === '' ? null : join(initdb, '..');
}

interface Cluster {
  readonly url: string;
  stop(): Promise<void>;
}

async function startCluster(): Promise<Cluster> {
  const bin = postgresBinDir();
  if (bin === null) {
    throw new Error(
      'PostgreSQL is not installed, and the store tests run against it: install it (Debian/Ubuntu: `apt-get install -y postgresql`), ' +
        `or set ${TEST_DATABASE_URL_ENV} to a server the tests may create databases on.`,
    );
  }
  const root = process.getuid?.() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'inseam-pg-'));
  const asServer = (program: string, args: readonly string[]): void => {
    const command = root ? 'runuser' : join(bin, program);
    const argv = root ? ['-u', 'postgres', '--', join(bin, program), ...args] : [...args];
    const result = spawnSync(command, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${program} failed (${result.status ?? result.signal}): ${(result.stderr || result.stdout || String(result.error ?? '')).trim()}`);
  };
  if (root) {
    const user = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (user.status !== 0 || group.status !== 0) throw new Error('The tests run as root, so PostgreSQL must run as user "postgres", which does not exist; install `postgresql` (it creates the user).');
    await chown(dir, Number(user.stdout), Number(group.stdout));
  }
  const data = join(dir, 'data');
  const stopNow = (): void => {
    spawnSync(root ? 'runuser' : join(bin, 'pg_ctl'), [...(root ? ['-u', 'postgres', '--', join(bin, 'pg_ctl')] : []), 'stop', '-D', data, '-m', 'immediate', '-s'], { stdio: 'ignore' });
  };
  // A test process that ends without stop() (a crash, a killed worker) leaves no server behind.
  const onExit = (): void => stopNow();
  try {
    asServer('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    process.once('exit', onExit);
    // The socket lives in the private folder, so the usual port number cannot clash with anything.
    const options = `-k ${dir} -p 5432 -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    asServer('pg_ctl', ['start', '-D', data, '-l', join(dir, 'server.log'), '-w', '-s', '-o', options]);
  } catch (error) {
    stopNow();
    process.off('exit', onExit);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgresql://postgres@localhost:5432/postgres?host=${encodeURIComponent(dir)}`,
    async stop() {
      process.off('exit', onExit);
      stopNow();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
