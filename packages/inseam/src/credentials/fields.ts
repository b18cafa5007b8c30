/**
 * Checking the values a person enters for an AuthSpec's `fields`.
 *
 * `pattern` is a JavaScript regular expression source, compiled with the `u` flag (so `\p{…}`
 * classes work and malformed escapes are errors) and matched against the WHOLE value, as if
 * written `^(?:pattern)$`; a pattern that already has its own anchors means the same. A pattern
 * comes from connector code, so it runs with a time limit: one that backtracks past it (a
 * catastrophic pattern) refuses the value rather than stalling the platform.
 *
 * Every declared field is required, a value is a non-empty string of at most 16 KiB, and names
 * the AuthSpec does not declare are refused. Messages name the field, never the value.
 */
import { Script, createContext } from 'node:vm';
import type { AuthField } from '@inseam/connector';
import { InvalidArgumentError, InvalidConfigError } from '@neuralis/package-system/contracts';

export const MAX_FIELD_VALUE_LENGTH = 16 * 1024;
const MAX_PATTERN_LENGTH = 1024;
// Generous for any sane pattern even on a loaded machine (a 50 ms limit refused "acme" for [a-z]+ at load 10); a catastrophic pattern still stops here.
const PATTERN_TIME_LIMIT_MS = 250;

const matcher = new Script('pattern.test(value)');
const sandbox = createContext({ pattern: /$^/u, value: '' });

/** The whole-match expression for `field.pattern`. Throws `invalid_config` naming the field when it does not compile. */
export function compileFieldPattern(field: AuthField): RegExp | null {
  if (field.pattern === undefined) return null;
  if (field.pattern.length > MAX_PATTERN_LENGTH) {
    throw new InvalidConfigError(`The pattern of field "${field.name}" is longer than ${MAX_PATTERN_LENGTH} characters.`, { details: { field: field.name } });
  }
  try {
    return new RegExp(`^(?:${field.pattern})$`, 'u');
  } catch {
    throw new InvalidConfigError(`The pattern of field "${field.name}" is not a valid JavaScript regular expression (with the u flag).`, { details: { field: field.name } });
  }
}

/** True when `value` matches `pattern`; false too when matching exceeds the time limit. */
export function matchesPattern(pattern: RegExp, value: string): boolean {
  sandbox['pattern'] = pattern;
  sandbox['value'] = value;
  try {
    return matcher.runInContext(sandbox, { timeout: PATTERN_TIME_LIMIT_MS }) === true;
  } catch {
    return false;
  } finally {
    sandbox['value'] = '';
  }
}

/**
 * The field values to store: exactly the declared fields, each checked. Throws `invalid_argument`
 * naming every missing, unknown or malformed field (details.fields), never a value; and
 * `invalid_config` when a declared pattern does not compile.
 */
export function checkFieldValues(fields: readonly AuthField[] | undefined, values: Readonly<Record<string, unknown>>): Record<string, string> {
  const declared = fields ?? [];
  const problems: string[] = [];
  const names: string[] = [];
  const checked: Record<string, string> = {};
  for (const field of declared) {
    const pattern = compileFieldPattern(field);
    const value = Object.hasOwn(values, field.name) ? values[field.name] : undefined;
    if (typeof value !== 'string' || value === '') {
      problems.push(`"${field.name}" (${field.label}) is required`);
    } else if (value.length > MAX_FIELD_VALUE_LENGTH) {
      problems.push(`"${field.name}" (${field.label}) is longer than ${MAX_FIELD_VALUE_LENGTH} characters`);
    } else if (pattern !== null && !matchesPattern(pattern, value)) {
      problems.push(`"${field.name}" (${field.label}) does not have the expected format${field.help === undefined ? '' : ` (${field.help})`}`);
    } else {
      checked[field.name] = value;
      continue;
    }
    names.push(field.name);
  }
  const known = new Set(declared.map((field) => field.name));
  for (const name of Object.keys(values)) {
    if (!known.has(name)) {
      problems.push(`"${name}" is not a field of this host`);
      names.push(name);
    }
  }
  if (problems.length > 0) throw new InvalidArgumentError(`The credential fields are not valid: ${problems.join('; ')}.`, { details: { fields: names } });
  return checked;
}
