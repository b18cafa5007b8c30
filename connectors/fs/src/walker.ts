/**
 * The tree walker behind list, walk, scanContent and the host listing: depth first, pre-order
 * (a directory, then everything below it, then its next sibling), names sorted by UTF-16 code
 * unit in every directory, so the order is deterministic and a position can be named by the path
 * of the last entry returned.
 *
 * Memory: one sorted name array per directory on the current path, never the tree.
 *
 * Speed: a listing is dominated by one lstat per entry, so stats are synchronous calls in bounded
 * chunks (the caller's page): per call they cost a third of the promise API's, and a 1,000-entry
 * page blocks the event loop for about 3 ms.
 *
 * Containment: the start directory is opened with openContainedHandle. Every directory below is
 * opened with O_DIRECTORY|O_NOFOLLOW, proven to be exactly the expected real path on its own
 * descriptor (the kernel's `/proc/self/fd/N` link) and the same inode the parent listing saw, and
 * listed through that descriptor (listContained's guarantee, see readNames) — so a directory
 * swapped for a symlink is never listed. Entries are lstat'ed (never followed); a symlink is reported only when
 * resolveContained proves its target inside the root, typed as its target and never descended
 * into. An ancestor swapped for a symlink while a page is being stat'ed is caught by re-checking
 * each directory's inode after the page (the page then fails with `unavailable`); a swap that is
 * undone within the same ~3 ms page is not detectable without an fstatat() Node does not offer,
 * and could at most lend a listed name the size and mtime of a same-named file elsewhere — never
 * its content, which is only ever read through openContainedHandle.
 *
 * Left out: FIFOs, sockets and devices; names that are not valid UTF-8 (Node cannot name them
 * back to the kernel, so their lstat fails); our own in-flight temp files; unreadable
 * subdirectories (skipped, not fatal).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { openContainedHandle, resolveContained } from '@neuralis/package-system/paths';
import { childPath, encodeName, encodePath } from './address.js';
import { fsFailure } from './system-errors.js';
import { isTempName } from './write-names.js';

export type WalkEntryType = 'file' | 'directory';

/**
 * Receives each entry: its encoded path, decoded name, type and (for symlinks, the target's)
 * stats. Returns whether the entry was taken (a filter may refuse it; it still counts as seen).
 */
export type WalkSink = (path: string, name: string, type: WalkEntryType, stats: Stats) => boolean;

export interface WalkerOptions {
  /** The root path as the containment primitives take it. */
  readonly rootPath: string;
  /** Decoded names of the directory to walk, below the root; [] for the root. */
  readonly start: readonly string[];
  /** Depth below the start that is listed; 1 lists the start's children only. Default unbounded. */
  readonly maxDepth?: number;
  /** Whether directories are handed to the sink (they are always descended into). */
  readonly includeDirectories: boolean;
  /** Filters the start directory's children by encoded name (a host-list prefix). */
  readonly firstLevel?: (encodedName: string) => boolean;
}

/** Where a walk stopped: the last entry returned, and whether the walk was about to descend into it. */
export interface WalkPosition {
  readonly names: readonly string[];
  readonly descend: boolean;
}

interface Frame {
  /** Real absolute path of the directory. */
  readonly abs: string;
  /** `abs` with a trailing slash, ready for a name. */
  readonly absPrefix: string;
  /** Encoded path below the root ('' for the root). */
  readonly path: string;
  /** Decoded names below the root. */
  readonly names: readonly string[];
  readonly depth: number;
  readonly dev: number;
  readonly ino: number;
  readonly children: string[];
  index: number;
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const PROC_FD = '/proc/self/fd/';
const NO_THROW = { throwIfNoEntry: false } as const;

export class TreeWalker {
  private readonly stack: Frame[] = [];
  private readonly maxDepth: number;
  // The last entry handed out, kept as parts so the hot loop allocates no position per entry.
  private lastFrame: Frame | undefined;
  private lastName = '';
  private lastDescend = false;
  private resumedAt: WalkPosition | undefined;

