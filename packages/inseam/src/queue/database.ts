/**
 * The queue's connection to PostgreSQL: one pool, shared by pg-boss and the queue's own tables,
 * and transactions whose client pg-boss sends, fetches and completes through (its `db` option),
 * so a job commits together with the state change that causes it.
 *
 * Errors: as the PostgreSQL store's — a failed statement rejects with `unavailable`
 * (`details.postgres` is the SQLSTATE, or the socket error's code); no message names the URL,
 * which may hold a password.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type pg from 'pg';
import { createPostgresPool, postgresStoreError } from '../store/index.js';

/**
 * One statement at a time, as pg-boss's `db` option takes it. A PostgresStore transaction
 * (`store.transaction((tx) => …)`) is one, so jobs can commit with the store's writes.
 */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The rows of a result as records (what a SELECT answers). */
export function rowsOf(result: { readonly rows: readonly unknown[] }): Record<string, unknown>[] {
  return result.rows as Record<string, unknown>[];
}

export interface QueueDatabaseOptions {
  /** `postgres://…` or `postgresql://…`. */
  readonly url: string;
  /** Connections in the pool. Default 10. */
  readonly max?: number;
}

const DEADLOCK_ATTEMPTS = 3;

/**
 * A deadlock victim (40P01), as the driver threw it or wrapped as `unavailable`: the other
 * transaction went through, so this one can simply run again.
 */
export function isDeadlock(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, details } = error as { code?: unknown; details?: { postgres?: unknown } };
  return code === '40P01' || (code === 'unavailable' && details?.postgres === '40P01');
}

function executorOf(client: pg.PoolClient | pg.Pool): SqlExecutor {
  return {
    executeSql: async (text, values) => {
      const result = await client.query(text, values);
      return { rows: result.rows as unknown[] };
    },
  };
}

export class QueueDatabase implements SqlExecutor {
  readonly #pool: pg.Pool;
  readonly #executor: SqlExecutor;
  /**
   * The pool as pg-boss's `db`: its errors unchanged, since pg-boss recognises some of them (a
   * schema another process created first) by their message.
   */
  readonly raw: SqlExecutor;
  #closed = false;

  /** Throws `invalid_argument` for a URL that is not postgres:// or postgresql:// (never repeating it). Connects lazily. */
  constructor(options: QueueDatabaseOptions) {
    this.#pool = createPostgresPool(options.url, { maxConnections: options.max ?? 10 });
    this.#executor = executorOf(this.#pool);
    this.raw = this.#executor;
  }

  /** Runs one statement (pg-boss's executor shape). Rejects with `unavailable`. */
  async executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> {
    try {
      return await this.#executor.executeSql(text, values);
    } catch (error) {
      throw postgresStoreError('run a statement', error);
    }
  }

  /** The rows of one statement. Rejects with `unavailable`. */
  async query<Row extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]> {
    return rowsOf(await this.executeSql(text, values)) as Row[];
  }

  /**
   * Runs `work` in one transaction on one connection: commits when it resolves, rolls back when
   * it throws (rethrowing its error; a database failure becomes `unavailable`). A transaction the
   * server picked as a deadlock's victim is run again, up to three times in all, so `work` must
   * do nothing but its statements (or start afresh each time it is called).
   */
  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once(work);
      } catch (error) {
        if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(error)) throw postgresStoreError('commit a transaction', error);
        await delay(attempt * 20 + Math.random() * 50);
      }
    }
  }

  async #once<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw postgresStoreError('connect', error);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(executorOf(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Runs `work` holding a session advisory lock named `name`, so one process at a time does it
   * (across machines). Rejects with `unavailable` when the lock cannot be taken.
   */
  async withAdvisoryLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    } catch (error) {
      throw postgresStoreError('take a lock', error);
    }
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).then(
        () => client.release(),
        () => client.release(true),
      );
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
