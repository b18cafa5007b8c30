import { describe, expect, it } from 'vitest';
import { formatEtag, noneMatchHits, parseIfMatch, parseIfNoneMatchWrite, parseRange } from './headers.js';

describe('Range', () => {
  it('reads the three single-range forms', () => {
    expect(parseRange('bytes=0-99')).toEqual({ kind: 'bytes', offset: 0, last: 99 });
    expect(parseRange('bytes=100-')).toEqual({ kind: 'bytes', offset: 100 });
    expect(parseRange('bytes=-5')).toEqual({ kind: 'suffix', length: 5 });
    expect(parseRange(' BYTES=3-3 ')).toEqual({ kind: 'bytes', offset: 3, last: 3 });
  });

  it('ignores what it does not serve, as RFC 9110 allows', () => {
    for (const header of [undefined, '', 'bytes=', 'bytes=-', 'bytes=5-2', 'bytes=0-1,3-4', 'items=0-1', 'bytes=a-b', 'bytes=99999999999999999999-']) {
      expect(parseRange(header), String(header)).toEqual({ kind: 'none' });
    }
  });
});

describe('etags', () => {
  it('quotes an etag for the header, keeps a quoted one, and drops one it cannot write', () => {
    expect(formatEtag('abc-1')).toBe('"abc-1"');
    expect(formatEtag('"abc"')).toBe('"abc"');
    expect(formatEtag('W/"abc"')).toBe('W/"abc"');
    expect(formatEtag('has space')).toBeUndefined();
    expect(formatEtag('ünï')).toBeUndefined();
    expect(formatEtag(undefined)).toBeUndefined();
  });

  it('reads If-Match: one strong etag, quoted or bare, or *', () => {
    expect(parseIfMatch('"abc"')).toBe('abc');
    expect(parseIfMatch('abc')).toBe('abc');
    expect(parseIfMatch(' * ')).toBe('*');
    expect(parseIfMatch(undefined)).toBeUndefined();
    for (const bad of ['W/"abc"', '"a", "b"', 'a b', '', '"a"b"']) {
      expect(() => parseIfMatch(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });

  it('takes only * in a write\'s If-None-Match', () => {
    expect(parseIfNoneMatchWrite('*')).toBe(true);
    expect(parseIfNoneMatchWrite(undefined)).toBe(false);
    expect(() => parseIfNoneMatchWrite('"abc"')).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('matches a GET\'s If-None-Match against the current etag, weakly', () => {
    expect(noneMatchHits('"x", "abc"', 'abc')).toBe(true);
    expect(noneMatchHits('W/"abc"', 'abc')).toBe(true);
    expect(noneMatchHits('*', 'abc')).toBe(true);
    expect(noneMatchHits('"abd"', 'abc')).toBe(false);
    expect(noneMatchHits('"abc"', undefined)).toBe(false);
  });
});
