import { describe, expect, it } from 'vitest';
import { formatSourceUri, parseSourceUri } from './uri.js';

describe('source URIs', () => {
  it('parses the root and nested paths into decoded segments', () => {
    expect(parseSourceUri('notes://')).toEqual({ source: 'notes', segments: [] });
    expect(parseSourceUri('notes://a/b%20c/d.md')).toEqual({ source: 'notes', segments: ['a', 'b c', 'd.md'] });
  });

  it('formats canonically and round-trips awkward names', () => {
    const segments = ['hello? sausage', 'êé', 'Hello, 世界', `" ' @ < > & ?`, 'z.txt', ' lead', 'trail ', '#', '%', 'a/b'];
    const uri = formatSourceUri('pad', segments);
    expect(uri).not.toMatch(/[ ?#"'<>&]/);
    expect(parseSourceUri(uri, 'pad').segments).toEqual(segments);
    expect(formatSourceUri('pad', parseSourceUri(uri).segments)).toBe(uri);
  });

  it.each([
    ['no scheme', 'a/b', '"://" is missing'],
    ['uppercase slug', 'Notes://a', 'lowercase'],
    ['dot segment', 'notes://a/../b', 'dot segments'],
    ['encoded dot segment', 'notes://a/%2e%2E/b', 'dot segments'],
    ['single dot', 'notes://./b', 'dot segments'],
    ['empty segment', 'notes://a//b', 'empty'],
    ['NUL byte', 'notes://a%00b', 'NUL'],
    ['bad escape', 'notes://a%zz', 'percent-escape'],
  ])('refuses %s with invalid_uri saying what is wrong', (_name, uri, message) => {
    expect(() => parseSourceUri(uri)).toThrow(expect.objectContaining({ code: 'invalid_uri', message: expect.stringContaining(message) }));
  });

  it('refuses a URI bound to another source', () => {
    expect(() => parseSourceUri('other://a', 'notes')).toThrow(expect.objectContaining({ code: 'invalid_uri' }));
  });
});
