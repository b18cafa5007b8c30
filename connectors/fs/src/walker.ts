/**
 * The tree walker behind list, walk, scanContent and the host listing: depth first, pre-order
 * (a directory, then everything below it, then its next sibling), names sorted by UTF-16 code
 * unit in every directory, so the order is deterministic and a position can be named by the path
 * of the last entry returned.
 *
 * Speed: a listing is dominated by one lstat per entry, which one thread can only do one at a
 * time. Entries are stat'ed in chunks of up to CHUNK_SIZE names of one folder (stat-pool.ts). A
 * small walk stats each chunk on the calling thread when it reaches it (well under a millisecond
 * of blocking). A walk that has stat'ed POOL_AFTER entries starts the worker pool and from then on
 * keeps a window ahead of its position: the next chunks in walk order — subfolders are opened
 * ahead to find theirs — posted to the workers, which stat them on the other cores while this
 * thread hands out entries. Whoever gets to a chunk first stats it: a chunk the walk reaches
 * before any worker has started it is stat'ed here, and while a worker is busy with the chunk the
 * walk needs next, the walk stats chunks from the far end of the window instead of waiting. So
 * both threads stay busy whichever is ahead, and a worker that stalls or dies costs time, never
 * entries.
 *
 * Memory: one sorted name array per directory on the current path, plus the window: at most
 * 2 × AHEAD_CHUNKS chunk results (≤ 12 KiB each) and AHEAD_FOLDERS folders opened ahead holding at
 * most AHEAD_NAMES names between them (the last one opened may go over). Never the tree. A walker
 * left idle for LOOKAHEAD_TTL_MS (a listing kept between pages) drops its window before going on,
 * so it never hands out metadata read long before the call that returns it.
 *
 * Containment: the start directory is opened with openContainedHandle. Every directory below is
 * opened with O_DIRECTORY|O_NOFOLLOW, proven to be exactly the expected real path on its own
 * descriptor (the kernel's `/proc/self/fd/N` link) and the same inode the parent listing saw, and
 * listed through that descriptor (listContained's guarantee, see readNames) — so a directory
 * swapped for a symlink is never listed. Entries are lstat'ed (never followed); a symlink is
 * reported only when resolveContained proves its target inside the root, typed as its target and
 * never descended into. Entries are stat'ed by path, so every chunk ends with an lstat of its
 * folder's path: an ancestor swapped for a symlink while the chunk was stat'ed shows as another
 * inode, and the walk fails with `unavailable` when it reaches that chunk. A swap that is undone
 * within one chunk's stat (well under a millisecond) is not detectable without an fstatat() Node
 * does not offer, and could at most lend a listed name the size and mtime of a same-named file
 * elsewhere — never its content, which is only ever read through openContainedHandle.
 *
 * Left out: FIFOs, sockets and devices; files with more than one hard link unless the source
 * allows them (links.ts; the link count comes with the lstat already made); names that are not valid UTF-8 (Node cannot name them
 * back to the kernel, so their lstat fails); entries whose lstat fails (unreadable); our own
 * in-flight temp files; unreadable subdirectories (skipped, not fatal).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { openContainedHandle, resolveContained } from '@neuralis/package-system/paths';
import { childPath, encodeName, encodePath } from './address.js';
import {
  FIELD_CTIME_MS,
  FIELD_DEV,
  FIELD_INO,
  FIELD_KIND,
  FIELD_MTIME_MS,
  FIELD_SIZE,
  KIND_DIRECTORY,
  KIND_FILE,
  KIND_LINKED_FILE,
  KIND_SYMLINK,
  STAT_FIELDS,
  sharedStatPool,
  statChunk,
} from './stat-pool.js';
import type { PooledChunk, StatChunk, StatPool } from './stat-pool.js';
import { fsFailure } from './system-errors.js';
import { isHardLinked } from './links.js';
import { isTempName } from './write-names.js';

export type WalkEntryType = 'file' | 'directory';

/** The metadata a sink gets of an entry (of a symlink's target, for a symlink). */
export type WalkStats = Pick<Stats, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;

