/**
 * The host's names-only listing (`FolderHost.names`): the path of every file the host listing
 * would return, and nothing else — no size, time or etag, so no stat per file. The crawler diffs
 * it against the catalog on every incremental sync to find deletions and new names (a rename
 * keeps its mtime, so a `since` listing never shows it).
 *
 * Each folder is read as names.ts reads one (its descriptor opened with openContainedDescriptor,
 * d_type for the type, a stat for symlinks only, unchanged folders served from what was kept).
 * Symlinked folders are not descended into, as the tree walker never does; a folder that cannot
 * be read (gone meanwhile, unreadable) is left out, the root failing is an error.
 *
 * Order: ascending by the encoded path, compared by UTF-16 code unit — the order the catalog keeps
 * paths in (SQLite BINARY, PostgreSQL `COLLATE "C"`; encoded paths are ASCII), so the crawler
 * merges both in one pass. Within a folder the children sort by encoded name, a folder as if its
 * name ended in "/", which is exactly where its paths fall among its siblings'.
 *
 * The cursor is the last path returned (bound to this listing): any instance resumes it after a
 * restart by seeking down that path, one folder read per level.
 *
 * Left out, like the walker: our temp files, FIFOs, sockets, devices. Not left out: hard-linked
 * files (telling them needs the stat this listing avoids); stat() of one answers null, so the
 * crawler stores nothing for it.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { addressOfHostPath, childPath, encodeName } from './address.js';
import { fingerprint } from './listing.js';
import { linkedTypeOf } from './names.js';
import type { NameListings } from './names.js';

export interface TreeNamesRequest {
  readonly rootPath: string;
  readonly cursor?: string;
  readonly limit: number;
}

export interface TreeNamesPage {
  readonly paths: string[];
  readonly cursor?: string;
}

interface Item {
  /** The encoded name, with "/" after a folder's. */
  readonly key: string;
  readonly name: string;
  readonly folder: boolean;
}

interface Frame {
  readonly names: readonly string[];
  readonly path: string;
  readonly items: readonly Item[];
  index: number;
}

const CURSOR_VERSION = 1;
const LISTING = fingerprint('host-names');

export async function treeNamesPage(listings: NameListings, request: TreeNamesRequest): Promise<TreeNamesPage> {
  const root = await frameOf(listings, request.rootPath, [], '');
  if (root === undefined) return { paths: [] };
  const stack: Frame[] = [root];
  if (request.cursor !== undefined) await seek(listings, request.rootPath, stack, decodeNamesCursor(request.cursor));
  const paths: string[] = [];
  while (stack.length > 0 && paths.length < request.limit) {
    const top = stack[stack.length - 1]!;
    if (top.index >= top.items.length) {
      stack.pop();
      continue;
    }
    const item = top.items[top.index++]!;
    if (!item.folder) {
      paths.push(childPath(top.path, item.key));
      continue;
    }
    const child = await frameOf(listings, request.rootPath, [...top.names, item.name], childPath(top.path, item.key.slice(0, -1)));
    if (child !== undefined) stack.push(child);
  }
  while (stack.length > 0 && stack[stack.length - 1]!.index >= stack[stack.length - 1]!.items.length) stack.pop();
  if (stack.length === 0 || paths.length === 0) return { paths };
  return { paths, cursor: encodeNamesCursor(paths[paths.length - 1]!) };
}

/** Positions the stack so the walk goes on with the first path after `after`. */
async function seek(listings: NameListings, rootPath: string, stack: Frame[], after: string): Promise<void> {
  const segments = after.split('/');
  for (let level = 0; level < segments.length; level++) {
    const frame = stack[stack.length - 1]!;
    const last = level === segments.length - 1;
    const key = last ? segments[level]! : `${segments[level]!}/`;
    frame.index = upperBound(frame.items, key);
    if (last) return;
    const item = frame.items[frame.index - 1];
    if (item === undefined || item.key !== key) return;
    const child = await frameOf(listings, rootPath, [...frame.names, item.name], childPath(frame.path, segments[level]!));
    if (child === undefined) return;
    stack.push(child);
  }
}

async function frameOf(listings: NameListings, rootPath: string, names: readonly string[], path: string): Promise<Frame | undefined> {
  let children;
  try {
    children = await listings.children(rootPath, names);
  } catch (error) {
    if (names.length === 0) throw error;
    return undefined;
  }
  const items: Item[] = [];
  for (const child of children) {
    const typed = await linkedTypeOf(rootPath, names, child);
    if (typed === undefined || (typed.type === 'directory' && typed.link)) continue;
    const encoded = encodeName(child.name);
    items.push(typed.type === 'directory' ? { key: `${encoded}/`, name: child.name, folder: true } : { key: encoded, name: child.name, folder: false });
  }
  items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { names, path, items, index: 0 };
}

function upperBound(items: readonly Item[], key: string): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (items[middle]!.key <= key) low = middle + 1;
    else high = middle;
  }
  return low;
}

function encodeNamesCursor(path: string): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, l: LISTING, p: path })).toString('base64url');
}

/** The path a cursor resumes after; `invalid_argument` for anything this listing did not return. */
function decodeNamesCursor(cursor: string): string {
  const invalid = (): never => {
    throw new InvalidArgumentError('The cursor is not one this listing returned; start the listing again without a cursor.', { details: { argument: 'cursor' } });
  };
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 65_536) return invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return invalid();
  }
  const { v, l, p } = (payload ?? {}) as Record<string, unknown>;
  if (v !== CURSOR_VERSION || l !== LISTING || typeof p !== 'string' || p === '') return invalid();
  try {
    addressOfHostPath(p);
  } catch {
    return invalid();
  }
  return p;
}
