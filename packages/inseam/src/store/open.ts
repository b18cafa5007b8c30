/**
 * Choosing the store: the embedded SQLite file by default, PostgreSQL when a `postgres://` URL
 * names one (the CLI's `--store`, or INSEAM_DATABASE_URL).
 */
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { isPostgresUrl } from './postgres/database.js';
import { PostgresStore } from './postgres/store.js';
import { SqliteStore } from './sqlite/store.js';

/** Either store; `instanceof` tells which, for the few parts that keep tables of their own. */
export type PlatformStore = SqliteStore | PostgresStore;

export interface OpenStoreOptions {
  /** The SQLite file to use when no URL is given. Default `':memory:'`. */
  readonly defaultPath?: string;
}

/**
 * Opens the store `url` names: a PostgresStore for `postgres://` or `postgresql://`, a
 * SqliteStore for a `file:` URL or a plain path, and for no URL (or an empty one) the SqliteStore
 * at `options.defaultPath`. Throws `invalid_argument` for any other URL scheme (the message never
 * repeats the URL, which may carry a password), and what the store's `open` throws.
 */
export async function openStore(url?: string, options: OpenStoreOptions = {}): Promise<PlatformStore> {
  const target = storeTarget(url, options);
  return target.kind === 'postgres' ? PostgresStore.open({ url: target.url }) : SqliteStore.open({ path: target.path });
}

/** Which store a URL names, without opening it. */
export type StoreTarget = { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'postgres'; readonly url: string };

/** What `openStore(url, options)` would open. Throws `invalid_argument` as openStore does. */
export function storeTarget(url?: string, options: OpenStoreOptions = {}): StoreTarget {
  if (url === undefined || url === '') return { kind: 'sqlite', path: options.defaultPath ?? ':memory:' };
  if (isPostgresUrl(url)) return { kind: 'postgres', url };
  if (/^file:/i.test(url)) {
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch (error) {
      throw new InvalidArgumentError('The store file: URL could not be read as a local file path.', { cause: error, details: { argument: 'store', reason: 'store_url' } });
    }
    return { kind: 'sqlite', path };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new InvalidArgumentError('The store is a postgres:// (or postgresql://) URL, or the path of a SQLite file; this URL names neither.', {
      details: { argument: 'store', reason: 'store_url' },
    });
  }
  return { kind: 'sqlite', path: url };
}
