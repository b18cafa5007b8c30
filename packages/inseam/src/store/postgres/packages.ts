/** The deployment's installed connector packages on PostgreSQL, as on SQLite. */
import type { InstalledPackageRecord, PackageStore } from '../types.js';
import { type InstalledPackageRow, toInstalledPackage } from '../rows.js';
import { attempt, type Db } from './database.js';

export class PostgresPackageStore implements PackageStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  put(record: InstalledPackageRecord): Promise<InstalledPackageRecord> {
    return attempt('store the installed package', async () => {
      await this.#db.run(
        `INSERT INTO installed_packages (package_id, folder, trust, installed_at, installed_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (package_id) DO UPDATE SET folder = EXCLUDED.folder, trust = EXCLUDED.trust, installed_at = EXCLUDED.installed_at, installed_by = EXCLUDED.installed_by`,
        [record.packageId, record.folder, record.trust, record.installedAt, record.installedBy],
      );
      return record;
    });
  }

  get(packageId: string): Promise<InstalledPackageRecord | null> {
    return attempt('read the installed package', async () => {
      const row = await this.#db.one<InstalledPackageRow>('SELECT * FROM installed_packages WHERE package_id = $1', [packageId]);
      return row === undefined ? null : toInstalledPackage(row);
    });
  }

  list(): Promise<InstalledPackageRecord[]> {
    return attempt('read the installed packages', async () => (await this.#db.query<InstalledPackageRow>('SELECT * FROM installed_packages ORDER BY package_id')).map(toInstalledPackage));
  }

  delete(packageId: string): Promise<boolean> {
    return attempt('delete the installed package', async () => (await this.#db.run('DELETE FROM installed_packages WHERE package_id = $1', [packageId])) > 0);
  }
}
