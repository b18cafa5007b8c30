/**
 * Scope evaluation for the crawler, which asks about every listed entry: everything is compiled
 * once (dimension readers, `in` sets, globs to RegExps, the window's bounds) so a decision is a
 * few closure calls.
 *
 * A decision, in this order:
 * 1. rules, first match wins: `exclude` → `skip`; `include`, or no rule matching, goes on (an
 *    include rule stops later excludes, it does not bypass the window or the limits);
 * 2. the window along the ordering dimension, `from` inclusive and `to` exclusive: an entry
 *    outside it → `window.outside` (`index` keeps its metadata without reading content, `skip`
 *    leaves it out; the default follows `description.listing`: free → index, metered → skip). An
 *    entry whose ordering value is missing or unreadable counts as inside: a window narrows by
 *    what is known;
 * 3. `limits.maxEntryBytes`: a larger entry → `index`;
 * 4. otherwise `include`: metadata kept and content read.
 *
 * A comparison on a missing value (or one of the wrong type) is false, except `ne`, which is true.
 * `window.last: N` and `limits.maxEntries`/`maxBytes` count across a crawl, so they are applied
 * by a `tally()`, not by `decide`.
 */
import { orderingDimension, type Description, type Dimension, type DimensionType, type Entry, type Scope, type ScopePredicate } from '@inseam/connector';
import { parseDuration, subtractDuration } from './duration.js';
import { compileGlob } from './glob.js';
import { validateScope } from './validate.js';
import { compare, dimensionReader, formatTimestamp, toComparable, type Comparable, type DimensionReader, type ScopeOp } from './values.js';

export type ScopeDecision = 'include' | 'index' | 'skip';

export interface ScopeLimits {
  readonly maxEntries?: number;
  readonly maxBytes?: number;
  readonly maxEntryBytes?: number;
}

export interface CompiledWindow {
  /** The ordering dimension's name and type. */
  readonly dimension: string;
  readonly type: DimensionType;
  /** Inclusive lower bound; a `last` duration is resolved against `now` (RFC 3339 UTC). */
  readonly from?: string | number;
  /** Exclusive upper bound. */
  readonly to?: string | number;
  /** `last: N`: the first N entries inside the window, in listing order, as a tally counts them. */
  readonly count?: number;
  readonly outside: 'index' | 'skip';
  /**
   * What the crawler may pass as `list({ since })`: set only when entries outside the window are
   * skipped, the ordering dimension is a datetime read from `mtime`, and there is a lower bound.
   * (With `outside: "index"` every entry must still be listed, so nothing may be filtered away.)
   */
  readonly since?: string;
}

/** Per-crawl counting: `window.last` counts, `maxEntries` and `maxBytes`. One per crawl run. */
export interface ScopeTally {
  /**
   * The decision for the next entry of the crawl. Entries must arrive in the order the count
   * window means — newest first along the ordering dimension (`list({ order: "newest" })`) when
   * `window.count` is set. After `maxEntries` entries were kept (include or index) every decision
   * is `skip` and `full` is true: the crawler stops listing. An `include` whose `size` would take
   * the content bytes past `maxBytes` becomes `index`; an entry without a size counts as 0 bytes.
   */
  decide(entry: Entry): ScopeDecision;
  /** Entries kept so far (include or index). */
  readonly entries: number;
  /** Content bytes of the entries included so far. */
  readonly bytes: number;
  readonly full: boolean;
}

export interface CompiledScope {
  /** The validated scope this was compiled from. */
  readonly scope: Scope;
  readonly window: CompiledWindow;
  readonly limits: ScopeLimits;
  /** Rules, window bounds and maxEntryBytes for one entry; pure, so any order and any number of calls. */
  decide(entry: Entry): ScopeDecision;
  tally(): ScopeTally;
}

export interface CompileScopeOptions {
  /** The instant a `last` duration counts back from; default: the time of the call. */
  readonly now?: Date;
}