  private constructor(private readonly options: WalkerOptions) {
    this.maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Opens a walk at `options.start`, or resumes after `position`. Throws what openContainedHandle
   * throws for the start directory (`not_found`, `not_a_directory`, `containment_violation`, …).
   * A position whose entries have since vanished resumes at the next name that still exists.
   */
  static async open(options: WalkerOptions, position?: WalkPosition): Promise<TreeWalker> {
    const walker = new TreeWalker(options);
    const start = await walker.openStart();
    walker.stack.push(start);
    if (position !== undefined) await walker.seek(position);
    return walker;
  }

  /** Names held in memory: the sorted listings of the folders on the current path. */
  get heldNames(): number {
    let held = 0;
    for (const frame of this.stack) held += frame.children.length;
    return held;
  }

  /** True once every entry has been returned. */
  get done(): boolean {
    return this.stack.length === 0;
  }

  /** The position after the last entry offered to a sink. */
  get position(): WalkPosition | undefined {
    if (this.lastFrame === undefined) return this.resumedAt;
    return { names: [...this.lastFrame.names, this.lastName], descend: this.lastDescend };
  }

  /**
   * Offers entries to `sink` until it has taken `limit` of them, `budget` entries have been
   * offered (so a selective filter cannot block the event loop on a huge tree), or the walk is
   * done; returns how many were taken. Throws `unavailable` when a directory was swapped meanwhile.
   */
  async fill(limit: number, sink: WalkSink, budget = Number.POSITIVE_INFINITY): Promise<number> {
    const { includeDirectories, firstLevel } = this.options;
    const touched: Frame[] = [];
    let taken = 0;
    let offered = 0;
    while (taken < limit && offered < budget) {
      const frame = this.stack[this.stack.length - 1];
      if (frame === undefined) break;
      if (frame.index >= frame.children.length) {
        this.stack.pop();
        continue;
      }
      const name = frame.children[frame.index++]!;
      if (isTempName(name)) continue;
      if (firstLevel !== undefined && frame.depth === 0 && !firstLevel(encodeName(name))) continue;
      let stats = lstatSync(frame.absPrefix + name, NO_THROW);
      if (stats === undefined) continue;
      if (touched[touched.length - 1] !== frame) touched.push(frame);
      let type: WalkEntryType;
      let descend = false;
      if (stats.isFile()) {
        type = 'file';
      } else if (stats.isDirectory()) {
        type = 'directory';
        descend = frame.depth + 1 < this.maxDepth;
      } else if (stats.isSymbolicLink()) {
        const target = await this.followLink(frame, name);
        if (target === undefined) continue;
        stats = target;
        type = target.isDirectory() ? 'directory' : 'file';
      } else {
        continue;
      }
      const path = childPath(frame.path, encodeName(name));
      if (type === 'file' || includeDirectories) {
        offered += 1;
        if (sink(path, name, type, stats)) taken += 1;
        this.lastFrame = frame;
        this.lastName = name;
        this.lastDescend = descend;
      }
      if (descend) {
        const child = await this.openChild(frame, name, path, stats);
        if (child !== undefined) this.stack.push(child);
      }
    }
    // Exhausted folders are dropped now, so a walk that ends exactly at a page boundary reports
    // done instead of handing out a cursor to an empty page.
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.index >= this.stack[this.stack.length - 1]!.children.length) {
      this.stack.pop();
    }
    verifyUnchanged(touched);
    return taken;
  }

  private async openStart(): Promise<Frame> {
    const relative = this.options.start.join('/');
    const handle = await openContainedHandle(this.options.rootPath, relative, { expect: 'directory' });
    try {
      const [abs, stats] = await Promise.all([readlink(PROC_FD + handle.fd), handle.stat()]);
      const children = readNames(PROC_FD + handle.fd);
      return makeFrame(abs, encodePath(this.options.start), this.options.start, 0, stats, children);
    } finally {
      await handle.close();
    }
  }

