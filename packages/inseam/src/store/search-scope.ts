/**
 * What a search may return, per host, written as SQL inside the search statement of either store:
 * the page is cut after the filter, so a page is short only when nothing more matches (a filter
 * applied to a window of hits afterwards answered empty pages with a cursor while matches lay
 * further on).
 *
 * A host's scope is readable path rules (each permission tree that must allow `read`) and an
 * optional condition on the entry's fields, the dimension filters of docs/scope.md already typed
 * by the host's dimensions. The semantics are those of `scope/compile.ts`, operator for operator:
 * a comparison on a missing value, or one of another type, is false, except `ne`, which is true;
 * text compares by code point (SQLite's BINARY, PostgreSQL's `COLLATE "C"`); datetimes as instants
 * to the millisecond, whatever the offset an entry's `mtime` carries.
 *
 * Every value is a bound parameter; only the shapes (column names, operators) are SQL text.
 */
import { compileGlob, globPosixSource, parseTimestamp } from '../scope/index.js';

/** A field of a catalog entry, as a dimension's `from` names it (`extra.a.b` → `{ extra: ['a', 'b'] }`). */
export type EntryField = 'path' | 'size' | 'mtime' | 'mime' | { readonly extra: readonly string[] };

/** How a field's value is read and compared: a dimension type, with `path` and `enum` read as text. */
export type ValueType = 'text' | 'number' | 'datetime' | 'boolean';

