import { describe, expect, test } from 'vitest';
import { encodeSegment } from '@neuralis/package-system/contracts';
import { addressOfHostPath, addressOfUri, encodeName, encodePath } from './address.js';
import { etagOf } from './etag.js';
import { completeUtf8Length, looksLikeText } from './mime.js';
import { isoTime, parseTime } from './time.js';
import { isTempName, newTempName } from './write-names.js';

describe('small pieces', () => {
  test('isoTime matches Date#toISOString, including years outside 0000-9999', () => {
    const samples = [0, 1, 999, 1000, 1_700_000_000_123.9, 1_700_000_000_000, 1_700_000_000_999, -1, -86_400_001, 253_402_300_800_000, 8.64e15];
    for (const ms of samples) expect(isoTime(ms)).toBe(new Date(Math.floor(ms)).toISOString());
    for (let index = 0; index < 1000; index++) {
      const ms = Math.floor(Math.random() * 4e12);
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
    expect(parseTime('2024-05-01T12:00:00Z')).toBe(Date.UTC(2024, 4, 1, 12));
    expect(parseTime('2024-05-01T12:00:00.5+02:00')).toBe(Date.UTC(2024, 4, 1, 10, 0, 0, 500));
    for (const bad of ['2024-05-01', 'yesterday', '2024-13-45T99:00:00Z', '']) expect(parseTime(bad)).toBeUndefined();
  });

  test('names encode exactly like encodeSegment; addresses decode them back', () => {
    for (const name of ['plain.txt', 'a b', 'ü', '100%', "it's (1)!*", 'x#y?z', '~tilde_-.']) {
      expect(encodeName(name)).toBe(encodeSegment(name));
      expect(addressOfHostPath(encodePath(['dir', name])).names).toEqual(['dir', name]);
    }
    expect(addressOfUri('s://a/b%20c', 's')).toEqual({ names: ['a', 'b c'], relative: 'a/b c' });
    expect(addressOfUri('s://', 's')).toEqual({ names: [], relative: '' });
  });

  test('etags change with any of inode, size, mtime or ctime', () => {
    const base = { ino: 7, size: 10, mtimeMs: 1_700_000_000_000.5, ctimeMs: 1_700_000_000_001.25 };
    const etag = etagOf(base);
    expect(etag).toBe('7-10-1700000000000500-1700000000001250');
    for (const change of [{ ino: 8 }, { size: 11 }, { mtimeMs: base.mtimeMs + 0.002 }, { ctimeMs: base.ctimeMs + 0.002 }]) {
      expect(etagOf({ ...base, ...change })).not.toBe(etag);
    }
  });

  test('the text sniff for names the MIME table does not know', () => {
    expect(looksLikeText(Buffer.from('héllo\n\tworld'), true)).toBe(true);
    expect(looksLikeText(Buffer.from([104, 0, 105]), true)).toBe(false);
    expect(looksLikeText(Buffer.from([1, 2, 3, 4, 65]), true)).toBe(false);
    expect(looksLikeText(Buffer.from([0xc3, 0x28]), true)).toBe(false);
    // A character cut off by the end of the sample is not held against it.
    expect(looksLikeText(Buffer.from('abcé').subarray(0, 4), false)).toBe(true);
  });

  test('completeUtf8Length never ends inside a character', () => {
    const text = Buffer.from('aé€😀');
    expect(completeUtf8Length(text)).toBe(text.length);
    expect(completeUtf8Length(text.subarray(0, 2))).toBe(1);
    expect(completeUtf8Length(text.subarray(0, 5))).toBe(3);
    expect(completeUtf8Length(text.subarray(0, 8))).toBe(6);
    expect(completeUtf8Length(new Uint8Array(0))).toBe(0);
  });

  test('temp names are recognised, and ordinary names are not', () => {
    const temp = newTempName();
    expect(isTempName(temp)).toBe(true);
    expect(newTempName()).not.toBe(temp);
    for (const name of ['.inseam-xyz.tmp', 'inseam-0123456789abcdef.tmp', '.inseam-0123456789abcdef.tmp.bak', 'file.tmp']) expect(isTempName(name)).toBe(false);
  });
});
