/**
 * Permission trees: what a host allows on each of its paths.
 *
 *   { "default": { "read": true, "write": false, "exec": false },
 *     "paths":   { "docs": { "write": true }, "docs/private": { "read": false } } }
 *
 * Evaluation, per right, for a path given as its decoded segments:
 * - the most specific key that sets the right wins; `default` answers when no key does;
 * - keys match by whole segments: `docs` covers `docs` and `docs/a/b`, never `docs-old`;
 * - so a deny on a child beats an allow on its parent, and an allow on a child beats a deny on
 *   its parent (the child is more specific);
 * - no right implies another: `write` without `read` is write-only, `exec` needs nothing else.
 *
 * Keys are source-relative paths of decoded names joined by `/` (`my docs/a.txt`, not
 * `my%20docs/a.txt`), without a leading `/`, and with no empty, `.` or `..` segment.
 *
 * Package URI policy baselines union on top of the tree (`unionBaselines`): a right is granted
 * where the tree OR any baseline grants it. A baseline can therefore only add allows; a `false`
 * in a baseline never takes away what the tree grants. Denies belong in the host's own tree.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { PermissionRights, PermissionTree } from '@neuralis/package-system/contracts';

export type PermissionRight = keyof PermissionRights;

type MutableRights = { -readonly [K in PermissionRight]: boolean };

export const PERMISSION_RIGHTS = ['read', 'write', 'exec'] as const satisfies readonly PermissionRight[];

/** Nothing allowed. */
export const NO_RIGHTS: PermissionRights = Object.freeze({ read: false, write: false, exec: false });

interface TrieNode {
  readonly children: Map<string, TrieNode>;
  rights: Partial<PermissionRights>;
}

/** A tree compiled for repeated evaluation: one walk down the path's segments per call. */
export interface CompiledPermissions {
  readonly tree: PermissionTree;
  /** The rights at a path (decoded segments; [] is the host root). */
  rightsAt(segments: readonly string[]): PermissionRights;
  allows(segments: readonly string[], right: PermissionRight): boolean;
  /**
   * True when no key of the tree lies strictly below `segments`, so every path below has exactly
   * the rights of `segments` (a listing then checks its folder once instead of every entry).
   */
  settledBelow(segments: readonly string[]): boolean;
}

/**
 * Compiles a tree (checked first). Throws `invalid_argument` as `checkPermissionTree` does.
 */
export function compilePermissions(tree: PermissionTree): CompiledPermissions {
  const checked = checkPermissionTree(tree);
  const root: TrieNode = { children: new Map(), rights: {} };
  for (const [key, rights] of Object.entries(checked.paths ?? {})) {
    let node = root;
    for (const segment of key.split('/')) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = { children: new Map(), rights: {} };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.rights = { ...rights };
  }
  const rightsAt = (segments: readonly string[]): PermissionRights => {
    const result: MutableRights = { ...checked.default };
    let node: TrieNode | undefined = root;
    for (const segment of segments) {
      node = node.children.get(segment);
      if (node === undefined) break;
      for (const right of PERMISSION_RIGHTS) {
        const value = node.rights[right];
        if (value !== undefined) result[right] = value;
      }
    }
    return result;
  };
  const settledBelow = (segments: readonly string[]): boolean => {
    let node: TrieNode | undefined = root;
    for (const segment of segments) {
      node = node.children.get(segment);
      if (node === undefined) return true;
    }
    return node.children.size === 0;
  };
  return Object.freeze({ tree: checked, rightsAt, allows: (segments: readonly string[], right: PermissionRight) => rightsAt(segments)[right], settledBelow });
}

/** The rights at a path of `tree`. Throws `invalid_argument` for a malformed tree. */
export function rightsAt(tree: PermissionTree, segments: readonly string[]): PermissionRights {
  return compilePermissions(tree).rightsAt(segments);
}

/**
 * One tree equivalent to `tree` with every baseline unioned on top: for every path and right,
 * the result allows exactly when `tree` or some baseline allows. Every key of every input
 * appears in the result with all three rights set, which is what keeps the evaluation of the
 * result equal to the union of the evaluations. Throws `invalid_argument` for a malformed tree.
 */
