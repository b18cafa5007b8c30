/**
 * Versioned migrations, per component, in one `schema_migrations(component, version)` table, so
 * each part of the platform (networks, catalog, trials, …) evolves its own tables in one shared
 * database file. A component's pending migrations run in one immediate transaction: two processes
 * opening the same file at once do not both apply them, and a process killed half-way leaves the
 * schema as it was. A database whose schema for a component is newer than this code is refused
 * rather than misread.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import type { SqliteDatabase } from './database.js';

export interface Migration {
  /** 1, 2, 3, … with no gaps. */
  readonly version: number;
  readonly sql: string;
}

export interface SchemaComponent {
  /** A stable name, e.g. `catalog`. */
  readonly component: string;
  readonly migrations: readonly Migration[];
}

/**
 * Applies every pending migration of `components`, in order. Throws `invalid_config` when the
 * database holds a newer version of a component than this code knows, or when a component's
 * versions are not 1, 2, 3, …; the driver's errors propagate (the caller wraps them).
 */
export function migrate(db: SqliteDatabase, components: readonly SchemaComponent[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    component  TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (component, version)
  ) WITHOUT ROWID`);
  const current = db.prepare<[string], { version: number | null }>('SELECT max(version) AS version FROM schema_migrations WHERE component = ?');
  const record = db.prepare<[string, number, number]>('INSERT INTO schema_migrations (component, version, applied_at) VALUES (?, ?, ?)');
  for (const { component, migrations } of components) {
    checkSequence(component, migrations);
    const known = migrations.length;
    db.transaction(() => {
      const applied = current.get(component)?.version ?? 0;
      if (applied > known) throw schemaTooNew(component, applied, known);
      for (const migration of migrations.slice(applied)) {
        db.exec(migration.sql);
        record.run(component, migration.version, Date.now());
      }
    }).immediate();
  }
}

/** The applied version of each component. */
export function schemaVersions(db: SqliteDatabase): Map<string, number> {
  const rows = db.prepare<[], { component: string; version: number }>('SELECT component, max(version) AS version FROM schema_migrations GROUP BY component').all();
  return new Map(rows.map((row) => [row.component, row.version]));
}

/** The error for a database whose `component` schema is at `applied`, newer than the `known` versions of this code. */
export function schemaTooNew(component: string, applied: number, known: number): InvalidConfigError {
  return new InvalidConfigError(`The database's "${component}" schema is at version ${applied}, newer than this inseam understands (${known}); upgrade inseam.`, {
    details: { reason: 'schema_too_new', component, version: applied },
  });
}

/** Throws `invalid_config` unless the versions of `migrations` run 1, 2, 3, … without gaps. */
export function checkSequence(component: string, migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new InvalidConfigError(`Migration ${index + 1} of "${component}" is numbered ${migration.version}; versions run 1, 2, 3, … without gaps.`, {
        details: { reason: 'migration_sequence', component },
      });
    }
  });
}
