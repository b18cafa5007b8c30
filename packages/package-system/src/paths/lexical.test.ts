import { describe, expect, it } from 'vitest';
import { isConnectorError } from '../contracts/errors.js';
import { isWithin, joinUnder, parseRelativePath } from './lexical.js';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return isConnectorError(error) ? error.code : 'untyped';
  }
  return undefined;
}

describe('parseRelativePath', () => {
  it.each([
    ['', []],
    ['.', []],
    ['./', []],
    ['a', ['a']],
    ['a/b/c.txt', ['a', 'b', 'c.txt']],
    ['a//b/./c/', ['a', 'b', 'c']],
    ['a/../b', ['b']],
    ['a/b/../../c', ['c']],
    ['a/..', []],
    ['%2e%2e', ['%2e%2e']],
    ['%2e%2e/%2F..%2F', ['%2e%2e', '%2F..%2F']],
    ['...', ['...']],
    ['..a/b..', ['..a', 'b..']],
    ['ü/名前 with space', ['ü', '名前 with space']],
  ])("spec: lexical rule — %j names %j (percent literal, '.' and empty dropped, '..' applied textually)", (input, names) => {
    expect(parseRelativePath(input)).toEqual(names);
  });

  it.each([
    ['..', 'containment_violation'],
    ['../a', 'containment_violation'],
    ['a/../..', 'containment_violation'],
    ['a/../../a', 'containment_violation'],
    ['./../a', 'containment_violation'],
    ['/a', 'invalid_path'],
    ['/', 'invalid_path'],
    ['//a', 'invalid_path'],
    ['a\0b', 'invalid_path'],
    ['\0', 'invalid_path'],
    ['a\\b', 'invalid_path'],
    ['C:\\x', 'invalid_path'],
    ['\\\\server\\share', 'invalid_path'],
  ])('spec: lexical rule — %j is refused with %s before any filesystem access', (input, code) => {
    expect(codeOf(() => parseRelativePath(input))).toBe(code);
  });

  it('spec: a non-string path answers invalid_path', () => {
    for (const value of [undefined, null, 1, ['a'], { toString: () => 'a' }]) expect(codeOf(() => parseRelativePath(value))).toBe('invalid_path');
  });
});

describe('isWithin', () => {
  it('spec: containment compares on a separator boundary (/x/data vs /x/data-evil)', () => {
    expect(isWithin('/x/data', '/x/data')).toBe(true);
    expect(isWithin('/x/data', '/x/data/a')).toBe(true);
    expect(isWithin('/x/data', '/x/data-evil')).toBe(false);
    expect(isWithin('/x/data', '/x/data-evil/a')).toBe(false);
    expect(isWithin('/x/data', '/x/dat')).toBe(false);
    expect(isWithin('/x/data', '/x')).toBe(false);
  });

  it('spec: a root of / contains every absolute path', () => {
    expect(isWithin('/', '/')).toBe(true);
    expect(isWithin('/', '/etc/passwd')).toBe(true);
  });

  it('joins names under a base with exactly one separator', () => {
    expect(joinUnder('/x', ['a', 'b'])).toBe('/x/a/b');
    expect(joinUnder('/', ['a'])).toBe('/a');
    expect(joinUnder('/x', [])).toBe('/x');
  });
});
