/**
 * The one encrypted credential store. A record is a JSON object kept under a scope and an id; it
 * is serialised, sealed (cipher.ts) with its scope and id as associated data, and handed to a
 * `CredentialRecordStore` as opaque bytes.
 *
 * Opening checks the master key against the key check the record store kept from its first
 * open, so a wrong or rotated key is reported as such (`invalid_config`) instead of every record
 * looking damaged.
 */
import { timingSafeEqual } from 'node:crypto';
import { InvalidConfigError, UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import { RecordCipher } from './cipher.js';
import { MASTER_KEY_ENV, loadMasterKey } from './master-key.js';
import type { MasterKeyOptions } from './master-key.js';
import type { CredentialRecordStore } from './record-store.js';
import { associatedData, checkName, checkScope, describeScope } from './scope.js';
import type { CredentialScope } from './scope.js';
import { SqliteCredentialRecordStore } from './sqlite-record-store.js';
import type Database from 'better-sqlite3';

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What one record holds. */
export type CredentialValue = { readonly [key: string]: JsonValue };

export interface CredentialStoreOptions {
  readonly records: CredentialRecordStore;
  readonly masterKey: Uint8Array;
}

export class CredentialStore {
  readonly #records: CredentialRecordStore;
  readonly #cipher: RecordCipher;

  private constructor(records: CredentialRecordStore, cipher: RecordCipher) {
    this.#records = records;
    this.#cipher = cipher;
  }

  /**
   * Opens the store over `records`. Throws `invalid_config` when the master key is malformed or
   * is not the key the records were written with; `unavailable` when the records cannot be read.
   */
  static async open(options: CredentialStoreOptions): Promise<CredentialStore> {
    const cipher = new RecordCipher(options.masterKey);
    const candidate = cipher.keyCheck();
    const stored = Buffer.from(await guarded('be read', options.records.keyCheck(candidate)));
    if (stored.length !== candidate.length || !timingSafeEqual(stored, candidate)) {
      throw new InvalidConfigError(
        'The master key is not the one this credential store was created with; restore the original INSEAM_MASTER_KEY or key file.',
        { details: { reason: 'master_key_mismatch' } },
      );
    }
    return new CredentialStore(options.records, cipher);
  }

  /**
   * Record `id` in exactly `scope`, or null. Throws `invalid_argument` for a bad scope or id,
   * `unavailable` when the record cannot be read or fails its integrity check (altered, or
   * copied from another record).
   */
  async get(scope: CredentialScope, id: string): Promise<CredentialValue | null> {
    const checked = checkScope(scope);
    checkName(id, 'credential id');
    const sealed = await guarded('be read', this.#records.get(checked, id));
    if (sealed === null) return null;
    const plaintext = this.#cipher.open(sealed, associatedData(checked, id));
    let value: unknown;
    try {
      value = JSON.parse(plaintext.toString('utf8'));
    } catch {
      value = undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UnavailableError(`The credential "${id}" of ${describeScope(checked)} is not in a format this inseam reads; store it again.`, {
        details: { reason: 'record_malformed' },
      });
    }
    return value as CredentialValue;
  }

  /** Stores `value` as record `id` in `scope`, replacing any record there, sealed under a fresh IV. */
  async put(scope: CredentialScope, id: string, value: CredentialValue): Promise<void> {
    const checked = checkScope(scope);
    checkName(id, 'credential id');
    const sealed = this.#cipher.seal(Buffer.from(JSON.stringify(value), 'utf8'), associatedData(checked, id));
    await guarded('be written', this.#records.put(checked, id, sealed));
  }

  /** Removes record `id` from `scope`; resolves false when there was none. */
  async delete(scope: CredentialScope, id: string): Promise<boolean> {
    const checked = checkScope(scope);
    checkName(id, 'credential id');
    return guarded('be written', this.#records.delete(checked, id));
  }

  /** The ids stored in exactly `scope`, sorted; with `prefix`, only ids starting with it. */
  async list(scope: CredentialScope, prefix?: string): Promise<string[]> {
    return guarded('be read', this.#records.list(checkScope(scope), prefix));
  }
}

/** A record store's failure as `unavailable`, whatever it threw; its own typed errors pass through. */
async function guarded<T>(action: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isConnectorError(error)) throw error;
    throw new UnavailableError(`The credential store could not ${action}; check its database and retry.`, { details: { reason: 'store_unavailable' } });
  }
}

export interface SqliteCredentialStoreOptions extends Partial<MasterKeyOptions> {
  /** A `better-sqlite3` database the platform shares, or a path to open. */
  readonly database: Database.Database | string;
  /** The master key itself; when absent it is loaded from INSEAM_MASTER_KEY or `keyFile`. */
  readonly masterKey?: Uint8Array;
}

/**
 * The embedded store in one call: loads the master key (unless given), opens the SQLite record
 * store and the encrypted store over it. Throws `invalid_config` when neither `masterKey` nor
 * `keyFile` is given and INSEAM_MASTER_KEY is unset, and whatever `loadMasterKey` and
 * `CredentialStore.open` throw.
 */
export async function openSqliteCredentialStore(options: SqliteCredentialStoreOptions): Promise<{ store: CredentialStore; records: SqliteCredentialRecordStore }> {
  let masterKey = options.masterKey;
  if (masterKey === undefined) {
    const env = options.env ?? process.env;
    if (options.keyFile === undefined && (env[MASTER_KEY_ENV] ?? '') === '') {
      throw new InvalidConfigError('No master key is configured: set INSEAM_MASTER_KEY or configure a key file.', { details: { reason: 'master_key_missing' } });
    }
    masterKey = (await loadMasterKey({ env, keyFile: options.keyFile ?? '' })).key;
  }
  const records = SqliteCredentialRecordStore.open(options.database);
  try {
    return { store: await CredentialStore.open({ records, masterKey }), records };
  } catch (error) {
    records.close();
    throw error;
  }
}
