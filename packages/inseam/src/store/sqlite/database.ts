/**
 * Opening the embedded database: one file, WAL (readers never wait for the writer), and
 * `synchronous=NORMAL`, which in WAL mode loses no committed transaction when a process dies —
 * only an operating-system crash or power loss can drop the last few commits, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, linkSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { getLoadablePath } from 'sqlite-vec';
import { PermissionDeniedError, StoreDamagedError, UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';

export type SqliteDatabase = Database.Database;

export interface OpenDatabaseOptions {
  /** How long a write waits for another connection's write transaction before failing (ms). Default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens the database file at `path` — creating it (mode 0600) when missing — or an in-memory
 * database for `':memory:'`, and sets the store's pragmas. An existing file is never replaced
 * and never used when it cannot be trusted: empty, not a SQLite database, or failing SQLite's
 * `quick_check` → `store_damaged` (reasons `store_empty`, `store_not_a_database`,
 * `store_corrupt`), checked before anything is written to it. A file or data directory that
 * cannot be written → `permission_denied` (reason `store_read_only`). Those messages name the file
 * (or directory) and what to do: they go to the person who runs inseam on it. Any other failure
 * to open is `unavailable`, naming no path.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  if (path !== ':memory:') prepareFile(path);
  let db: SqliteDatabase;
  try {
    db = new Database(path);
  } catch (error) {
    throw openError(path, error);
  }
  try {
    loadVectorExtension(db);
    if (path !== ':memory:') quickCheck(db, path);
    configure(db, options, { extension: false });
  } catch (error) {
    db.close();
    throw isConnectorError(error) ? error : openError(path, error);
  }
  return db;
}

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** What is wrong with the file at `path` before SQLite opens it, or null (missing files are null). */
export function fileProblem(path: string): StoreDamagedError | PermissionDeniedError | null {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return damaged(path, 'store_not_a_database', 'is not a regular file');
    size = stat.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw openError(path, error);
  }
  if (size === 0) return damaged(path, 'store_empty', 'is empty (0 bytes), so it holds no hosts, catalog or tokens');
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw openError(path, error);
  }
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!header.equals(SQLITE_HEADER)) return damaged(path, 'store_not_a_database', 'is not a SQLite database');
  return null;
}

function damaged(path: string, reason: 'store_empty' | 'store_not_a_database' | 'store_corrupt', what: string): StoreDamagedError {
  return new StoreDamagedError(
    `The store file ${path} ${what}; inseam stopped without using it or creating anything over it. Restore it from a backup (see docs/store.md), or move it away to start an empty store. \`inseam store check\` reports what is wrong.`,
    { details: { reason } },
  );
}

// A database that needs restoring must not be written to: the check runs before the pragmas,
// which would switch the file to WAL, and before any migration.
function quickCheck(db: SqliteDatabase, path: string): void {
  const rows = db.pragma('quick_check(5)') as { quick_check: string }[];
  if (rows.length === 1 && rows[0]!.quick_check === 'ok') return;
  throw damaged(path, 'store_corrupt', `fails SQLite's integrity check (${rows.map((row) => row.quick_check).join('; ').slice(0, 300)})`);
}

/**
 * Refuses a damaged or unwritable existing file, and creates a missing one as a complete empty
 * database: made under a temporary name, then linked into place, so a crash never leaves an
 * empty `inseam.db` behind and two processes starting at once end with one file.
 */
function prepareFile(path: string): void {
  const problem = fileProblem(path);
  if (problem !== null) throw problem;
  const dir = dirname(path);
  if (existsSync(path)) {
    if (!writable(dir)) throw readOnly(dir, 'directory');
    if (!writable(path)) throw readOnly(path, 'file');
    return;
  }
  if (!writable(dir)) throw readOnly(dir, 'directory');
  const temporary = join(dir, `.${basename(path)}.creating-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    closeSync(openSync(temporary, 'wx', 0o600));
    const db = new Database(temporary);
    try {
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    try {
      linkSync(temporary, path);
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  } catch (error) {
    throw isConnectorError(error) ? error : openError(path, error);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') return false;
    throw error;
  }
}

function readOnly(path: string, what: 'directory' | 'file'): PermissionDeniedError {
  const message =
    what === 'directory'
      ? `The data directory ${path} is read-only for this process, so the store cannot be opened there (SQLite writes its journal beside the file). Make it writable, or choose another with --data.`
      : `The store file ${path} is read-only for this process. Make it writable by the user running inseam.`;
  return new PermissionDeniedError(message, { details: { reason: 'store_read_only' } });
}

/** An open failure: read-only when the directory or file cannot be written, damage when SQLite says so, else `unavailable`. */
function openError(path: string, error: unknown): Error {
  if (isConnectorError(error)) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || (typeof code === 'string' && code.startsWith('SQLITE_READONLY'))) {
    const dir = dirname(path);
    if (existsSync(dir) && !writable(dir)) return readOnly(dir, 'directory');
    if (existsSync(path) && !writable(path)) return readOnly(path, 'file');
  }
  if (code === 'SQLITE_NOTADB') return damaged(path, 'store_not_a_database', 'is not a SQLite database');
  if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT')) return damaged(path, 'store_corrupt', `fails SQLite's integrity check (${code})`);
  return storeError('be opened', error);
}

/**
 * Sets the store's pragmas on a connection someone else opened (the credential store's, say), and
 * loads sqlite-vec: the vector index's tables are vec0 tables, and a catalog delete reaches them
 * through triggers, so every connection to the file needs the module. Its prebuilt binary comes
 * from the platform package npm installed beside it (sqlite-vec-linux-x64, …); a platform without
 * one cannot open the store (`unavailable`, reason `vector_extension_missing`).
 */
export function configure(db: SqliteDatabase, options: OpenDatabaseOptions = {}, { extension = true }: { readonly extension?: boolean } = {}): void {
  if (extension) loadVectorExtension(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  db.pragma('foreign_keys = ON');
}

export function loadVectorExtension(db: SqliteDatabase): void {
  try {
    db.loadExtension(getLoadablePath());
  } catch (cause) {
    throw new UnavailableError(`The SQLite vector extension (npm package sqlite-vec) cannot be loaded on ${process.platform}-${process.arch}; reinstall inseam, or use a PostgreSQL store.`, {
      cause,
      details: { reason: 'vector_extension_missing' },
    });
  }
}

// Entries, content and tokens are private: the file (and SQLite's -wal and -shm files, which take
// the database file's mode) is created readable by its owner only (prepareFile).

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
  if (code === 'SQLITE_NOTADB' || code?.startsWith('SQLITE_CORRUPT') === true) {
    return new StoreDamagedError(`The inseam database is damaged (${code}); stop inseam, run \`inseam store check\`, and restore the store from a backup (docs/store.md).`, {
      cause: error,
      details: { reason: 'store_corrupt', sqlite: code },
    });
  }
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

