import { closeSync, constants, fstat as fstatWithCallback, fstatSync, open as openWithCallback, openSync, readlinkSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { open, readlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import { isConnectorError } from '../contracts/errors.js';
import type { ConnectorError } from '../contracts/errors.js';
import {
  errnoOf,
  escapesThroughSymlink,
  fromSystemError,
  invalidPath,
  specialFile,
  unavailable,
  unexpectedType,
} from './errors.js';
import { assertRoot, isWithin, joinUnder, parseRelativePath } from './lexical.js';

/** The entry type a read open requires; `any` accepts a file or a directory (never a special file). */
export type ExpectedEntryType = 'file' | 'directory' | 'any';

export type OpenContainedOptions =
  | {
      /** Open an existing entry read-only (the default). */
      readonly access?: 'read';
      /** Default `file`. */
      readonly expect?: ExpectedEntryType;
    }
  | {
      /** Create a new regular file, write-only; never replaces or follows anything already there. */
      readonly access: 'create';
      /** Permission bits for the new file, before the process umask. Default 0o666. */
      readonly createMode?: number;
    };

// The kernel resolves `/proc/self/fd/N/name` by jumping to the directory open as N and looking up
// `name` there: an openat() Node does not otherwise expose. O_NOFOLLOW then applies to `name`.
// /proc/self names the process, so this holds on any libuv thread-pool thread.
const PROC_FD = '/proc/self/fd/';
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NOCTTY } = constants;
// Node does not export O_PATH; this is its value on every Linux architecture Node supports
// (asm-generic). An O_PATH descriptor names an inode without opening it: no FIFO wait, no device
// open, no atime. Reads look up with it, check type and place on it, then reopen that inode
// through /proc/self/fd/N with O_NOCTTY, so a FIFO, socket or device is never opened at all.
const O_PATH = 0o10000000;
const LOOKUP_FLAGS = O_PATH | O_NOFOLLOW;
const REOPEN_FLAGS = O_RDONLY | O_NOCTTY;
// Directories on the way are O_PATH too: like the kernel's own lookup, the walk then needs only
// search (x) permission on them, not read.
const ROOT_FLAGS = O_PATH | O_DIRECTORY;
const STEP_FLAGS = O_PATH | O_DIRECTORY | O_NOFOLLOW;
const CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY;
/** The kernel's own limit on symlinks in one resolution (MAXSYMLINKS). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Opens the entry at `relative` under `root` and returns its `FileHandle`, after proving on that
 * very descriptor that it is the expected type and lies inside the root. Check and use are the
 * same inode, so a symlink or directory swapped in at any moment cannot redirect the open.
 *
 * Reads never open anything but the checked inode: the entry is looked up with O_PATH|O_NOFOLLOW
 * (an O_PATH descriptor names an inode without opening it — a FIFO cannot block, a device is not
 * opened, nothing is read), its type is checked with fstat and its place with the kernel's path
 * for it (`/proc/self/fd/<fd>`), and only then is that same inode reopened read-only through
 * `/proc/self/fd/<fd>`.
 *
 * Fast path (reads): one O_PATH lookup of the whole path, accepted only when the kernel's path for
 * it is exactly the root's real path plus the names — so no symlink was involved. Anything else (a
 * symlink on the way, a race, any error) goes to the walk, which also owns every error answer.
 *
 * The walk (creates always; reads when the fast path did not prove itself): the root is opened (it
 * may itself be a symlink — its real path is the anchor), then each directory is opened relative
 * to the previous descriptor with O_NOFOLLOW|O_DIRECTORY through `/proc/self/fd/<fd>/<name>` (an
 * openat() Node lacks), so the kernel never follows a symlink for us. When a name is a symlink its
 * target is read and resolved textually against the anchor; if that stays inside the root the walk
 * restarts from the root descriptor along the new names, otherwise it stops with
 * `containment_violation` — whether or not the target exists, so nothing outside is ever probed.
 * An absolute target is inside only if it starts with the root's real path (a target that reaches
 * the root through another link, e.g. `/proc/self/root/…`, is refused). A dangling symlink whose
 * target lies inside answers `not_found`. The last descriptor's kernel path is checked against the
 * anchor before anything is returned.
 *
 * Path rules for `relative` are those of `resolveContained` (`''` is the root, no NUL, no
 * backslash, not absolute, `..` may not climb above the root, `%` is literal).
 *
 * Access:
 * - `read` (default): a read-only handle. FIFOs, sockets and devices are refused with
 *   `unsupported_file_type` without ever being opened. `expect` (default `file`) picks file,
 *   directory or either. A directory handle can be listed race-free with
 *   `listContained('/proc/self/fd/' + handle.fd)`.
 * - `create`: O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW on the last name — create-only: any entry already
 *   there, including a dangling symlink, gives `already_exists` and is never followed. Missing
 *   parent directories are not created (`not_found`).
 *
 * Linux only: relies on `/proc` being mounted and fails closed with `unavailable` when it is not
 * (or on another platform). The caller owns the returned handle and must close it; on every error
 * all descriptors opened here are closed.
 *
 * Throws (codes from CONTAINMENT_ERROR_CODES, messages never containing a path):
 * - `invalid_path` — malformed `relative` or non-absolute `root`, a name too long, more than 40
 *   symlinks in one resolution;
 * - `containment_violation` — `..` above the root, or a symlink whose target lies outside it;
 * - `not_found` — the root, a directory on the way, or (read) the target does not exist;
 * - `not_a_directory` — the root or a component on the way is not a directory, or a file where
 *   `expect: 'directory'`;
 * - `is_a_directory` — a directory where a file is expected;
 * - `already_exists` — (create) something is already at that name;
 * - `unsupported_file_type` — a FIFO, socket or device;
 * - `permission_denied` — the host refused access, or the filesystem is read-only;
 * - `unavailable` — not Linux, `/proc` missing, out of descriptors, or an I/O failure.
 */
export async function openContainedHandle(root: string, relative: string, options: OpenContainedOptions = {}): Promise<FileHandle> {
  const names = containedNames(root, relative);
  if (options.access !== 'create') {
    const expect = options.expect ?? 'file';
    const direct = await openDirect(root, names, expect);
    if (direct !== undefined) return direct;
  }
  return openByWalk(root, names, options);
}

/**
 * Like `openContainedHandle` with `access: 'read'`, but answers a plain descriptor, opened
 * synchronously once the lookup proved itself: no FileHandle and no thread-pool round trip for the
 * open, so a small read costs one trip (the read) instead of three. The caller owns the descriptor
 * and must `closeSync` it (closing a read-only descriptor does no I/O). Same checks, errors and
 * guarantees as `openContainedHandle`; when the fast path cannot prove itself, the walk answers
 * and its handle's inode is reopened as a plain descriptor through `/proc/self/fd`.
 */
export function openContainedDescriptor(root: string, relative: string, options: { readonly expect?: ExpectedEntryType } = {}): Promise<number> {
  const expect = options.expect ?? 'file';
  return fromProvenInode(root, relative, expect, (fd) => openSync(PROC_FD + fd, reopenFlags(expect)));
}

/**
 * The real absolute path of `relative` under `root`, proven inside it the way
 * `openContainedHandle` proves what it opens (same checks, errors and guarantees), without opening
 * the target for I/O: where one O_PATH lookup proves itself, no thread-pool round trip at all,
 * against three (open, readlink, close) through a handle. Like any path, the answer can go stale
 * if the tree changes after it is given; to read or write race-free use a handle.
 */
export function containedRealPath(root: string, relative: string, options: { readonly expect?: ExpectedEntryType } = {}): Promise<string> {
  return fromProvenInode(root, relative, options.expect ?? 'file', (fd) => readlinkSync(PROC_FD + fd));
}

/** The checked names of `relative`; throws `invalid_path` for a bad path or root, `unavailable` off Linux. */
function containedNames(root: string, relative: string): string[] {
  const names = parseRelativePath(relative);
  assertRoot(root);
  if (process.platform !== 'linux') {
    throw unavailable('not_linux', 'Contained opens need Linux (they rely on /proc/self/fd).');
  }
  return names;
}

/**
 * `take` of a descriptor proven to be the target: the fast lookup's O_PATH one when it proves
 * itself, else the walk's handle (which owns every error answer). Either descriptor is closed after.
 */
async function fromProvenInode<T>(root: string, relative: string, expect: ExpectedEntryType, take: (fd: number) => T): Promise<T> {
  const names = containedNames(root, relative);
  const direct = lookupDirect(root, names, expect);
  if (direct !== undefined) {
    try {
      return take(direct);
    } catch {
      // Fall through to the walk, which owns every error answer.
    } finally {
      closeFd(direct);
    }
  }
  const handle = await openByWalk(root, names, { expect });
  try {
    return take(handle.fd);
  } catch (error) {
    throw fromSystemError(error, 'target');
  } finally {
    await handle.close();
  }
}

/**
 * The fast path for reads: the handle when one O_PATH lookup provably met no symlink and found
 * the expected type inside the root; undefined to let the walk decide (it also owns every error
 * answer, so a failure here reveals nothing about what lies outside).
 */
async function openDirect(root: string, names: readonly string[], expect: ExpectedEntryType): Promise<FileHandle | undefined> {
  const pathFd = lookupDirect(root, names, expect);
  if (pathFd === undefined) return undefined;
  try {
    return await reopen(pathFd, expect);
  } catch {
    return undefined;
  } finally {
    closeFd(pathFd);
  }
}

/**
 * The checked O_PATH descriptor of `names` when one lookup provably met no symlink and found the
 * expected type inside the root (the caller closes it); undefined to let the walk decide. Throws
 * only the type mismatch, which is the answer once the inode is proven to be this very path.
 *
 * The lookup and its checks (open O_PATH, realpath of the root, readlink and fstat of the
 * descriptor) are metadata calls answered from the kernel's caches in microseconds, so they run
 * inline: as four thread-pool round trips they were most of a small read's time. On a root over a
 * network filesystem a metadata call can wait on the server, and this path then holds the event
 * loop for that long.
 */
function lookupDirect(root: string, names: readonly string[], expect: ExpectedEntryType): number | undefined {
  let pathFd: number;
  try {
    pathFd = openSync(joinUnder(root, names), LOOKUP_FLAGS);
  } catch {
    return undefined;
  }
  let proven = false;
  try {
    let rootReal: string;
    let location: string;
    let stats: Stats;
    try {
      rootReal = realpathSync.native(root);
      location = readlinkSync(PROC_FD + pathFd);
      stats = fstatSync(pathFd);
    } catch {
      return undefined;
    }
    // A symlink at the last name is reported as itself by O_NOFOLLOW; the walk follows it.
    if (location !== joinUnder(rootReal, names) || stats.isSymbolicLink()) return undefined;
    const mismatch = typeMismatch(stats, expect);
    if (mismatch !== undefined) throw mismatch;
    proven = true;
    return pathFd;
  } finally {
    if (!proven) closeFd(pathFd);
  }
}

/** The error for an entry of the wrong type, or undefined when `stats` fits `expect`. */
function typeMismatch(stats: Stats, expect: ExpectedEntryType): ConnectorError | undefined {
  if (stats.isFile()) return expect === 'directory' ? unexpectedType('directory') : undefined;
  if (stats.isDirectory()) return expect === 'file' ? unexpectedType('file') : undefined;
  return specialFile();
}

async function openByWalk(root: string, names: string[], options: OpenContainedOptions): Promise<FileHandle> {
  let rootFd: number;
  try {
    rootFd = await openFd(root, ROOT_FLAGS);
  } catch (error) {
    throw fromSystemError(error, 'root');
  }
  const anchor = readlink(PROC_FD + rootFd).then(asAnchor, procUnavailable);
  anchor.catch(ignore);
  try {
    return await openBeneath(rootFd, anchor, names, options);
  } catch (error) {
    // Without /proc every step above fails in confusing ways; report the real cause instead.
    await anchor;
    throw isConnectorError(error) ? error : fromSystemError(error, 'target');
  } finally {
    closeFd(rootFd);
  }
}

async function openBeneath(rootFd: number, anchor: Promise<string>, requested: string[], options: OpenContainedOptions): Promise<FileHandle> {
  let names = requested;
  // names[0, index) have been walked and dirFd is the directory they lead to.
  let index = 0;
  let dirFd = rootFd;
  let hops = 0;

  const followLink = async (target: string | undefined): Promise<void> => {
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) throw invalidPath('symlink_loop', 'The path passes through too many symbolic links (a link loop?).');
    if (target === undefined) return;
    names = relink(await anchor, names, index, target);
    if (dirFd !== rootFd) closeFd(dirFd);
    dirFd = rootFd;
    index = 0;
  };

  try {
    for (;;) {
      if (index < names.length - 1) {
        const name = names[index]!;
        let next: number;
        try {
          next = await openFd(childPath(dirFd, name), STEP_FLAGS);
        } catch (error) {
          // O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR (or ELOOP): it may be a link.
          const target = mayBeSymlink(error) ? await readLinkAt(dirFd, name) : undefined;
          if (target === undefined) throw fromSystemError(error, 'target');
          await followLink(target);
          continue;
        }
        if (dirFd !== rootFd) closeFd(dirFd);
        dirFd = next;
        index += 1;
        continue;
      }

      const isRoot = names.length === 0;
      // The root is reached through its magic link, which O_NOFOLLOW would refuse.
      const leaf = isRoot ? PROC_FD + rootFd : childPath(dirFd, names[index]!);
      if (options.access === 'create') {
        let created: FileHandle;
        try {
          created = await open(leaf, CREATE_FLAGS, options.createMode ?? 0o666);
        } catch (error) {
          throw fromSystemError(error, 'target');
        }
        return await verified(created, anchor);
      }

      const expect = options.expect ?? 'file';
      let pathFd: number;
      try {
        pathFd = await openFd(leaf, isRoot ? O_PATH : LOOKUP_FLAGS);
      } catch (error) {
        throw fromSystemError(error, 'target');
      }
      let target: string | undefined;
      try {
        const [stats, location, rootReal] = await Promise.all([fstatFd(pathFd), readlink(PROC_FD + pathFd), anchor]);
        if (!stats.isSymbolicLink()) {
          if (!isWithin(rootReal, location)) throw escapesThroughSymlink();
          const mismatch = typeMismatch(stats, expect);
          if (mismatch !== undefined) throw mismatch;
          return await reopen(pathFd, expect);
        }
        target = await readLinkAt(dirFd, names[index]!);
      } finally {
        closeFd(pathFd);
      }
      // undefined: the link was replaced since the lookup; look again (counted as a hop).
      await followLink(target);
    }
  } finally {
    if (dirFd !== rootFd) closeFd(dirFd);
  }
}

