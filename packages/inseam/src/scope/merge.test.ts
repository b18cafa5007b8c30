import { describe, expect, it } from 'vitest';
import { ScopeValidationError } from '@neuralis/package-system/contracts';
import type { Description, Scope } from '@inseam/connector';
import { folder, mailbox } from './__fixtures__/descriptions.js';
import { compileHostScope, mergeScopes } from './merge.js';

describe('mergeScopes', () => {
  it('puts the host rules before the default rules', () => {
    const host: Scope = { rules: [{ include: { dim: 'path', op: 'glob', value: 'vendor/node_modules/**' } }] };
    expect(mergeScopes(folder.defaultScope, host).rules).toEqual([...host.rules!, ...folder.defaultScope!.rules!]);
  });

  it('takes window bounds as one group and outside on its own', () => {
    const base: Scope = { window: { from: '2024-01-01T00:00:00Z', outside: 'skip' } };
    expect(mergeScopes(base, { window: { last: 'P30D' } })).toEqual({ window: { last: 'P30D', outside: 'skip' } });
    expect(mergeScopes(base, { window: { outside: 'index' } })).toEqual({ window: { from: '2024-01-01T00:00:00Z', outside: 'index' } });
    expect(mergeScopes(undefined, { window: { last: 5 } })).toEqual({ window: { last: 5 } });
    expect(mergeScopes({ window: {} }, { window: {} })).toEqual({});
  });

  it('merges limits key by key, the host winning', () => {
    expect(mergeScopes({ limits: { maxEntries: 10, maxBytes: 5 } }, { limits: { maxBytes: 7 } })).toEqual({ limits: { maxEntries: 10, maxBytes: 7 } });
  });

  it('of nothing is the empty scope', () => {
    expect(mergeScopes(undefined, undefined)).toEqual({});
  });
});

describe('compileHostScope', () => {
  it('lets a host include win over a default exclude, and leaves other defaults in force', () => {
    const scope = compileHostScope(folder, { rules: [{ include: { dim: 'path', op: 'prefix', value: 'vendor/node_modules/' } }] });
    expect(scope.decide({ path: 'vendor/node_modules/lib/a.js' })).toBe('include');
    expect(scope.decide({ path: 'web/node_modules/lib/a.js' })).toBe('skip');
  });

  it('turns every default exclude off with a final include of everything', () => {
    const scope = compileHostScope(folder, { rules: [{ include: { all: [] } }] });
    expect(scope.decide({ path: '.git/config' })).toBe('include');
  });

  it('applies the default alone when the host has no scope', () => {
    expect(compileHostScope(mailbox, undefined).decide({ path: 'm', extra: { folder: 'spam' } })).toBe('skip');
  });

  it('reports the problems of both scopes at once, each with its own path', () => {
    const broken = { ...mailbox, defaultScope: { rules: [{ exclude: { dim: 'label', op: 'eq', value: 'x' } }] } } as Description;
    let error: unknown;
    try {
      compileHostScope(broken, { window: { last: 'a month' } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ScopeValidationError);
    expect((error as ScopeValidationError).issues.map((issue) => issue.path)).toEqual(['defaultScope.rules[0].exclude.dim', 'window.last']);
  });
});
