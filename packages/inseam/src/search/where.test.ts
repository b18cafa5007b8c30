import { describe, expect, it } from 'vitest';
import type { Description } from '@inseam/connector';
import { WHERE_OPERATORS, describeWhere, parseWhere, typeWhere } from './where.js';

const description: Description = {
  kind: 'demo',
  capabilities: ['list', 'read'],
  auth: { acquire: { type: 'none' }, present: [], origins: ['https://example.com'] },
  listing: 'free',
  dimensions: {
    path: { type: 'path', from: 'path', description: 'path' },
    size: { type: 'bytes', from: 'size', description: 'size' },
    mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'mtime' },
    starred: { type: 'boolean', from: 'extra.starred', description: 'starred' },
  },
};

describe('parseWhere', () => {
  it('reads each operator, the longest first', () => {
    expect(['a=1', 'a!=1', 'a>1', 'a>=1', 'a<1', 'a<=1', 'a^=x', 'a~=*.md'].map(parseWhere)).toEqual([
      { dim: 'a', op: 'eq', value: '1' },
      { dim: 'a', op: 'ne', value: '1' },
      { dim: 'a', op: 'gt', value: '1' },
      { dim: 'a', op: 'gte', value: '1' },
      { dim: 'a', op: 'lt', value: '1' },
      { dim: 'a', op: 'lte', value: '1' },
      { dim: 'a', op: 'prefix', value: 'x' },
      { dim: 'a', op: 'glob', value: '*.md' },
    ]);
    expect(parseWhere('mime=text/plain; charset=utf-8')).toEqual({ dim: 'mime', op: 'eq', value: 'text/plain; charset=utf-8' });
    expect(parseWhere('path=')).toEqual({ dim: 'path', op: 'eq', value: '' });
  });

  it('refuses text without a dimension or an operator', () => {
    for (const bad of ['size', '=1', 'a!1', '']) expect(() => parseWhere(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});

describe('typeWhere', () => {
  it('types values by the dimension, leaving what does not fit for validation to refuse', () => {
    expect(typeWhere({ dim: 'size', op: 'gt', value: '1024' }, description)).toEqual({ dim: 'size', op: 'gt', value: 1024 });
    expect(typeWhere({ dim: 'size', op: 'gt', value: '1k' }, description)).toEqual({ dim: 'size', op: 'gt', value: '1k' });
    expect(typeWhere({ dim: 'starred', op: 'eq', value: 'true' }, description)).toEqual({ dim: 'starred', op: 'eq', value: true });
    expect(typeWhere({ dim: 'mtime', op: 'gte', value: '2024-05-01' }, description)).toEqual({ dim: 'mtime', op: 'gte', value: '2024-05-01T00:00:00Z' });
    expect(typeWhere({ dim: 'path', op: 'eq', value: '12' }, description)).toEqual({ dim: 'path', op: 'eq', value: '12' });
    expect(typeWhere({ not: { any: [{ dim: 'size', op: 'in', value: ['1', '2'] }] } }, description)).toEqual({ not: { any: [{ dim: 'size', op: 'in', value: [1, 2] }] } });
    expect(typeWhere({ dim: 'unknown', op: 'eq', value: '1' }, description)).toEqual({ dim: 'unknown', op: 'eq', value: '1' });
  });
});

describe('describeWhere', () => {
  it('names each dimension with its type and the written operators the type takes, and who declares it', () => {
    const text = describeWhere([
      { host: 'notes', dimensions: description.dimensions },
      { host: 'mail', dimensions: { size: description.dimensions['size']!, folder: { type: 'enum', from: 'extra.folder', values: ['inbox', 'sent'], description: 'folder' } } },
    ]);
    for (const [symbol, op] of WHERE_OPERATORS) expect(text).toContain(`${symbol} (${op})`);
    expect(text).toContain('size (bytes: != >= <= = > <)');
    expect(text).toContain('path (path: != >= <= ^= ~= = > <) on notes');
    expect(text).toContain('starred (boolean: != =) on notes');
    expect(text).toContain('folder (enum of inbox|sent: != =) on mail');
  });

  it('says when no host declares a dimension', () => {
    expect(describeWhere([])).toMatch(/none of these hosts declares a dimension/);
  });
});