/** Opens the inode behind the O_PATH descriptor `pathFd` for reading: the checked inode itself. */
function reopen(pathFd: number, expect: ExpectedEntryType): Promise<FileHandle> {
  return open(PROC_FD + pathFd, reopenFlags(expect));
}

function reopenFlags(expect: ExpectedEntryType): number {
  return expect === 'directory' ? REOPEN_FLAGS | O_DIRECTORY : REOPEN_FLAGS;
}

/** Checks a created file's type and containment on its own descriptor; closes it on failure. */
async function verified(handle: FileHandle, anchor: Promise<string>): Promise<FileHandle> {
  try {
    const [stats, location, rootReal] = await Promise.all([handle.stat(), readlink(PROC_FD + handle.fd), anchor]);
    if (!isWithin(rootReal, location)) throw escapesThroughSymlink();
    const mismatch = typeMismatch(stats, 'file');
    if (mismatch !== undefined) throw mismatch;
    return handle;
  } catch (error) {
    await handle.close().catch(ignore);
    throw isConnectorError(error) ? error : fromSystemError(error, 'target');
  }
}

/**
 * The names that replace `names[0..linkAt]` when the symlink at `names[linkAt]` points to
 * `target`: the target is resolved textually from the link's directory and must stay within the
 * anchor.
 */
