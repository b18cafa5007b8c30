/**
 * Connections to PostgreSQL: one `pg` Pool per store, and `Db`, the one way the store's parts run
 * SQL — on the pool (each call its own transaction) or inside a transaction (each call then runs
 * under a savepoint, so a statement a part expects to fail, a unique violation turned into
 * `already_exists`, does not abort the caller's transaction).
 *
 * 64-bit integers (ids, times in ms, counts) come back as JS numbers: every value the store
 * writes is below 2^53. The parser is set on this pool only, never on `pg`'s global types, so
 * other users of `pg` in the process (pg-boss) keep theirs.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import { InvalidArgumentError, UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import { isPostgresUrl } from './url.js';

const INT8_OID = 20;

const requireModule = createRequire(import.meta.url);
let pgLoaded: typeof pg | undefined;

/** `pg`, loaded with the first pool: a process on the embedded store never pays for it. */
function pgModule(): typeof pg {
  pgLoaded ??= requireModule('pg') as typeof pg;
  return pgLoaded;
}

const STORE_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : pgModule().types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresPoolOptions {
  /** Most connections the pool opens. Default 10. */
  readonly maxConnections?: number;
  /** How long opening a connection may take before the call fails `unavailable` (ms). Default 10000. */
  readonly connectTimeoutMs?: number;
}

export { isPostgresUrl };

/**
 * A pool on `url`. Throws `invalid_argument` when the URL is not a PostgreSQL URL; the message
 * never repeats the URL, which may carry a password. Connecting happens at the first query.
 */
export function createPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  if (!isPostgresUrl(url)) {
    throw new InvalidArgumentError('A PostgreSQL store URL starts with postgres:// or postgresql://.', { details: { argument: 'store', reason: 'store_url' } });
  }
  let pool: pg.Pool;
  try {
    pool = new (pgModule().Pool)({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      application_name: 'inseam',
      types: STORE_TYPES,
    });
  } catch (error) {
    throw new InvalidArgumentError('The PostgreSQL store URL could not be read; check its form (postgres://user:password@host:port/database).', {
      cause: error,
      details: { argument: 'store', reason: 'store_url' },
    });
  }
  // An idle connection the server closes is dropped by the pool and replaced at the next query;
  // without a listener its error would end the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Wraps a driver error as `unavailable`, keeping typed errors as they are. The message names the
 * action and the SQLSTATE (or the socket error code), never the URL or a stored value; anything
 * without a code (a bug) is returned unchanged.
 */
export function storeError(action: string, error: unknown): Error {
  if (isConnectorError(error)) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const closed = error instanceof Error && /pool after calling end|Client was closed|Connection terminated/i.test(error.message);
  if (code === undefined && !closed) return error instanceof Error ? error : new Error(String(error));
  return new UnavailableError(`The inseam database could not ${action} (${code ?? 'closed'}); check that PostgreSQL is running and the store URL, and retry.`, {
    cause: error,
    details: { reason: 'store_unavailable', postgres: code ?? 'closed' },
  });
}

/** The error a closed store answers with. */
function closedError(): UnavailableError {
  return new UnavailableError('The inseam database is closed.', { details: { reason: 'store_unavailable', postgres: 'closed' } });
}

function sqlState(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/** True for a uniqueness violation (23505). */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === '23505';
}

/** What runs SQL: the pool, or the pooled client of a transaction. */
type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * The store's handle on the database. `query` runs one statement; `transaction` runs `work` in
 * a transaction (a savepoint when this Db is already inside one) and commits when it resolves.
 */
export class Db {
  readonly #pool: pg.Pool | null;
  readonly #client: pg.PoolClient | null;
  readonly #isClosed: () => boolean;
  #savepoints = 0;

  private constructor(pool: pg.Pool | null, client: pg.PoolClient | null, isClosed: () => boolean) {
    this.#pool = pool;
    this.#client = client;
    this.#isClosed = isClosed;
  }

  /** A Db on a pool; `isClosed` tells when the owner closed the store. */
  static onPool(pool: pg.Pool, isClosed: () => boolean): Db {
    return new Db(pool, null, isClosed);
  }

  /** Rows of one statement. Driver errors are thrown as they are; callers wrap them (see `attempt`). */
  async query<R extends object>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    return (await this.#queryable().query<R>(text, values as unknown[])).rows;
  }

  /** How many rows one statement changed. */
  async run(text: string, values: readonly unknown[] = []): Promise<number> {
    return (await this.#queryable().query(text, values as unknown[])).rowCount ?? 0;
  }

  /** The first row, or undefined. */
  async one<R extends object>(text: string, values: readonly unknown[] = []): Promise<R | undefined> {
    return (await this.query<R>(text, values))[0];
  }

  /**
   * Runs `work` in a transaction, committing when it resolves and rolling back when it rejects.
   * Inside a transaction already, `work` runs under a savepoint instead.
   */
  async transaction<T>(work: (db: Db) => Promise<T>): Promise<T> {
    if (this.#isClosed()) throw closedError();
    if (this.#client !== null) return this.#savepoint(work);
    const client = await this.#pool!.connect();
    const inner = new Db(null, client, this.#isClosed);
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(inner);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        // A connection that cannot roll back is not given back to the pool.
        broken = true;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Runs `work` so that a statement failing in it leaves the caller's transaction usable: under a
   * savepoint inside a transaction, directly (each statement committing on its own) on the pool.
   * For single statements whose failure a part turns into a typed error.
   */
  isolated<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.#client === null ? work(this) : this.#savepoint(work);
  }

  async #savepoint<T>(work: (db: Db) => Promise<T>): Promise<T> {
    const name = `inseam_${++this.#savepoints}`;
    await this.#client!.query(`SAVEPOINT ${name}`);
    try {
      const result = await work(this);
      await this.#client!.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await this.#client!.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  #queryable(): Queryable {
    if (this.#isClosed()) throw closedError();
    return this.#client ?? this.#pool!;
  }

  /** The client of this transaction, for a caller that runs its own statements in it (pg-boss's `db`). */
  get client(): pg.PoolClient | null {
    return this.#client;
  }
}

/** Runs `work`, wrapping what it throws with `storeError(action, …)`. */
export async function attempt<T>(action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeError(action, error);
  }
}

