/**
 * The command sandbox's view of the root, planned from the confinement plan: which real paths
 * below the root are mounted read-write, read-only or hidden, resolved through the containment
 * primitives, and the bwrap options that mount them (see sandbox.ts for the whole sandbox).
 */
import { openSync } from 'node:fs';
import { readlink, realpath } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { InvalidArgumentError, PermissionDeniedError, hasErrorCode } from '@neuralis/package-system/contracts';
import type { ExecConfinement } from '@neuralis/package-system/contracts';
import { openContainedHandle } from '@neuralis/package-system/paths';

/** The first descriptor a mount names; the ones before it are stdio and bwrap's status. */
export const FIRST_BIND_FD = 4;

export type Mode = 'rw' | 'ro' | 'hidden';
const STRICTNESS: Readonly<Record<Mode, number>> = { rw: 0, ro: 1, hidden: 2 };

/** Errors that mean "nothing of this path is inside the root": there is nothing to mount. */
const ABSENT = ['not_found', 'not_a_directory', 'containment_violation'] as const;

/**
 * Every path to mount, by real path below the root: the plan's, the concealed ones (nothing below
 * them kept), and the folders between the root and each (pins). Opened handles go to `handles`.
 */
export async function resolvePoints(
  rootPath: string,
  rootReal: string,
  rules: Rules,
  conceal: readonly string[],
  handles: FileHandle[],
): Promise<{ rootMode: Mode; points: Map<string, Point> }> {
  const points = new Map<string, Point>();
  let rootMode: Mode = rules.root;
  const place = async (relative: string, mode: Mode, forced: boolean): Promise<void> => {
    const opened = await openPoint(rootPath, relative, mode);
    if (opened === undefined) return;
    handles.push(opened.handle);
    const inside = relativeTo(rootReal, opened.real);
    if (inside === undefined) return;
    if (inside === '') {
      rootMode = stricter(rootMode, mode);
      return;
    }
    // Two names for one folder (a rule on a symlink and one on its target): the stricter wins.
    const known = points.get(inside);
    points.set(inside, {
      relative: inside,
      depth: inside.split('/').length,
      mode: known === undefined ? mode : stricter(known.mode, mode),
      forced: forced || known?.forced === true,
      pin: false,
      fd: known?.fd ?? opened.handle.fd,
      directory: opened.directory,
    });
  };
  for (const rule of rules.paths) await place(rule.path, rule.mode, false);
  for (const path of conceal) {
    const real = await realpath(path).catch(() => undefined);
    const inside = real === undefined ? undefined : relativeTo(rootReal, real);
    if (inside === undefined) continue;
    if (inside === '') rootMode = 'hidden';
    else await place(inside, 'hidden', true);
  }
  // Nothing below a concealed path is mounted: a right the plan gives there does not apply.
  const forced = [...points.values()].filter((point) => point.forced).map((point) => point.relative);
  for (const point of [...points.values()]) {
    if (forced.some((top) => isBelow(point.relative, top))) points.delete(point.relative);
  }
  for (const point of [...points.values()]) {
    const names = point.relative.split('/');
    for (let length = 1; length < names.length; length++) {
      const ancestor = names.slice(0, length).join('/');
      if (points.has(ancestor)) continue;
      const opened = await openPoint(rootPath, ancestor, 'rw');
      if (opened === undefined) continue;
      handles.push(opened.handle);
      points.set(ancestor, { relative: ancestor, depth: length, mode: 'rw', forced: false, pin: true, fd: opened.handle.fd, directory: true });
    }
  }
  return { rootMode, points };
}

interface MountInput {
  readonly rootReal: string;
  readonly rootMode: Mode;
  readonly rootFd: number;
  readonly cwdReal: string;
  readonly points: ReadonlyMap<string, Point>;
  /** Receives the /dev/null descriptors hidden files are made from. */
  readonly devNulls: number[];
}

