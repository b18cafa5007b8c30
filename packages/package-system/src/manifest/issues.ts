/**
 * The issue vocabulary every manifest check shares: where an issue is (`connectors[0].kind`), what
 * is wrong and what would be accepted. Messages never echo a value that could be a secret or a host
 * path; only short token-like strings are quoted back to the author.
 */
import type { ManifestIssue } from '../contracts/errors.js';

/** Collects issues; checks push into it and never throw, so one run reports everything. */
export class IssueCollector {
  readonly #issues: ManifestIssue[] = [];

  add(path: string, message: string, expected: string): void {
    this.#issues.push({ path, message, expected });
  }

  addAll(issues: readonly ManifestIssue[]): void {
    this.#issues.push(...issues);
  }

  get size(): number {
    return this.#issues.length;
  }

  list(): ManifestIssue[] {
    return [...this.#issues];
  }
}

/** The path of the manifest block itself, for issues about the whole value. */
export const ROOT_PATH = 'neuralis';

const IDENTIFIER_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `at('sources', 1)` → `sources[1]`; `at('paths', 'a/b')` → `paths["a/b"]`; `at('', 'id')` → `id`. */
export function at(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (IDENTIFIER_KEY.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

const SAFE_TO_ECHO = /^[A-Za-z0-9_.+${}-]{1,64}$/;

/** ` "scan"` for a short token-like string, '' for anything that might be a path, URL or secret. */
export function named(value: unknown): string {
  return typeof value === 'string' && SAFE_TO_ECHO.test(value) ? ` ${JSON.stringify(value)}` : '';
}

/** What a value is, for "got …" in messages; never the value itself. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value === '' ? 'an empty string' : 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** `a, b or c` with each item quoted. */
export function oneOf(values: readonly string[]): string {
  const quoted = values.map((value) => JSON.stringify(value));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}
