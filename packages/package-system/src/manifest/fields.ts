/**
 * Field-level checks shared by every part of the manifest. Each reports into an IssueCollector and
 * returns the value when it is usable, so a caller can keep checking dependent rules without
 * throwing on the first problem.
 */
import { IssueCollector, at, kindOf, named, oneOf } from './issues.js';
import { has, isPlainObject, own, type JsonObject } from './json.js';

export interface SlugRule {
  readonly pattern: RegExp;
  /** What is accepted, phrased for `expected`. */
  readonly accepted: string;
}

/** npm package name: the package id doubles as the origin attribution of its sources. */
export const PACKAGE_ID_RULE: SlugRule = {
  pattern: /^(?=.{1,214}$)(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/,
  accepted: 'an npm package name such as "my-package" or "@scope/my-package" (lowercase, at most 214 characters)',
};

/** Connector ids and kinds. */
export const SLUG_RULE: SlugRule = {
  pattern: /^[a-z][a-z0-9_-]{0,63}$/,
  accepted: 'a slug: a lowercase letter, then lowercase letters, digits, "-" or "_" (at most 64 characters)',
};

/** Source slugs become URI schemes (`{source}://…`), so they follow the scheme grammar of contracts/uri.ts. */
export const SOURCE_SLUG_RULE: SlugRule = {
  pattern: /^[a-z][a-z0-9+.-]{0,63}$/,
  accepted: 'a source slug usable as a URI scheme: a lowercase letter, then lowercase letters, digits, "+", "." or "-" (at most 64 characters)',
};

export const CREDENTIAL_ID_RULE: SlugRule = {
  pattern: /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
  accepted: 'an id: a letter, then letters, digits, "_", "." or "-" (at most 64 characters)',
};

export const CREDENTIAL_FIELD_RULE: SlugRule = {
  pattern: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
  accepted: 'a field name: a letter or "_", then letters, digits or "_" (at most 64 characters)',
};

/** Feature ids (`exec.machine`): any non-empty token without whitespace. */
export const FEATURE_ID_RULE: SlugRule = {
  pattern: /^\S{1,128}$/,
  accepted: 'a feature id: a non-empty string without whitespace (at most 128 characters), e.g. "exec.machine"',
};

/** Reports keys outside `allowed`; entries are closed so a typo'd field is an error, not a silent default. */
export function checkKnownKeys(object: JsonObject, allowed: readonly string[], path: string, issues: IssueCollector, what: string): void {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      issues.add(at(path, key), `${what} has no field${named(key)}.`, `only the fields ${allowed.join(', ')}`);
    }
  }
}

export function checkObject(value: unknown, path: string, issues: IssueCollector, expected: string): JsonObject | undefined {
  if (isPlainObject(value)) return value;
  issues.add(path, `Expected an object, got ${kindOf(value)}.`, expected);
  return undefined;
}

export function checkArray(value: unknown, path: string, issues: IssueCollector, expected: string): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value;
  issues.add(path, `Expected an array, got ${kindOf(value)}.`, expected);
  return undefined;
}

interface FieldOptions {
  readonly required: boolean;
}

/** A string with visible content; reports a missing required field at its own path. */
export function checkText(object: JsonObject, key: string, path: string, issues: IssueCollector, options: FieldOptions, expected = 'a non-empty string'): string | undefined {
  const fieldPath = at(path, key);
  if (!has(object, key)) {
    if (options.required) issues.add(fieldPath, `The field "${key}" is required.`, expected);
    return undefined;
  }
  const value = own(object, key);
  if (typeof value !== 'string' || value.trim() === '') {
    issues.add(fieldPath, `Expected a non-empty string, got ${kindOf(value)}.`, expected);
    return undefined;
  }
  return value;
}

export function checkSlug(object: JsonObject, key: string, path: string, issues: IssueCollector, rule: SlugRule, options: FieldOptions = { required: true }): string | undefined {
  const fieldPath = at(path, key);
  if (!has(object, key)) {
    if (options.required) issues.add(fieldPath, `The field "${key}" is required.`, rule.accepted);
    return undefined;
  }
  const value = own(object, key);
  if (typeof value !== 'string' || !rule.pattern.test(value)) {
    const got = typeof value === 'string' ? `The value${named(value)} is not well formed.` : `Expected a string, got ${kindOf(value)}.`;
    issues.add(fieldPath, got, rule.accepted);
    return undefined;
  }
  return value;
}

export function checkBoolean(object: JsonObject, key: string, path: string, issues: IssueCollector, options: FieldOptions = { required: false }): boolean | undefined {
  const fieldPath = at(path, key);
  if (!has(object, key)) {
    if (options.required) issues.add(fieldPath, `The field "${key}" is required.`, 'true or false');
    return undefined;
  }
  const value = own(object, key);
  if (typeof value !== 'boolean') {
    issues.add(fieldPath, `Expected a boolean, got ${kindOf(value)}.`, 'true or false');
    return undefined;
  }
  return value;
}

export function checkEnum<T extends string>(object: JsonObject, key: string, path: string, issues: IssueCollector, values: readonly T[], options: FieldOptions, expected = `one of ${oneOf(values)}`): T | undefined {
  const fieldPath = at(path, key);
  if (!has(object, key)) {
    if (options.required) issues.add(fieldPath, `The field "${key}" is required.`, expected);
    return undefined;
  }
  const value = own(object, key);
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
    issues.add(fieldPath, typeof value === 'string' ? `The value${named(value)} is not allowed here.` : `Expected a string, got ${kindOf(value)}.`, expected);
    return undefined;
  }
  return value as T;
}

interface StringListOptions {
  /** An empty list is an error (not the same as omitting the field). */
  readonly nonEmpty: boolean;
  readonly unique: boolean;
  /** Each item must match; defaults to a non-empty string. */
  readonly item?: SlugRule;
  /** What the whole list accepts, for list-level issues. */
  readonly expected: string;
}

/** An array of strings; reports each bad item at `path[i]` and each repeat at the repeat's index. */
export function checkStringList(value: unknown, path: string, issues: IssueCollector, options: StringListOptions): string[] | undefined {
  const list = checkArray(value, path, issues, options.expected);
  if (list === undefined) return undefined;
  if (options.nonEmpty && list.length === 0) {
    issues.add(path, 'The list is empty.', options.expected);
    return undefined;
  }
  const item = options.item ?? { pattern: /\S/, accepted: 'a non-empty string' };
  const seen = new Set<string>();
  let valid = true;
  list.forEach((entry, index) => {
    if (typeof entry !== 'string' || !item.pattern.test(entry)) {
      issues.add(at(path, index), typeof entry === 'string' ? `The item${named(entry)} is not well formed.` : `Expected a string, got ${kindOf(entry)}.`, item.accepted);
      valid = false;
      return;
    }
    if (options.unique && seen.has(entry)) {
      issues.add(at(path, index), `The item${named(entry)} is listed twice.`, 'each item at most once');
      valid = false;
    }
    seen.add(entry);
  });
  return valid ? (list as string[]) : undefined;
}
