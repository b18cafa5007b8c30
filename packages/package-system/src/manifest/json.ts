/**
 * Plain-JSON guards. Manifests and configs are data: anything JSON cannot carry (functions, class
 * instances, cycles, NaN) is refused before any other check walks it, so no check can loop on a
 * cycle or run foreign code through a prototype.
 */
import { IssueCollector, at, kindOf } from './issues.js';

/** Deeper than this is refused: no honest manifest or config nests this far. */
export const MAX_JSON_DEPTH = 64;

export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Own property read that never consults a prototype (a `__proto__` key is just a key here). */
export function own(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

export function has(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * Reports every value under `value` that JSON cannot represent, at its path below `path`. With an
 * empty `path`, a problem with `value` itself is reported at `rootLabel`.
 */
export function checkJsonValue(value: unknown, path: string, issues: IssueCollector, rootLabel = path): void {
  const labelled = new IssueCollector();
  walk(value, path, labelled, new Set(), 0);
  for (const issue of labelled.list()) issues.add(issue.path === '' ? rootLabel : issue.path, issue.message, issue.expected);
}

function walk(value: unknown, path: string, issues: IssueCollector, ancestors: Set<object>, depth: number): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) issues.add(path, 'The number is not finite (NaN or Infinity).', 'a finite JSON number');
    return;
  }
  if (typeof value !== 'object') {
    issues.add(path, `The value is ${kindOf(value)}, which JSON cannot carry.`, 'a JSON value (string, number, boolean, null, array or plain object)');
    return;
  }
  if (depth >= MAX_JSON_DEPTH) {
    issues.add(path, `The value nests more than ${MAX_JSON_DEPTH} levels deep.`, `at most ${MAX_JSON_DEPTH} levels of nesting`);
    return;
  }
  if (ancestors.has(value)) {
    issues.add(path, 'The value contains itself (a reference cycle).', 'a JSON tree without cycles');
    return;
  }
  if (!Array.isArray(value) && !isPlainObject(value)) {
    issues.add(path, 'The value is an object with a custom prototype (a class instance, Date, Map…).', 'a plain JSON object');
    return;
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, at(path, index), issues, ancestors, depth + 1));
  } else {
    for (const key of Object.keys(value)) walk((value)[key], at(path, key), issues, ancestors, depth + 1);
  }
  ancestors.delete(value);
}

/** A deep copy of a JSON value (already checked). Keys are defined, never assigned, so `__proto__` stays data. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => cloneJson(item)) as T;
  if (typeof value === 'object' && value !== null) {
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(copy, key, { value: cloneJson((value as JsonObject)[key]), enumerable: true, writable: true, configurable: true });
    }
    return copy as T;
  }
  return value;
}

/** Freezes a JSON tree in place and returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as JsonObject)[key]);
    Object.freeze(value);
  }
  return value;
}
