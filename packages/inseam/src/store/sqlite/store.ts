/**
 * The embedded store: one SQLite file holding every component's tables.
 *
 * Sharing the file with the credential store: `SqliteStore.open({ path })` opens the connection
 * and `store.database` hands it to `SqliteCredentialRecordStore.open(store.database)`, which
 * keeps its own `credential_*` tables and its own migration table beside `schema_migrations`.
 * One connection serves both (better-sqlite3 is synchronous, so their transactions never
 * interleave); a second process may open the same file, WAL lets readers and one writer share it.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { Store } from '../types.js';
import { SqliteCatalogStore } from './catalog.js';
import { configure, openDatabase, storeError, type OpenDatabaseOptions, type SqliteDatabase } from './database.js';
import { SqliteDetachedRunStore } from './detached-runs.js';
import { SqlitePackageStore } from './packages.js';
import { migrate, type SchemaComponent } from './migrations.js';
import { SqliteHostStore, SqliteNetworkStore } from './networks.js';
import { STORE_SCHEMA } from './schema.js';
import { SqliteSessionStore } from './sessions.js';
import { SqliteTokenStore } from './tokens.js';
import { SqliteTrialStore } from './trials.js';
import { SqliteSyncHistoryStore } from './sync-history.js';
import { SqliteHostMemoStore } from './host-memos.js';
import { SqliteVectorStore } from './vectors.js';
import { SqliteWebhookKeyStore } from './webhook-keys.js';

export interface SqliteStoreOptions extends OpenDatabaseOptions {
  /** The database file (created with mode 0600 when missing), or `':memory:'`. */
  readonly path?: string;
  /** A connection the caller opened and will close; the store sets its pragmas and migrates it. */
  readonly database?: SqliteDatabase;
  /** Further components to migrate in the same file, after the store's own. */
  readonly components?: readonly SchemaComponent[];
}

export class SqliteStore implements Store {
  readonly database: SqliteDatabase;
  readonly networks: SqliteNetworkStore;
  readonly packages: SqlitePackageStore;
  readonly hosts: SqliteHostStore;
  readonly webhookKeys: SqliteWebhookKeyStore;
  readonly catalog: SqliteCatalogStore;
  readonly trials: SqliteTrialStore;
  readonly detachedRuns: SqliteDetachedRunStore;
  readonly tokens: SqliteTokenStore;
  readonly vectors: SqliteVectorStore;
  readonly sessions: SqliteSessionStore;
  readonly syncHistory: SqliteSyncHistoryStore;
  readonly hostMemos: SqliteHostMemoStore;
  readonly #owned: boolean;

  private constructor(database: SqliteDatabase, owned: boolean) {
    this.database = database;
    this.#owned = owned;
    this.networks = new SqliteNetworkStore(database);
    this.packages = new SqlitePackageStore(database);
    this.hosts = new SqliteHostStore(database);
    this.webhookKeys = new SqliteWebhookKeyStore(database);
    this.catalog = new SqliteCatalogStore(database);
    this.trials = new SqliteTrialStore(database);
    this.detachedRuns = new SqliteDetachedRunStore(database);
    this.tokens = new SqliteTokenStore(database);
    this.vectors = new SqliteVectorStore(database);
    this.sessions = new SqliteSessionStore(database);
    this.syncHistory = new SqliteSyncHistoryStore(database);
    this.hostMemos = new SqliteHostMemoStore(database);
  }

  /**
   * Opens the store on `path` or on `database` (exactly one), applying pending migrations.
   * Throws `invalid_argument` when both or neither is given, `invalid_config` when the file's
   * schema is newer than this code, `unavailable` when it cannot be opened or migrated.
   */
  static open(options: SqliteStoreOptions): SqliteStore {
    if ((options.path === undefined) === (options.database === undefined)) {
      throw new InvalidArgumentError('Open the store with either a database file path or an open connection, not both and not neither.');
    }
    const owned = options.database === undefined;
    const db = options.database ?? openDatabase(options.path!, options);
    try {
      if (!owned) configure(db, options);
      migrate(db, [...STORE_SCHEMA, ...(options.components ?? [])]);
    } catch (error) {
      if (owned) db.close();
      throw storeError('be prepared', error);
    }
    return new SqliteStore(db, owned);
  }

  /** Closes the connection when the store opened it; a connection handed in stays open. */
  close(): Promise<void> {
    if (this.#owned && this.database.open) this.database.close();
    return Promise.resolve();
  }
}
