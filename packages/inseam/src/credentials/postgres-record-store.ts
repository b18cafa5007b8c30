/**
 * The record store on PostgreSQL, beside the platform store's tables in the same database, for
 * deployments where several processes share one database. It keeps the sealed bytes (`bytea`)
 * the credential store hands it — encryption is the credential store's, identical on every
 * record store — keyed like the SQLite one: `network: null` and an absent `ownerId` are the empty
 * string, which no valid network or owner id can be (see scope.ts).
 *
 * Its tables (prefixed `credential_`) are the `credentials` component in `inseam_migrations`,
 * applied under the migrations' advisory lock; a database whose credential schema is newer than
 * this code is refused (`invalid_config`, `schema_too_new`).
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { Migration } from '../store/index.js';
import { PostgresDb, attemptPostgres, createPostgresPool, migratePostgres, postgresStoreError } from '../store/index.js';
import type { CredentialRecordStore } from './record-store.js';
import type { CredentialScope } from './scope.js';
import { CREDENTIAL_SCHEMA_COMPONENT } from './sqlite-record-store.js';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE credential_records (
        network    text COLLATE "C" NOT NULL,
        owner      text   NOT NULL CHECK (owner IN ('project', 'user', 'agent')),
        owner_id   text COLLATE "C" NOT NULL,
        id         text COLLATE "C" NOT NULL,
        sealed     bytea  NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (network, owner, owner_id, id)
      );
      CREATE TABLE credential_meta (
        name  text  PRIMARY KEY,
        value bytea NOT NULL
      );
    `,
  },
];

/** The newest credential schema version this code writes on PostgreSQL. */
export const POSTGRES_CREDENTIAL_SCHEMA_VERSION = MIGRATIONS.length;

const KEY_CHECK = 'key_check';

function keyOf(scope: CredentialScope): [string, string, string] {
  return [scope.network ?? '', scope.owner, scope.ownerId ?? ''];
}

export class PostgresCredentialRecordStore implements CredentialRecordStore {
  readonly #db: PostgresDb;
  readonly #close: () => Promise<void>;

  private constructor(db: PostgresDb, close: () => Promise<void>) {
    this.#db = db;
    this.#close = close;
  }

  /**
   * Opens the store on the database of `target` — a PostgresStore (or one of its transactions),
   * whose handle it shares and never closes — or on a `postgres://` URL it connects to itself and
   * `close()` disconnects. Applies pending migrations. Throws `invalid_argument` for a URL that is
   * not postgres://, `invalid_config` when the credential schema is newer than this code,
   * `unavailable` when the database cannot be reached.
   */
  static async open(target: { readonly database: PostgresDb } | string): Promise<PostgresCredentialRecordStore> {
    let records: PostgresCredentialRecordStore;
    if (typeof target === 'string') {
      const pool = createPostgresPool(target);
      let closed = false;
      records = new PostgresCredentialRecordStore(PostgresDb.onPool(pool, () => closed), async () => {
        closed = true;
        await pool.end().catch(() => undefined);
      });
    } else if (typeof target === 'object' && target !== null && target.database instanceof PostgresDb) {
      records = new PostgresCredentialRecordStore(target.database, async () => undefined);
    } else {
      throw new InvalidArgumentError('Open the PostgreSQL credential store on a PostgresStore or a postgres:// URL.', { details: { argument: 'target' } });
    }
    try {
      await migratePostgres(records.#db, [{ component: CREDENTIAL_SCHEMA_COMPONENT, migrations: MIGRATIONS }]);
    } catch (error) {
      await records.close();
      throw postgresStoreError('be prepared', error);
    }
    return records;
  }

  /** Disconnects when this store connected from a URL; otherwise a no-op. */
  close(): Promise<void> {
    return this.#close();
  }

  get(scope: CredentialScope, id: string): Promise<Uint8Array | null> {
    return attemptPostgres('read the credentials', async () => {
      const row = await this.#db.one<{ sealed: Buffer }>('SELECT sealed FROM credential_records WHERE network = $1 AND owner = $2 AND owner_id = $3 AND id = $4', [...keyOf(scope), id]);
      return row === undefined ? null : new Uint8Array(row.sealed);
    });
  }

  put(scope: CredentialScope, id: string, sealed: Uint8Array): Promise<void> {
    return attemptPostgres('write the credentials', async () => {
      await this.#db.run(
        `INSERT INTO credential_records (network, owner, owner_id, id, sealed, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (network, owner, owner_id, id) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at`,
        [...keyOf(scope), id, Buffer.from(sealed), Date.now()],
      );
    });
  }

  delete(scope: CredentialScope, id: string): Promise<boolean> {
    return attemptPostgres('write the credentials', async () => (await this.#db.run('DELETE FROM credential_records WHERE network = $1 AND owner = $2 AND owner_id = $3 AND id = $4', [...keyOf(scope), id])) > 0);
  }

  list(scope: CredentialScope, prefix = ''): Promise<string[]> {
    return attemptPostgres('read the credentials', async () =>
      (await this.#db.query<{ id: string }>('SELECT id FROM credential_records WHERE network = $1 AND owner = $2 AND owner_id = $3 AND starts_with(id, $4) ORDER BY id', [...keyOf(scope), prefix])).map(
        (row) => row.id,
      ),
    );
  }

  keyCheck(candidate: Uint8Array): Promise<Uint8Array> {
    return attemptPostgres('read the credentials', () =>
      this.#db.transaction(async (db) => {
        // Two processes opening at once: the loser's insert waits for the winner's commit, then does nothing and reads the winner's check.
        await db.run('INSERT INTO credential_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [KEY_CHECK, Buffer.from(candidate)]);
        const row = await db.one<{ value: Buffer }>('SELECT value FROM credential_meta WHERE name = $1', [KEY_CHECK]);
        return new Uint8Array(row?.value ?? candidate);
      }),
    );
  }
}
