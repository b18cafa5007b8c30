/**
 * The store on PostgreSQL, for deployments where several processes (the server, workers on other
 * machines) share one database. Same interface and behaviour as the embedded SQLite store; see
 * docs/store.md for what differs (ranking, a few limits of PostgreSQL's text search).
 *
 * Sharing the database with other parts: `store.database` is the store's handle (its pool); the
 * credential record store and the connector module store open on it and keep their own tables and
 * their own components in `inseam_migrations`. `store.transaction(work)` runs several operations,
 * and statements of the caller's own (a job queue's insert, through `executeSql`), in one
 * transaction.
 */
import type pg from 'pg';
import type { SchemaComponent } from '../sqlite/migrations.js';
import type { SyncHistoryStore } from '../sync-history-types.js';
import type { HostMemoStore } from '../host-memo-types.js';
import type { CatalogStore, DetachedRunStore, HostStore, NetworkStore, PackageStore, SessionStore, Store, TokenStore, TrialStore, WebhookKeyStore } from '../types.js';
import type { VectorStore } from '../vector-types.js';
import { PostgresCatalogStore } from './catalog.js';
import { Db, attempt, createPool, storeError, type PostgresPoolOptions } from './database.js';
import { PostgresDetachedRunStore } from './detached-runs.js';
import { migrate } from './migrations.js';
import { PostgresHostStore, PostgresNetworkStore } from './networks.js';
import { PostgresPackageStore } from './packages.js';
import { POSTGRES_STORE_SCHEMA } from './schema.js';
import { PostgresSessionStore } from './sessions.js';
import { PostgresTokenStore } from './tokens.js';
import { PostgresTrialStore } from './trials.js';
import { PostgresVectorStore } from './vectors.js';
import { PostgresSyncHistoryStore } from './sync-history.js';
import { PostgresHostMemoStore } from './host-memos.js';
import { PostgresWebhookKeyStore } from './webhook-keys.js';

export interface PostgresStoreOptions extends PostgresPoolOptions {
  /** `postgres://user:password@host:port/database` (node-postgres connection string, `?host=/socket/dir` included). */
  readonly url: string;
  /** Further components to migrate in the same database, after the store's own. */
  readonly components?: readonly SchemaComponent[];
}

/** The store's parts bound to one open transaction (see PostgresStore.transaction). */
export interface PostgresStoreTransaction extends Omit<Store, 'close'> {
  /** The transaction's handle, for a part that opens on a Db (credential records, modules). */
  readonly database: Db;
  /**
   * Runs one statement of the caller's in the transaction — the shape pg-boss takes as its `db`
   * option, so a job it inserts commits or rolls back with the store's writes.
   */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

function parts(db: Db): Omit<Store, 'close'> {
  return {
    networks: new PostgresNetworkStore(db),
    packages: new PostgresPackageStore(db),
    hosts: new PostgresHostStore(db),
    webhookKeys: new PostgresWebhookKeyStore(db),
    catalog: new PostgresCatalogStore(db),
    trials: new PostgresTrialStore(db),
    detachedRuns: new PostgresDetachedRunStore(db),
    tokens: new PostgresTokenStore(db),
    vectors: new PostgresVectorStore(db),
    sessions: new PostgresSessionStore(db),
    syncHistory: new PostgresSyncHistoryStore(db),
    hostMemos: new PostgresHostMemoStore(db),
  };
}

export class PostgresStore implements Store {
  readonly pool: pg.Pool;
  readonly database: Db;
  readonly networks: NetworkStore;
  readonly packages: PackageStore;
  readonly hosts: HostStore;
  readonly webhookKeys: WebhookKeyStore;
  readonly catalog: CatalogStore;
  readonly trials: TrialStore;
  readonly detachedRuns: DetachedRunStore;
  readonly tokens: TokenStore;
  readonly vectors: VectorStore;
  readonly sessions: SessionStore;
  readonly syncHistory: SyncHistoryStore;
  readonly hostMemos: HostMemoStore;
  #closed = false;
  #closing: Promise<void> | undefined;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
    this.database = Db.onPool(pool, () => this.#closed);
    ({ networks: this.networks, packages: this.packages, hosts: this.hosts, webhookKeys: this.webhookKeys, catalog: this.catalog, trials: this.trials, detachedRuns: this.detachedRuns, tokens: this.tokens, vectors: this.vectors, sessions: this.sessions, syncHistory: this.syncHistory, hostMemos: this.hostMemos } = parts(this.database));
  }

  /**
   * Connects to the database at `url` and applies pending migrations (one process at a time,
   * under an advisory lock). Throws `invalid_argument` for a URL that is not postgres://,
   * `invalid_config` when the database's schema is newer than this code, `unavailable` when the
   * server cannot be reached or refuses (`details.postgres`: the SQLSTATE or socket error code).
   * No message repeats the URL.
   */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const store = new PostgresStore(createPool(options.url, options));
    try {
      await migrate(store.database, [...POSTGRES_STORE_SCHEMA, ...(options.components ?? [])]);
    } catch (error) {
      await store.close();
      throw storeError('be prepared', error);
    }
    return store;
  }

  /**
   * Runs `work` in one transaction: everything it does through `tx` commits together when it
   * resolves and is rolled back when it rejects, with what it rejected with (a database error as
   * `unavailable`). Operations on `tx` run one at a time: await each before the next. A failing
   * store operation that `work` catches leaves the transaction usable (it ran under a savepoint).
   */
  transaction<T>(work: (tx: PostgresStoreTransaction) => Promise<T>): Promise<T> {
    return attempt('run the transaction', () =>
      this.database.transaction(async (db) => {
        const client = db.client!;
        return work({ ...parts(db), database: db, executeSql: async (text, values) => ({ rows: (await client.query(text, values)).rows }) });
      }),
    );
  }

  /** Closes the pool once its connections are idle. Calls after it reject with `unavailable`. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.pool.end().catch(() => undefined);
    return this.#closing;
  }
}
