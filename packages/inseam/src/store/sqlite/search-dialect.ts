/**
 * search-scope.ts's SQL for SQLite: named parameters (`@s0`, `@s1`, …), BINARY text comparison
 * (UTF-8 byte order, which is code point order), and three functions registered on the
 * connection (registerSearchFunctions) that read `extra`, timestamps and globs exactly as the
 * scope evaluator in JavaScript does.
 */
import type { SqliteDatabase } from './database.js';
import { SQLITE_FUNCTIONS, sqliteGlob, type SqlDialect, type ValueType } from '../search-scope.js';

/** Registers the functions on a connection; idempotent per connection. */
export function registerSearchFunctions(db: SqliteDatabase): void {
  db.function('inseam_extra', { deterministic: true }, SQLITE_FUNCTIONS.inseam_extra);
  db.function('inseam_timestamp_ms', { deterministic: true }, SQLITE_FUNCTIONS.inseam_timestamp_ms);
  db.function('inseam_glob', { deterministic: true }, sqliteGlob);
}

/** A dialect collecting its parameters into `params`. */
export function sqliteDialect(params: Record<string, unknown>): SqlDialect {
  let next = 0;
  const param = (value: unknown): string => {
    const name = `s${next++}`;
    params[name] = value;
    return `@${name}`;
  };
  return {
    param,
    ordered: (expression) => expression,
    extra(keys: readonly string[], type: ValueType): string {
      const json = `inseam_extra(e.extra, ${param(JSON.stringify(keys))})`;
      switch (type) {
        case 'text':
        case 'datetime':
          return `(CASE WHEN json_type(${json}) = 'text' THEN json_extract(${json}, '$') END)`;
        case 'number':
          return `(CASE WHEN json_type(${json}) IN ('integer', 'real') THEN json_extract(${json}, '$') END)`;
        case 'boolean':
          return `(CASE json_type(${json}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
      }
    },
    timestamp: (expression) => `inseam_timestamp_ms(${expression})`,
    glob: (expression, pattern, mode) => `inseam_glob(${param(pattern)}, ${param(mode)}, ${expression}) = 1`,
    literal: (value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value),
    true: '1',
    false: '0',
  };
}
