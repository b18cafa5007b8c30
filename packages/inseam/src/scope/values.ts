/**
 * Dimension values: which operators each dimension type takes, what a scope value of each type
 * looks like, how an Entry's value is read, and how values compare.
 *
 * Value types: `string`/`path` → strings (compared by code point, the UTF-8 byte order object
 * stores list in); `enum` → one of the declared `values`; `bytes` → a non-negative safe integer;
 * `integer` → a safe integer; `datetime` → RFC 3339 in UTC (`2024-05-01T00:00:00Z`, fraction
 * allowed, compared to the millisecond); `boolean` → true or false.
 */
import type { Dimension, DimensionType, Entry } from '@inseam/connector';

export type ScopeOp = 'eq' | 'ne' | 'in' | 'prefix' | 'glob' | 'lt' | 'lte' | 'gt' | 'gte';

export const SCOPE_OPS = ['eq', 'ne', 'in', 'prefix', 'glob', 'lt', 'lte', 'gt', 'gte'] as const satisfies readonly ScopeOp[];

const ORDERED: readonly ScopeOp[] = ['eq', 'ne', 'in', 'lt', 'lte', 'gt', 'gte'];

/** Operators per type: text takes all; numbers and times have no prefix or glob; enum and boolean only (in)equality. */
export const OPS_BY_TYPE: Readonly<Record<DimensionType, readonly ScopeOp[]>> = {
  string: SCOPE_OPS,
  path: SCOPE_OPS,
  enum: ['eq', 'ne', 'in'],
  boolean: ['eq', 'ne', 'in'],
  bytes: ORDERED,
  integer: ORDERED,
  datetime: ORDERED,
};

/** The longest string value (a glob, a prefix, a bound) a scope may carry. */
export const MAX_TEXT_VALUE = 4096;

/** A value ready to compare: text, a number (datetimes as epoch milliseconds) or a boolean. */
export type Comparable = string | number | boolean;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})$/;

/**
 * Epoch milliseconds of an RFC 3339 timestamp, or undefined. With `utcOnly` only the `Z` form
 * (uppercase `T` and `Z`) is accepted — what a scope must write; entries may carry any offset.
 */
export function parseTimestamp(text: string, utcOnly: boolean): number | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match as unknown as [string, string, string, string, string, string, string, string | undefined, string];
  if (utcOnly && (zone !== 'Z' || text[10] !== 'T')) return undefined;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month - 1)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return undefined;
  let offset = 0;
  if (zone.length === 6) {
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zh > 23 || zm > 59) return undefined;
    offset = (zone[0] === '-' ? -1 : 1) * (zh * 60 + zm) * 60_000;
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(Number(h), Number(mi), Number(s), fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0')));
  return date.getTime() - offset;
}

export function daysInMonth(year: number, monthIndex: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex + 1, 0);
  return date.getUTCDate();
}

/** RFC 3339 UTC text of epoch milliseconds (`toISOString` keeps the milliseconds). */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** Code point order (what UTF-8 byte order gives); `<` on strings compares UTF-16 units instead. */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

function rank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Why `value` is not a scope value for `dimension`, or undefined when it is. */
export function valueProblem(value: unknown, dimension: Dimension): string | undefined {
  switch (dimension.type) {
    case 'string':
    case 'path':
      if (typeof value !== 'string') return `${shown(value)} is not a string`;
      if (value.length > MAX_TEXT_VALUE) return `the string is ${value.length} characters long (at most ${MAX_TEXT_VALUE})`;
      return value.includes('\0') ? 'the string contains a NUL character' : undefined;
    case 'enum':
      return typeof value === 'string' && (dimension.values ?? []).includes(value) ? undefined : `${shown(value)} is not one of the declared values`;
    case 'bytes':
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : `${shown(value)} is not a non-negative whole number of bytes`;
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : `${shown(value)} is not a whole number`;
    case 'datetime':
      return typeof value === 'string' && parseTimestamp(value, true) !== undefined ? undefined : `${shown(value)} is not an RFC 3339 UTC timestamp`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${shown(value)} is not true or false`;
  }
}

/** What a value of `dimension` looks like, for an issue's `expected`. */
export function expectedValue(dimension: Dimension): string {
  switch (dimension.type) {
    case 'string':
      return 'a string';
    case 'path':
      return 'a path string, as the connector spells Entry paths';
    case 'enum':
      return `one of ${(dimension.values ?? []).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'bytes':
      return 'a non-negative integer (bytes)';
    case 'integer':
      return 'a safe integer';
    case 'datetime':
      return 'an RFC 3339 UTC timestamp such as "2024-05-01T00:00:00Z"';
    case 'boolean':
      return 'true or false';
  }
}

/** A validated scope value as it compares: datetimes become epoch milliseconds. */
export function toComparable(value: unknown, dimension: Dimension): Comparable {
  if (dimension.type === 'datetime') return parseTimestamp(value as string, true)!;
  return value as Comparable;
}

export function compare(a: Comparable, b: Comparable): number {
  if (typeof a === 'string') return compareText(a, b as string);
  return (a as number) - (b as number);
}

export type DimensionReader = (entry: Entry) => Comparable | undefined;

/**
 * Reads a dimension's value from an Entry, as its type. `extra.a.b` is the nested field
 * `entry.extra.a.b` (own properties only, so `extra.constructor` reads nothing). A missing value,
 * or one of the wrong type (a size that is not a finite number, an unparseable mtime), reads as
 * undefined.
 */
export function dimensionReader(dimension: Dimension): DimensionReader {
  const raw = rawReader(dimension.from);
  switch (dimension.type) {
    case 'string':
    case 'path':
    case 'enum':
      return (entry) => {
        const value = raw(entry);
        return typeof value === 'string' ? value : undefined;
      };
    case 'bytes':
    case 'integer':
      return (entry) => {
        const value = raw(entry);
        return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
      };
    case 'datetime':
      return (entry) => {
        const value = raw(entry);
        return typeof value === 'string' ? parseTimestamp(value, false) : undefined;
      };
    case 'boolean':
      return (entry) => {
        const value = raw(entry);
        return typeof value === 'boolean' ? value : undefined;
      };
  }
}

function rawReader(from: Dimension['from']): (entry: Entry) => unknown {
  switch (from) {
    case 'path':
      return (entry) => entry.path;
    case 'size':
      return (entry) => entry.size;
    case 'mtime':
      return (entry) => entry.mtime;
    case 'mime':
      return (entry) => entry.mime;
  }
  const keys = from.split('.').slice(1);
  if (keys.length === 1) {
    const key = keys[0]!;
    return (entry) => {
      const extra = entry.extra;
      return extra !== undefined && extra !== null && Object.hasOwn(extra, key) ? extra[key] : undefined;
    };
  }
  return (entry) => {
    let value: unknown = entry.extra;
    for (const key of keys) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
}

/** A short rendering of a bad value for a message. */
export function shown(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : `a${typeof value === 'object' ? 'n object' : ` ${typeof value}`}`;
}
