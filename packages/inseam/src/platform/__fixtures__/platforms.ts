/** Platforms on temp data directories for the platform, network, search and CLI tests. */
import { mkdir, mkdtemp, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteStore, type SqliteDatabase } from '../../store/index.js';
import { openPlatform, type OpenPlatformOptions, type Platform } from '../platform.js';

/** A package declaring auto, discoverable, unregistered-kind and per-user sources (trusted). */
export const SEED_PACKAGE = fileURLToPath(new URL('../../network/__fixtures__/seed-package', import.meta.url));

export async function tempDir(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), `inseam-${prefix}-`)));
}

export function removeDir(path: string): Promise<void> {
  return rm(path, { recursive: true, force: true });
}

/** Opens a platform on `dataDir` with the seed package loaded and no environment of its own. */
export function openTestPlatform(dataDir: string, options: Omit<OpenPlatformOptions, 'dataDir'> = {}): Promise<Platform> {
  return openPlatform({ env: {}, packages: [{ folder: SEED_PACKAGE, trust: 'trusted' }], ...options, dataDir });
}

/** Writes files (path → text) under `root`, each with its own modification time. */
export async function writeFiles(root: string, files: Readonly<Record<string, string>>): Promise<void> {
  let day = 1;
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    const at = new Date(Date.UTC(2024, 4, day++));
    await utimes(file, at, at);
  }
}

/** The SQLite connection of a platform on the embedded store (every test platform here). */
export function sqliteOf(platform: Pick<Platform, 'store'>): SqliteDatabase {
  if (!(platform.store instanceof SqliteStore)) throw new Error('This test reads the embedded SQLite store, and the platform runs on another.');
  return platform.store.database;
}

/** Every row that adding a host could write: networks, hosts, credentials, catalog. */
export function storeSnapshot(platform: Platform): unknown {
  const db = sqliteOf(platform);
  return {
    networks: db.prepare('SELECT * FROM networks ORDER BY id').all(),
    hosts: db.prepare('SELECT * FROM hosts ORDER BY id').all(),
    credentials: db.prepare('SELECT network, owner, owner_id, id FROM credential_records ORDER BY network, owner, owner_id, id').all(),
    entries: db.prepare('SELECT count(*) AS n FROM catalog_entries').get(),
    runs: db.prepare('SELECT count(*) AS n FROM crawl_runs').get(),
  };
}
