/**
 * Grants and the writes switch as values: spellings that parse, a corpus of ones that must not,
 * whole-segment coverage, and what a caller that claims grants it was not given ends up with.
 */
import { describe, expect, it } from 'vitest';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import { checkCaller } from './caller.js';
import { checkGrants, compileGrants, grantCovers, MAX_GRANTS } from './grants.js';
import { allowsChanges, withWrites } from './permissions.js';

describe('checkGrants', () => {
  it('reads both spellings into global addresses, one right each, without duplicates', () => {
    expect(checkGrants(['write,delete:inseam://home/files/drafts/', { right: 'write', address: 'inseam://home/files/drafts' }, 'exec:files://scripts'], 'home')).toEqual([
      { right: 'delete', address: 'inseam://home/files/drafts' },
      { right: 'exec', address: 'inseam://home/files/scripts' },
      { right: 'write', address: 'inseam://home/files/drafts' },
    ]);
    expect(checkGrants(['write:inseam://home/files'], null)).toEqual([{ right: 'write', address: 'inseam://home/files/' }]);
    expect(checkGrants([], null)).toEqual([]);
  });

  it('refuses every malformed grant with invalid_argument naming grants', () => {
    const hostile: [unknown, string | null][] = [
      ['read:inseam://home/files', null],
      ['write', null],
      ['write:', null],
      [':inseam://home/files', null],
      ['write,,delete:inseam://home/files', null],
      ['WRITE:inseam://home/files', null],
      ['write:files://drafts', null],
      ['write:inseam://home', null],
      ['write:inseam://home/files/../etc', null],
      ['write:inseam://home/files/a%2Fb/../..', null],
      ['write:inseam://other/files', 'home'],
      [{ right: 'write' }, null],
      [{ right: 'admin', address: 'inseam://home/files' }, null],
      [{ right: 'write', address: 42 }, null],
      [null, null],
      [42, null],
    ];
    for (const [value, network] of hostile) {
      let error: unknown;
      try {
        checkGrants([value], network);
      } catch (caught) {
        error = caught;
      }
      expect(hasErrorCode(error, 'invalid_argument'), JSON.stringify(value)).toBe(true);
      expect((error as { details: Record<string, unknown> }).details['argument'], JSON.stringify(value)).toBe('grants');
    }
    expect(() => checkGrants('write:inseam://home/files', null)).toThrow(/must be a list/);
    const many = Array.from({ length: MAX_GRANTS + 1 }, (_, index) => `write:inseam://home/files/d${index}`);
    expect(() => checkGrants(many, null)).toThrow(/at most 64 grants/);
  });
});

describe('grantCovers', () => {
  const grants = compileGrants(checkGrants(['write:inseam://home/files/drafts', 'exec:inseam://home/box/'], null));

  it('covers the address and what is below it, by whole segments, in its network and host only', () => {
    expect(grantCovers(grants, 'write', 'home', 'files', ['drafts'])).toBe(true);
    expect(grantCovers(grants, 'write', 'home', 'files', ['drafts', 'a', 'b.md'])).toBe(true);
    expect(grantCovers(grants, 'write', 'home', 'files', ['drafts-old'])).toBe(false);
    expect(grantCovers(grants, 'write', 'home', 'files', [])).toBe(false);
    expect(grantCovers(grants, 'write', 'home', 'other', ['drafts'])).toBe(false);
    expect(grantCovers(grants, 'write', 'work', 'files', ['drafts'])).toBe(false);
    expect(grantCovers(grants, 'delete', 'home', 'files', ['drafts'])).toBe(false);
    expect(grantCovers(grants, 'exec', 'home', 'box', ['any', 'where'])).toBe(true);
  });

  it('gives a caller only grants that parse, and an agent without grants none; a person none at all', () => {
    const agent = checkCaller({ session: { userId: 'ann', agentId: 'helper', projectId: 'home', features: new Set() }, grants: [{ right: 'write', address: 'inseam://home/files/x' }, { right: 'root', address: 'inseam://home/files/' }, { right: 'write', address: 'nope' }, null] });
    expect(compileGrants(agent.grants)).toEqual([{ right: 'write', network: 'home', host: 'files', segments: ['x'] }]);
    expect(checkCaller({ session: { userId: 'ann', agentId: 'helper', projectId: 'home', features: new Set() } }).grants).toEqual([]);
    expect(checkCaller({ session: { userId: 'ann', projectId: 'home', features: new Set() }, grants: [{ right: 'write', address: 'inseam://home/files/' }] }).grants).toEqual([]);
  });
});

describe('withWrites', () => {
  const tree = { default: { read: true, write: false, exec: true }, paths: { private: { read: false, write: false }, drafts: { write: true }, logs: { read: true } } };

  it('turns the default write on, keeping denies, or takes write away everywhere', () => {
    expect(withWrites(tree, true)).toEqual({ ...tree, default: { read: true, write: true, exec: true } });
    expect(withWrites(tree, false)).toEqual({ default: { read: true, write: false, exec: true }, paths: { private: { read: false, write: false }, drafts: { write: false }, logs: { read: true } } });
    expect(allowsChanges(withWrites({ default: { read: true, write: true, exec: false } }, false))).toBe(false);
    expect(allowsChanges(tree)).toBe(true);
    expect(() => withWrites({ default: { read: true } } as never, true)).toThrow(/permissions\.default\.write/);
  });
});
