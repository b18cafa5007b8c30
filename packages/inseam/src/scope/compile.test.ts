import { describe, expect, it } from 'vitest';
import type { Entry, Scope } from '@inseam/connector';
import { bucket, folder, mailbox, withDimensions } from './__fixtures__/descriptions.js';
import { compileScope } from './compile.js';

const NOW = new Date('2024-06-01T00:00:00Z');
const daysAgo = (days: number): string => new Date(NOW.getTime() - days * 86_400_000).toISOString();
const mail = (received: string | undefined, extra: Record<string, unknown> = {}, size = 1000): Entry => ({
  path: `m${Math.random()}`,
  size,
  extra: { ...(received === undefined ? {} : { received }), folder: 'inbox', from: 'ann@example.com', ...extra },
});

describe('decide: rules', () => {
  it('includes by default', () => {
    expect(compileScope({}, folder).decide({ path: 'a.md' })).toBe('include');
  });

  it('takes the first matching rule', () => {
    const keepDocs: Scope = {
      rules: [
        { include: { dim: 'path', op: 'glob', value: 'docs/keep/**' } },
        { exclude: { dim: 'path', op: 'prefix', value: 'docs/' } },
      ],
    };
    const scope = compileScope(keepDocs, folder);
    expect(scope.decide({ path: 'docs/keep/a.md' })).toBe('include');
    expect(scope.decide({ path: 'docs/drop.md' })).toBe('skip');
    expect(scope.decide({ path: 'other.md' })).toBe('include');
    const reversed = compileScope({ rules: [...keepDocs.rules!].reverse() }, folder);
    expect(reversed.decide({ path: 'docs/keep/a.md' })).toBe('skip');
  });

  it('applies the fs default excludes as globs on the path', () => {
    const scope = compileScope(folder.defaultScope!, folder);
    expect(scope.decide({ path: '.git/config' })).toBe('skip');
    expect(scope.decide({ path: 'src/.git/HEAD' })).toBe('skip');
    expect(scope.decide({ path: 'web/node_modules/x/index.js' })).toBe('skip');
    expect(scope.decide({ path: 'node_modules.md' })).toBe('include');
    expect(scope.decide({ path: 'docs/a%20b.md' })).toBe('include');
  });

  it('filters an enum', () => {
    const scope = compileScope({ rules: [{ exclude: { not: { dim: 'folder', op: 'in', value: ['inbox', 'sent'] } } }] }, mailbox, { now: NOW });
    expect(scope.decide(mail(daysAgo(1), { folder: 'sent' }))).toBe('include');
    expect(scope.decide(mail(daysAgo(1), { folder: 'spam' }))).toBe('skip');
  });

  it('reads nested extra fields and booleans', () => {
    const scope = compileScope({ rules: [{ exclude: { all: [{ dim: 'starred', op: 'ne', value: true }, { dim: 'attachments', op: 'gte', value: 2 }] } }] }, mailbox, { now: NOW });
    expect(scope.decide(mail(daysAgo(1), { attachments: 3 }))).toBe('skip');
    expect(scope.decide(mail(daysAgo(1), { attachments: 3, flags: { starred: true } }))).toBe('include');
    expect(scope.decide(mail(daysAgo(1), { attachments: 1 }))).toBe('include');
  });

  it('globs a string dimension across "/"', () => {
    const scope = compileScope({ rules: [{ exclude: { dim: 'sender', op: 'glob', value: '*@news.*' } }] }, mailbox, { now: NOW });
    expect(scope.decide(mail(daysAgo(1), { from: 'digest@news.example.com' }))).toBe('skip');
    expect(scope.decide(mail(daysAgo(1), { from: 'ann@example.com' }))).toBe('include');
  });

  it('treats a missing value as matching nothing but "ne"', () => {
    const decide = (predicate: Scope['rules']) => compileScope({ rules: predicate! }, mailbox, { now: NOW }).decide(mail(daysAgo(1)));
    expect(decide([{ exclude: { dim: 'attachments', op: 'eq', value: 0 } }])).toBe('include');
    expect(decide([{ exclude: { dim: 'attachments', op: 'lt', value: 5 } }])).toBe('include');
    expect(decide([{ exclude: { dim: 'attachments', op: 'in', value: [0, 1] } }])).toBe('include');
    expect(decide([{ exclude: { dim: 'attachments', op: 'ne', value: 0 } }])).toBe('skip');
    expect(decide([{ exclude: { not: { dim: 'attachments', op: 'eq', value: 0 } } }])).toBe('skip');
  });

  it('compares datetimes as instants, whatever offset the entry uses', () => {
    const scope = compileScope({ rules: [{ exclude: { dim: 'mtime', op: 'lt', value: '2024-05-01T12:00:00Z' } }] }, folder);
    expect(scope.decide({ path: 'a', mtime: '2024-05-01T13:00:00+02:00' })).toBe('skip');
    expect(scope.decide({ path: 'a', mtime: '2024-05-01T13:00:00Z' })).toBe('include');
    const exact = compileScope({ rules: [{ exclude: { dim: 'mtime', op: 'in', value: ['2024-05-01T12:00:00Z'] } }] }, folder);
    expect(exact.decide({ path: 'a', mtime: '2024-05-01T12:00:00.000Z' })).toBe('skip');
  });

  it('compares numbers and text by value', () => {
    const scope = compileScope({ rules: [{ exclude: { any: [{ dim: 'size', op: 'gt', value: 100 }, { dim: 'mime', op: 'gte', value: 'video/' }] } }] }, folder);
    expect(scope.decide({ path: 'a', size: 101 })).toBe('skip');
    expect(scope.decide({ path: 'a', size: 100, mime: 'text/plain' })).toBe('include');
    expect(scope.decide({ path: 'a', size: 1, mime: 'video/mp4' })).toBe('skip');
  });

  it('is pure: the same entry always gets the same decision', () => {
    const scope = compileScope({ window: { last: 1 }, limits: { maxEntries: 1 } }, mailbox, { now: NOW });
    const entry = mail(daysAgo(1));
    expect([scope.decide(entry), scope.decide(entry), scope.decide(entry)]).toEqual(['include', 'include', 'include']);
  });

  it('refuses an invalid scope with scope_invalid', () => {
    expect(() => compileScope({ rules: [{ exclude: { dim: 'nope', op: 'eq', value: 1 } }] }, folder)).toThrow(expect.objectContaining({ code: 'scope_invalid' }));
  });
});

