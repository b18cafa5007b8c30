import { describe, expect, it } from 'vitest';
import type { PermissionTree } from '@neuralis/package-system/contracts';
import { checkPermissionTree, compilePermissions, rightsAt, unionBaselines, PERMISSION_RIGHTS } from './permissions.js';

const segs = (path: string): string[] => (path === '' ? [] : path.split('/'));

describe('permission trees', () => {
  const tree: PermissionTree = {
    default: { read: true, write: false, exec: false },
    paths: {
      docs: { write: true },
      'docs/private': { read: false },
      'docs/private/shared': { read: true },
      scripts: { exec: true },
    },
  };

  it('the most specific key that sets a right wins; default answers otherwise', () => {
    expect(rightsAt(tree, [])).toEqual({ read: true, write: false, exec: false });
    expect(rightsAt(tree, segs('docs/a.md'))).toEqual({ read: true, write: true, exec: false });
    expect(rightsAt(tree, segs('docs/private/x'))).toEqual({ read: false, write: true, exec: false });
    expect(rightsAt(tree, segs('docs/private/shared/y'))).toEqual({ read: true, write: true, exec: false });
  });

  it('a deny on a child beats an allow on its parent, per right', () => {
    const compiled = compilePermissions(tree);
    expect(compiled.allows(segs('docs'), 'read')).toBe(true);
    expect(compiled.allows(segs('docs/private'), 'read')).toBe(false);
    // the child's deny of read leaves the parent's write in force
    expect(compiled.allows(segs('docs/private'), 'write')).toBe(true);
  });

  it('matches whole segments only: docs does not cover docs-old or doc', () => {
    const compiled = compilePermissions(tree);
    expect(compiled.allows(segs('docs-old/a'), 'write')).toBe(false);
    expect(compiled.allows(segs('doc'), 'write')).toBe(false);
    expect(compiled.allows(segs('docs/private-not'), 'read')).toBe(true);
  });

  it('no right implies another', () => {
    const writeOnly: PermissionTree = { default: { read: false, write: true, exec: false } };
    expect(rightsAt(writeOnly, segs('a'))).toEqual({ read: false, write: true, exec: false });
    expect(rightsAt(tree, segs('scripts/run.sh'))).toEqual({ read: true, write: false, exec: true });
    expect(rightsAt({ default: { read: false, write: false, exec: true } }, [])).toEqual({ read: false, write: false, exec: true });
  });

  it('keys are decoded names: a name with a space or a percent sign is written as it is', () => {
    const named: PermissionTree = { default: { read: true, write: false, exec: false }, paths: { 'my docs/100%': { read: false } } };
    expect(rightsAt(named, ['my docs', '100%', 'a'])).toMatchObject({ read: false });
    expect(rightsAt(named, ['my%20docs', '100%25'])).toMatchObject({ read: true });
  });

  it('refuses malformed trees, naming the field', () => {
    const cases: [unknown, string][] = [
      [null, 'permissions'],
      [{}, 'permissions.default'],
      [{ default: { read: true, write: false } }, 'permissions.default.exec'],
      [{ default: { read: 'yes', write: false, exec: false } }, 'permissions.default.read'],
      [{ default: { read: true, write: false, exec: false, admin: true } }, 'permissions.default.admin'],
      [{ default: { read: true, write: false, exec: false }, extra: 1 }, 'permissions.extra'],
      [{ default: { read: true, write: false, exec: false }, paths: { '/abs': { read: false } } }, 'permissions.paths./abs'],
      [{ default: { read: true, write: false, exec: false }, paths: { 'a/../b': { read: false } } }, 'permissions.paths.a/../b'],
      [{ default: { read: true, write: false, exec: false }, paths: { 'a//b': { read: false } } }, 'permissions.paths.a//b'],
      [{ default: { read: true, write: false, exec: false }, paths: { a: {} } }, 'permissions.paths.a'],
      [{ default: { read: true, write: false, exec: false }, paths: { a: { read: 1 } } }, 'permissions.paths.a.read'],
    ];
    for (const [value, field] of cases) {
      expect(() => checkPermissionTree(value), JSON.stringify(value)).toThrow(expect.objectContaining({ code: 'invalid_argument', details: { argument: field } }));
    }
  });
});

