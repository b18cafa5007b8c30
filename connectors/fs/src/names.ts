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
 * A folder's sorted names are kept between pages (ListingSessions' cache rules), so a large folder
 * is read once, not once a page.
 */
import { closeSync, lstatSync, readdirSync, statSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import type { ConnectorEntry } from '@neuralis/package-system/contracts';
import { openContainedDescriptor, resolveContained } from '@neuralis/package-system/paths';
import { encodeName, encodePath } from './address.js';
import { SessionCache, decodeCursor, encodeCursor, fingerprint, newSessionId } from './listing.js';
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

export class NameListings {
  private readonly folders = new SessionCache<readonly Dirent[]>();

  /**
   * One page of the folder's children in name order. Throws what openContainedDescriptor throws
   * for the folder (`not_found`, `not_a_directory`, `containment_violation`, …) and
   * `invalid_argument` for a cursor this listing did not return.
   */
  async page(request: NamesPageRequest): Promise<Page<ConnectorEntry>> {
    const listing = fingerprint(`port-names\0${encodePath(request.folder)}`);
    let children: readonly Dirent[] | undefined;
    let sessionId: string;
    let after: string | undefined;
    if (request.cursor === undefined) {
      sessionId = newSessionId();
    } else {
      const state = decodeCursor(request.cursor, listing);
      sessionId = state.session;
      after = state.position.names[state.position.names.length - 1];
      children = this.folders.take(sessionId, request.cursor);
    }
    children ??= await readChildren(request.rootPath, request.folder);

    const prefix = request.folder.length === 0 ? request.source : `${request.source}${encodePath(request.folder)}/`;
    const entries: ConnectorEntry[] = [];
    let index = after === undefined ? 0 : upperBound(children, after);
    for (; index < children.length && entries.length < request.limit; index++) {
      const child = children[index]!;
      const type = await typeOf(request, child);
      if (type === undefined) continue;
      entries.push({ uri: prefix + encodeName(child.name), name: child.name, type });
    }
    if (index >= children.length) return { entries };
    const cursor = encodeCursor({ listing, session: sessionId, position: { names: [...request.folder, children[index - 1]!.name], descend: false } });
    this.folders.keep(sessionId, cursor, children, children.length);
    return { entries, cursor };
  }
}

async function readChildren(rootPath: string, folder: readonly string[]): Promise<readonly Dirent[]> {
  const fd = await openContainedDescriptor(rootPath, folder.join('/'), { expect: 'directory' });
  try {
    const children = readdirSync(`/proc/self/fd/${fd}`, { withFileTypes: true }).filter((child) => !isTempName(child.name));
    return children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    throw fsFailure(error);
  } finally {
    closeSync(fd);
  }
}

/** The entry's type as the full listing would report it, or undefined when it leaves it out. */
async function typeOf(request: NamesPageRequest, child: Dirent): Promise<'file' | 'directory' | undefined> {
  if (child.isFile() && !child.name.includes('\uFFFD')) return 'file';
  const relative = [...request.folder, child.name].join('/');
  if (child.name.includes('\uFFFD') || !hasKnownType(child)) {
    // An lstat by the decoded name: fails for a name that was not valid UTF-8, and types a d_type-less entry.
    const stats = lstatSync(`${request.rootPath}/${relative}`, NO_THROW);
    if (stats === undefined) return undefined;
    return stats.isSymbolicLink() ? linkTarget(request.rootPath, relative) : plainType(stats);
  }
  if (child.isSymbolicLink()) return linkTarget(request.rootPath, relative);
  return plainType(child);
}

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