describe('decide: the window', () => {
  it('keeps the last thirty days of a metered mailbox and skips the rest', () => {
    const scope = compileScope({ window: { last: 'P30D' } }, mailbox, { now: NOW });
    expect(scope.window).toEqual({ dimension: 'received', type: 'datetime', from: '2024-05-02T00:00:00.000Z', outside: 'skip' });
    expect(scope.decide(mail(daysAgo(10)))).toBe('include');
    expect(scope.decide(mail(daysAgo(30)))).toBe('include');
    expect(scope.decide(mail(new Date(NOW.getTime() - 30 * 86_400_000 - 1).toISOString()))).toBe('skip');
    expect(scope.decide(mail(daysAgo(40)))).toBe('skip');
  });

  it('indexes entries outside the window on a free host, or when asked', () => {
    expect(compileScope({ window: { last: 'P7D' } }, folder, { now: NOW }).decide({ path: 'a', mtime: daysAgo(8) })).toBe('index');
    expect(compileScope({ window: { last: 'P30D', outside: 'index' } }, mailbox, { now: NOW }).decide(mail(daysAgo(40)))).toBe('index');
    expect(compileScope({ window: { last: 'P7D', outside: 'skip' } }, folder, { now: NOW }).decide({ path: 'a', mtime: daysAgo(8) })).toBe('skip');
  });

  it('counts an entry without an ordering value as inside', () => {
    expect(compileScope({ window: { last: 'P30D' } }, mailbox, { now: NOW }).decide(mail(undefined))).toBe('include');
    expect(compileScope({ window: { last: 'P30D' } }, mailbox, { now: NOW }).decide(mail('last tuesday'))).toBe('include');
  });

  it('treats from as inclusive and to as exclusive', () => {
    const scope = compileScope({ window: { from: '2024-01-01T00:00:00Z', to: '2024-02-01T00:00:00Z', outside: 'skip' } }, folder);
    expect(scope.decide({ path: 'a', mtime: '2024-01-01T00:00:00Z' })).toBe('include');
    expect(scope.decide({ path: 'a', mtime: '2024-01-31T23:59:59.999Z' })).toBe('include');
    expect(scope.decide({ path: 'a', mtime: '2024-02-01T00:00:00Z' })).toBe('skip');
    expect(scope.decide({ path: 'a', mtime: '2023-12-31T23:59:59.999Z' })).toBe('skip');
  });

  it('offers `since` only when skipped entries need not be listed and the ordering reads mtime', () => {
    expect(compileScope({ window: { last: 'P7D', outside: 'skip' } }, folder, { now: NOW }).window.since).toBe('2024-05-25T00:00:00.000Z');
    expect(compileScope({ window: { from: '2024-01-01T00:00:00Z', outside: 'skip' } }, folder).window.since).toBe('2024-01-01T00:00:00.000Z');
    expect(compileScope({ window: { last: 'P7D' } }, folder, { now: NOW }).window.since).toBeUndefined();
    expect(compileScope({ window: { last: 'P7D' } }, mailbox, { now: NOW }).window.since).toBeUndefined();
    expect(compileScope({ window: { to: '2024-01-01T00:00:00Z', outside: 'skip' } }, folder).window.since).toBeUndefined();
  });

  it('runs along keys on a key-ordered bucket', () => {
    const scope = compileScope({ window: { from: 'logs/2024', to: 'logs/2025' } }, bucket);
    expect(scope.window).toEqual({ dimension: 'path', type: 'path', from: 'logs/2024', to: 'logs/2025', outside: 'skip' });
    expect(scope.decide({ path: 'logs/2024-06-01.gz' })).toBe('include');
    expect(scope.decide({ path: 'logs/2025-01-01.gz' })).toBe('skip');
    expect(scope.decide({ path: 'data/x' })).toBe('skip');
  });

  it('orders an enum ordering dimension by its declared values', () => {
    const tiers = withDimensions(bucket, { tier: { type: 'enum', from: 'extra.tier', values: ['hot', 'warm', 'cold'], ordering: true, description: 'Tier.' } });
    const scope = compileScope({ window: { from: 'warm' } }, tiers);
    expect(scope.decide({ path: 'a', extra: { tier: 'hot' } })).toBe('skip');
    expect(scope.decide({ path: 'a', extra: { tier: 'cold' } })).toBe('include');
    expect(scope.decide({ path: 'a', extra: { tier: 'frozen' } })).toBe('include');
  });

  it('orders an integer ordering dimension numerically', () => {
    const numbered = withDimensions(folder, { seq: { type: 'integer', from: 'extra.seq', ordering: true, description: 'Sequence number.' } });
    const scope = compileScope({ window: { from: 9, to: 100, outside: 'skip' } }, numbered);
    expect(scope.decide({ path: 'a', extra: { seq: 10 } })).toBe('include');
    expect(scope.decide({ path: 'a', extra: { seq: 8 } })).toBe('skip');
    expect(scope.decide({ path: 'a', extra: { seq: 100 } })).toBe('skip');
  });
});

