/** The deployment's installed connector packages in SQLite. */
import type { InstalledPackageRecord, PackageStore } from '../types.js';
import { attempt, cachedPrepare, type SqliteDatabase } from './database.js';
import { type InstalledPackageRow, toInstalledPackage } from '../rows.js';

export class SqlitePackageStore implements PackageStore {
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#prepare = cachedPrepare(db);
  }

  put(record: InstalledPackageRecord): Promise<InstalledPackageRecord> {
    return attempt('store the installed package', () => {
      this.#prepare<[string, string, string, number, string]>(
        `INSERT INTO installed_packages (package_id, folder, trust, installed_at, installed_by) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (package_id) DO UPDATE SET folder = excluded.folder, trust = excluded.trust, installed_at = excluded.installed_at, installed_by = excluded.installed_by`,
      ).run(record.packageId, record.folder, record.trust, record.installedAt, record.installedBy);
      return record;
    });
  }

  get(packageId: string): Promise<InstalledPackageRecord | null> {
    return attempt('read the installed package', () => {
      const row = this.#prepare<[string], InstalledPackageRow>('SELECT * FROM installed_packages WHERE package_id = ?').get(packageId);
      return row === undefined ? null : toInstalledPackage(row);
    });
  }

  list(): Promise<InstalledPackageRecord[]> {
    return attempt('read the installed packages', () => this.#prepare<[], InstalledPackageRow>('SELECT * FROM installed_packages ORDER BY package_id').all().map(toInstalledPackage));
  }

  delete(packageId: string): Promise<boolean> {
    return attempt('delete the installed package', () => this.#prepare('DELETE FROM installed_packages WHERE package_id = ?').run(packageId).changes > 0);
  }
}
