import { describe, expect, it } from 'vitest';
import { wrapCursor, unwrapCursor } from './cursor.js';
import { checkObjectPath, compareKeys, isAddressableKey } from './keys.js';

describe('keys', () => {
  it('orders by UTF-8 bytes, not UTF-16 code units', () => {
    const keys = ['😀', '\uFF21', 'a/b', 'a-b', 'a', 'ab', ''];
    expect([...keys].sort(compareKeys)).toEqual(['', 'a', 'a-b', 'a/b', 'ab', '\uFF21', '😀']);
    const bytewise = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...keys].sort(compareKeys)).toEqual(bytewise);
  });

  it('addresses only canonical keys', () => {
    for (const key of ['a', 'a/b', ' a ', 'a b/c?d', '.hidden', '..x']) expect(isAddressableKey(key), key).toBe(true);
    for (const key of ['', '/a', 'a/', 'a//b', '.', 'a/./b', 'a/..', 'a\0b']) expect(isAddressableKey(key), key).toBe(false);
  });

  it('counts the configured prefix toward the 1024-byte limit', () => {
    expect(checkObjectPath('x'.repeat(1000), 'p'.repeat(24))).toHaveLength(1000);
    expect(() => checkObjectPath('x'.repeat(1000), 'p'.repeat(25))).toThrow(expect.objectContaining({ code: 'invalid_path' }));
    expect(() => checkObjectPath(42, '')).toThrow(expect.objectContaining({ code: 'invalid_path' }));
  });
});

describe('cursors', () => {
  it('round-trip within their listing and are refused by any other', () => {
    const cursor = wrapCursor('host:logs/', 'token+/=with "quotes"');
    expect(unwrapCursor(cursor, 'host:logs/')).toBe('token+/=with "quotes"');
    for (const [value, listing] of [
      [cursor, 'host:other/'],
      ['c1.!!!', 'host:logs/'],
      ['plain', 'host:logs/'],
      [`c1.${Buffer.from('{"l":"host:logs/"}').toString('base64url')}`, 'host:logs/'],
      [undefined, 'host:logs/'],
    ] as const) {
      expect(() => unwrapCursor(value, listing)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});
