import { describe, expect, it } from 'vitest';
import { encodeSegmentName, entryName, objectPath, parseEntryName } from './pad-layout.js';

describe('pad layout names', () => {
  it('round-trips awkward segments through names that are safe on any filesystem', () => {
    for (const segment of ['plain', 'Hello, 世界', '" \' @ < > & ?', ' lead and trail ', '.hidden', '..x', '%41', 'UPPER', 'tab\there', '😀', '~tilde', 'a.o', 'x.d']) {
      for (const kind of ['object', 'folder'] as const) {
        const name = entryName(segment, kind);
        expect(name).toMatch(/^[a-z0-9_.%A-F-]+\.[od]$/);
        expect(name.startsWith('.')).toBe(false);
        expect(parseEntryName(name)).toEqual({ kind, segment });
      }
    }
  });

  it('encodes upper case so two keys never differ only by case on disk', () => {
    expect(encodeSegmentName('A')).toBe('%41');
    expect(encodeSegmentName('a')).toBe('a');
    expect(entryName('Readme', 'object').toLowerCase()).not.toBe(entryName('readme', 'object').toLowerCase());
  });

  it('hashes a segment whose encoded name would be too long', () => {
    const name = entryName('é'.repeat(200), 'object');
    expect(name).toMatch(/^~[0-9a-f]{64}\.o$/);
    expect(parseEntryName(name)).toEqual({ kind: 'object', segment: undefined });
  });

  it('ignores names the pad did not make: dot files, foreign names, non-canonical spellings', () => {
    for (const name of ['.seg', '.abc.tmp', 'notes.txt', 'Mixed.o', '%61.o', '%2e.o', '%zz.o', '~short.o', `${'a'.repeat(241)}.o`, '.o']) {
      expect(parseEntryName(name), name).toBeUndefined();
    }
  });

  it('maps a key to nested folder names with the object last', () => {
    expect(objectPath(['a', 'B', 'c.txt'])).toBe('a.d/%42.d/c.txt.o');
  });
});
