import { describe, expect, it } from 'vitest';
import { ScopeValidationError } from '@neuralis/package-system/contracts';
import type { Description } from '@inseam/connector';
import { bucket, folder, mailbox, withDimensions } from './__fixtures__/descriptions.js';
import { validateDefaultScope, validateScope } from './validate.js';

function issuesOf(scope: unknown, description: Description = mailbox): { path: string; message: string; expected: string }[] {
  try {
    validateScope(scope, description);
  } catch (error) {
    expect(error).toBeInstanceOf(ScopeValidationError);
    expect((error as ScopeValidationError).code).toBe('scope_invalid');
    return [...(error as ScopeValidationError).issues];
  }
  throw new Error('the scope was accepted');
}

function refusal(scope: unknown, path: string, message: string, description: Description = mailbox): void {
  const issues = issuesOf(scope, description);
  expect(issues).toContainEqual(expect.objectContaining({ path, message: expect.stringContaining(message) }));
}

describe('validateScope accepts', () => {
  it.each([
    ['an empty scope', {}],
    ['a mailbox window of thirty days', { window: { last: 'P30D' } }],
    ['a count window', { window: { last: 500, outside: 'skip' } }],
    ['explicit bounds', { window: { from: '2024-01-01T00:00:00Z', to: '2024-07-01T00:00:00.5Z' } }],
    ['an enum filter', { rules: [{ include: { dim: 'folder', op: 'in', value: ['inbox', 'sent'] } }, { exclude: { all: [] } }] }],
    ['nested predicates', { rules: [{ exclude: { all: [{ not: { dim: 'starred', op: 'eq', value: true } }, { any: [{ dim: 'size', op: 'gt', value: 1_000_000 }, { dim: 'sender', op: 'glob', value: '*@news.*' }] }] } }] }],
    ['negative integers', { rules: [{ include: { dim: 'attachments', op: 'gte', value: -1 } }] }],
    ['limits', { limits: { maxEntries: 10_000, maxBytes: 0, maxEntryBytes: 25_000_000 } }],
  ])('%s', (_name, scope) => {
    const valid = validateScope(scope, mailbox);
    expect(valid).toEqual(scope);
    expect(Object.isFrozen(valid)).toBe(true);
  });

  it('returns a copy the caller cannot change through the input', () => {
    const scope = { rules: [{ include: { dim: 'path', op: 'prefix', value: 'docs/' } }] };
    const valid = validateScope(scope, folder);
    scope.rules[0]!.include.value = 'other/';
    expect(valid.rules).toEqual([{ include: { dim: 'path', op: 'prefix', value: 'docs/' } }]);
  });

  it('takes path bounds on a key-ordered bucket', () => {
    expect(validateScope({ window: { from: 'logs/2024', to: 'logs/2025' } }, bucket).window).toEqual({ from: 'logs/2024', to: 'logs/2025' });
  });
});

