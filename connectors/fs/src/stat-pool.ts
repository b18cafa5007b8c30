/**
 * lstat for the tree walker, in chunks of names of one folder, on the calling thread or ahead of
 * it on a small pool of worker threads.
 *
 * Why threads: a listing costs one lstat per entry, and one thread of lstat calls is all a
 * single-threaded walk can use. Node has no batched or directory-relative stat, and the async
 * `fs.lstat` spends as much JavaScript per call as the system call itself, so many calls in
 * flight on the libuv pool are slower than one synchronous thread. A worker running `lstatSync`
 * over a chunk of names costs one message per chunk, and stats folders ahead of the walk on
 * another core.
 *
 * How a chunk is shared: it is posted to a worker with a SharedArrayBuffer that holds its state
 * and its result. Whoever claims it first (an atomic compare-and-swap on the state) stats it: the
 * worker when it gets there, or the walk itself when it reaches a chunk no worker has started —
 * so the walk never waits on work the pool has not begun, never depends on its own event loop
 * turning (a walk runs page after page on promises alone), and a worker that dies or stalls costs
 * at most STALL_MS before the walk stats the chunk itself.
 *
 * A chunk's result is STAT_FIELDS numbers a name (the offsets below), plus the inode and device of
 * the folder as an lstat of its path finds it after the names were stat'ed: the walker compares
 * them with the folder it opened (with O_NOFOLLOW) to prove no ancestor was swapped for a symlink
 * while the names were stat'ed by path.
 *
 * The worker's loop is statInto, kept as plain JavaScript source so that it runs unchanged from
 * TypeScript sources (tests) and from the build; a test checks the two agree.
 */
import { lstatSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Numbers per name in a chunk result. */
export const STAT_FIELDS = 6;
export const FIELD_KIND = 0;
export const FIELD_INO = 1;
export const FIELD_DEV = 2;
export const FIELD_SIZE = 3;
export const FIELD_MTIME_MS = 4;
export const FIELD_CTIME_MS = 5;

/** FIELD_KIND values. Skip: gone, unreadable, or a FIFO, socket or device. */
export const KIND_SKIP = 0;
export const KIND_FILE = 1;
export const KIND_DIRECTORY = 2;
export const KIND_SYMLINK = 3;
/** A regular file with more than one hard link (served only where the source allows it). */
export const KIND_LINKED_FILE = 4;

export interface StatChunk {
  readonly stats: Float64Array;
  /** The folder's inode and device by path after the stats, or -1 when it is gone. */
  readonly directoryIno: number;
  readonly directoryDev: number;
}

// A shared chunk's state, at byte 0 of its buffer; the folder's inode and device follow at byte 8,
// the stats at byte 24.
const QUEUED = 0;
const CLAIMED_BY_WORKER = 1;
const CLAIMED_BY_WALK = 2;
const DONE = 3;
const FOLDER_OFFSET = 8;
const STATS_OFFSET = 24;

/** How long the walk waits on a chunk a worker has started before it stats the chunk itself. */
const STALL_MS = 2_000;
/** Stops the workers after this long without a chunk, so a process that listed once does not keep them. */
const IDLE_MS = 10_000;
const NO_THROW = { throwIfNoEntry: false } as const;

/** lstat of `names` in `directory` (a real absolute path) into `stats`, then of the folder into `folder`. */
function statInto(directory: string, names: readonly string[], stats: Float64Array, folder: Float64Array): void {
  const prefix = directory === '/' ? '/' : `${directory}/`;
  for (let index = 0, at = 0; index < names.length; index++, at += STAT_FIELDS) {
    let entry;
    try {
      entry = lstatSync(prefix + names[index], NO_THROW);
    } catch {
      // Unreadable (EACCES and the like): left out, as a folder that cannot be opened is.
      continue;
    }
    if (entry === undefined) continue;
    stats[at + FIELD_KIND] = entry.isFile() ? (entry.nlink > 1 ? KIND_LINKED_FILE : KIND_FILE) : entry.isDirectory() ? KIND_DIRECTORY : entry.isSymbolicLink() ? KIND_SYMLINK : KIND_SKIP;
    stats[at + FIELD_INO] = entry.ino;
    stats[at + FIELD_DEV] = entry.dev;
    stats[at + FIELD_SIZE] = entry.size;
    stats[at + FIELD_MTIME_MS] = entry.mtimeMs;
    stats[at + FIELD_CTIME_MS] = entry.ctimeMs;
  }
  let folderStats;
  try {
    folderStats = lstatSync(directory, NO_THROW);
  } catch {
    folderStats = undefined;
  }
  folder[0] = folderStats?.ino ?? -1;
  folder[1] = folderStats?.dev ?? -1;
}

/** statInto as worker source: the same loop and layout. */
const WORKER_SOURCE = `'use strict';
const { parentPort } = require('node:worker_threads');
const { lstatSync } = require('node:fs');
const NO_THROW = { throwIfNoEntry: false };
function statInto(directory, names, stats, folder) {
  const prefix = directory === '/' ? '/' : directory + '/';
  for (let index = 0, at = 0; index < names.length; index++, at += ${STAT_FIELDS}) {
    let entry;
    try {
      entry = lstatSync(prefix + names[index], NO_THROW);
    } catch {
      continue;
    }
    if (entry === undefined) continue;
    stats[at + ${FIELD_KIND}] = entry.isFile() ? (entry.nlink > 1 ? ${KIND_LINKED_FILE} : ${KIND_FILE}) : entry.isDirectory() ? ${KIND_DIRECTORY} : entry.isSymbolicLink() ? ${KIND_SYMLINK} : ${KIND_SKIP};
    stats[at + ${FIELD_INO}] = entry.ino;
    stats[at + ${FIELD_DEV}] = entry.dev;
    stats[at + ${FIELD_SIZE}] = entry.size;
    stats[at + ${FIELD_MTIME_MS}] = entry.mtimeMs;
    stats[at + ${FIELD_CTIME_MS}] = entry.ctimeMs;
  }
  let folderStats;
  try {
    folderStats = lstatSync(directory, NO_THROW);
  } catch {
    folderStats = undefined;
  }
  folder[0] = folderStats ? folderStats.ino : -1;
  folder[1] = folderStats ? folderStats.dev : -1;
}
parentPort.on('message', ({ buffer, directory, names }) => {
  const state = new Int32Array(buffer, 0, 1);
  if (Atomics.compareExchange(state, 0, ${QUEUED}, ${CLAIMED_BY_WORKER}) !== ${QUEUED}) return;
  statInto(directory, names, new Float64Array(buffer, ${STATS_OFFSET}, names.length * ${STAT_FIELDS}), new Float64Array(buffer, ${FOLDER_OFFSET}, 2));
  Atomics.store(state, 0, ${DONE});
  Atomics.notify(state, 0);
});
`;

/** lstat of `names` in `directory` (a real absolute path) on this thread. */
export function statChunk(directory: string, names: readonly string[]): StatChunk {
  const stats = new Float64Array(names.length * STAT_FIELDS);
  const folder = new Float64Array(2);
  statInto(directory, names, stats, folder);
  return { stats, directoryIno: folder[0]!, directoryDev: folder[1]! };
}

/** A chunk posted to the pool: read its result when a worker is done, or take it over. */
export class PooledChunk {
  private readonly state: Int32Array;
  private deadline: number | undefined;

  private constructor(
    /** Shared with the worker the chunk is posted to. */
    readonly buffer: SharedArrayBuffer,
    readonly directory: string,
    readonly names: readonly string[],
  ) {
    this.state = new Int32Array(buffer, 0, 1);
  }

  /** A chunk no worker has started: posted by StatPool.submit, or taken by the walk. */
  static queued(directory: string, names: readonly string[]): PooledChunk {
    return new PooledChunk(new SharedArrayBuffer(STATS_OFFSET + names.length * STAT_FIELDS * Float64Array.BYTES_PER_ELEMENT), directory, names);
  }

  /** The result if a worker has finished the chunk; undefined otherwise. Never blocks. */
  peek(): StatChunk | undefined {
    return Atomics.load(this.state, 0) === DONE ? this.shared() : undefined;
  }

  /** Stats the chunk on this thread if no worker has started it; undefined when one has. */
  claim(): StatChunk | undefined {
    if (Atomics.compareExchange(this.state, 0, QUEUED, CLAIMED_BY_WALK) !== QUEUED) return undefined;
    return statChunk(this.directory, this.names);
  }

  /**
   * Waits up to `ms` for the worker that has started the chunk; the result, or undefined when it
   * is not done yet. Stats the chunk here instead once the worker has held it for STALL_MS.
   */
  wait(ms: number): StatChunk | undefined {
    if (Atomics.load(this.state, 0) === QUEUED) return this.claim();
    this.deadline ??= Date.now() + STALL_MS;
    Atomics.wait(this.state, 0, CLAIMED_BY_WORKER, ms);
    const done = this.peek();
    if (done !== undefined) return done;
    return Date.now() >= this.deadline ? statChunk(this.directory, this.names) : undefined;
  }

  /** Tells the workers the chunk is no longer wanted (unless one has already started it). */
  cancel(): void {
    Atomics.compareExchange(this.state, 0, QUEUED, CLAIMED_BY_WALK);
  }

  private shared(): StatChunk {
    const folder = new Float64Array(this.buffer, FOLDER_OFFSET, 2);
    return {
      stats: new Float64Array(this.buffer, STATS_OFFSET, this.names.length * STAT_FIELDS),
      directoryIno: folder[0]!,
      directoryDev: folder[1]!,
    };
  }
}

/**
 * The worker threads. They start on `warmUp()` (a walk that has proven large) and are never
 * referenced, so they never keep a process alive; they stop after IDLE_MS without a chunk. A
 * worker that fails takes the pool out of use for this process; its chunks are stat'ed by the
 * walks themselves.
 */
export class StatPool {
  private workers: Worker[] = [];
  /** Settles as each worker comes online (or exits first). */
  private starting: Promise<unknown>[] = [];
  private next = 0;
  private failed = false;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly size: number) {}

  /** True when chunks submitted now go to workers. */
  get ready(): boolean {
    return !this.failed && this.workers.length > 0;
  }

  /** Starts the workers if they are not running. Returns at once; they take chunks as soon as they are up. */
  warmUp(): void {
    if (this.failed || this.size < 1 || this.workers.length > 0) return;
    try {
      for (let count = 0; count < this.size; count++) this.workers.push(this.spawn());
    } catch {
      // Threads refused (Node's permission model without --allow-worker, say): walks stat alone.
      this.failed = true;
      this.stop();
      return;
    }
    this.scheduleIdleStop();
  }

  /** Resolves once every worker has started (warming the pool up first); at once when there are none. */
  online(): Promise<void> {
    this.warmUp();
    return Promise.all(this.starting).then(() => undefined);
  }

  /** Posts `names` in `directory` to the next worker. Call only when `ready`. */
  submit(directory: string, names: readonly string[]): PooledChunk {
    const chunk = PooledChunk.queued(directory, names);
    const worker = this.workers[this.next++ % this.workers.length]!;
    worker.postMessage({ buffer: chunk.buffer, directory, names });
    this.scheduleIdleStop();
    return chunk;
  }

  /** Stops every worker; chunks they had not started are left to the walks. */
  stop(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const workers = this.workers;
    this.workers = [];
    this.starting = [];
    for (const worker of workers) void worker.terminate();
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    this.starting.push(new Promise((resolve) => {
      worker.once('online', resolve);
      worker.once('exit', resolve);
    }));
    const fail = (): void => {
      if (!this.workers.includes(worker)) return;
      this.failed = true;
      this.stop();
    };
    worker.once('error', fail);
    worker.once('exit', fail);
    return worker;
  }

  private scheduleIdleStop(): void {
    if (this.idleTimer !== undefined) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.stop();
    }, IDLE_MS);
    this.idleTimer.unref();
  }
}

/** Workers beside the walking thread: one fewer than the cores, at most two (see docs/performance.md). */
const POOL_SIZE = Math.min(2, availableParallelism() - 1);

let shared: StatPool | undefined;

/** The process's pool, created on first use. */
export function sharedStatPool(): StatPool {
  shared ??= new StatPool(POOL_SIZE);
  return shared;
}
