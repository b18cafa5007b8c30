import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ConnectorError,
  ERROR_CLASSES,
  ERROR_CODES,
  ManifestValidationError,
  NotFoundError,
  RateLimitedError,
  UnsupportedOperationError,
  hasErrorCode,
} from './errors.js';

const docsPath = new URL('../../../../docs/errors.md', import.meta.url);

function documentedCodes(): Map<string, string> {
  const rows = readFileSync(docsPath, 'utf8')
    .split('\n')
    .map((line) => /^\| `([a-z_]+)` \| `([A-Za-z]+)` \|/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null);
  return new Map(rows.map((match) => [match[1]!, match[2]!]));
}

function instantiate(code: keyof typeof ERROR_CLASSES): ConnectorError {
  switch (code) {
    case 'unsupported':
      return new UnsupportedOperationError('k', 'op');
    case 'manifest_invalid':
      return new ManifestValidationError([]);
    default: {
      const Ctor = ERROR_CLASSES[code] as new (message: string) => ConnectorError;
      return new Ctor('m');
    }
  }
}

describe('error taxonomy', () => {
  it('docs/errors.md lists exactly the codes in ERROR_CODES, each with its class', () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect(documented.get(code)).toBe(ERROR_CLASSES[code].name);
  });

  it('every class carries the code it is registered under, and extends the one base class', () => {
    for (const code of ERROR_CODES) {
      const error = instantiate(code);
      expect(error).toBeInstanceOf(ConnectorError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(error.name).toBe(ERROR_CLASSES[code].name);
    }
  });

  it('codes are unique, snake_case strings', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it('unsupported names kind, operation and argument in message and details', () => {
    const error = new UnsupportedOperationError('bucket', 'read', 'range');
    expect(error.message).toContain('"bucket"');
    expect(error.message).toContain('"read"');
    expect(error.message).toContain('"range"');
    expect(error.details).toEqual({ kind: 'bucket', operation: 'read', argument: 'range' });
  });

  it('serialises to code, message and details only (no stack, no cause)', () => {
    const error = new NotFoundError('gone', { cause: new Error('/secret/host/path') });
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'not_found', message: 'gone', details: {} });
  });

  it('matches by code, not by class', () => {
    expect(hasErrorCode(new NotFoundError(), 'not_found')).toBe(true);
    expect(hasErrorCode(new NotFoundError(), 'timeout')).toBe(false);
    expect(hasErrorCode(new Error('not_found'), 'not_found')).toBe(false);
  });

  it('rate_limited carries the retry delay', () => {
    expect(new RateLimitedError(undefined, 1500).details).toEqual({ retryAfterMs: 1500 });
  });

  it('manifest_invalid summarises the first issue and lists every path', () => {
    const error = new ManifestValidationError([
      { path: 'connectors[0].capabilities', message: 'list is missing.', expected: 'an array containing "list" and "read"' },
      { path: 'sources[1].root', message: 'absolute paths are refused.', expected: 'data, _packages or ${appRoot}' },
    ]);
    expect(error.message).toContain('connectors[0].capabilities');
    expect(error.message).toContain('1 more issue');
    expect(error.details['paths']).toEqual(['connectors[0].capabilities', 'sources[1].root']);
  });
});
