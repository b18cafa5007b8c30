/**
 * Opening the embedded database: one file, WAL (readers never wait for the writer), and
 * `synchronous=NORMAL`, which in WAL mode loses no committed transaction when a process dies —
 * only an operating-system crash or power loss can drop the last few commits, never half of one.
 */
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { getLoadablePath } from 'sqlite-vec';
import { UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';

export type SqliteDatabase = Database.Database;

export interface OpenDatabaseOptions {
  /** How long a write waits for another connection's write transaction before failing (ms). Default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens (creating when missing, mode 0600) the database file at `path`, or an in-memory database
 * for `':memory:'`, and sets the store's pragmas. Throws `unavailable` when it cannot be opened;
 * the message never names the path.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  if (path !== ':memory:') createPrivately(path);
  let db: SqliteDatabase;
  try {
    db = new Database(path);
  } catch (error) {
    throw storeError('be opened', error);
  }
  try {
    configure(db, options);
  } catch (error) {
    db.close();
    throw storeError('be prepared', error);
  }
  return db;
}

/**
 * Sets the store's pragmas on a connection someone else opened (the credential store's, say), and
 * loads sqlite-vec: the vector index's tables are vec0 tables, and a catalog delete reaches them
 * through triggers, so every connection to the file needs the module. Its prebuilt binary comes
 * from the platform package npm installed beside it (sqlite-vec-linux-x64, …); a platform without
 * one cannot open the store (`unavailable`, reason `vector_extension_missing`).
 */
export function configure(db: SqliteDatabase, options: OpenDatabaseOptions = {}): void {
  loadVectorExtension(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  db.pragma('foreign_keys = ON');
}

function loadVectorExtension(db: SqliteDatabase): void {
  try {
    db.loadExtension(getLoadablePath());
  } catch (cause) {
    throw new UnavailableError(`The SQLite vector extension (npm package sqlite-vec) cannot be loaded on ${process.platform}-${process.arch}; reinstall inseam, or use a PostgreSQL store.`, {
      cause,
      details: { reason: 'vector_extension_missing' },
    });
  }
}

// Entries, content and tokens are private; the file (and SQLite's -wal and -shm files, which take
// the database file's mode) is readable by its owner only.
function createPrivately(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw storeError('be created', error);
  }
}

/**
 * Wraps a driver error as `unavailable`, keeping typed errors as they are. The message names the
 * action and the driver's code, never a path or a stored value. Anything that is not the
 * database's failure (a bug) is returned unchanged.
 */
export function storeError(action: string, error: unknown): Error {
  if (isConnectorError(error)) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const closed = error instanceof TypeError && /connection is not open/.test(error.message);
  if (code === undefined && !closed) return error instanceof Error ? error : new Error(String(error));
  return new UnavailableError(`The inseam database could not ${action} (${code ?? 'closed'}); check the database file and retry.`, {
    cause: error,
    details: { reason: 'store_unavailable', sqlite: code ?? 'closed' },
  });
}

/** True for a uniqueness or primary-key violation. */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const MAX_CACHED_STATEMENTS = 256;
const statementCaches = new WeakMap<SqliteDatabase, Map<string, Database.Statement>>();

/**
 * `db.prepare` that compiles each SQL text once per connection and hands back the same statement
 * after: preparing costs more than running a one-row lookup, and every call made one before. The
 * stores only bind and run statements (`get`, `all`, `run`; never `iterate`, `pluck`, `raw` or
 * `expand`), so a shared statement carries nothing from one use to the next. SQL built at run time
 * (a host update's column list) is cached too; the least recently used beyond 256 are dropped.
 * A statement of a closed connection throws as `db.prepare` would.
 */
export function cachedPrepare(db: SqliteDatabase): SqliteDatabase['prepare'] {
  let statements = statementCaches.get(db);
  if (statements === undefined) {
    statements = new Map();
    statementCaches.set(db, statements);
  }
  const cache = statements;
  return ((source: string) => {
    let statement = cache.get(source);
    if (statement !== undefined) {
      cache.delete(source);
    } else {
      statement = db.prepare(source);
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
    }
    cache.set(source, statement);
    return statement;
  }) as SqliteDatabase['prepare'];
}

/** Runs synchronous driver work as a promise, wrapping what it throws with `storeError`. */
export function attempt<T>(action: string, work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(storeError(action, error));
  }
}

