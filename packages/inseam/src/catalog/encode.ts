/**
 * Entries as the catalog stores them. A listed value is checked once (a connector — sandboxed code
 * — may hand over anything), then encoded: the connector's fields as it gave them, `extra` and
 * `envelope` as JSON text, and each declared dimension's value read from the entry, as JSON.
 */
import type { Description, DimensionSource, Entry } from '@inseam/connector';
import type { EntryDecision, EntryRow } from '../store/index.js';

/** Longer paths are refused: no host has them, and an index key should stay small. */
export const MAX_ENTRY_PATH_LENGTH = 4096;
const MAX_FIELD_LENGTH = 4096;
const TEXT_FIELDS = ['mtime', 'etag', 'mime', 'nativeHash', 'nativeId'] as const;

/** What is wrong with a listed value, or undefined when it is an Entry the catalog can store. */
export function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not an object';
  const entry = value as Record<string, unknown>;
  const path = entry['path'];
  if (typeof path !== 'string' || path === '') return 'its path is not a non-empty string';
  if (path.length > MAX_ENTRY_PATH_LENGTH) return `its path is longer than ${MAX_ENTRY_PATH_LENGTH} characters`;
  if (path.includes('\0')) return 'its path contains a NUL character';
  if (path.startsWith('/')) return 'its path starts with "/" (paths are relative to the host)';
  const size = entry['size'];
  if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 0)) return 'its size is not a non-negative whole number';
  for (const field of TEXT_FIELDS) {
    const text = entry[field];
    if (text !== undefined && (typeof text !== 'string' || text.length > MAX_FIELD_LENGTH)) return `its ${field} is not a string of at most ${MAX_FIELD_LENGTH} characters`;
    // PostgreSQL text cannot hold U+0000; refused on both stores so a catalog means the same on each.
    if (typeof text === 'string' && text.includes('\0')) return `its ${field} contains a NUL character`;
  }
  for (const field of ['extra', 'envelope'] as const) {
    const object = entry[field];
    if (object !== undefined && (typeof object !== 'object' || object === null || Array.isArray(object))) return `its ${field} is not an object`;
  }
  return undefined;
}

/**
 * The validator content is read at: `nativeHash` (a content hash) first, else `etag`, else size
 * and mtime together (what rsync trusts); null when the entry carries none, so it is read again.
 */
export function contentKey(entry: Entry): string | null {
  if (entry.nativeHash !== undefined) return `h:${entry.nativeHash}`;
  if (entry.etag !== undefined) return `e:${entry.etag}`;
  if (entry.size !== undefined && entry.mtime !== undefined) return `m:${entry.size}:${entry.mtime}`;
  return null;
}

type Reader = (entry: Entry) => unknown;

/** Encodes entries for one connector's dimensions. */
export class EntryEncoder {
  readonly #dimensions: readonly (readonly [string, Reader])[];

  constructor(description: Description) {
    this.#dimensions = Object.entries(description.dimensions).map(([name, dimension]) => [name, rawDimensionReader(dimension.from)] as const);
  }

  /**
   * The row to store. Throws a TypeError when `extra` or `envelope` cannot be JSON (a cycle, a
   * BigInt); callers check entries with `entryProblem` and treat that as one more problem.
   */
  row(entry: Entry, decision: EntryDecision): EntryRow {
    const dimensions: Record<string, unknown> = {};
    for (const [name, read] of this.#dimensions) {
      const value = read(entry);
      if (value !== undefined) dimensions[name] = value;
    }
    return {
      path: entry.path,
      size: entry.size ?? null,
      mtime: entry.mtime ?? null,
      etag: entry.etag ?? null,
      mime: entry.mime ?? null,
      nativeHash: entry.nativeHash ?? null,
      nativeId: entry.nativeId ?? null,
      decision,
      dimensions: JSON.stringify(dimensions),
      extra: entry.extra === undefined ? null : JSON.stringify(entry.extra),
      envelope: entry.envelope === undefined ? null : JSON.stringify(entry.envelope),
    };
  }
}

/** The raw value a dimension reads (`extra.a.b`: own properties only, so `extra.constructor` reads nothing). */
export function rawDimensionReader(from: DimensionSource): Reader {
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
  return (entry) => {
    let value: unknown = entry.extra;
    for (const key of keys) {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
}