describe('validateScope refuses, naming the path and what is wrong', () => {
  it('an undeclared dimension, listing the declared ones', () => {
    const issues = issuesOf({ rules: [{ exclude: { dim: 'subject', op: 'eq', value: 'x' } }] });
    expect(issues).toEqual([
      {
        path: 'rules[0].exclude.dim',
        message: 'The dimension "subject" is not declared by connector kind "mailbox".',
        expected: 'one of the declared dimensions: received, folder, sender, starred, attachments, size',
      },
    ]);
  });

  it.each([
    ['a string for bytes', { dim: 'size', op: 'gt', value: '10MB' }, 'rules[0].include.value', '"10MB" is not a non-negative whole number of bytes for dimension "size" (bytes)'],
    ['a negative size', { dim: 'size', op: 'gt', value: -1 }, 'rules[0].include.value', '-1 is not a non-negative whole number of bytes for dimension "size"'],
    ['a fraction for an integer', { dim: 'attachments', op: 'eq', value: 1.5 }, 'rules[0].include.value', '1.5 is not a whole number for dimension "attachments" (integer)'],
    ['a non-UTC datetime', { dim: 'received', op: 'gt', value: '2024-01-01T00:00:00+02:00' }, 'rules[0].include.value', 'not an RFC 3339 UTC timestamp for dimension "received" (datetime)'],
    ['a date without a time', { dim: 'received', op: 'gt', value: '2024-01-01' }, 'rules[0].include.value', 'not an RFC 3339 UTC timestamp'],
    ['an impossible date', { dim: 'received', op: 'gt', value: '2023-02-29T00:00:00Z' }, 'rules[0].include.value', 'not an RFC 3339 UTC timestamp'],
    ['an undeclared enum value', { dim: 'folder', op: 'eq', value: 'archive' }, 'rules[0].include.value', '"archive" is not one of the declared values for dimension "folder" (enum)'],
    ['a string for a boolean', { dim: 'starred', op: 'eq', value: 'yes' }, 'rules[0].include.value', '"yes" is not true or false for dimension "starred" (boolean)'],
    ['a number for a string', { dim: 'sender', op: 'eq', value: 7 }, 'rules[0].include.value', '7 is not a string for dimension "sender" (string)'],
    ['an enum value inside "in"', { dim: 'folder', op: 'in', value: ['inbox', 'junk'] }, 'rules[0].include.value[1]', '"junk" is not one of the declared values for dimension "folder"'],
    ['"in" without an array', { dim: 'folder', op: 'in', value: 'inbox' }, 'rules[0].include.value', 'The value of "in" for dimension "folder" (enum) is "inbox"'],
    ['"in" with an empty array', { dim: 'folder', op: 'in', value: [] }, 'rules[0].include.value', 'is an array of 0'],
    ['lt on an enum', { dim: 'folder', op: 'lt', value: 'sent' }, 'rules[0].include.op', 'The operator "lt" does not apply to dimension "folder" (enum)'],
    ['gt on a boolean', { dim: 'starred', op: 'gt', value: false }, 'rules[0].include.op', 'The operator "gt" does not apply to dimension "starred" (boolean)'],
    ['glob on bytes', { dim: 'size', op: 'glob', value: '1*' }, 'rules[0].include.op', 'The operator "glob" does not apply to dimension "size" (bytes)'],
    ['prefix on a datetime', { dim: 'received', op: 'prefix', value: '2024' }, 'rules[0].include.op', 'The operator "prefix" does not apply to dimension "received" (datetime)'],
    ['an unknown operator', { dim: 'size', op: 'between', value: 1 }, 'rules[0].include.op', 'The operator "between" is unknown'],
    ['a missing operator', { dim: 'size', value: 1 }, 'rules[0].include.op', 'op is missing'],
    ['a missing value', { dim: 'size', op: 'eq' }, 'rules[0].include.value', 'value is missing'],
    ['a missing dimension', { op: 'eq', value: 1 }, 'rules[0].include.dim', 'dim is missing'],
    ['a bad glob', { dim: 'sender', op: 'glob', value: '[a-' }, 'rules[0].include.value', 'The glob "[a-" for dimension "sender" (string) is not valid: a "[" is never closed'],
    ['an unknown key in a predicate', { dim: 'size', op: 'eq', value: 1, unit: 'MB' }, 'rules[0].include.unit', '"unit" is not a field here'],
    ['a predicate mixing forms', { all: [], not: { dim: 'size', op: 'eq', value: 1 } }, 'rules[0].include', 'The predicate mixes "all", "not"'],
    ['a predicate mixing a comparison and a combinator', { dim: 'size', op: 'eq', value: 1, any: [] }, 'rules[0].include', 'The predicate mixes'],
    ['any without an array', { any: { dim: 'size', op: 'eq', value: 1 } }, 'rules[0].include.any', 'any is an object, not an array'],
    ['a predicate that is not an object', 'size > 1', 'rules[0].include', 'The predicate is "size > 1", not an object'],
  ])('%s', (_name, predicate, path, message) => {
    refusal({ rules: [{ include: predicate }] }, path, message);
  });

  it('a bad path glob on a path dimension', () => {
    refusal({ rules: [{ exclude: { dim: 'path', op: 'glob', value: '/node_modules/**' } }] }, 'rules[0].exclude.value', 'starts with "/"', folder);
    refusal({ rules: [{ exclude: { dim: 'path', op: 'glob', value: 'a**' } }] }, 'rules[0].exclude.value', '"**" must be a whole segment', folder);
  });

  it('deep errors with their whole path', () => {
    refusal({ rules: [{ include: {} }, { exclude: { all: [{ not: { any: [{ dim: 'size', op: 'lt', value: 'big' }] } }] } }] }, 'rules[1].exclude.all[0].not.any[0].value', '"big" is not a non-negative whole number');
  });

  it.each([
    ['a rule with neither action', { rules: [{ skip: { dim: 'size', op: 'eq', value: 1 } }] }, 'rules[0]', 'neither include nor exclude'],
    ['a rule with both actions', { rules: [{ include: { all: [] }, exclude: { all: [] } }] }, 'rules[0]', 'both include and exclude'],
    ['a misspelt action', { rules: [{ exlude: { all: [] } }] }, 'rules[0].exlude', '"exlude" is not a field here'],
    ['rules that are not an array', { rules: { exclude: { all: [] } } }, 'rules', 'rules is an object, not an array'],
    ['a rule that is not an object', { rules: [null] }, 'rules[0]', 'A rule is null'],
    ['an unknown top-level key', { windw: {} }, 'windw', '"windw" is not a field here'],
    ['a scope that is not an object', [], '$', 'The scope is an array, not an object'],
    ['a window that is not an object', { window: 'P30D' }, 'window', 'window is "P30D", not an object'],
    ['an unknown window key', { window: { since: '2024-01-01T00:00:00Z' } }, 'window.since', '"since" is not a field here'],
    ['a bad duration', { window: { last: '30 days' } }, 'window.last', '"30 days" is not an ISO 8601 duration'],
    ['a fractional duration', { window: { last: 'P1.5D' } }, 'window.last', 'not an ISO 8601 duration'],
    ['an empty duration', { window: { last: 'PT' } }, 'window.last', 'not an ISO 8601 duration'],
    ['a zero duration', { window: { last: 'P0D' } }, 'window.last', 'zero duration'],
    ['a huge duration', { window: { last: 'P20000Y' } }, 'window.last', 'longer than 10,000 years'],
    ['a zero count', { window: { last: 0 } }, 'window.last', 'last is 0'],
    ['a fractional count', { window: { last: 2.5 } }, 'window.last', 'last is 2.5'],
    ['last with from', { window: { last: 'P30D', from: '2024-01-01T00:00:00Z' } }, 'window.last', 'last cannot be combined with from or to'],
    ['a from of the wrong type', { window: { from: 1_700_000_000 } }, 'window.from', '1700000000 is not an RFC 3339 UTC timestamp; the window runs along the ordering dimension "received" (datetime)'],
    ['a to before from', { window: { from: '2024-02-01T00:00:00Z', to: '2024-01-01T00:00:00Z' } }, 'window.to', 'is not after window.from'],
    ['an equal from and to', { window: { from: '2024-02-01T00:00:00Z', to: '2024-02-01T00:00:00.000Z' } }, 'window.to', 'the window is empty'],
    ['a bad outside', { window: { outside: 'drop' } }, 'window.outside', 'outside is "drop"'],
    ['limits that are not an object', { limits: 5 }, 'limits', 'limits is 5, not an object'],
    ['a zero maxEntries', { limits: { maxEntries: 0 } }, 'limits.maxEntries', 'maxEntries is 0'],
    ['a negative maxBytes', { limits: { maxBytes: -1 } }, 'limits.maxBytes', 'maxBytes is -1'],
    ['a string maxEntryBytes', { limits: { maxEntryBytes: '5MB' } }, 'limits.maxEntryBytes', 'maxEntryBytes is "5MB"'],
    ['an unknown limit', { limits: { maxFiles: 3 } }, 'limits.maxFiles', '"maxFiles" is not a field here'],
  ])('%s', (_name, scope, path, message) => {
    refusal(scope, path, message);
  });

  it('a duration on an ordering dimension that is not a datetime', () => {
    refusal({ window: { last: 'P30D' } }, 'window.last', 'the window runs along the ordering dimension "path" (path), which has no durations', bucket);
  });

  it('bounds of the wrong type on a key-ordered bucket', () => {
    refusal({ window: { from: 5 } }, 'window.from', '5 is not a string; the window runs along the ordering dimension "path" (path)', bucket);
  });

  it('bounds along an enum ordering that run backwards in declared order', () => {
    const tiers = withDimensions(bucket, { tier: { type: 'enum', from: 'extra.tier', values: ['hot', 'warm', 'cold'], ordering: true, description: 'Tier.' } });
    expect(validateScope({ window: { from: 'hot', to: 'cold' } }, tiers).window).toEqual({ from: 'hot', to: 'cold' });
    refusal({ window: { from: 'cold', to: 'hot' } }, 'window.to', 'is not after', tiers);
  });

  it('every problem at once, in one error whose message lists them', () => {
    let error: unknown;
    try {
      validateScope({ window: { last: 'soon' }, rules: [{ exclude: { dim: 'nope', op: 'eq', value: 1 } }], limits: { maxEntries: -5 } }, mailbox);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ScopeValidationError);
    const scopeError = error as ScopeValidationError;
    expect(scopeError.issues.map((issue) => issue.path)).toEqual(['window.last', 'rules[0].exclude.dim', 'limits.maxEntries']);
    expect(scopeError.details).toEqual({ paths: ['window.last', 'rules[0].exclude.dim', 'limits.maxEntries'] });
    expect(scopeError.message).toMatch(/^The scope is invalid \(3 problems\): window\.last: .*rules\[0\]\.exclude\.dim: The dimension "nope" .*limits\.maxEntries: /);
  });

  it('predicates nested deeper than 32 levels, without overflowing the stack', () => {
    let predicate: unknown = { dim: 'size', op: 'eq', value: 1 };
    for (let depth = 0; depth < 5000; depth++) predicate = { not: predicate };
    const issues = issuesOf({ rules: [{ include: predicate }] });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toContain('nest more than 32 deep');
  });

  it('more than 10,000 predicates, reported once', () => {
    const many = Array.from({ length: 10_001 }, () => ({ dim: 'size', op: 'eq', value: 1 }));
    const issues = issuesOf({ rules: [{ include: { any: many } }] });
    expect(issues).toEqual([expect.objectContaining({ path: 'rules[0].include.any[9999]', message: expect.stringContaining('more than 10000 predicates') })]);
  });

  it('a prototype-polluting key as an unknown field, without polluting', () => {
    refusal(JSON.parse('{"__proto__": {"polluted": true}, "rules": []}'), '__proto__', '"__proto__" is not a field here');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('a dimension named like an Object.prototype member', () => {
    refusal({ rules: [{ include: { dim: 'constructor', op: 'eq', value: 'x' } }] }, 'rules[0].include.dim', 'The dimension "constructor" is not declared');
  });

  it('objects that are not plain JSON', () => {
    refusal({ window: new Date() }, 'window', 'not an object');
    refusal({ window: { from: new Date('2024-01-01T00:00:00Z') } }, 'window.from', 'is not an RFC 3339 UTC timestamp');
  });
});

describe('validateDefaultScope', () => {
  it('accepts a valid default and returns it', () => {
    expect(validateDefaultScope(folder)).toEqual(folder.defaultScope);
    expect(validateDefaultScope(bucket)).toBeUndefined();
  });

  it('refuses a bad default with paths under defaultScope', () => {
    const bad = { ...bucket, defaultScope: { rules: [{ exclude: { dim: 'storage', op: 'in', value: ['GLACIER'] } }], window: { last: 'P1D' } } } as Description;
    expect(() => validateDefaultScope(bad)).toThrow(
      expect.objectContaining({
        code: 'scope_invalid',
        details: { paths: ['defaultScope.window.last', 'defaultScope.rules[0].exclude.dim'] },
        message: expect.stringContaining('defaultScope.rules[0].exclude.dim: The dimension "storage" is not declared by connector kind "bucket".'),
      }),
    );
  });

  it('refuses a default that is not an object', () => {
    expect(() => validateDefaultScope({ ...bucket, defaultScope: 'none' } as unknown as Description)).toThrow(expect.objectContaining({ details: { paths: ['defaultScope'] } }));
  });
});
