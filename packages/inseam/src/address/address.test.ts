import { describe, expect, it } from 'vitest';
import { createAddress, formatAddress, parseAddress, type Address } from './address.js';

const AWKWARD = ['hello? sausage', 'êé', 'Hello, 世界', `" ' @ < > & ?`, 'z.txt'];

function refusal(message: string, part?: string): unknown {
  return expect.objectContaining({
    code: 'invalid_uri',
    name: 'InvalidUriError',
    message: expect.stringContaining(message),
    ...(part === undefined ? {} : { details: expect.objectContaining({ part }) }),
  });
}

describe('parseAddress and formatAddress', () => {
  it('parses both forms of one object to one value', () => {
    const global = parseAddress('inseam://home/notes/docs/a%20b.md');
    expect(global).toEqual({ network: 'home', host: 'notes', path: 'docs/a%20b.md', segments: ['docs', 'a b.md'] });
    expect(parseAddress('notes://docs/a%20b.md', { network: 'home' })).toEqual(global);
    expect(parseAddress('notes://docs/a%20b.md')).toEqual({ host: 'notes', path: 'docs/a%20b.md', segments: ['docs', 'a b.md'] });
  });

  it('keeps the network a global form names over the one from context', () => {
    expect(parseAddress('inseam://work/notes/a', { network: 'home' }).network).toBe('work');
  });

  it.each([
    ['inseam://home/notes', 'global'],
    ['inseam://home/notes/', 'global'],
    ['notes://', 'short'],
  ])('reads %s as the host root', (text) => {
    expect(parseAddress(text)).toMatchObject({ host: 'notes', path: '', segments: [] });
  });

  it('formats the root as the template with an empty path', () => {
    const root = parseAddress('inseam://home/notes');
    expect(formatAddress(root)).toBe('inseam://home/notes/');
    expect(formatAddress(root, { form: 'short' })).toBe('notes://');
    expect(parseAddress(formatAddress(root))).toEqual(root);
  });

  it('forgives one trailing slash and drops it', () => {
    expect(parseAddress('notes://docs/').path).toBe('docs');
    expect(parseAddress('inseam://home/notes/docs/').path).toBe('docs');
  });

  it('round-trips awkward names through both forms', () => {
    const names = [...AWKWARD, ' lead', 'trail ', 'two  spaces', '#', '%', '50%', 'a/b', 'a%2Fb', '~tilde', "it's (1)*!", 'tab\there', 'line\nfeed', '🙂'];
    const address = createAddress({ network: 'home', host: 'notes', segments: names });
    for (const form of ['global', 'short'] as const) {
      const text = formatAddress(address, { form });
      expect(text).not.toMatch(/[ ?#"'<>&\t\n()*!]/);
      const parsed = parseAddress(text, { network: 'home' });
      expect(parsed).toEqual(address);
      expect(parsed.segments).toEqual(names);
      expect(formatAddress(parsed, { form })).toBe(text);
    }
  });

  it('gives the brief example its canonical spelling', () => {
    const text = 'notes://hello%3F%20sausage/%C3%AA%C3%A9/Hello%2C%20%E4%B8%96%E7%95%8C/%22%20%27%20%40%20%3C%20%3E%20%26%20%3F/z.txt';
    expect(formatAddress(createAddress({ host: 'notes', segments: AWKWARD }))).toBe(text);
    expect(parseAddress(text).segments).toEqual(AWKWARD);
  });

  it('keeps an encoded slash inside its segment', () => {
    const address = parseAddress('notes://a%2Fb/c');
    expect(address.segments).toEqual(['a/b', 'c']);
    expect(address.path).toBe('a%2Fb/c');
    expect(parseAddress('notes://a%2fb/c')).toEqual(address);
  });

  it('makes every spelling of one address equal: escape case, encoded unreserved, raw characters', () => {
    const spellings = [
      'notes://caf%C3%A9/%7Euser/A%20b',
      'notes://caf%c3%a9/%7euser/A%20b',
      'notes://café/~user/A b',
      'notes://caf%C3%A9/~user/%41%20b',
      'notes://caf%C3%A9/~user/A%20b/',
    ];
    const values = spellings.map((text) => parseAddress(text));
    for (const value of values) expect(value).toEqual(values[0]);
    expect(values.map((value) => formatAddress(value))).toEqual(spellings.map(() => 'notes://caf%C3%A9/~user/A%20b'));
  });

  it('encodes sub-delimiters so one spelling stays canonical', () => {
    expect(parseAddress("notes://it's").path).toBe('it%27s');
    expect(parseAddress('notes://a+b=c').path).toBe('a%2Bb%3Dc');
  });

  it('accepts scheme-like host slugs and reads uppercase in a path literally', () => {
    expect(parseAddress('my-notes.v2+x://README.md')).toMatchObject({ host: 'my-notes.v2+x', segments: ['README.md'] });
  });

  it('returns frozen values', () => {
    const address = parseAddress('inseam://home/notes/a');
    expect(Object.isFrozen(address)).toBe(true);
    expect(Object.isFrozen(address.segments)).toBe(true);
  });

  describe('refuses, saying which part is wrong', () => {
    it.each([
      ['no scheme', 'notes/a', '"://" is missing', 'scheme'],
      ['an empty scheme', '://a', 'before "://" is empty', 'scheme'],
      ['an uppercase global scheme', 'INSEAM://home/notes/a', 'lowercase: "inseam://"', 'scheme'],
      ['no network', 'inseam:///notes/a', 'network is missing', 'network'],
      ['only a network', 'inseam://home', 'host is missing', 'host'],
      ['only a network and slash', 'inseam://home/', 'host is missing', 'host'],
      ['an uppercase network', 'inseam://Home/notes/a', 'network slug "Home"', 'network'],
      ['a network with a dot', 'inseam://my.home/notes/a', 'contains "."', 'network'],
      ['a network ending with a hyphen', 'inseam://home-/notes/a', 'end with "-"', 'network'],
      ['a network starting with a digit', 'inseam://1home/notes/a', 'starts with "1"', 'network'],
      ['a long network', `inseam://${'n'.repeat(64)}/notes/a`, 'at most 63', 'network'],
      ['userinfo', 'inseam://me@home/notes/a', 'contains "@"', 'network'],
      ['an uppercase host', 'Notes://a', 'host slug "Notes"', 'host'],
      ['an uppercase host in the global form', 'inseam://home/Notes/a', 'host slug "Notes"', 'host'],
      ['a host with an underscore', 'my_notes://a', 'contains "_"', 'host'],
      ['a long host', `${'h'.repeat(65)}://a`, 'at most 64', 'host'],
      ['the reserved host inseam', 'inseam://home/inseam/a', 'reserved', 'host'],
      ['a leading space', ' notes://a', 'starts with " "', 'host'],
      ['a leading slash', 'notes:///a', 'starts with "/"', 'path'],
      ['an empty segment', 'notes://a//b', 'Segment 2 of the path is empty', 'path'],
      ['two trailing slashes', 'notes://a//', 'Segment 2 of the path is empty', 'path'],
      ['an empty segment after the host', 'inseam://home/notes//a', 'starts with "/"', 'path'],
      ['a dot segment', 'notes://a/./b', 'Segment 2 of the path is "."', 'path'],
      ['a dot-dot segment', 'notes://a/../b', 'Segment 2 of the path is ".."', 'path'],
      ['an encoded dot-dot segment', 'notes://a/%2e%2E/b', 'Segment 2 of the path is ".."', 'path'],
      ['an encoded single dot', 'inseam://home/notes/%2E', 'Segment 1 of the path is "."', 'path'],
      ['an encoded NUL', 'notes://a/b%00c', 'Segment 2 of the path contains a NUL', 'path'],
      ['a raw NUL', 'notes://a\0b', 'Segment 1 of the path contains a NUL', 'path'],
      ['a raw control character', 'notes://a\nb', 'raw control character (U+000A); write it as %0A', 'path'],
      ['a raw DEL', 'notes://a\x7fb', 'write it as %7F', 'path'],
      ['a bad escape', 'notes://x/a%zz', 'Segment 2 of the path ("a%zz") has a "%" not followed by two hex digits', 'path'],
      ['a truncated escape', 'notes://a%2', 'not followed by two hex digits', 'path'],
      ['a lone percent', 'notes://100%', 'write a literal "%" as %25', 'path'],
      ['escapes that are not UTF-8', 'notes://a%FFb', 'not valid UTF-8', 'path'],
      ['a raw question mark', 'notes://a?b', 'raw "?"; an address has no query or fragment, so write it as %3F', 'path'],
      ['a raw hash', 'inseam://home/notes/a.md#intro', 'write it as %23', 'path'],
      ['a lone surrogate', 'notes://a\uD800', 'lone surrogate', 'path'],
    ])('%s', (_name, text, message, part) => {
      expect(() => parseAddress(text)).toThrow(refusal(message, part));
    });

    it('a non-string', () => {
      expect(() => parseAddress(42 as unknown as string)).toThrow(refusal('must be a string'));
    });

    it('a bad network from context', () => {
      expect(() => parseAddress('notes://a', { network: 'Home' })).toThrow(refusal('network slug "Home"', 'network'));
    });
  });
});

describe('createAddress and formatAddress refusals', () => {
  it.each([
    ['an empty segment', { host: 'notes', segments: ['a', ''] }, 'Segment 2 of the path is empty'],
    ['a dot segment', { host: 'notes', segments: ['..'] }, 'Segment 1 of the path is ".."'],
    ['a NUL', { host: 'notes', segments: ['a\0'] }, 'NUL'],
    ['a lone surrogate', { host: 'notes', segments: ['\uDC00'] }, 'lone surrogate'],
    ['a non-string segment', { host: 'notes', segments: [7 as unknown as string] }, 'Segment 1 of the path is not a string'],
    ['the reserved host', { host: 'inseam', segments: [] }, 'reserved'],
    ['a bad network', { network: 'a_b', host: 'notes', segments: [] }, 'network slug "a_b"'],
  ])('createAddress refuses %s', (_name, parts, message) => {
    expect(() => createAddress(parts)).toThrow(refusal(message));
  });

  it('refuses the global form without a network', () => {
    expect(() => formatAddress(createAddress({ host: 'notes', segments: ['a'] }), { form: 'global' })).toThrow(refusal('no network', 'network'));
  });

  it('refuses a hand-built value whose path disagrees with its segments', () => {
    const forged: Address = { host: 'notes', path: 'a/../b', segments: ['a', 'b'] };
    expect(() => formatAddress(forged)).toThrow(refusal('not the canonical spelling', 'path'));
  });

  it('refuses an unknown form', () => {
    expect(() => formatAddress(createAddress({ host: 'notes', segments: [] }), { form: 'long' as 'short' })).toThrow(refusal('"long" is unknown'));
  });
});