function relink(rootReal: string, names: readonly string[], linkAt: number, target: string): string[] {
  const destination = posix.resolve(joinUnder(rootReal, names.slice(0, linkAt)), target);
  if (!isWithin(rootReal, destination)) throw escapesThroughSymlink();
  const inside = destination.slice(rootReal.length).split('/').filter((name) => name.length > 0);
  return [...inside, ...names.slice(linkAt + 1)];
}

/** The target of the symlink `name` in `dirFd`, or undefined when `name` is not a symlink. */
async function readLinkAt(dirFd: number, name: string): Promise<string | undefined> {
  try {
    return await readlink(childPath(dirFd, name));
  } catch (error) {
    if (errnoOf(error) === 'EINVAL') return undefined;
    throw fromSystemError(error, 'target');
  }
}

function mayBeSymlink(error: unknown): boolean {
  const errno = errnoOf(error);
  return errno === 'ELOOP' || errno === 'ENOTDIR';
}

function childPath(dirFd: number, name: string): string {
  return `${PROC_FD}${dirFd}/${name}`;
}

function asAnchor(path: string): string {
  if (path.charCodeAt(0) !== 47) procUnavailable();
  return path;
}

function procUnavailable(): never {
  throw unavailable('proc_unavailable', 'Containment cannot be verified: /proc is not mounted or not readable.');
}

function openFd(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => {
    openWithCallback(path, flags, (error, fd) => (error === null ? resolve(fd) : reject(error)));
  });
}

function fstatFd(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => {
    fstatWithCallback(fd, (error, stats) => (error === null ? resolve(stats) : reject(error)));
  });
}

// Closing a directory or O_PATH descriptor does no I/O, so it is done inline rather than as one
// more thread-pool round trip.
function closeFd(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed is the only way this fails; nothing to undo.
  }
}

function ignore(): void {}
