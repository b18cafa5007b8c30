/**
 * The names-only listing (`ListOptions.detail: 'names'`): a folder's direct children with their
 * types and no size, time, etag or mime, so no lstat per entry — the file type comes from the directory
 * entry itself (d_type). What is listed is exactly what the full listing lists:
 * - the folder is opened with openContainedDescriptor and read through that descriptor, so a
 *   folder swapped for a symlink is never listed;
 * - FIFOs, sockets and devices are left out, and so are our own in-flight temp files;
 * - a symlink is listed only when resolveContained proves its target inside the root, typed as its
 *   target (one stat, for symlinks only);
 * - a name the kernel did not hand back as valid UTF-8 (decoded with U+FFFD) is listed only when
 *   an lstat of the decoded name finds it, as the full listing's lstat would;
 * - a file system that does not fill in d_type gets an lstat for that entry.
 * A folder's sorted names are kept while the folder is unchanged — its modification and change
 * times (nanoseconds) are the same on the descriptor just opened — so paging through a folder, or
 * listing it again, reads it once. Like git's racy-index rule, names read from a folder modified
 * within STABLE_AFTER_MS of the read are not kept: the kernel stamps times from a coarse clock, so
 * a change in the same tick as an earlier one could leave the times as they were.
 */
import { closeSync, fstatSync, lstatSync, readdirSync, statSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import type { ConnectorEntry } from '@neuralis/package-system/contracts';
import { openContainedDescriptor, resolveContained } from '@neuralis/package-system/paths';
import { encodeName, encodePath } from './address.js';
import { decodeCursor, encodeCursor, fingerprint } from './listing.js';
import type { Page } from './listing.js';
import { fsFailure } from './system-errors.js';
import { isTempName } from './write-names.js';

export interface NamesPageRequest {
  readonly rootPath: string;
  /** Decoded names of the folder below the root; [] for the root. */
  readonly folder: readonly string[];
  /** `{source}://` */
  readonly source: string;
  readonly cursor?: string;
  readonly limit: number;
}

const NO_THROW = { throwIfNoEntry: false } as const;
/** Folders read longer than this after their last change are kept (2 s: far above any clock tick). */
const STABLE_AFTER_MS = 2000;
const MAX_KEPT_FOLDERS = 64;
const MAX_KEPT_NAMES = 500_000;
/** Cursors carry no session: the kept names are found by the folder itself. */
const SESSION = 'names';

interface KeptFolder {
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly children: readonly Dirent[];
}

export interface NameListingsOptions {
  /** How long after its last change a folder's names may be kept. Default 2 s; tests shorten it. */
  readonly stableAfterMs?: number;
}

export class NameListings {
  /** By device and inode; least recently used first. */
  private readonly kept = new Map<string, KeptFolder>();
  private keptNames = 0;
  private readonly stableAfterNs: bigint;

  constructor(options: NameListingsOptions = {}) {
    this.stableAfterNs = BigInt(options.stableAfterMs ?? STABLE_AFTER_MS) * 1_000_000n;
  }

  /**
   * One page of the folder's children in name order. Throws what openContainedDescriptor throws
   * for the folder (`not_found`, `not_a_directory`, `containment_violation`, …) and
   * `invalid_argument` for a cursor this listing did not return.
   */
  async page(request: NamesPageRequest): Promise<Page<ConnectorEntry>> {
    const listing = fingerprint(`port-names\0${encodePath(request.folder)}`);
    const after = request.cursor === undefined ? undefined : lastName(decodeCursor(request.cursor, listing).position.names);
    const children = await this.children(request.rootPath, request.folder);

    const prefix = request.folder.length === 0 ? request.source : `${request.source}${encodePath(request.folder)}/`;
    const entries: ConnectorEntry[] = [];
    let index = after === undefined ? 0 : upperBound(children, after);
    for (; index < children.length && entries.length < request.limit; index++) {
      const child = children[index]!;
      const type = await typeOf(request.rootPath, request.folder, child);
      if (type !== undefined) entries.push({ uri: prefix + encodeName(child.name), name: child.name, type });
    }
    if (index >= children.length) return { entries };
    const cursor = encodeCursor({ listing, session: SESSION, position: { names: [...request.folder, children[index - 1]!.name], descend: false } });
    return { entries, cursor };
  }

  /**
   * The folder's children without temp files, name-sorted: kept ones when the folder is unchanged.
   * Throws what openContainedDescriptor throws for the folder.
   */
  async children(rootPath: string, folder: readonly string[]): Promise<readonly Dirent[]> {
    const fd = await openContainedDescriptor(rootPath, folder.join('/'), { expect: 'directory' });
    try {
      const readAtNs = BigInt(Date.now()) * 1_000_000n;
      const stats = fstatSync(fd, { bigint: true });
      const key = `${stats.dev}:${stats.ino}`;
      const known = this.kept.get(key);
      if (known !== undefined && known.mtimeNs === stats.mtimeNs && known.ctimeNs === stats.ctimeNs) {
        this.kept.delete(key);
        this.kept.set(key, known);
        return known.children;
      }
      const children = readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true })
        .filter((child) => !isTempName(child.name))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      this.forget(key);
      const settled = readAtNs - stats.mtimeNs > this.stableAfterNs && readAtNs - stats.ctimeNs > this.stableAfterNs;
      if (settled && children.length <= MAX_KEPT_NAMES) this.keep(key, { mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs, children });
      return children;
    } catch (error) {
      throw fsFailure(error);
    } finally {
      closeSync(fd);
    }
  }

  private keep(key: string, folder: KeptFolder): void {
    this.kept.set(key, folder);
    this.keptNames += folder.children.length;
    for (const [oldKey] of this.kept) {
      if (oldKey === key || (this.kept.size <= MAX_KEPT_FOLDERS && this.keptNames <= MAX_KEPT_NAMES)) break;
      this.forget(oldKey);
    }
  }

  private forget(key: string): void {
    const folder = this.kept.get(key);
    if (folder === undefined) return;
    this.kept.delete(key);
    this.keptNames -= folder.children.length;
  }
}