describe('settledBelow', () => {
  const compiled = compilePermissions({ default: { read: true, write: false, exec: false }, paths: { 'docs/private': { read: false }, media: { write: true } } });

  it('is true only where no key lies strictly below the path', () => {
    expect(compiled.settledBelow([])).toBe(false);
    expect(compiled.settledBelow(['docs'])).toBe(false);
    expect(compiled.settledBelow(['docs', 'private'])).toBe(true);
    expect(compiled.settledBelow(['media'])).toBe(true);
    expect(compiled.settledBelow(['other', 'deep'])).toBe(true);
    expect(compiled.settledBelow(['docs-old'])).toBe(true);
  });

  it('where it is true, every path below has the rights of the path itself', () => {
    for (const base of [['docs', 'private'], ['media'], ['other']]) {
      for (const below of [['x'], ['x', 'y'], ['private']]) expect(compiled.rightsAt([...base, ...below])).toEqual(compiled.rightsAt(base));
    }
  });
});

describe('unionBaselines', () => {
  const tree: PermissionTree = { default: { read: false, write: false, exec: false }, paths: { docs: { read: true }, 'docs/secret': { read: false } } };

  it('a baseline only adds allows: its false never takes away what the tree grants', () => {
    const baseline: PermissionTree = { default: { read: false, write: false, exec: false }, paths: { docs: { read: false, write: true } } };
    const merged = unionBaselines(tree, [baseline]);
    expect(rightsAt(merged, segs('docs/a'))).toEqual({ read: true, write: true, exec: false });
    expect(rightsAt(merged, segs('docs/secret/a'))).toEqual({ read: false, write: true, exec: false });
    expect(rightsAt(merged, segs('other'))).toEqual({ read: false, write: false, exec: false });
  });

  it('a baseline allow reaches below a deny in the tree (union, not override order)', () => {
    const baseline: PermissionTree = { default: { read: false, write: false, exec: false }, paths: { 'docs/secret/public': { read: true } } };
    const merged = unionBaselines(tree, [baseline]);
    expect(rightsAt(merged, segs('docs/secret/x'))).toMatchObject({ read: false });
    expect(rightsAt(merged, segs('docs/secret/public/x'))).toMatchObject({ read: true });
  });

  it('equals the union of evaluations on every path of a grid', () => {
    const a: PermissionTree = { default: { read: true, write: false, exec: false }, paths: { x: { read: false }, 'x/y': { write: true }, z: { exec: true } } };
    const b: PermissionTree = { default: { read: false, write: false, exec: false }, paths: { 'x/y/z': { read: true }, x: { exec: true } } };
    const c: PermissionTree = { default: { read: false, write: true, exec: false }, paths: { z: { write: false } } };
    const merged = unionBaselines(a, [b, c]);
    const names = ['x', 'y', 'z'];
    const paths: string[][] = [[]];
    for (const first of names) {
      paths.push([first]);
      for (const second of names) {
        paths.push([first, second]);
        for (const third of names) paths.push([first, second, third]);
      }
    }
    for (const path of paths) {
      const expected = Object.fromEntries(PERMISSION_RIGHTS.map((right) => [right, [a, b, c].some((t) => rightsAt(t, path)[right])]));
      expect(rightsAt(merged, path), path.join('/')).toEqual(expected);
    }
  });

  it('with no baselines, the tree is returned as checked', () => {
    expect(unionBaselines(tree, [])).toEqual(tree);
    expect(() => unionBaselines(tree, [{ default: { read: true } } as unknown as PermissionTree])).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