/** bwrap's mounts for the root and its points, parents first, then `--chdir`; and the fds they name. */
export function mountArgs(input: MountInput): { treeArgs: string[]; fds: number[] } {
  const { rootReal, rootMode, cwdReal } = input;
  const fds: number[] = [];
  const passed = (fd: number): string => {
    fds.push(fd);
    return String(FIRST_BIND_FD + fds.length - 1);
  };
  const treeArgs: string[] = [];
  const readOnlyTmpfs: string[] = [];
  const emit = (dest: string, mode: Mode, fd: number, directory: boolean): void => {
    if (mode === 'rw') treeArgs.push('--bind-fd', passed(fd), dest);
    else if (mode === 'ro') treeArgs.push('--ro-bind-fd', passed(fd), dest);
    else if (directory) {
      treeArgs.push('--tmpfs', dest);
      readOnlyTmpfs.push(dest);
    } else {
      const empty = openSync('/dev/null', 'r');
      input.devNulls.push(empty);
      treeArgs.push('--ro-bind-data', passed(empty), dest);
    }
  };
  emit(rootReal, rootMode, input.rootFd, true);
  const ordered = [...input.points.values()].sort((a, b) => a.depth - b.depth || (a.relative < b.relative ? -1 : 1));
  const modes = new Map<string, Mode>();
  const modeAbove = (relative: string): Mode => {
    const names = relative.split('/');
    for (let length = names.length - 1; length > 0; length--) {
      const mode = modes.get(names.slice(0, length).join('/'));
      if (mode !== undefined) return mode;
    }
    return rootMode;
  };
  const cwdInside = relativeTo(rootReal, cwdReal) ?? '';
  let cwdHidden = rootMode === 'hidden' && cwdInside !== '';
  for (const point of ordered) {
    const above = modeAbove(point.relative);
    const mode = point.pin ? above : point.mode;
    modes.set(point.relative, mode);
    // Inside a hidden folder only what the plan gives back is mounted; the rest stays empty.
    if (above === 'hidden' && (point.pin || mode === 'hidden')) continue;
    emit(`${rootReal}/${point.relative}`, mode, point.fd, point.directory);
    if (mode === 'hidden' && point.directory && isBelow(cwdInside, point.relative)) cwdHidden = true;
  }
  // A cwd the caller may run in but not read is an empty folder in the hidden tmpfs.
  if (cwdHidden) treeArgs.push('--dir', cwdReal);
  for (const dest of readOnlyTmpfs) treeArgs.push('--remount-ro', dest);
  // The sandbox's own top folder (where bwrap made /etc and the path to the root) last.
  treeArgs.push('--remount-ro', '/', '--chdir', cwdReal);
  return { treeArgs, fds };
}

export interface Point {
  /** Real path below the root. */
  readonly relative: string;
  readonly depth: number;
  readonly mode: Mode;
  /** A concealed path: nothing below it is mounted. */
  readonly forced: boolean;
  /** Not named by the plan: an ancestor bound onto itself with its parent's mode. */
  readonly pin: boolean;
  readonly fd: number;
  readonly directory: boolean;
}

export interface Rules {
  readonly root: Mode;
  readonly paths: readonly { readonly path: string; readonly mode: Mode }[];
  readonly conceal: readonly string[];
}

export function planRules(confinement: ExecConfinement | undefined): Rules {
  if (confinement === undefined) return { root: 'rw', paths: [], conceal: [] };
  const paths = (confinement as { paths?: unknown }).paths;
  if (!Array.isArray(paths)) throw badPlan('paths must be a list of { path, read, write }.');
  let root: Mode | undefined;
  const rest: { path: string; mode: Mode }[] = [];
  for (const entry of paths as unknown[]) {
    const { path, read, write } = (entry ?? {}) as { path?: unknown; read?: unknown; write?: unknown };
    if (typeof path !== 'string' || typeof read !== 'boolean' || typeof write !== 'boolean') throw badPlan('each path entry is { path: string, read: boolean, write: boolean }.');
    if (path !== '' && !path.split('/').every((name) => name !== '' && name !== '.' && name !== '..' && !name.includes('\0'))) {
      throw badPlan('a path is source-relative names joined by "/", without empty, "." or ".." names.');
    }
    const mode: Mode = !read ? 'hidden' : write ? 'rw' : 'ro';
    if (path === '') root = root === undefined ? mode : stricter(root, mode);
    else rest.push({ path, mode });
  }
  if (root === undefined) throw badPlan('it must give the rights at the root (path "").');
  const conceal = (confinement as { conceal?: unknown }).conceal;
  if (conceal !== undefined && (!Array.isArray(conceal) || !conceal.every((path) => typeof path === 'string' && path.startsWith('/')))) {
    throw badPlan('conceal must be a list of absolute paths.');
  }
  return { root, paths: rest, conceal: (conceal as string[] | undefined) ?? [] };
}

function badPlan(problem: string): InvalidArgumentError {
  return new InvalidArgumentError(`The exec confinement plan is malformed: ${problem}`, { details: { argument: 'confinement' } });
}

/**
 * Opens one named path. Absent (missing, outside the root, under a file): undefined. A path the
 * plan restricts that cannot be opened for another reason refuses the command (fail closed); one
 * it grants is just left out.
 */
async function openPoint(rootPath: string, relative: string, mode: Mode): Promise<{ handle: FileHandle; real: string; directory: boolean } | undefined> {
  let handle: FileHandle;
  try {
    handle = await openContainedHandle(rootPath, relative, { expect: 'any' });
  } catch (error) {
    if (ABSENT.some((code) => hasErrorCode(error, code)) || mode === 'rw') return undefined;
    throw new PermissionDeniedError('A path the permission tree restricts cannot be confined (it cannot be opened); the command did not run.', {
      details: { reason: 'confinement_unresolvable' },
    });
  }
  try {
    const [real, stats] = await Promise.all([readlink(`/proc/self/fd/${handle.fd}`), handle.stat()]);
    return { handle, real, directory: stats.isDirectory() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function relativeTo(rootReal: string, real: string): string | undefined {
  if (real === rootReal) return '';
  return real.startsWith(`${rootReal}/`) ? real.slice(rootReal.length + 1) : undefined;
}

function isBelow(relative: string, top: string): boolean {
  return relative.startsWith(`${top}/`);
}

function stricter(a: Mode, b: Mode): Mode {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

