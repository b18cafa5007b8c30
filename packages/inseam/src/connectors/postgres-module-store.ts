/**
 * Submitted connector modules in the shared PostgreSQL database, so that a worker on any machine
 * loads a sandboxed module's text from where the server stored it. Same behaviour as the disk
 * store (module-store.ts): a module and its submission record are written once and never change,
 * trials are rows of their own, the installation is written once its kind is installed.
 *
 * Its tables are the `connector-modules` component in `inseam_migrations`, applied at the first
 * use (the lifecycle constructs its module store synchronously).
 */
import { UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import { migratePostgres, type Migration, type PostgresDb } from '../store/index.js';
import { checkSha, notSubmitted, resolveModuleSha, type ConnectorModuleStore, type Installation, type Submission, moduleSha } from './module-store.js';

export const MODULE_SCHEMA_COMPONENT = 'connector-modules';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE connector_modules (
        sha          text COLLATE "C" PRIMARY KEY,
        source       text NOT NULL,
        submission   text NOT NULL,
        installation text
      );
      CREATE TABLE connector_module_trials (
        sha      text NOT NULL,
        trial_id text NOT NULL,
        PRIMARY KEY (sha, trial_id)
      );
    `,
  },
];

export class PostgresModuleStore implements ConnectorModuleStore {
  readonly #db: PostgresDb;
  #ready: Promise<void> | undefined;

  /** A module store in the database of `store` (a PostgresStore), sharing its connections. */
  constructor(store: { readonly database: PostgresDb }) {
    this.#db = store.database;
  }

  put(source: string, submission: Omit<Submission, 'sha' | 'bytes'>): Promise<{ readonly submission: Submission; readonly created: boolean }> {
    const sha = moduleSha(source);
    const record: Submission = { sha, ...submission, bytes: Buffer.byteLength(source, 'utf8') };
    return this.#use(async (db) => {
      const inserted = await db.run('INSERT INTO connector_modules (sha, source, submission) VALUES ($1, $2, $3) ON CONFLICT (sha) DO NOTHING', [sha, source, JSON.stringify(record)]);
      if (inserted === 1) return { submission: record, created: true };
      return { submission: (await this.#submission(db, sha))!, created: false };
    });
  }

  async submission(sha: string): Promise<Submission | null> {
    checkSha(sha);
    return this.#use((db) => this.#submission(db, sha));
  }

  async source(sha: string): Promise<string> {
    checkSha(sha);
    return this.#use(async (db) => {
      const row = await db.one<{ source: string }>('SELECT source FROM connector_modules WHERE sha = $1', [sha]);
      if (row === undefined) throw notSubmitted(sha);
      return row.source;
    });
  }

  async addTrial(sha: string, trialId: string): Promise<void> {
    checkSha(sha);
    return this.#use(async (db) => {
      await db.run('INSERT INTO connector_module_trials (sha, trial_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [sha, trialId]);
    });
  }

  async removeTrial(sha: string, trialId: string): Promise<void> {
    checkSha(sha);
    return this.#use(async (db) => {
      await db.run('DELETE FROM connector_module_trials WHERE sha = $1 AND trial_id = $2', [sha, trialId]);
    });
  }

  async trialIds(sha: string): Promise<string[]> {
    checkSha(sha);
    return this.#use(async (db) => (await db.query<{ trial_id: string }>('SELECT trial_id FROM connector_module_trials WHERE sha = $1 ORDER BY trial_id', [sha])).map((row) => row.trial_id));
  }

  async installation(sha: string): Promise<Installation | null> {
    checkSha(sha);
    return this.#use(async (db) => {
      const row = await db.one<{ installation: string | null }>('SELECT installation FROM connector_modules WHERE sha = $1', [sha]);
      return row?.installation == null ? null : (JSON.parse(row.installation) as Installation);
    });
  }

  /** Records the installation of a submitted module. Throws `not_found` for one never submitted. */
  async install(record: Installation): Promise<void> {
    checkSha(record.sha);
    return this.#use(async (db) => {
      if ((await db.run('UPDATE connector_modules SET installation = $2 WHERE sha = $1', [record.sha, JSON.stringify(record)])) === 0) throw notSubmitted(record.sha);
    });
  }

  list(): Promise<string[]> {
    return this.#use(async (db) => (await db.query<{ sha: string }>('SELECT sha FROM connector_modules ORDER BY sha')).map((row) => row.sha));
  }

  resolve(text: string): Promise<string> {
    return resolveModuleSha(this, text);
  }

  async #submission(db: PostgresDb, sha: string): Promise<Submission | null> {
    const row = await db.one<{ submission: string }>('SELECT submission FROM connector_modules WHERE sha = $1', [sha]);
    return row === undefined ? null : (JSON.parse(row.submission) as Submission);
  }

  async #use<T>(work: (db: PostgresDb) => Promise<T>): Promise<T> {
    try {
      this.#ready ??= migratePostgres(this.#db, [{ component: MODULE_SCHEMA_COMPONENT, migrations: MIGRATIONS }]).catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
      await this.#ready;
      return await work(this.#db);
    } catch (error) {
      if (isConnectorError(error)) throw error;
      const code = (error as { code?: unknown }).code;
      throw new UnavailableError(`The connector module store in the database cannot be used (${typeof code === 'string' ? code : 'error'}).`, {
        cause: error,
        details: { reason: 'connector_store', postgres: typeof code === 'string' ? code : 'error' },
      });
    }
  }
}
