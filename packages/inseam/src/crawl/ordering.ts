/**
 * The ordering dimension as incremental sync uses it: reading an entry's value, keeping the
 * largest value stored (the watermark), and turning the watermark into the next `since`.
 *
 * `since` is treated as inclusive (`>= since`) and the sync steps back so that an exclusive
 * connector loses nothing either: a datetime watermark goes back `overlapMs`, an integer one by
 * one. Entries listed again at the boundary are idempotent upserts. Text orderings (string, path,
 * enum) cannot step back, so they rely on the inclusive reading.
 *
 * A datetime watermark is capped at the start of the run that produced it: an entry created
 * during a crawl, behind the cursor, with a time before the newest one the crawl saw, is still
 * after the run's start, so the next incremental sync lists it.
 */
import { orderingDimension, type Description, type DimensionSource, type DimensionType, type Entry } from '@inseam/connector';
import { rawDimensionReader } from '../catalog/index.js';
import { parseTimestamp } from '../scope/index.js';

type Comparable = string | number;

export class Ordering {
  readonly name: string;
  readonly type: DimensionType;
  readonly #read: (entry: Entry) => Comparable | undefined;
  readonly #values: readonly string[] | undefined;

  constructor(description: Description) {
    this.name = orderingDimension(description);
    const dimension = description.dimensions[this.name]!;
    this.type = dimension.type;
    this.#values = dimension.values;
    this.#read = comparableReader(dimension.type, dimension.from, dimension.values);
  }

  /** The entry's value as it compares (datetimes as epoch ms, enums by declared position), or undefined. */
  comparable(entry: Entry): Comparable | undefined {
    return this.#read(entry);
  }

  /** A comparable value as watermark text. */
  format(value: Comparable): string {
    if (this.type === 'datetime') return new Date(value).toISOString();
    if (this.type === 'enum') return this.#values![value as number]!;
    return String(value);
  }

  /** Watermark text back to a comparable value (undefined when unreadable). */
  parse(text: string): Comparable | undefined {
    switch (this.type) {
      case 'datetime':
        return parseTimestamp(text, false);
      case 'integer':
      case 'bytes': {
        const value = Number(text);
        return Number.isFinite(value) ? value : undefined;
      }
      case 'enum': {
        const index = this.#values!.indexOf(text);
        return index < 0 ? undefined : index;
      }
      default:
        return text;
    }
  }

  compare(a: Comparable, b: Comparable): number {
    return typeof a === 'string' ? compareText(a, b as string) : a - (b as number);
  }

  /** The larger of a watermark and a value (either may be missing). */
  max(watermark: Comparable | undefined, value: Comparable | undefined): Comparable | undefined {
    if (watermark === undefined) return value;
    if (value === undefined) return watermark;
    return this.compare(value, watermark) > 0 ? value : watermark;
  }

  /** The watermark a finished run leaves: datetimes capped at the run's start. */
  settle(value: Comparable, runStartedAt: number): string {
    if (this.type === 'datetime') return this.format(Math.min(value as number, runStartedAt));
    return this.format(value);
  }

  /** `since` for the next incremental sync from a settled watermark. */
  since(watermark: string, overlapMs: number): string {
    const value = this.parse(watermark);
    if (value === undefined) return watermark;
    if (this.type === 'datetime') return this.format((value as number) - overlapMs);
    if (this.type === 'integer' || this.type === 'bytes') return String((value as number) - 1);
    return watermark;
  }
}

/** Code point order (what SQLite's byte order gives); `<` on strings compares UTF-16 units. */
function compareText(a: string, b: string): number {
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

function comparableReader(type: DimensionType, from: DimensionSource, values: readonly string[] | undefined): (entry: Entry) => Comparable | undefined {
  const raw = rawDimensionReader(from);
  switch (type) {
    case 'datetime':
      return (entry) => {
        const value = raw(entry);
        return typeof value === 'string' ? parseTimestamp(value, false) : undefined;
      };
    case 'integer':
    case 'bytes':
      return (entry) => {
        const value = raw(entry);
        return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
      };
    case 'enum':
      return (entry) => {
        const index = values!.indexOf(raw(entry) as string);
        return index < 0 ? undefined : index;
      };
    default:
      return (entry) => {
        const value = raw(entry);
        return typeof value === 'string' ? value : undefined;
      };
  }
}
