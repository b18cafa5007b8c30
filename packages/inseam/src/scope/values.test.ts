import { describe, expect, it } from 'vitest';
import type { Dimension, Entry } from '@inseam/connector';
import { compareText, dimensionReader, parseTimestamp } from './values.js';

const dimension = (type: Dimension['type'], from: Dimension['from']): Dimension => ({ type, from, description: 'd' });

describe('parseTimestamp', () => {
  it.each([
    ['2024-05-01T12:30:00Z', Date.UTC(2024, 4, 1, 12, 30)],
    ['2024-05-01T12:30:00.5Z', Date.UTC(2024, 4, 1, 12, 30, 0, 500)],
    ['2024-05-01T12:30:00.123456789Z', Date.UTC(2024, 4, 1, 12, 30, 0, 123)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['0001-01-01T00:00:00Z', -62135596800000],
  ])('reads %s in UTC', (text, ms) => {
    expect(parseTimestamp(text, true)).toBe(ms);
  });

  it('reads offsets only when not limited to UTC', () => {
    expect(parseTimestamp('2024-05-01T14:30:00+02:00', false)).toBe(Date.UTC(2024, 4, 1, 12, 30));
    expect(parseTimestamp('2024-05-01t12:30:00z', false)).toBe(Date.UTC(2024, 4, 1, 12, 30));
    expect(parseTimestamp('2024-05-01T14:30:00+02:00', true)).toBeUndefined();
    expect(parseTimestamp('2024-05-01t12:30:00Z', true)).toBeUndefined();
  });

  it.each(['2023-02-29T00:00:00Z', '2024-13-01T00:00:00Z', '2024-04-31T00:00:00Z', '2024-05-01T24:00:00Z', '2024-05-01T12:60:00Z', '2024-05-01 12:00:00Z', '2024-05-01', '1714566600', '2024-05-01T12:00:00+25:00'])(
    'refuses %s',
    (text) => {
      expect(parseTimestamp(text, false)).toBeUndefined();
    },
  );
});

describe('compareText', () => {
  it('orders by code point, as UTF-8 bytes do, not by UTF-16 unit', () => {
    const astral = '\u{1F600}';
    const bmpHigh = '\uFF01';
    expect(astral < bmpHigh).toBe(true);
    expect(compareText(astral, bmpHigh)).toBeGreaterThan(0);
    expect(Buffer.compare(Buffer.from(astral), Buffer.from(bmpHigh))).toBeGreaterThan(0);
    expect(compareText('a', 'b')).toBeLessThan(0);
    expect(compareText('ab', 'a')).toBeGreaterThan(0);
    expect(compareText('same', 'same')).toBe(0);
  });
});

describe('dimensionReader', () => {
  const entry: Entry = { path: 'a.md', size: 12, mtime: '2024-05-01T12:30:00Z', mime: 'text/markdown', extra: { folder: 'inbox', flags: { starred: true }, 'a.b': 'dotted', count: 3 } };

  it('reads fixed fields as their type', () => {
    expect(dimensionReader(dimension('path', 'path'))(entry)).toBe('a.md');
    expect(dimensionReader(dimension('bytes', 'size'))(entry)).toBe(12);
    expect(dimensionReader(dimension('datetime', 'mtime'))(entry)).toBe(Date.UTC(2024, 4, 1, 12, 30));
    expect(dimensionReader(dimension('string', 'mime'))(entry)).toBe('text/markdown');
  });

  it('reads extra fields as nested paths, never a literal dotted key', () => {
    expect(dimensionReader(dimension('enum', 'extra.folder'))(entry)).toBe('inbox');
    expect(dimensionReader(dimension('boolean', 'extra.flags.starred'))(entry)).toBe(true);
    expect(dimensionReader(dimension('string', 'extra.a.b'))(entry)).toBeUndefined();
  });

  it('reads missing values, wrong types and inherited members as undefined', () => {
    expect(dimensionReader(dimension('bytes', 'size'))({ path: 'x' })).toBeUndefined();
    expect(dimensionReader(dimension('string', 'extra.folder'))({ path: 'x' })).toBeUndefined();
    expect(dimensionReader(dimension('integer', 'extra.count'))({ path: 'x', extra: { count: '3' } })).toBeUndefined();
    expect(dimensionReader(dimension('integer', 'extra.count'))({ path: 'x', extra: { count: Number.NaN } })).toBeUndefined();
    expect(dimensionReader(dimension('datetime', 'mtime'))({ path: 'x', mtime: 'yesterday' })).toBeUndefined();
    expect(dimensionReader(dimension('boolean', 'extra.flags.starred'))({ path: 'x', extra: { flags: 'starred' } })).toBeUndefined();
    expect(dimensionReader(dimension('string', 'extra.constructor'))({ path: 'x', extra: {} })).toBeUndefined();
    expect(dimensionReader(dimension('string', 'extra.toString.name'))({ path: 'x', extra: {} })).toBeUndefined();
  });
});
