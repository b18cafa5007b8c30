/**
 * Where a platform keeps its state, and the layout inside it:
 *
 *   <dataDir>/inseam.db                    the embedded store (networks, hosts, catalog, credentials),
 *                                          unless a PostgreSQL store is named (see resolveStoreUrl)
 *   <dataDir>/master.key                   the master key file, when INSEAM_MASTER_KEY is not set
 *   <dataDir>/checked-config-schemas       keys of connector config schemas that passed their checks
 *   <dataDir>/networks/<network>/          a network's project root (`local` roots resolve under it)
 *   <dataDir>/networks/<network>/data      the `data` root token
 *   <dataDir>/networks/<network>/pad       the network's pad (its own bucket)
 *
 * The data directory is, in order: the `dataDir` option (the CLI's `--data`), `INSEAM_DATA_DIR`,
 * `$XDG_DATA_HOME/inseam` (an absolute XDG_DATA_HOME only, as the XDG spec says), then
 * `~/.local/share/inseam`. It is created with mode 0700.
 */
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { InvalidArgumentError, UnavailableError } from '@neuralis/package-system/contracts';
import { checkNetworkSlug } from '../address/index.js';

export const DATA_DIR_ENV = 'INSEAM_DATA_DIR';
/** The store's URL when `--store` is not given: a postgres:// URL selects PostgreSQL. */
export const DATABASE_URL_ENV = 'INSEAM_DATABASE_URL';

export type PlatformEnv = Readonly<Record<string, string | undefined>>;

/** The data directory the options and environment name (absolute); nothing is created. */
export function resolveDataDir(options: { readonly dataDir?: string | undefined; readonly env?: PlatformEnv } = {}): string {
  const env = options.env ?? process.env;
  const given = nonEmpty(options.dataDir) ?? nonEmpty(env[DATA_DIR_ENV]);
  if (given !== undefined) {
    if (given.includes('\0')) throw new InvalidArgumentError('The data directory path contains a NUL byte.', { details: { argument: 'dataDir' } });
    return resolve(given);
  }
  const xdg = nonEmpty(env['XDG_DATA_HOME']);
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'inseam');
  const home = nonEmpty(env['HOME']) ?? homedir();
  return join(home, '.local', 'share', 'inseam');
}

/**
 * The store URL the options and environment name: the `storeUrl` option (the CLI's `--store`),
 * else INSEAM_DATABASE_URL; undefined means the embedded store, `<dataDir>/inseam.db`.
 */
export function resolveStoreUrl(options: { readonly storeUrl?: string | undefined; readonly env?: PlatformEnv } = {}): string | undefined {
  return nonEmpty(options.storeUrl) ?? nonEmpty((options.env ?? process.env)[DATABASE_URL_ENV]);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Paths inside one data directory. */
export class PlatformPaths {
  readonly dataDir: string;

  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  get database(): string {
    return join(this.dataDir, 'inseam.db');
  }

  get masterKey(): string {
    return join(this.dataDir, 'master.key');
  }

  /** The deployment's OAuth clients (the `inseam` client source), when the file exists; see credentials/deployment-clients.ts. */
  get oauthClients(): string {
    return join(this.dataDir, 'oauth-clients.json');
  }

  /** Config schemas that passed the package system's checks; see platform/checked-schemas.ts. */
  get checkedSchemas(): string {
    return join(this.dataDir, 'checked-config-schemas');
  }

  /** A network's project root. Throws `invalid_uri` for a bad network slug (so no slug can leave `networks/`). */
  networkRoot(network: string): string {
    return join(this.dataDir, 'networks', checkNetworkSlug(network));
  }

  padDir(network: string): string {
    return join(this.networkRoot(network), 'pad');
  }

  /** Creates the data directory (0700). Throws `unavailable` when it cannot be created. */
  async prepare(): Promise<void> {
    try {
      await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new UnavailableError(`The inseam data directory ${this.dataDir} cannot be created (${typeof code === 'string' ? code : 'error'}); choose another with --data or ${DATA_DIR_ENV}.`, {
        details: { reason: 'data_dir_uncreatable' },
      });
    }
  }
}
