import { describe, expect, it } from 'vitest';
import { validateDescription, type Description, type Dimension } from '@inseam/connector';
import { Ordering } from './ordering.js';

function ordered(dimension: Omit<Dimension, 'description' | 'ordering'>): Ordering {
  const description: Description = validateDescription({
    kind: 'k',
    capabilities: ['list', 'read'],
    auth: { acquire: { type: 'none' }, present: [], origins: ['https://k.example'] },
    dimensions: { order: { ...dimension, ordering: true, description: 'The order.' } },
    listing: 'free',
  });
  return new Ordering(description);
}

describe('the ordering dimension', () => {
  it('steps a datetime watermark back by the overlap, caps it at the run start, and compares instants, not text', () => {
    const ordering = ordered({ type: 'datetime', from: 'mtime' });
    const late = ordering.comparable({ path: 'a', mtime: '2024-05-01T12:00:00+02:00' })!;
    const early = ordering.comparable({ path: 'b', mtime: '2024-05-01T11:00:00Z' })!;
    // 10:00Z is before 11:00Z although "12" sorts after "11".
    expect(ordering.max(late, early)).toBe(early);
    expect(ordering.settle(early, Date.parse('2030-01-01T00:00:00Z'))).toBe('2024-05-01T11:00:00.000Z');
    expect(ordering.settle(early, Date.parse('2024-05-01T10:30:00Z'))).toBe('2024-05-01T10:30:00.000Z');
    expect(ordering.since('2024-05-01T11:00:00.000Z', 1000)).toBe('2024-05-01T10:59:59.000Z');
    expect(ordering.comparable({ path: 'c', mtime: 'yesterday' })).toBeUndefined();
  });

  it('steps an integer watermark back by one and leaves text as it is', () => {
    const integer = ordered({ type: 'integer', from: 'extra.seq' });
    expect(integer.since(integer.format(integer.comparable({ path: 'a', extra: { seq: 41 } })!), 1000)).toBe('40');
    const text = ordered({ type: 'string', from: 'extra.key' });
    expect(text.since('k-0042', 1000)).toBe('k-0042');
    // Code point order, as the store sorts: U+FF5E sorts below U+1F600 though its UTF-16 unit is higher.
    expect(text.compare('\uFF5E', '\u{1F600}')).toBeLessThan(0);
  });

  it('orders an enum by its declared values', () => {
    const ordering = ordered({ type: 'enum', from: 'extra.stage', values: ['draft', 'review', 'final'] });
    const review = ordering.comparable({ path: 'a', extra: { stage: 'review' } })!;
    expect(ordering.format(review)).toBe('review');
    expect(ordering.compare(review, ordering.parse('final')!)).toBeLessThan(0);
    expect(ordering.comparable({ path: 'a', extra: { stage: 'other' } })).toBeUndefined();
  });
});