/**
 * Receives each entry: its encoded path, decoded name, type and (for symlinks, the target's)
 * stats. Returns whether the entry was taken (a filter may refuse it; it still counts as seen).
 */
export type WalkSink = (path: string, name: string, type: WalkEntryType, stats: WalkStats) => boolean;

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
  /** Where chunks are stat'ed ahead of the walk. Default: the process's shared pool. */
  readonly pool?: StatPool;
  /** Whether files with more than one hard link are handed out; left out by default (see links.ts). */
  readonly allowHardLinks?: boolean;
}

/** Where a walk stopped: the last entry returned, and whether the walk was about to descend into it. */
export interface WalkPosition {
  readonly names: readonly string[];
  readonly descend: boolean;
}

/** Stats of up to CHUNK_SIZE names of one folder, sent to the pool ahead of the walk. */
interface Chunk {
  readonly job: PooledChunk;
  readonly number: number;
  /** Entered by the walk, or dropped with the window. */
  consumed: boolean;
  /** The result, once a worker has finished it. */
  result: StatChunk | undefined;
  /** Child indices of the directories in the chunk, once the result is in. */
  directories: readonly number[];
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
  /** Sorted names, our temp files (and at depth 0, names the first-level filter refuses) left out. */
  readonly children: readonly string[];
  index: number;
  /** The chunk holding `children[index - 1]`, or -1 before the first; its stats and directories. */
  current: number;
  currentStats: Float64Array;
  currentDirectories: readonly number[];
  /** Chunks sent to the pool ahead of `current`, by chunk number. */
  chunks: Map<number, Chunk> | undefined;
  /** Subfolders opened ahead of the walk, by child index; null when opening failed then. */
  ahead: Map<number, Frame | null> | undefined;
}

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const PROC_FD = '/proc/self/fd/';
const NO_THROW = { throwIfNoEntry: false } as const;

const CHUNK_SHIFT = 8;
/** Names stat'ed per chunk: small enough to block the event loop briefly, large enough that a message per chunk is cheap. */
const CHUNK_SIZE = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_SIZE - 1;
/** Entries a walk stats on this thread before it asks for the worker pool: a small listing, or one page of 1,000, never starts threads (posting its second half to workers cost more than it saved). */
const POOL_AFTER = 2048;
/** Chunks ahead of the walk's position waiting on a worker, at most; twice as many held in all. */
const AHEAD_CHUNKS = 32;
/** Folders opened (and their names held) ahead of the walk's position, at most. */
const AHEAD_FOLDERS = 64;
const AHEAD_NAMES = 65_536;
/** A walker idle longer than this drops what it read ahead (see the header). */
const LOOKAHEAD_TTL_MS = 1_000;
/** How long the walk waits for a worker's chunk at a time when there is nothing left to steal. */
const STEAL_WAIT_MS = 1;
const NO_STATS = new Float64Array(0);

export class TreeWalker {
  private readonly stack: Frame[] = [];
  private readonly maxDepth: number;
  private readonly pool: StatPool;
  // The last entry handed out, kept as parts so the hot loop allocates no position per entry.
  private lastFrame: Frame | undefined;
  private lastName = '';
  private lastDescend = false;
  private resumedAt: WalkPosition | undefined;
  /** Entries stat'ed on this thread, until the pool is asked for. */
  private statedHere = 0;
  // The window's size, so the read-ahead stays bounded however the tree is shaped.
  private heldChunks = 0;
  /** Chunks in the window in the order they were sent, for stealing from the far end. */
  private readonly queue: Chunk[] = [];
  private aheadFolders = 0;
  private aheadNames = 0;
  private idleSince = Date.now();

  private constructor(private readonly options: WalkerOptions) {
    this.maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    this.pool = options.pool ?? sharedStatPool();
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
    if (position !== undefined) walker.seek(position);
    return walker;
  }

  /** Names held in memory: the sorted listings of the folders on the current path and of those opened ahead. */
  get heldNames(): number {
    let held = this.aheadNames;
    for (const frame of this.stack) held += frame.children.length;
    return held;
  }

