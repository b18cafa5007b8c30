/**
 * Change events for the host watch(). Node 20's `fs.watch(…, { recursive: true })` on Linux is a
 * JavaScript emulation that also polls every file with fs.watchFile, which does not scale, so
 * this keeps its own set of plain per-directory watchers (one inotify watch each).
 *
 * Events are coalesced for a short window, then each touched path is looked at once through the
 * containment primitives:
 * - a file that exists → `put` with its entry; a file that is gone → `delete`;
 * - a new directory → watched, and `rescan` for its path (it may already hold files);
 * - a watched directory that is gone → `rescan` for its path, or `move` when a directory with the
 *   same inode appeared elsewhere in the same window.
 * `rescan` with path '' (everything) is emitted when the watch set is full (`watchMaxDirectories`
 * or the kernel's inotify limit), when a watcher fails, and when more changes arrive in one window
 * than are worth reporting one by one — the overflow signal. Directories named `.git` and
 * `node_modules` are not watched (the default scope excludes them; a crawl still covers them), and
 * symlinked directories are never watched.
 */
import { watch as watchDirectory } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import type { ChangeEvent, Entry } from '@inseam/connector';
import { listContained, openContainedHandle, resolveContained } from '@neuralis/package-system/paths';
import { encodePath } from './address.js';
import { hostEntry } from './entry.js';
import { isTempName } from './write-names.js';

export const UNWATCHED_DIRECTORY_NAMES: ReadonlySet<string> = new Set(['.git', 'node_modules']);
/** Changes are gathered this long before they are looked at. */
const COALESCE_MS = 50;
/** More distinct paths than this in one window collapse into one `rescan` of everything. */
const MAX_PENDING_PATHS = 4096;

export interface WatchOptions {
  readonly rootPath: string;
  readonly maxDirectories: number;
  readonly emit: (event: ChangeEvent) => void;
}

interface Watched {
  readonly watcher: FSWatcher;
  readonly ino: number;
}

/** Starts watching; resolves once the initial watch set is in place. Returns the stop function. */
export async function watchTree(options: WatchOptions): Promise<() => void> {
  const tree = new WatchedTree(options, await resolveContained(options.rootPath, ''));
  await tree.add([]);
  return () => tree.close();
}

class WatchedTree {
  /** Keyed by the decoded relative path ('' for the root). */
  private readonly watched = new Map<string, Watched>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private overflowed = false;
  private full = false;
  private closed = false;

  constructor(
    private readonly options: WatchOptions,
    private readonly rootReal: string,
  ) {}

  /** Watches the directory at `names` and every directory below it. */
  async add(names: readonly string[]): Promise<void> {
    const relative = names.join('/');
    if (this.closed || this.watched.has(relative)) return;
    if (this.watched.size >= this.options.maxDirectories) {
      this.markFull();
      return;
    }
    let handle;
    try {
      handle = await openContainedHandle(this.options.rootPath, relative, { expect: 'directory' });
    } catch {
      return;
    }
    const children: string[] = [];
    try {
      const [stats] = await Promise.all([
        handle.stat(),
        (async () => {
          for await (const entry of listContained(`/proc/self/fd/${handle.fd}`)) {
            if (entry.type === 'directory' && !UNWATCHED_DIRECTORY_NAMES.has(entry.name)) children.push(entry.name);
          }
        })(),
      ]);
      const absolute = relative === '' ? this.rootReal : `${this.rootReal === '/' ? '' : this.rootReal}/${relative}`;
      let watcher: FSWatcher;
      try {
        watcher = watchDirectory(absolute, { persistent: false }, (_type, name) => this.changed(relative, name));
      } catch {
        // ENOSPC: the kernel's inotify watch limit.
        this.markFull();
        return;
      }
      watcher.on('error', () => {
        this.forget(relative);
        this.emit({ type: 'rescan', path: encodePath(names) });
      });
      this.watched.set(relative, { watcher, ino: stats.ino });
    } catch {
      return;
    } finally {
      await handle.close();
    }
    for (const child of children) await this.add([...names, child]);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const { watcher } of this.watched.values()) watcher.close();
    this.watched.clear();
    this.pending.clear();
  }

  private changed(directory: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) {
      this.pending.add(directory);
    } else {
      const text = name.toString();
      if (isTempName(text)) return;
      this.pending.add(directory === '' ? text : `${directory}/${text}`);
    }
    if (this.pending.size > MAX_PENDING_PATHS) this.overflowed = true;
    this.timer ??= setTimeout(() => void this.flush(), COALESCE_MS);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const paths = [...this.pending];
    this.pending.clear();
    if (this.overflowed) {
      this.overflowed = false;
      this.emit({ type: 'rescan', path: '' });
      return;
    }
    const gone: { relative: string; ino: number }[] = [];
    const appeared: { relative: string; ino: number }[] = [];
    for (const relative of paths) {
      const names = relative === '' ? [] : relative.split('/');
      const state = await this.lookAt(relative);
      if (state.kind === 'file') {
        this.emit({ type: 'put', path: encodePath(names), entry: state.entry });
      } else if (state.kind === 'directory') {
        if (!this.watched.has(relative)) appeared.push({ relative, ino: state.ino });
      } else {
        const watched = this.watched.get(relative);
        if (watched !== undefined) gone.push({ relative, ino: watched.ino });
        else if (state.kind === 'missing') this.emit({ type: 'delete', path: encodePath(names) });
      }
    }
    for (const old of gone) this.forget(old.relative);
    for (const directory of appeared) {
      const names = directory.relative.split('/');
      if (UNWATCHED_DIRECTORY_NAMES.has(names[names.length - 1]!)) continue;
      await this.add(names);
      const from = gone.findIndex((old) => old.ino === directory.ino);
      if (from >= 0) {
        const [old] = gone.splice(from, 1);
        this.emit({ type: 'move', path: encodePath(names), from: encodePath(old!.relative.split('/')) });
      } else {
        this.emit({ type: 'rescan', path: encodePath(names) });
      }
    }
    for (const old of gone) this.emit({ type: 'rescan', path: encodePath(old.relative.split('/')) });
  }

  private async lookAt(relative: string): Promise<{ kind: 'file'; entry: Entry } | { kind: 'directory'; ino: number } | { kind: 'missing' | 'other' }> {
    let handle;
    try {
      handle = await openContainedHandle(this.options.rootPath, relative, { expect: 'any' });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { kind: code === 'not_found' || code === 'not_a_directory' ? 'missing' : 'other' };
    }
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) return { kind: 'directory', ino: stats.ino };
      const names = relative.split('/');
      return { kind: 'file', entry: hostEntry(encodePath(names), names[names.length - 1]!, stats) };
    } finally {
      await handle.close();
    }
  }

  /** Stops watching `relative` and everything below it. */
  private forget(relative: string): void {
    const prefix = `${relative}/`;
    for (const [path, { watcher }] of this.watched) {
      if (path === relative || relative === '' || path.startsWith(prefix)) {
        watcher.close();
        this.watched.delete(path);
      }
    }
  }

  private markFull(): void {
    if (this.full) return;
    this.full = true;
    this.emit({ type: 'rescan', path: '' });
  }

  private emit(event: ChangeEvent): void {
    if (!this.closed) this.options.emit(event);
  }
}