describe('limits', () => {
  it('indexes entries larger than maxEntryBytes in decide', () => {
    const scope = compileScope({ limits: { maxEntryBytes: 1000 } }, bucket);
    expect(scope.decide({ path: 'a', size: 1000 })).toBe('include');
    expect(scope.decide({ path: 'a', size: 1001 })).toBe('index');
    expect(scope.decide({ path: 'a' })).toBe('include');
  });

  it('a metered bucket with limits: maxEntries fills, maxBytes turns includes into index', () => {
    const scope = compileScope({ rules: [{ exclude: { dim: 'storageClass', op: 'in', value: ['GLACIER'] } }], limits: { maxEntries: 4, maxBytes: 250, maxEntryBytes: 200 } }, bucket);
    expect(scope.limits).toEqual({ maxEntries: 4, maxBytes: 250, maxEntryBytes: 200 });
    const tally = scope.tally();
    const decisions = [
      tally.decide({ path: 'a', size: 100 }),
      tally.decide({ path: 'b', size: 100, extra: { storageClass: 'GLACIER' } }),
      tally.decide({ path: 'c', size: 300 }),
      tally.decide({ path: 'd', size: 100 }),
      tally.decide({ path: 'e', size: 100 }),
    ];
    expect(decisions).toEqual(['include', 'skip', 'index', 'include', 'index']);
    expect(tally.entries).toBe(4);
    expect(tally.bytes).toBe(200);
    expect(tally.full).toBe(true);
    expect(tally.decide({ path: 'f', size: 1 })).toBe('skip');
    expect(scope.tally().entries).toBe(0);
  });

  it('a count window keeps the first N inside entries of a newest-first listing', () => {
    const scope = compileScope({ window: { last: 2, outside: 'index' }, rules: [{ exclude: { dim: 'folder', op: 'eq', value: 'spam' } }] }, mailbox, { now: NOW });
    expect(scope.window.count).toBe(2);
    const tally = scope.tally();
    const decisions = [mail(daysAgo(1)), mail(daysAgo(2), { folder: 'spam' }), mail(daysAgo(3)), mail(daysAgo(4))].map((entry) => tally.decide(entry));
    expect(decisions).toEqual(['include', 'skip', 'include', 'index']);
    const skipping = compileScope({ window: { last: 1 } }, mailbox, { now: NOW }).tally();
    expect([skipping.decide(mail(daysAgo(1))), skipping.decide(mail(daysAgo(2)))]).toEqual(['include', 'skip']);
  });
});
