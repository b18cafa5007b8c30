/**
 * Checking and copying the embedded store's file, for `inseam store check` and `inseam store
 * backup`: what a person needs before trusting a file again, and a copy to restore from.
 *
 * The check opens the file without the refusals of openDatabase (it is how a person learns what
 * is wrong) and without writing to it: no pragma that writes, no migration. The backup is
 * `VACUUM INTO`: one read transaction, so under WAL it is a consistent snapshot while a server
 * keeps writing (the backup API restarts whenever another connection writes, and may never
 * finish under a steady stream of writes).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError, StoreDamagedError, isConnectorError } from '@neuralis/package-system/contracts';
import { fileProblem, loadVectorExtension, openDatabase, storeError } from './database.js';

export interface StoreCheck {
  readonly file: string;
  /** True when SQLite's full integrity check answered `ok`. */
  readonly ok: boolean;
  /** What is wrong, at most 100 lines of SQLite's report (or one line for a file that is not a database). */
  readonly problems: readonly string[];
  /** `store_empty`, `store_not_a_database` or `store_corrupt` when not ok. */
  readonly reason?: string;
  readonly bytes: number;
}

/**
 * Runs `PRAGMA integrity_check` (every page, index and constraint) on the file. Resolves with the
 * report, damage included; rejects with `not_found` when there is no file.
 */
export function checkStoreFile(path: string): Promise<StoreCheck> {
  const file = resolve(path);
  let bytes: number;
  try {
    bytes = statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Promise.reject(new NotFoundError(`There is no store file ${file}.`, { details: { reason: 'store_missing' } }));
    return Promise.reject(storeError('be read', error));
  }
  const problem = fileProblem(file);
  if (problem instanceof StoreDamagedError) return Promise.resolve({ file, ok: false, problems: [problem.message], reason: String(problem.details['reason']), bytes });
  if (problem !== null) return Promise.reject(problem);
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true });
    loadVectorExtension(db);
    const rows = (db.pragma('integrity_check(100)') as { integrity_check: string }[]).map((row) => row.integrity_check);
    const ok = rows.length === 1 && rows[0] === 'ok';
    return Promise.resolve(ok ? { file, ok, problems: [], bytes } : { file, ok, problems: rows, reason: 'store_corrupt', bytes });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))) {
      return Promise.resolve({ file, ok: false, problems: [`SQLite stopped reading the file: ${code}`], reason: 'store_corrupt', bytes });
    }
    return Promise.reject(isConnectorError(error) ? error : storeError('be checked', error));
  } finally {
    db?.close();
  }
}

export interface StoreBackup {
  readonly file: string;
  readonly bytes: number;
}

/**
 * Writes a consistent copy of the store at `path` to `target` (mode 0600), checks the copy with
 * `PRAGMA integrity_check` and syncs it to disk before it appears under its name. Never replaces
 * a file: `already_exists` when `target` exists. Rejects with what openDatabase refuses (a damaged
 * store is not copied: check it), `invalid_argument` when `target` is the store itself.
 */
export async function backupStore(path: string, target: string): Promise<StoreBackup> {
  const source = resolve(path);
  const file = resolve(target);
  if (file === source || file.startsWith(`${source}-`)) throw new InvalidArgumentError('The backup must be another file than the store and its -wal and -shm files.', { details: { argument: 'file' } });
  if (exists(file)) throw new AlreadyExistsError(`${file} exists; a backup never replaces a file. Name a new one.`, { details: { argument: 'file' } });
  const temporary = join(dirname(file), `.${basename(file)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  const db = openDatabase(source);
  try {
    // VACUUM INTO writes into an empty file as it finds it, so the copy keeps this file's mode.
    closeSync(openSync(temporary, 'wx', 0o600));
    db.prepare('VACUUM INTO ?').run(temporary);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw isConnectorError(error) ? error : storeError('be copied', error);
  } finally {
    db.close();
  }
  try {
    const check = await checkStoreFile(temporary);
    if (!check.ok) throw new StoreDamagedError(`The copy failed SQLite's integrity check (${check.problems.join('; ').slice(0, 300)}); it was not kept.`, { details: { reason: 'store_corrupt' } });
    // SQLite does not sync what VACUUM INTO writes; a backup that a power cut can undo is none.
    const fd = openSync(temporary, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new AlreadyExistsError(`${file} exists; a backup never replaces a file. Name a new one.`, { details: { argument: 'file' } });
      throw storeError('be copied', error);
    }
    syncDirectory(dirname(file));
    return { file, bytes: statSync(file).size };
  } finally {
    rmSync(temporary, { force: true });
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems cannot sync a directory; the file itself is synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
