/**
 * The embedded record store: better-sqlite3 with the platform store's connection settings (WAL,
 * `synchronous=NORMAL`, a busy timeout; see store/sqlite/database.ts) and its per-component
 * migration table, so the credential tables (prefixed `credential_`) live in the platform's
 * database file beside its own. The `credentials` component's migrations run once each, inside an
 * immediate transaction; a database whose credential schema is newer than this code is refused
 * (`invalid_config`, `schema_too_new`) rather than misread.
 *
 * `network: null` and an absent `ownerId` are stored as the empty string, which no valid
 * network or owner id can be (see scope.ts).
 */
import type Database from 'better-sqlite3';
import { UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import { configure, migrate, openDatabase } from '../store/index.js';
import type { Migration } from '../store/index.js';
import type { CredentialRecordStore } from './record-store.js';
import type { CredentialScope } from './scope.js';

/** The schema component name in the shared `schema_migrations` table. */
export const CREDENTIAL_SCHEMA_COMPONENT = 'credentials';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE credential_records (
        network    TEXT    NOT NULL,
        owner      TEXT    NOT NULL CHECK (owner IN ('project', 'user', 'agent')),
        owner_id   TEXT    NOT NULL,
        id         TEXT    NOT NULL,
        sealed     BLOB    NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (network, owner, owner_id, id)
      ) WITHOUT ROWID;
      CREATE TABLE credential_meta (
        name  TEXT PRIMARY KEY,
        value BLOB NOT NULL
      ) WITHOUT ROWID;
    `,
  },
];

/** The newest credential schema version this code writes. */
export const CREDENTIAL_SCHEMA_VERSION = MIGRATIONS.length;

const KEY_CHECK = 'key_check';

type Row = readonly [string, string, string];

function keyOf(scope: CredentialScope): Row {
  return [scope.network ?? '', scope.owner, scope.ownerId ?? ''];
}

function storeError(action: string, error: unknown): Error {
  if (isConnectorError(error)) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'error';
  return new UnavailableError(`The credential database could not ${action} (${code}); check the database file and retry.`, { details: { reason: 'store_unavailable', sqlite: code } });
}

export class SqliteCredentialRecordStore implements CredentialRecordStore {
  readonly #db: Database.Database;
  readonly #owned: boolean;

  private constructor(db: Database.Database, owned: boolean) {
    this.#db = db;
    this.#owned = owned;
  }

  /**
   * Opens the store in `database` — a `better-sqlite3` instance the caller owns (and closes), or
   * a file path this store opens (created with mode 0600) and `close()` closes. Applies the
   * platform's connection settings and pending migrations. Throws `invalid_config` when the
   * credential schema is newer than this code, `unavailable` when the file cannot be opened.
   */
  static open(database: Database.Database | string): SqliteCredentialRecordStore {
    const owned = typeof database === 'string';
    const db = owned ? openDatabase(database) : database;
    try {
      if (!owned) configure(db);
      migrate(db, [{ component: CREDENTIAL_SCHEMA_COMPONENT, migrations: MIGRATIONS }]);
    } catch (error) {
      if (owned) db.close();
      throw storeError('be prepared', error);
    }
    return new SqliteCredentialRecordStore(db, owned);
  }

  /** Closes the database when this store opened it from a path; otherwise a no-op. */
  close(): void {
    if (this.#owned && this.#db.open) this.#db.close();
  }

  get(scope: CredentialScope, id: string): Promise<Uint8Array | null> {
    return this.#run('be read', () => {
      const row = this.#db
        .prepare<[string, string, string, string], { sealed: Buffer }>('SELECT sealed FROM credential_records WHERE network = ? AND owner = ? AND owner_id = ? AND id = ?')
        .get(...keyOf(scope), id);
      return row === undefined ? null : new Uint8Array(row.sealed);
    });
  }

  put(scope: CredentialScope, id: string, sealed: Uint8Array): Promise<void> {
    return this.#run('be written', () => {
      const now = Date.now();
      this.#db.transaction(() => {
        this.#db
          .prepare(
            `INSERT INTO credential_records (network, owner, owner_id, id, sealed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (network, owner, owner_id, id) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
          )
          .run(...keyOf(scope), id, Buffer.from(sealed), now, now);
      })();
    });
  }

  delete(scope: CredentialScope, id: string): Promise<boolean> {
    return this.#run('be written', () =>
      this.#db.transaction(() => this.#db.prepare('DELETE FROM credential_records WHERE network = ? AND owner = ? AND owner_id = ? AND id = ?').run(...keyOf(scope), id).changes > 0)(),
    );
  }

  list(scope: CredentialScope, prefix = ''): Promise<string[]> {
    return this.#run('be read', () =>
      this.#db
        .prepare<[string, string, string, string, string], { id: string }>(
          'SELECT id FROM credential_records WHERE network = ? AND owner = ? AND owner_id = ? AND substr(id, 1, length(?)) = ? ORDER BY id',
        )
        .all(...keyOf(scope), prefix, prefix)
        .map((row) => row.id),
    );
  }

  keyCheck(candidate: Uint8Array): Promise<Uint8Array> {
    return this.#run('be read', () =>
      this.#db.transaction(() => {
        this.#db.prepare('INSERT INTO credential_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(KEY_CHECK, Buffer.from(candidate));
        const row = this.#db.prepare<[string], { value: Buffer }>('SELECT value FROM credential_meta WHERE name = ?').get(KEY_CHECK);
        return new Uint8Array(row?.value ?? candidate);
      }).immediate(),
    );
  }

  #run<T>(action: string, work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(storeError(action, error));
    }
  }
}