export function unionBaselines(tree: PermissionTree, baselines: readonly PermissionTree[]): PermissionTree {
  const all = [tree, ...baselines].map(compilePermissions);
  if (all.length === 1) return all[0]!.tree;
  const keys = new Set<string>();
  for (const compiled of all) for (const key of Object.keys(compiled.tree.paths ?? {})) keys.add(key);
  const union = (segments: readonly string[]): PermissionRights => {
    const result: MutableRights = { ...NO_RIGHTS };
    for (const compiled of all) {
      const rights = compiled.rightsAt(segments);
      for (const right of PERMISSION_RIGHTS) result[right] ||= rights[right];
    }
    return result;
  };
  const paths: Record<string, PermissionRights> = {};
  for (const key of [...keys].sort()) paths[key] = union(key.split('/'));
  return keys.size === 0 ? { default: union([]) } : { default: union([]), paths };
}

/**
 * `tree` with writes turned on or off: on sets the default `write` (keys that deny writes keep
 * denying), off takes `write` away everywhere. What a person's "writable" switch means.
 */
export function withWrites(tree: PermissionTree, on: boolean): PermissionTree {
  const checked = checkPermissionTree(tree);
  if (on) return checkPermissionTree({ ...checked, default: { ...checked.default, write: true } });
  const paths = Object.fromEntries(Object.entries(checked.paths ?? {}).map(([key, rights]) => [key, rights.write === undefined ? rights : { ...rights, write: false }]));
  return checkPermissionTree({ default: { ...checked.default, write: false }, ...(checked.paths === undefined ? {} : { paths }) });
}

/** Whether a tree allows `write` or `exec` anywhere. */
export function allowsChanges(tree: PermissionTree): boolean {
  const checked = checkPermissionTree(tree);
  return [checked.default, ...Object.values(checked.paths ?? {})].some((rights) => rights.write === true || rights.exec === true);
}

const TREE_SHAPE = '{ "default": { "read": boolean, "write": boolean, "exec": boolean }, "paths"?: { "<path>": { "read"?, "write"?, "exec"? } } }';

/**
 * A validated, frozen copy of a permission tree. Throws `invalid_argument` naming the field at
 * fault (`details.argument`, e.g. `permissions.paths.docs.read`): a missing or non-boolean
 * default right, an unknown key, an override that sets no right, or a path key that is not a
 * relative path of names.
 */
export function checkPermissionTree(value: unknown, field = 'permissions'): PermissionTree {
  const tree = object(value, field, TREE_SHAPE);
  unknownKeys(tree, ['default', 'paths'], field);
  const defaults = object(tree['default'], `${field}.default`, '{ "read": boolean, "write": boolean, "exec": boolean }');
  unknownKeys(defaults, PERMISSION_RIGHTS, `${field}.default`);
  const base = {} as MutableRights;
  for (const right of PERMISSION_RIGHTS) {
    const given = defaults[right];
    if (typeof given !== 'boolean') fail(`${field}.default.${right}`, 'must be true or false; every default right is required');
    base[right] = given;
  }
  if (tree['paths'] === undefined) return Object.freeze({ default: Object.freeze(base) });
  const overrides = object(tree['paths'], `${field}.paths`, '{ "<path>": { "read"?, "write"?, "exec"? } }');
  const paths: Record<string, Partial<PermissionRights>> = {};
  for (const [key, rightsValue] of Object.entries(overrides)) {
    const where = `${field}.paths.${key}`;
    if (!isRelativePath(key)) fail(where, 'is not a relative path of names ("docs/reports": no leading "/", no empty, "." or ".." segment)');
    const rights = object(rightsValue, where, '{ "read"?: boolean, "write"?: boolean, "exec"?: boolean }');
    unknownKeys(rights, PERMISSION_RIGHTS, where);
    const set: Partial<Record<PermissionRight, boolean>> = {};
    for (const right of PERMISSION_RIGHTS) {
      const given = rights[right];
      if (given === undefined) continue;
      if (typeof given !== 'boolean') fail(`${where}.${right}`, 'must be true or false');
      set[right] = given;
    }
    if (Object.keys(set).length === 0) fail(where, 'sets no right; give at least one of read, write or exec');
    paths[key] = Object.freeze(set);
  }
  return Object.freeze({ default: Object.freeze(base), paths: Object.freeze(paths) });
}

function isRelativePath(key: string): boolean {
  return key !== '' && !key.includes('\0') && key.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function object(value: unknown, field: string, shape: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, `must be an object ${shape}`);
  return value as Record<string, unknown>;
}

function unknownKeys(value: Record<string, unknown>, known: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) fail(`${field}.${key}`, `is not a known field (expected ${known.join(', ')})`);
  }
}

function fail(field: string, problem: string): never {
  throw new InvalidArgumentError(`The permission tree field "${field}" ${problem}.`, { details: { argument: field } });
}