/** A condition on an entry; datetime values are epoch milliseconds. */
export type EntryCondition =
  | { readonly all: readonly EntryCondition[] }
  | { readonly any: readonly EntryCondition[] }
  | { readonly not: EntryCondition }
  | { readonly field: EntryField; readonly type: ValueType; readonly op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'; readonly value: string | number | boolean }
  | { readonly field: EntryField; readonly type: ValueType; readonly op: 'in'; readonly value: readonly (string | number | boolean)[] }
  | { readonly field: EntryField; readonly type: 'text'; readonly op: 'prefix'; readonly value: string }
  | { readonly field: EntryField; readonly type: 'text'; readonly op: 'glob'; readonly value: string; readonly mode: 'path' | 'text' };

/**
 * Where a permission tree allows `read`: `rules` are its keys that set `read`, as catalog paths
 * (canonical, percent-encoded), most specific first; a key covers itself and what lies below it.
 */
export interface ReadablePaths {
  readonly default: boolean;
  readonly rules: readonly { readonly path: string; readonly read: boolean }[];
}

export interface HostSearchScope {
  readonly hostId: number;
  /** Every one must allow the entry's path. */
  readonly readable: readonly ReadablePaths[];
  readonly where?: EntryCondition;
}

/** What differs between the two stores' SQL. */
export interface SqlDialect {
  /** Binds a value and answers its placeholder. */
  param(value: unknown): string;
  /** A text expression as it compares by code point. */
  ordered(expression: string): string;
  /** The JSON value at `keys` of the entry's `extra`, typed, or NULL when absent or of another type. */
  extra(keys: readonly string[], type: ValueType): string;
  /** Epoch milliseconds of an RFC 3339 text expression, NULL when it does not parse. */
  timestamp(expression: string): string;
  /** Whether a text expression matches the glob. */
  glob(expression: string, pattern: string, mode: 'path' | 'text'): string;
  /** A value of the type as SQL compares it (SQLite has no booleans). */
  literal(value: string | number | boolean, type: ValueType): unknown;
  readonly true: string;
  readonly false: string;
}

/** The SQL condition selecting entries `e` within one of the scopes ("false" for none). */
export function scopesSql(scopes: readonly HostSearchScope[], dialect: SqlDialect): string {
  const parts = scopes.map((scope) => {
    const conditions = [`e.host_id = ${dialect.param(scope.hostId)}`, ...scope.readable.map((paths) => readableSql(paths, dialect))];
    if (scope.where !== undefined) conditions.push(conditionSql(scope.where, dialect));
    return `(${conditions.join(' AND ')})`;
  });
  return parts.length === 0 ? dialect.false : `(${parts.join(' OR ')})`;
}

function readableSql(paths: ReadablePaths, dialect: SqlDialect): string {
  const otherwise = paths.default ? dialect.true : dialect.false;
  if (paths.rules.length === 0) return otherwise;
  // The first (most specific) key covering the path decides; keys of one depth never both cover it.
  const whens = paths.rules.map(({ path, read }) => {
    // Paths below `key` are exactly those in [key + "/", key + "0"): "0" follows "/" by code point.
    const covered = `(e.path = ${dialect.param(path)} OR (e.path >= ${dialect.param(`${path}/`)} AND e.path < ${dialect.param(`${path}0`)}))`;
    return `WHEN ${covered} THEN ${read ? dialect.true : dialect.false}`;
  });
  return `(CASE ${whens.join(' ')} ELSE ${otherwise} END)`;
}

function conditionSql(condition: EntryCondition, dialect: SqlDialect): string {
  if ('all' in condition) return condition.all.length === 0 ? dialect.true : `(${condition.all.map((item) => conditionSql(item, dialect)).join(' AND ')})`;
  if ('any' in condition) return condition.any.length === 0 ? dialect.false : `(${condition.any.map((item) => conditionSql(item, dialect)).join(' OR ')})`;
  if ('not' in condition) return `(NOT ${conditionSql(condition.not, dialect)})`;
  const value = valueSql(condition.field, condition.type, dialect);
  if (value === null) return condition.op === 'ne' ? dialect.true : dialect.false;
  // A value present and of the right type is not NULL, so each test is TRUE or FALSE, never NULL.
  const present = `${value} IS NOT NULL`;
  const compared = condition.type === 'text' ? dialect.ordered(value) : value;
  const bind = (item: string | number | boolean): string => dialect.param(dialect.literal(item, condition.type));
  switch (condition.op) {
    case 'eq':
      return `(${present} AND ${compared} = ${bind(condition.value)})`;
    case 'ne':
      return `(NOT (${present} AND ${compared} = ${bind(condition.value)}))`;
    case 'in':
      return condition.value.length === 0 ? dialect.false : `(${present} AND ${compared} IN (${condition.value.map(bind).join(', ')}))`;
    case 'prefix':
      return condition.value === '' ? `(${present})` : `(${present} AND substr(${value}, 1, ${dialect.param(Array.from(condition.value).length)}) = ${bind(condition.value)})`;
    case 'glob':
      return `(${present} AND ${dialect.glob(value, condition.value, condition.mode)})`;
    default:
      return `(${present} AND ${compared} ${ORDER[condition.op]} ${bind(condition.value)})`;
  }
}

const ORDER = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** The typed value of a field, or null when the field can never have the type (a size read as text). */
function valueSql(field: EntryField, type: ValueType, dialect: SqlDialect): string | null {
  if (typeof field === 'object') return type === 'datetime' ? dialect.timestamp(dialect.extra(field.extra, 'text')) : dialect.extra(field.extra, type);
  if (field === 'size') return type === 'number' ? 'e.size' : null;
  if (type === 'text') return `e.${field}`;
  if (type === 'datetime') return dialect.timestamp(`e.${field}`);
  return null;
}

/** The SQLite functions the dialect's SQL calls: each reads a value exactly as scope/values.ts does. */
export const SQLITE_FUNCTIONS = {
  /** JSON text of `extra`'s nested own property at the keys (a JSON array of names), or NULL. */
  inseam_extra(extra: unknown, keys: unknown): string | null {
    if (typeof extra !== 'string' || typeof keys !== 'string') return null;
    let value: unknown;
    try {
      value = JSON.parse(extra);
    } catch {
      return null;
    }
    for (const key of JSON.parse(keys) as string[]) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return null;
      value = (value as Record<string, unknown>)[key];
    }
    return value === undefined ? null : JSON.stringify(value);
  },
  inseam_timestamp_ms(text: unknown): number | null {
    return typeof text === 'string' ? (parseTimestamp(text, false) ?? null) : null;
  },
} as const;

const globs = new Map<string, RegExp | null>();

/** `inseam_glob(pattern, mode, value)`: compileGlob's RegExp, compiled once per pattern. */
export function sqliteGlob(pattern: unknown, mode: unknown, value: unknown): number {
  if (typeof pattern !== 'string' || typeof value !== 'string' || (mode !== 'path' && mode !== 'text')) return 0;
  const key = `${mode}\0${pattern}`;
  let regexp = globs.get(key);
  if (regexp === undefined) {
    const compiled = compileGlob(pattern, mode);
    regexp = 'regexp' in compiled ? compiled.regexp : null;
    if (globs.size >= 256) globs.delete(globs.keys().next().value!);
    globs.set(key, regexp);
  }
  return regexp !== null && regexp.test(value) ? 1 : 0;
}

/** The ARE for a PostgreSQL `~`; a glob that does not compile (validation refuses it first) matches nothing. */
export function postgresGlob(pattern: string, mode: 'path' | 'text'): string | null {
  const compiled = globPosixSource(pattern, mode);
  return 'source' in compiled ? compiled.source : null;
}