type Test = (entry: Entry) => boolean;

/** Why an entry got its decision; the tally needs more than the decision to apply a count. */
type Verdict = 'excluded' | 'outside' | 'too_large' | 'inside';

/**
 * Validates (throws `scope_invalid`, listing every problem) and compiles `scope` for
 * `description`'s dimensions.
 */
export function compileScope(scope: Scope, description: Description, options: CompileScopeOptions = {}): CompiledScope {
  const valid = validateScope(scope, description);
  const readers = new Map<string, DimensionReader>();
  const reader = (name: string): DimensionReader => {
    let read = readers.get(name);
    if (read === undefined) {
      read = dimensionReader(description.dimensions[name]!);
      readers.set(name, read);
    }
    return read;
  };
  const rules = (valid.rules ?? []).map((rule) => ('include' in rule ? { exclude: false, test: compilePredicate(rule.include, description, reader) } : { exclude: true, test: compilePredicate(rule.exclude, description, reader) }));
  const { window, inWindow } = compileWindow(valid, description, options.now ?? new Date());
  const limits: ScopeLimits = Object.freeze({ ...valid.limits });
  const maxEntryBytes = limits.maxEntryBytes;

  const verdict = (entry: Entry): Verdict => {
    for (const rule of rules) {
      if (rule.test(entry)) {
        if (rule.exclude) return 'excluded';
        break;
      }
    }
    if (!inWindow(entry)) return 'outside';
    if (maxEntryBytes !== undefined && sizeOf(entry) > maxEntryBytes) return 'too_large';
    return 'inside';
  };
  const decision = (v: Verdict): ScopeDecision => (v === 'inside' ? 'include' : v === 'too_large' ? 'index' : v === 'outside' ? window.outside : 'skip');

  return Object.freeze({
    scope: valid,
    window,
    limits,
    decide: (entry: Entry) => decision(verdict(entry)),
    tally: () => createTally(verdict, decision, window, limits),
  });
}

function createTally(verdict: (entry: Entry) => Verdict, decision: (v: Verdict) => ScopeDecision, window: CompiledWindow, limits: ScopeLimits): ScopeTally {
  let counted = 0;
  let entries = 0;
  let bytes = 0;
  return {
    decide(entry: Entry): ScopeDecision {
      if (limits.maxEntries !== undefined && entries >= limits.maxEntries) return 'skip';
      let v = verdict(entry);
      if (v === 'excluded') return 'skip';
      if (window.count !== undefined && v !== 'outside' && ++counted > window.count) v = 'outside';
      let result = decision(v);
      if (result === 'skip') return 'skip';
      if (result === 'include' && limits.maxBytes !== undefined) {
        const size = sizeOf(entry);
        if (bytes + size > limits.maxBytes) result = 'index';
        else bytes += size;
      }
      entries++;
      return result;
    },
    get entries() {
      return entries;
    },
    get bytes() {
      return bytes;
    },
    get full() {
      return limits.maxEntries !== undefined && entries >= limits.maxEntries;
    },
  };
}

function sizeOf(entry: Entry): number {
  return typeof entry.size === 'number' && Number.isFinite(entry.size) && entry.size > 0 ? entry.size : 0;
}

