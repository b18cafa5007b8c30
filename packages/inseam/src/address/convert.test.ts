import { describe, expect, it } from 'vitest';
import { parseSourceUri } from '@neuralis/package-system/contracts';
import { createAddress, parseAddress } from './address.js';
import { addressFromHostPath, addressFromSourceUri, addressToHostPath, addressToSourceUri } from './convert.js';

const NAMES = ['hello? sausage', 'êé', 'Hello, 世界', `" ' @ < > & ?`, ' lead', 'trail ', '#', '%', 'a/b', 'z.txt'];

describe('source URIs', () => {
  it('the short form is the source URI, and both ways agree with the contracts parser', () => {
    const address = createAddress({ network: 'home', host: 'notes', segments: NAMES });
    const uri = addressToSourceUri(address);
    expect(uri).toBe(`notes://${address.path}`);
    expect(parseSourceUri(uri, 'notes').segments).toEqual(NAMES);
    expect(addressFromSourceUri(uri, { network: 'home' })).toEqual(address);
  });

  it('canonicalises what the lenient source parser accepts', () => {
    expect(addressFromSourceUri('notes://a%7e/b%2fc/')).toEqual(parseAddress('notes://a~/b%2Fc'));
    expect(addressFromSourceUri('notes://what?.md').path).toBe('what%3F.md');
  });

  it('maps the root', () => {
    expect(addressToSourceUri(parseAddress('inseam://home/notes/'))).toBe('notes://');
    expect(addressFromSourceUri('notes://')).toEqual({ host: 'notes', path: '', segments: [] });
  });

  it.each([
    ['the reserved slug', 'inseam://a', 'reserved'],
    ['a too-long slug', `${'s'.repeat(65)}://a`, 'at most 64'],
    ['a dot segment', 'notes://a/..', 'dot segments'],
    ['no scheme', 'notes', '"://" is missing'],
  ])('refuses %s', (_name, uri, message) => {
    expect(() => addressFromSourceUri(uri)).toThrow(expect.objectContaining({ code: 'invalid_uri', message: expect.stringContaining(message) }));
  });
});

describe('host paths', () => {
  it('the host path is the canonical path, and converts back', () => {
    const address = parseAddress('inseam://home/notes/docs/a%20b.md');
    expect(addressToHostPath(address)).toBe('docs/a%20b.md');
    expect(addressFromHostPath('docs/a%20b.md', { host: 'notes', network: 'home' })).toEqual(address);
    expect(addressFromHostPath('', { host: 'notes' })).toEqual({ host: 'notes', path: '', segments: [] });
  });

  it('round-trips awkward names', () => {
    const address = createAddress({ host: 'pad', segments: NAMES });
    expect(addressFromHostPath(addressToHostPath(address), { host: 'pad' })).toEqual(address);
  });

  it('reads raw "?" and "#" in a host path as name characters, and encodes raw spaces', () => {
    expect(addressFromHostPath('what?/a#b c', { host: 'pad' })).toMatchObject({ segments: ['what?', 'a#b c'], path: 'what%3F/a%23b%20c' });
  });

  it.each([
    ['a leading slash', '/a', 'starts with "/"'],
    ['a trailing slash', 'a/', 'ends with "/"'],
    ['an empty segment', 'a//b', 'Segment 2 of the path is empty'],
    ['a dot-dot segment', 'a/..', 'Segment 2 of the path is ".."'],
    ['a NUL', 'a\0', 'NUL'],
    ['a bad escape', 'a%', 'not followed by two hex digits'],
    ['a non-string', 5, 'must be a string'],
  ])('refuses %s', (_name, path, message) => {
    expect(() => addressFromHostPath(path as string, { host: 'pad' })).toThrow(expect.objectContaining({ code: 'invalid_uri', message: expect.stringContaining(message) }));
  });

  it('refuses a bad host or network in the context', () => {
    expect(() => addressFromHostPath('a', { host: 'Pad' })).toThrow(expect.objectContaining({ code: 'invalid_uri', details: { part: 'host' } }));
    expect(() => addressFromHostPath('a', { host: 'pad', network: '-x' })).toThrow(expect.objectContaining({ code: 'invalid_uri', details: { part: 'network' } }));
  });
});