  /**
   * What the walk holds ahead of its position now: chunks posted and not entered, chunks it still
   * tracks for taking over (`queued`), folders opened and their names.
   */
  get readAhead(): { readonly chunks: number; readonly queued: number; readonly folders: number; readonly names: number } {
    return { chunks: this.heldChunks, queued: this.queue.length, folders: this.aheadFolders, names: this.aheadNames };
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
    const { includeDirectories } = this.options;
    if (Date.now() - this.idleSince > LOOKAHEAD_TTL_MS) this.dropWindow();
    let taken = 0;
    let offered = 0;
    try {
      while (taken < limit && offered < budget) {
        const frame = this.stack[this.stack.length - 1];
        if (frame === undefined) break;
        const index = frame.index;
        if (index >= frame.children.length) {
          this.pop();
          continue;
        }
        if (index >>> CHUNK_SHIFT !== frame.current) this.enterChunk(frame, index >>> CHUNK_SHIFT);
        frame.index = index + 1;
        const name = frame.children[index]!;
        const data = frame.currentStats;
        const at = (index & CHUNK_MASK) * STAT_FIELDS;
        const kind = data[at + FIELD_KIND];
        let type: WalkEntryType;
        let descend = false;
        let stats: WalkStats;
        if (kind === KIND_FILE || (kind === KIND_LINKED_FILE && this.options.allowHardLinks === true)) {
          type = 'file';
          stats = statsAt(data, at);
        } else if (kind === KIND_DIRECTORY) {
          type = 'directory';
          descend = frame.depth + 1 < this.maxDepth;
          stats = statsAt(data, at);
        } else if (kind === KIND_SYMLINK) {
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
          const child = this.takeAhead(frame, index) ?? this.openChild(frame, name, path, data[at + FIELD_INO]!, data[at + FIELD_DEV]!);
          if (child !== undefined) this.stack.push(child);
        }
      }
      // Exhausted folders are dropped now, so a walk that ends exactly at a page boundary reports
      // done instead of handing out a cursor to an empty page.
      while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.index >= this.stack[this.stack.length - 1]!.children.length) {
        this.pop();
      }
    } finally {
      this.idleSince = Date.now();
    }
    // The workers go on while the caller handles what it was given.
    this.pump();
    return taken;
  }

  /** Makes chunk `number` of `frame` current: a worker's result, or stat'ed here. */
  private enterChunk(frame: Frame, number: number): void {
    let result: StatChunk;
    let directories: readonly number[];
    const chunk = frame.chunks?.get(number);
    if (chunk !== undefined) {
      frame.chunks!.delete(number);
      this.heldChunks -= 1;
      result = chunk.result ?? this.resultOf(chunk);
      directories = chunk.result === undefined ? directoriesIn(result.stats, number) : chunk.directories;
      chunk.consumed = true;
    } else {
      const names = chunkNames(frame, number);
      result = statChunk(frame.abs, names);
      directories = directoriesIn(result.stats, number);
      this.statedHere += names.length;
    }
    // The folder's path led to another inode after the stats: an ancestor was swapped meanwhile.
    // A folder removed meanwhile (-1) is an ordinary race; its entries are simply gone.
    if (result.directoryIno !== -1 && (result.directoryIno !== frame.ino || result.directoryDev !== frame.dev)) {
      throw new UnavailableError('A folder was replaced while it was being listed; retry the listing.', {
        details: { reason: 'tree_changing' },
      });
    }
    frame.current = number;
    frame.currentStats = result.stats;
    frame.currentDirectories = directories;
    this.pump();
  }

  /**
   * Fills the window: walks ahead of the position in walk order, sending chunks not yet sent to
   * the pool and opening the subfolders it meets, until AHEAD_CHUNKS chunks ahead are waiting on
   * a worker, 2 × AHEAD_CHUNKS are held in all, or a limit on folders ahead is reached. Does
   * nothing until the pool is running.
   */
  private pump(): void {
    if (!this.pool.ready) {
      // A pool stopped while this walk sat idle starts again.
      if (this.statedHere >= POOL_AFTER) this.pool.warmUp();
      return;
    }
    if (this.heldChunks >= 2 * AHEAD_CHUNKS) return;
    const window = { waiting: AHEAD_CHUNKS };
    for (let level = this.stack.length - 1; level >= 0; level--) {
      if (!this.pumpFrame(this.stack[level]!, this.stack[level]!.index, window)) return;
    }
  }

  /** pump() over `frame` from child `from`; false once the window is full. */
  private pumpFrame(frame: Frame, from: number, window: { waiting: number }): boolean {
    const descends = frame.depth + 1 < this.maxDepth;
    for (let number = from >>> CHUNK_SHIFT; number << CHUNK_SHIFT < frame.children.length; number++) {
      let directories: readonly number[];
      if (number === frame.current) {
        directories = frame.currentDirectories;
      } else {
        let chunk = frame.chunks?.get(number);
        if (chunk === undefined) {
          if (window.waiting <= 0 || this.heldChunks >= 2 * AHEAD_CHUNKS) return false;
          chunk = this.send(frame, number);
        }
        if (chunk.result === undefined) {
          const result = chunk.job.peek();
          if (result !== undefined) {
            chunk.result = result;
            chunk.directories = directoriesIn(result.stats, number);
          } else {
            window.waiting -= 1;
          }
        }
        directories = chunk.directories;
      }
      if (!descends) continue;
      for (const index of directories) {
        if (index < from) continue;
        let child = frame.ahead?.get(index);
        if (child === undefined) {
          if (this.aheadFolders >= AHEAD_FOLDERS || this.aheadNames >= AHEAD_NAMES) return false;
          const data = number === frame.current ? frame.currentStats : frame.chunks!.get(number)!.result!.stats;
          const at = (index & CHUNK_MASK) * STAT_FIELDS;
          const name = frame.children[index]!;
          child = this.openChild(frame, name, childPath(frame.path, encodeName(name)), data[at + FIELD_INO]!, data[at + FIELD_DEV]!) ?? null;
          (frame.ahead ??= new Map()).set(index, child);
          if (child !== null) {
            this.aheadFolders += 1;
            this.aheadNames += child.children.length;
          }
        }
        if (child !== null && !this.pumpFrame(child, 0, window)) return false;
      }
    }
    return true;
  }

  /**
   * The result of a chunk in the window: stat'ed here if no worker has started it; otherwise,
   * while the worker is at it, this thread stats chunks from the far end of the window rather
   * than wait, so both threads stay busy whichever is ahead.
   */
  private resultOf(chunk: Chunk): StatChunk {
    for (;;) {
      const result = chunk.result ?? chunk.job.claim() ?? chunk.job.peek();
      if (result !== undefined) return result;
      if (!this.stealOne()) {
        const waited = chunk.job.wait(STEAL_WAIT_MS);
        if (waited !== undefined) return waited;
      }
    }
  }

  /** Stats the last chunk of the window no worker has started; false when there is none. */
  private stealOne(): boolean {
    const queue = this.queue;
    for (let at = queue.length - 1; at >= 0; at--) {
      const chunk = queue[at]!;
      if (!unsettled(chunk)) continue;
      const result = chunk.job.claim();
      if (result === undefined) continue;
      chunk.result = result;
      chunk.directories = directoriesIn(result.stats, chunk.number);
      return true;
    }
    return false;
  }

  /** Posts chunk `number` of `frame` to the pool. */
  private send(frame: Frame, number: number): Chunk {
    const chunk: Chunk = { job: this.pool.submit(frame.abs, chunkNames(frame, number)), number, result: undefined, directories: [], consumed: false };
    (frame.chunks ??= new Map()).set(number, chunk);
    this.heldChunks += 1;
    // Settled chunks at the front leave the queue, so it stays the size of the window.
    const queue = this.queue;
    let front = 0;
    while (front < queue.length && !unsettled(queue[front]!)) front += 1;
    if (front > 0) queue.splice(0, front);
    queue.push(chunk);
    return chunk;
  }

  /** The subfolder opened ahead for child `index`, if one was; undefined lets the caller open it. */
  private takeAhead(frame: Frame, index: number): Frame | undefined {
    const child = frame.ahead?.get(index);
    if (child === undefined) return undefined;
    frame.ahead!.delete(index);
    if (child === null) return undefined;
    this.aheadFolders -= 1;
    this.aheadNames -= child.children.length;
    return child;
  }

  private pop(): void {
    const frame = this.stack.pop();
    if (frame !== undefined) this.forget(frame, false);
  }

  /** Takes what `frame` holds of the window out of the counts; `opened` when the frame itself was opened ahead. */
  private forget(frame: Frame, opened: boolean): void {
    if (opened) {
      this.aheadFolders -= 1;
      this.aheadNames -= frame.children.length;
    }
    for (const chunk of frame.chunks?.values() ?? []) {
      chunk.job.cancel();
      chunk.consumed = true;
      this.heldChunks -= 1;
    }
    frame.chunks = undefined;
    for (const child of frame.ahead?.values() ?? []) if (child !== null) this.forget(child, true);
    frame.ahead = undefined;
  }

  /** Drops everything read ahead; the current chunks are stat'ed again when the walk reaches them. */
  private dropWindow(): void {
    for (const frame of this.stack) {
      this.forget(frame, false);
      frame.current = -1;
    }
  }

  private async openStart(): Promise<Frame> {
    const relative = this.options.start.join('/');
    const handle = await openContainedHandle(this.options.rootPath, relative, { expect: 'directory' });
    try {
      const [abs, stats] = await Promise.all([readlink(PROC_FD + handle.fd), handle.stat()]);
      let children = readNames(PROC_FD + handle.fd);
      const { firstLevel } = this.options;
      if (firstLevel !== undefined) children = children.filter((name) => firstLevel(encodeName(name)));
      return makeFrame(abs, encodePath(this.options.start), this.options.start, 0, stats, children);
    } finally {
      await handle.close();
    }
  }

  /** Opens `name` below `parent` only if it is still the directory (`ino`, `dev`) its listing saw. */
  private openChild(parent: Frame, name: string, path: string, ino: number, dev: number): Frame | undefined {
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
      if (stats.ino !== ino || stats.dev !== dev || readlinkSync(PROC_FD + fd) !== abs) return undefined;
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
    if (stats === undefined || !(stats.isFile() || stats.isDirectory())) return undefined;
    return isHardLinked(stats) && this.options.allowHardLinks !== true ? undefined : stats;
  }

  /** Rebuilds the stack so the next entry is the one after `position`. */
  private seek(position: WalkPosition): void {
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
      const child = this.openChild(frame, name, childPath(frame.path, encodeName(name)), stats.ino, stats.dev);
      if (child === undefined) break;
      this.stack.push(child);
    }
    this.resumedAt = position;
  }
}