function lastName(names: readonly string[]): string | undefined {
  return names[names.length - 1];
}

/** The entry's type as the full listing would report it, or undefined when it leaves it out. */
export async function typeOf(rootPath: string, folder: readonly string[], child: Dirent): Promise<'file' | 'directory' | undefined> {
  return (await linkedTypeOf(rootPath, folder, child))?.type;
}

/** typeOf, and whether the entry is a symlink (which a walk never descends into). */
export async function linkedTypeOf(rootPath: string, folder: readonly string[], child: Dirent): Promise<{ readonly type: 'file' | 'directory'; readonly link: boolean } | undefined> {
  if (child.isFile() && !child.name.includes('\uFFFD')) return FILE;
  const relative = [...folder, child.name].join('/');
  let link = child.isSymbolicLink();
  let type: 'file' | 'directory' | undefined;
  if (child.name.includes('\uFFFD') || !hasKnownType(child)) {
    // An lstat by the decoded name: fails for a name that was not valid UTF-8, and types a d_type-less entry.
    const stats = lstatSync(`${rootPath}/${relative}`, NO_THROW);
    if (stats === undefined) return undefined;
    link = stats.isSymbolicLink();
    type = link ? await linkTarget(rootPath, relative) : plainType(stats);
  } else {
    type = link ? await linkTarget(rootPath, relative) : plainType(child);
  }
  return type === undefined ? undefined : { type, link };
}

const FILE = { type: 'file', link: false } as const;

function hasKnownType(child: Dirent): boolean {
  return child.isFile() || child.isDirectory() || child.isSymbolicLink() || child.isFIFO() || child.isSocket() || child.isBlockDevice() || child.isCharacterDevice();
}

function plainType(entry: Dirent | Stats): 'file' | 'directory' | undefined {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  return undefined;
}

async function linkTarget(rootPath: string, relative: string): Promise<'file' | 'directory' | undefined> {
  let target: string;
  try {
    target = await resolveContained(rootPath, relative);
  } catch {
    return undefined;
  }
  const stats = statSync(target, NO_THROW);
  return stats === undefined ? undefined : plainType(stats);
}

/** The index of the first child named after `name` in name-sorted `children`. */
function upperBound(children: readonly Dirent[], name: string): number {
  let low = 0;
  let high = children.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (children[middle]!.name <= name) low = middle + 1;
    else high = middle;
  }
  return low;
}