  /** Opens `name` below `parent` only if it is still the directory `expected` describes. */
  private async openChild(parent: Frame, name: string, path: string, expected: Stats): Promise<Frame | undefined> {
    const abs = parent.absPrefix + name;
    let fd: number;
    try {
      fd = openSync(abs, DIRECTORY_FLAGS);
    } catch {
      // Gone, replaced by a symlink or a file, or unreadable: not part of this listing.
      return undefined;
    }
    try {
      const stats = fstatSync(fd);
      if (stats.ino !== expected.ino || stats.dev !== expected.dev || readlinkSync(PROC_FD + fd) !== abs) return undefined;
      let children: string[];
      try {
        children = readNames(PROC_FD + fd);
      } catch {
        return undefined;
      }
      return makeFrame(abs, path, [...parent.names, name], parent.depth + 1, stats, children);
    } finally {
      closeSync(fd);
    }
  }

  /** The stats of a symlink's target when resolveContained proves it inside the root. */
  private async followLink(frame: Frame, name: string): Promise<Stats | undefined> {
    let target: string;
    try {
      target = await resolveContained(this.options.rootPath, [...frame.names, name].join('/'));
    } catch {
      return undefined;
    }
    const stats = statSync(target, NO_THROW);
    return stats !== undefined && (stats.isFile() || stats.isDirectory()) ? stats : undefined;
  }

  /** Rebuilds the stack so the next entry is the one after `position`. */
  private async seek(position: WalkPosition): Promise<void> {
    const { names } = position;
    const startDepth = this.options.start.length;
    for (let level = startDepth; level < names.length; level++) {
      const frame = this.stack[this.stack.length - 1]!;
      const name = names[level]!;
      frame.index = upperBound(frame.children, name);
      const isLast = level === names.length - 1;
      if (isLast ? !position.descend : false) break;
      if (frame.children[frame.index - 1] !== name || frame.depth + 1 >= this.maxDepth) break;
      const stats = lstatSync(frame.absPrefix + name, NO_THROW);
      if (stats === undefined || !stats.isDirectory()) break;
      const child = await this.openChild(frame, name, childPath(frame.path, encodeName(name)), stats);
      if (child === undefined) break;
      this.stack.push(child);
    }
    this.resumedAt = position;
  }
}

function makeFrame(abs: string, path: string, names: readonly string[], depth: number, stats: Stats, children: string[]): Frame {
  return {
    abs,
    absPrefix: abs === '/' ? '/' : `${abs}/`,
    path,
    names,
    depth,
    dev: stats.dev,
    ino: stats.ino,
    children,
    index: 0,
  };
}

/**
 * The names in a directory, by its descriptor path, sorted. This is listContained's readdir of an
 * already-verified directory, done synchronously: a walk opens one directory per folder, and the
 * async generator's per-directory round trips cost more than the whole listing of a small folder
 * (10,000 folders: 1.5 s against 0.1 s).
 */
function readNames(directory: string): string[] {
  try {
    return readdirSync(directory).sort();
  } catch (error) {
    throw fsFailure(error);
  }
}

/** The index of the first name greater than `name` in sorted `names`. */
function upperBound(names: readonly string[], name: string): number {
  let low = 0;
  let high = names.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (names[middle]! <= name) low = middle + 1;
    else high = middle;
  }
  return low;
}

function verifyUnchanged(frames: readonly Frame[]): void {
  for (const frame of frames) {
    const now = lstatSync(frame.abs, NO_THROW);
    // A directory removed meanwhile is an ordinary race; one replaced by something else is not.
    if (now !== undefined && (now.ino !== frame.ino || now.dev !== frame.dev)) {
      throw new UnavailableError('A folder was replaced while it was being listed; retry the listing.', {
        details: { reason: 'tree_changing' },
      });
    }
  }
}