function compileWindow(scope: Scope, description: Description, now: Date): { window: CompiledWindow; inWindow: Test } {
  const name = orderingDimension(description);
  const dimension = description.dimensions[name]!;
  const spec = scope.window ?? {};
  const outside = spec.outside ?? (description.listing === 'metered' ? 'skip' : 'index');
  let from = spec.from;
  let count: number | undefined;
  if (typeof spec.last === 'number') count = spec.last;
  else if (typeof spec.last === 'string') {
    const duration = parseDuration(spec.last);
    if (!('problem' in duration)) from = formatTimestamp(subtractDuration(now, duration));
  }
  const lower = from === undefined ? undefined : ordinal(from, dimension);
  const upper = spec.to === undefined ? undefined : ordinal(spec.to, dimension);
  const since = outside === 'skip' && dimension.type === 'datetime' && dimension.from === 'mtime' && typeof lower === 'number' ? formatTimestamp(lower) : undefined;
  const window: CompiledWindow = Object.freeze({
    dimension: name,
    type: dimension.type,
    ...(from === undefined ? {} : { from }),
    ...(spec.to === undefined ? {} : { to: spec.to }),
    ...(count === undefined ? {} : { count }),
    outside,
    ...(since === undefined ? {} : { since }),
  });
  if (lower === undefined && upper === undefined) return { window, inWindow: () => true };
  const read = ordinalReader(dimension);
  const inWindow: Test = (entry) => {
    const value = read(entry);
    if (value === undefined) return true;
    if (lower !== undefined && compare(value, lower) < 0) return false;
    return upper === undefined || compare(value, upper) < 0;
  };
  return { window, inWindow };
}

/** Where a value sits along the ordering dimension; an enum orders by its declared `values`. */
function ordinal(value: string | number, dimension: Dimension): Comparable {
  return dimension.type === 'enum' ? dimension.values!.indexOf(value as string) : toComparable(value, dimension);
}

function ordinalReader(dimension: Dimension): DimensionReader {
  const read = dimensionReader(dimension);
  if (dimension.type !== 'enum') return read;
  const values = dimension.values!;
  return (entry) => {
    const index = values.indexOf(read(entry) as string);
    return index < 0 ? undefined : index;
  };
}

function compilePredicate(predicate: ScopePredicate, description: Description, reader: (name: string) => DimensionReader): Test {
  if ('all' in predicate) {
    const tests = predicate.all.map((item) => compilePredicate(item, description, reader));
    return (entry) => tests.every((test) => test(entry));
  }
  if ('any' in predicate) {
    const tests = predicate.any.map((item) => compilePredicate(item, description, reader));
    return (entry) => tests.some((test) => test(entry));
  }
  if ('not' in predicate) {
    const test = compilePredicate(predicate.not, description, reader);
    return (entry) => !test(entry);
  }
  const dimension = description.dimensions[predicate.dim]!;
  return comparison(predicate.op, predicate.value, dimension, reader(predicate.dim));
}

function comparison(op: ScopeOp, operand: unknown, dimension: Dimension, read: DimensionReader): Test {
  switch (op) {
    case 'in': {
      const set = new Set((operand as unknown[]).map((item) => toComparable(item, dimension)));
      return (entry) => {
        const value = read(entry);
        return value !== undefined && set.has(value);
      };
    }
    case 'prefix': {
      const prefix = operand as string;
      return (entry) => {
        const value = read(entry);
        return typeof value === 'string' && value.startsWith(prefix);
      };
    }
    case 'glob': {
      const glob = compileGlob(operand as string, dimension.type === 'path' ? 'path' : 'text');
      const regexp = (glob as { regexp: RegExp }).regexp;
      return (entry) => {
        const value = read(entry);
        return typeof value === 'string' && regexp.test(value);
      };
    }
    case 'ne': {
      const target = toComparable(operand, dimension);
      return (entry) => read(entry) !== target;
    }
    case 'eq': {
      const target = toComparable(operand, dimension);
      return (entry) => read(entry) === target;
    }
    default: {
      const target = toComparable(operand, dimension);
      const accept = ORDER_TESTS[op];
      return (entry) => {
        const value = read(entry);
        return value !== undefined && accept(compare(value, target));
      };
    }
  }
}

const ORDER_TESTS: Readonly<Record<'lt' | 'lte' | 'gt' | 'gte', (order: number) => boolean>> = {
  lt: (order) => order < 0,
  lte: (order) => order <= 0,
  gt: (order) => order > 0,
  gte: (order) => order >= 0,
};
