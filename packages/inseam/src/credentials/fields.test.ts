import type { AuthField } from '@inseam/connector';
import { describe, expect, it } from 'vitest';
import { expectNoSecrets } from './__fixtures__/secrets.js';
import { checkFieldValues, compileFieldPattern, matchesPattern } from './fields.js';
import { parseJsonPath, selectJsonPath } from './json-path.js';
import { renderHeader, renderJson, renderUrl } from './template.js';

const FIELDS: AuthField[] = [
  { name: 'api_key', label: 'API key', secret: true, pattern: 'sk_[a-z0-9]{8}', help: 'starts with sk_' },
  { name: 'region', label: 'Region', secret: false, pattern: '\\p{Ll}{2}-\\p{Ll}+' },
];

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('AuthSpec field values', () => {
  it('accepts values that match each pattern as a whole (u flag: \\p classes work)', () => {
    expect(checkFieldValues(FIELDS, { api_key: 'sk_abcd1234', region: 'eu-west' })).toEqual({ api_key: 'sk_abcd1234', region: 'eu-west' });
  });

  it('anchors the pattern: a value containing a match is refused', () => {
    for (const api_key of ['xsk_abcd1234', 'sk_abcd1234x', 'sk_abcd1234\n']) {
      const error = thrown(() => checkFieldValues(FIELDS, { api_key, region: 'eu-west' }));
      expect(error).toMatchObject({ code: 'invalid_argument', details: { fields: ['api_key'] } });
      expectNoSecrets(error, [api_key.trim()]);
      expect((error as Error).message).toContain('starts with sk_');
    }
  });

  it('treats an alternation as a whole-value choice, not a prefix/suffix match', () => {
    const pattern = compileFieldPattern({ name: 'k', label: 'K', secret: false, pattern: 'a|b' });
    expect(pattern?.source).toBe('^(?:a|b)$');
    expect(matchesPattern(pattern ?? /x/u, 'a')).toBe(true);
    expect(matchesPattern(pattern ?? /x/u, 'ab')).toBe(false);
  });

  it('requires every declared field and refuses undeclared ones, naming them only', () => {
    const error = thrown(() => checkFieldValues(FIELDS, { api_key: 'sk_abcd1234', token: 'secret-value-123' }));
    expect(error).toMatchObject({ code: 'invalid_argument', details: { fields: ['region', 'token'] } });
    expectNoSecrets(error, ['secret-value-123', 'sk_abcd1234']);
  });

  it('reports an invalid pattern as invalid_config naming the field', () => {
    const error = thrown(() => checkFieldValues([{ name: 'k', label: 'K', secret: true, pattern: '(unclosed' }], { k: 'v' }));
    expect(error).toMatchObject({ code: 'invalid_config', details: { field: 'k' } });
    // Without the u flag this would be a literal brace; with it, it is a syntax error.
    expect(() => compileFieldPattern({ name: 'k', label: 'K', secret: true, pattern: '\\q' })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it('refuses, instead of hanging on, a catastrophically backtracking pattern', () => {
    const fields: AuthField[] = [{ name: 'k', label: 'K', secret: true, pattern: '(a+)+' }];
    const error = thrown(() => checkFieldValues(fields, { k: `${'a'.repeat(40)}!` }));
    expect(error).toMatchObject({ code: 'invalid_argument', details: { fields: ['k'] } });
  });
});

describe('exchange templates', () => {
  const values = { key: 'a b/&c', tenant: 'acme' };

  it('percent-encodes values in URLs so they cannot change its structure', () => {
    expect(renderUrl('https://api.example.com/{{tenant}}/token?k={{ key }}', values)).toBe('https://api.example.com/acme/token?k=a%20b%2F%26c');
  });

  it('refuses header values with line breaks and names missing fields only', () => {
    expect(() => renderHeader('x-key', '{{key}}', { key: 'a\r\nInjected: 1' })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    const error = thrown(() => renderHeader('x-key', 'Bearer {{missing}}', values));
    expect(error).toMatchObject({ code: 'invalid_config', details: { field: 'missing' } });
  });

  it('fills placeholders inside JSON strings, leaving keys and other values as they are', () => {
    expect(renderJson({ '{{key}}': ['{{tenant}}', 3, true, null], nested: { k: 'x-{{key}}' } }, values)).toEqual({ '{{key}}': ['acme', 3, true, null], nested: { k: 'x-a b/&c' } });
  });
});

describe('exchange JSON paths', () => {
  const document = { data: { token: 't', list: [{ id: 'first' }], 'odd key': 1 }, n: 5 };

  it('selects members, quoted members and array elements', () => {
    expect(selectJsonPath(document, parseJsonPath('$.data.token', 'p'))).toBe('t');
    expect(selectJsonPath(document, parseJsonPath('$.data.list[0].id', 'p'))).toBe('first');
    expect(selectJsonPath(document, parseJsonPath('$["data"][\'odd key\']', 'p'))).toBe(1);
    expect(selectJsonPath(document, parseJsonPath('$', 'p'))).toBe(document);
  });

  it('gives undefined for missing steps and never walks the prototype', () => {
    expect(selectJsonPath(document, parseJsonPath('$.data.nothing.deeper', 'p'))).toBeUndefined();
    expect(selectJsonPath(document, parseJsonPath('$.data.list[3]', 'p'))).toBeUndefined();
    expect(selectJsonPath(document, parseJsonPath('$.__proto__', 'p'))).toBeUndefined();
    expect(selectJsonPath(document, parseJsonPath('$.data.constructor', 'p'))).toBeUndefined();
  });

  it('refuses what is outside the subset', () => {
    for (const path of ['data.token', '$..token', '$.data[*]', '$.data[?(@.x)]', '$.', '$[-1]']) {
      expect(() => parseJsonPath(path, 'extract.token')).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
  });
});
