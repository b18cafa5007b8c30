/**
 * The lexical half of containment: turning caller input into a list of plain names under the
 * root, before the filesystem is touched. Shared by resolveContained and openContainedHandle so
 * both read a path the same way.
 */
import { escapesLexically, invalidPath } from './errors.js';

const SLASH = 47;

/**
 * Splits a root-relative path into names. `''` and `'.'` name the root and give `[]`; empty and
 * `.` segments are dropped; `..` removes the previous name and throws
 * `containment_violation` when nothing is left to remove. A trailing slash is ignored. Percent
 * signs are ordinary characters: `%2e%2e` is a name, never `..`.
 *
 * Throws `invalid_path` for a non-string, a NUL byte, a backslash (refused so a path means the same
 * thing on every host), or an absolute path.
 */
export function parseRelativePath(relative: unknown): string[] {
  if (typeof relative !== 'string') {
    throw invalidPath('not_a_string', 'The path must be a string relative to the source root.');
  }
  if (relative.length === 0) return [];
  if (relative.includes('\0')) throw invalidPath('nul_byte', 'The path contains a NUL byte.');
  if (relative.includes('\\')) {
    throw invalidPath('backslash', 'The path contains a backslash; separate names with "/" only.');
  }
  if (relative.charCodeAt(0) === SLASH) {
    throw invalidPath('absolute', 'The path is absolute; give a path relative to the source root.');
  }
  const names: string[] = [];
  for (const segment of relative.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (names.length === 0) throw escapesLexically();
      names.pop();
      continue;
    }
    names.push(segment);
  }
  return names;
}

/** Throws `invalid_path` unless `root` is an absolute path without NUL bytes. */
export function assertRoot(root: unknown): asserts root is string {
  if (typeof root !== 'string' || root.charCodeAt(0) !== SLASH || root.includes('\0')) {
    throw invalidPath('root_not_absolute', 'The source root must be an absolute path.');
  }
}

/** `base` joined with already-validated names; `base` may end with a slash (only `/` does after realpath). */
export function joinUnder(base: string, names: readonly string[]): string {
  if (names.length === 0) return base;
  const tail = names.join('/');
  return base.charCodeAt(base.length - 1) === SLASH ? base + tail : `${base}/${tail}`;
}

/**
 * True when canonical absolute `candidate` is `rootReal` or lies beneath it. Both must already be
 * free of symlinks, `.` and `..`; the byte after the prefix must be a separator, so
 * `/tmp/x/data-evil` is not inside `/tmp/x/data`.
 */
export function isWithin(rootReal: string, candidate: string): boolean {
  if (!candidate.startsWith(rootReal)) return false;
  if (candidate.length === rootReal.length) return true;
  return rootReal.charCodeAt(rootReal.length - 1) === SLASH || candidate.charCodeAt(rootReal.length) === SLASH;
}