/** Whether a chunk in the window may still need stat'ing: not entered or dropped, and no result known. */
function unsettled(chunk: Chunk): boolean {
  return !chunk.consumed && chunk.result === undefined;
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
    current: -1,
    currentStats: NO_STATS,
    currentDirectories: [],
    chunks: undefined,
    ahead: undefined,
  };
}

function statsAt(data: Float64Array, at: number): WalkStats {
  return { ino: data[at + FIELD_INO]!, size: data[at + FIELD_SIZE]!, mtimeMs: data[at + FIELD_MTIME_MS]!, ctimeMs: data[at + FIELD_CTIME_MS]! };
}

function chunkNames(frame: Frame, number: number): readonly string[] {
  return frame.children.slice(number << CHUNK_SHIFT, (number + 1) << CHUNK_SHIFT);
}

/** Child indices of the directories in chunk `number`'s stats. */
function directoriesIn(stats: Float64Array, number: number): number[] {
  const directories: number[] = [];
  for (let at = FIELD_KIND, offset = 0; at < stats.length; at += STAT_FIELDS, offset++) {
    if (stats[at] === KIND_DIRECTORY) directories.push((number << CHUNK_SHIFT) + offset);
  }
  return directories;
}

/**
 * The names in a directory, by its descriptor path, sorted, without our temp files. This is
 * listContained's readdir of an already-verified directory, done synchronously: a walk opens one
 * directory per folder, and the async generator's per-directory round trips cost more than the
 * whole listing of a small folder (10,000 folders: 1.5 s against 0.1 s).
 */
function readNames(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    throw fsFailure(error);
  }
  return names.filter((name) => !isTempName(name)).sort();
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
