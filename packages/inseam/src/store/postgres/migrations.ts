/**
 * Versioned migrations on PostgreSQL, per component, recorded in one `inseam_migrations(component,
 * version)` table — the same components and the same rules as on SQLite (sqlite/migrations.ts).
 *
 * Each component's pending migrations run in one transaction holding a transaction-scoped
 * advisory lock, so processes starting at once (a server and three workers) apply each migration
 * exactly once: the others wait for the lock, then find it applied. PostgreSQL's DDL is
 * transactional, so a failing migration leaves the component at its previous version.
 */
import { checkSequence, schemaTooNew, type SchemaComponent } from '../sqlite/migrations.js';
import type { Db } from './database.js';

/** The advisory lock key of migrations: "inseam" in ASCII, so it is recognisable in pg_locks. */
export const MIGRATION_LOCK_KEY = '115851484717421';

/**
 * Applies every pending migration of `components`, in order. Throws `invalid_config` when the
 * database holds a newer version of a component than this code knows, or when a component's
 * versions are not 1, 2, 3, …; the driver's errors propagate (the caller wraps them).
 */
export async function migrate(db: Db, components: readonly SchemaComponent[]): Promise<void> {
  for (const { component, migrations } of components) {
    checkSequence(component, migrations);
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await tx.query(`CREATE TABLE IF NOT EXISTS inseam_migrations (
        component  text   NOT NULL,
        version    int    NOT NULL,
        applied_at bigint NOT NULL,
        PRIMARY KEY (component, version)
      )`);
      const row = await tx.one<{ version: number | null }>('SELECT max(version) AS version FROM inseam_migrations WHERE component = $1', [component]);
      const applied = row?.version ?? 0;
      if (applied > migrations.length) throw schemaTooNew(component, applied, migrations.length);
      for (const migration of migrations.slice(applied)) {
        await tx.query(migration.sql);
        await tx.query('INSERT INTO inseam_migrations (component, version, applied_at) VALUES ($1, $2, $3)', [component, migration.version, Date.now()]);
      }
    });
  }
}

/** The applied version of each component (empty before the first migration). */
export async function schemaVersions(db: Db): Promise<Map<string, number>> {
  const exists = await db.one<{ found: boolean }>("SELECT to_regclass('inseam_migrations') IS NOT NULL AS found");
  if (exists?.found !== true) return new Map();
  const rows = await db.query<{ component: string; version: number }>('SELECT component, max(version) AS version FROM inseam_migrations GROUP BY component');
  return new Map(rows.map((row) => [row.component, row.version]));
}
