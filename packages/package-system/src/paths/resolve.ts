import { lstat, realpath } from 'node:fs/promises';
import { danglingSymlink, errnoOf, escapesThroughSymlink, fromSystemError, unavailable } from './errors.js';
import { assertRoot, isWithin, joinUnder, parseRelativePath } from './lexical.js';

export interface ResolveContainedOptions {
  /**
   * Accept a target that does not exist yet (to create it): the deepest existing ancestor is
   * realpathed and checked, and the missing names are appended to it. The first missing name must
   * be truly absent — a dangling symlink there is refused with `containment_violation`, never
   * followed. Default false: a missing target throws `not_found`.
   */
  readonly allowMissing?: boolean;
}

/** A tree that keeps changing under a failed resolution is given up on after this many passes. */
const FAILED_RESOLUTION_ATTEMPTS = 3;

/**
 * Resolves `relative` under `root` to the real absolute path of the target, proving it lies inside
 * the root's real path. First lexically (see the rules below, no filesystem access), then by
 * realpathing both the root and the target and comparing them on a separator boundary, so a
 * symlink planted inside the root cannot lead out of it and `/x/data-evil` is never inside
 * `/x/data`. The root may itself be a symlink: its real path is the anchor. Symlinks inside the
 * root that stay inside are followed, as the kernel would.
 *
 * Lexical rules for `relative`: `''` (or `'.'`) is the root; it must be a string without NUL bytes
 * or backslashes and must not start with `/`; empty and `.` segments are ignored, as is a trailing
 * slash; `..` is applied to the names before it, textually, before any symlink is followed
 * (`a/../b` is `b` even when `a` is a symlink) and may not climb above the root; `%` is an ordinary
 * character (`%2e%2e` names a file called `%2e%2e`).
 *
 * When the target cannot be resolved, the deepest ancestor that can is checked before answering,
 * so the answer never tells whether something exists outside the root: a missing name beneath a
 * link to outside is a `containment_violation`, not a `not_found`, and so is a dangling symlink
 * (its target is never followed, wherever it points).
 *
 * This is a check, not a handle: the answer can go stale if the tree changes before the caller
 * uses it. To read or create a file race-free use `openContainedHandle`.
 *
 * Works on any POSIX host (no `/proc` needed). `root` must be an absolute path; it is not required
 * to be a directory unless `relative` names something beneath it.
 *
 * Throws (codes from CONTAINMENT_ERROR_CODES, messages never containing a path):
 * - `invalid_path` — malformed `relative` or non-absolute `root`, a name too long, a symlink loop;
 * - `containment_violation` — `..` above the root, a symlink leading outside, or a dangling
 *   symlink on the way;
 * - `not_found` — the root, or the target (unless allowMissing), does not exist;
 * - `not_a_directory` — a component of the path (or the root) is not a directory;
 * - `permission_denied` — the host refused to search a directory;
 * - `unavailable` — an I/O failure, or the tree kept changing while a failure was analysed.
 */
export async function resolveContained(root: string, relative: string, options: ResolveContainedOptions = {}): Promise<string> {
  const names = parseRelativePath(relative);
  assertRoot(root);
  const rootPromise = realpath(root);
  if (names.length === 0) return rootPromise.catch(rethrowAs('root'));
  // Both realpaths run at once; if the root is retargeted between them they disagree and the
  // comparison below fails closed.
  const targetPromise = realpath(joinUnder(root, names));
  targetPromise.catch(ignore);
  const rootReal = await rootPromise.catch(rethrowAs('root'));
  let target: string;
  try {
    target = await targetPromise;
  } catch (error) {
    if (!isMissing(error)) throw fromSystemError(error, 'target');
    return resolveFailure(rootReal, names, options.allowMissing === true, error);
  }
  if (!isWithin(rootReal, target)) throw escapesThroughSymlink();
  return target;
}

/**
 * The target did not resolve (ENOENT/ENOTDIR). Finds the deepest ancestor that does, proves it is
 * inside, and answers for the first name that is missing there.
 */
async function resolveFailure(rootReal: string, names: readonly string[], allowMissing: boolean, failure: unknown): Promise<string> {
  for (let attempt = 0; attempt < FAILED_RESOLUTION_ATTEMPTS; attempt++) {
    const missing = await underDeepestAncestor(rootReal, names);
    if (missing !== undefined) {
      if (!allowMissing) throw fromSystemError(failure, 'target');
      return missing;
    }
    // Something appeared at the first missing name meanwhile: the target may resolve now.
    let target: string;
    try {
      target = await realpath(joinUnder(rootReal, names));
    } catch (error) {
      if (isMissing(error)) continue;
      throw fromSystemError(error, 'target');
    }
    if (!isWithin(rootReal, target)) throw escapesThroughSymlink();
    return target;
  }
  throw unavailable('tree_changing', 'The directory tree kept changing while the path was being resolved; retry.');
}

/**
 * The real path of the deepest existing ancestor plus the missing names, or undefined when the
 * first missing name exists after all (a race). Throws when that ancestor is outside the root, when
 * the first missing name is a (dangling) symlink, or when it cannot exist (`not_a_directory`).
 */
async function underDeepestAncestor(rootReal: string, names: readonly string[]): Promise<string | undefined> {
  // depth 0 (the root itself) always resolves, so the loop ends there at the latest.
  for (let depth = names.length - 1; ; depth--) {
    let ancestor = rootReal;
    if (depth > 0) {
      try {
        ancestor = await realpath(joinUnder(rootReal, names.slice(0, depth)));
      } catch (error) {
        if (isMissing(error)) continue;
        throw fromSystemError(error, 'target');
      }
      if (!isWithin(rootReal, ancestor)) throw escapesThroughSymlink();
    }
    let isSymlink: boolean;
    try {
      isSymlink = (await lstat(joinUnder(ancestor, [names[depth]!]))).isSymbolicLink();
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return joinUnder(ancestor, names.slice(depth));
      throw fromSystemError(error, 'target');
    }
    if (isSymlink) throw danglingSymlink();
    return undefined;
  }
}

function isMissing(error: unknown): boolean {
  const errno = errnoOf(error);
  return errno === 'ENOENT' || errno === 'ENOTDIR';
}

function rethrowAs(site: 'root' | 'target'): (error: unknown) => never {
  return (error) => {
    throw fromSystemError(error, site);
  };
}

function ignore(): void {}
