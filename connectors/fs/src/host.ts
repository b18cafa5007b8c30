/**
 * The skill document's host `Connector` over a folder source, for the conformance trial and the
 * crawler. Objects are files; a path is the file's canonical percent-encoded path below the root
 * (`docs/a%20b.md`). Folders are implied by paths, as in an object store: they are never listed,
 * stat() of one is null, and delete() refuses one.
 *
 * Listing: recursive, depth first, name-sorted, 1,000 entries a page, the cursor naming the last
 * path returned (see listing.ts), so memory stays flat however large the folder. `prefix` is a
 * string prefix of the path (`docs/` or `docs/rep`) and only the folders it can match are read.
 * `since` keeps files modified at or after that instant (inclusive, so a file written during the
 * previous crawl's millisecond is not missed); it still walks the tree, offering at most 16,000
 * files per page, so a selective `since` may return short or empty pages with a cursor.
 * `order: "newest"` is honoured over the whole listing by an external sort (newest.ts).
 */
import { InvalidArgumentError, InvalidUriError, IsADirectoryError, hasErrorCode } from '@neuralis/package-system/contracts';
import type { ErrorCode } from '@neuralis/package-system/contracts';
import { openContainedHandle } from '@neuralis/package-system/paths';
import type { ChangeEvent, Connector, Description, Entry, HostListOptions, HostListPage, HostReadOptions } from '@inseam/connector';
import { addressOfHostPath } from './address.js';
import type { Address } from './address.js';
import { fileByteStream } from './byte-stream.js';
import { hostEntry } from './entry.js';
import type { FolderSource } from './folder.js';
import { isHardLinked, refuseHardLink } from './links.js';
import { removeEntry } from './remove.js';
import { explainRootFailure, withRoot } from './root.js';
import { parseTime } from './time.js';
import { watchTree } from './watch.js';
import { treeNamesPage } from './tree-names.js';
import type { TreeNamesPage } from './tree-names.js';
import { writeFileAtomic } from './write.js';

export const HOST_PAGE_SIZE = 1000;
/** Paths a names-only page returns (they cost no stat, so pages are larger). */
export const HOST_NAMES_PAGE_SIZE = 5000;
/** Files a filtered (`since`) page looks at before it returns, so one call never stalls the loop. */
export const HOST_SCAN_BUDGET = 16 * HOST_PAGE_SIZE;

/** Folders a crawl leaves out unless a scope says otherwise. */
export const DEFAULT_EXCLUDES = ['.git/**', '**/.git/**', 'node_modules/**', '**/node_modules/**', '**/.DS_Store'] as const;

export function describeFolder(kind: string): Description {
  return {
    kind,
    capabilities: ['list', 'stat', 'read', 'watch', 'write', 'delete'],
    auth: { acquire: { type: 'none' }, present: [], origins: [] },
    dimensions: {
      path: { type: 'path', from: 'path', description: 'The file path below the folder root, percent-encoded per segment.' },
      size: { type: 'bytes', from: 'size', description: 'File size in bytes.' },
      mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'Last modification time of the file.' },
      mime: { type: 'string', from: 'mime', description: 'MIME type, from the file name.' },
    },
    listing: 'free',
    defaultScope: {
      rules: [{ exclude: { any: DEFAULT_EXCLUDES.map((value) => ({ dim: 'path', op: 'glob' as const, value })) } }],
    },
    writes: { mimes: '*', create: true, replace: true, delete: true },
  };
}

/** A host prefix split into the folder it is certainly under and the partial name after it. */
function splitPrefix(prefix: string | undefined): { directory: Address; partial: string } {
  if (prefix === undefined || prefix === '') return { directory: { names: [], relative: '' }, partial: '' };
  if (typeof prefix !== 'string') throw new InvalidArgumentError('prefix must be a string.', { details: { argument: 'prefix' } });
  const slash = prefix.lastIndexOf('/');
  const folder = slash < 0 ? '' : prefix.slice(0, slash);
  // parseSourceUri forgives a trailing slash; a prefix with "//" would match no canonical path.
  if (folder.endsWith('/')) throw new InvalidUriError('The prefix contains "//"; canonical paths never do.');
  return { directory: addressOfHostPath(folder), partial: prefix.slice(slash + 1) };
}

export class FolderHost implements Connector {
  constructor(private readonly folder: FolderSource) {}

  describe(): Description {
    return describeFolder(this.folder.kind);
  }

  async list(options: HostListOptions = {}): Promise<HostListPage> {
    const { directory, partial } = splitPrefix(options.prefix);
    let sinceMs: number | undefined;
    if (options.since !== undefined) {
      sinceMs = typeof options.since === 'string' ? parseTime(options.since) : undefined;
      if (sinceMs === undefined) {
        throw new InvalidArgumentError('since must be an RFC 3339 timestamp, e.g. 2024-05-01T12:00:00Z.', { details: { argument: 'since' } });
      }
    }
    if (options.order !== undefined && options.order !== 'newest') {
      throw new InvalidArgumentError('order must be "newest" or left out.', { details: { argument: 'order' } });
    }
    const listing = `host\0${options.prefix ?? ''}\0${options.since ?? ''}`;
    const cursor = options.cursor === undefined ? {} : { cursor: options.cursor };
    return withRoot(this.folder.root, async (rootPath) => {
      const walker = {
        rootPath,
        start: directory.names,
        includeDirectories: false,
        allowHardLinks: this.folder.settings.allowHardLinks,
        ...(partial === '' ? {} : { firstLevel: (name: string) => name.startsWith(partial) }),
      };
      try {
        if (options.order === 'newest') {
          return await this.folder.newest.page({ listing, ...cursor, limit: HOST_PAGE_SIZE, walker, ...(sinceMs === undefined ? {} : { sinceMs }) });
        }
        const since = sinceMs;
        return await this.folder.listings.page<Entry>(
          { listing, ...cursor, limit: HOST_PAGE_SIZE, walker, ...(since === undefined ? {} : { budget: HOST_SCAN_BUDGET }) },
          (path, name, _type, stats) => (since === undefined || stats.mtimeMs >= since ? hostEntry(path, name, stats) : undefined),
        );
      } catch (error) {
        // A prefix naming a folder that does not exist (or leads out of the root) matches nothing,
        // unless the root itself is gone.
        if (directory.names.length > 0 && hasOneOf(error, PREFIX_MATCHES_NOTHING)) {
          const explained = await explainRootFailure(this.folder.root, error);
          if (explained === error) return { entries: [] };
        }
        throw error;
      }
    });
  }

  /**
   * Beyond the skill document's interface, for the crawler's sync diff (tree-names.ts): the path
   * of every file list() returns, in ascending code-unit order, without a stat per file. Throws
   * `invalid_argument` for a cursor it did not return, and what the root's failure is.
   */
  async names(options: { readonly cursor?: string } = {}): Promise<TreeNamesPage> {
    return withRoot(this.folder.root, (rootPath) =>
      treeNamesPage(this.folder.names, { rootPath, limit: HOST_NAMES_PAGE_SIZE, ...(options.cursor === undefined ? {} : { cursor: options.cursor }) }),
    );
  }

  /** The file's entry; null when nothing, a folder, a special file or a hard-linked file the source does not serve is there. */
  async stat(path: string): Promise<Entry | null> {
    const address = addressOfHostPath(path);
    return withRoot(this.folder.root, async (rootPath) => {
      let handle;
      try {
        handle = await openContainedHandle(rootPath, address.relative, { expect: 'file' });
      } catch (error) {
        if (hasOneOf(error, NO_FILE_THERE) && (await explainRootFailure(this.folder.root, error)) === error) return null;
        throw error;
      }
      try {
        const stats = await handle.stat();
        if (isHardLinked(stats) && !this.folder.settings.allowHardLinks) return null;
        return hostEntry(path, address.names[address.names.length - 1]!, stats);
      } finally {
        await handle.close();
      }
    });
  }

  /** `range` is [start, end), end exclusive, clipped to the file. */
  async read(path: string, options: HostReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const address = addressOfHostPath(path);
    const range = options.range;
    if (range !== undefined) {
      const [start, end] = Array.isArray(range) ? range : [Number.NaN, Number.NaN];
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
        throw new InvalidArgumentError('range must be [start, end) with whole numbers 0 <= start <= end.', { details: { argument: 'range' } });
      }
    }
    return withRoot(this.folder.root, async (rootPath) => {
      const handle = await openContainedHandle(rootPath, address.relative, { expect: 'file' });
      try {
        const stats = await handle.stat();
        refuseHardLink(stats, this.folder.settings.allowHardLinks);
        const size = stats.size;
        const start = Math.min(range?.[0] ?? 0, size);
        const end = Math.min(range?.[1] ?? size, size);
        return fileByteStream(handle, start, Math.max(start, end));
      } catch (error) {
        await handle.close();
        throw error;
      }
    });
  }

  async watch(emit: (event: ChangeEvent) => void): Promise<() => void> {
    return withRoot(this.folder.root, (rootPath) => watchTree({ rootPath, maxDirectories: this.folder.settings.watchMaxDirectories, emit }));
  }

  async write(path: string, body: ReadableStream<Uint8Array>, options: { readonly ifMatch?: string } = {}): Promise<Entry> {
    const address = addressOfHostPath(path);
    const stats = await withRoot(this.folder.root, (rootPath) =>
      writeFileAtomic(rootPath, address, chunksOf(body), {
        allowHardLinks: this.folder.settings.allowHardLinks,
        ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }),
      }),
    );
    return hostEntry(path, address.names[address.names.length - 1]!, stats);
  }

  /** Deletes a file; a folder is refused with `is_a_directory` (folders are implied by paths). */
  async delete(path: string): Promise<void> {
    const address = addressOfHostPath(path);
    await withRoot(this.folder.root, async (rootPath) => {
      const handle = await openContainedHandle(rootPath, address.relative, { expect: 'any' }).catch((error: unknown) => {
        if (hasErrorCode(error, 'containment_violation')) return undefined;
        throw error;
      });
      if (handle !== undefined) {
        const isDirectory = (await handle.stat().finally(() => handle.close())).isDirectory();
        if (isDirectory) throw new IsADirectoryError('That path is a folder; the host deletes files only.');
      }
      await removeEntry(rootPath, address);
    });
  }
}

/** Errors meaning a host-list prefix names no folder inside the root: the listing is empty. */
const PREFIX_MATCHES_NOTHING: readonly ErrorCode[] = ['not_found', 'not_a_directory', 'containment_violation'];
/** Errors meaning no file is at a path: stat answers null. */
const NO_FILE_THERE: readonly ErrorCode[] = ['not_found', 'not_a_directory', 'is_a_directory', 'unsupported_file_type'];

function hasOneOf(error: unknown, codes: readonly ErrorCode[]): boolean {
  return codes.some((code) => hasErrorCode(error, code));
}

async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (!(value instanceof Uint8Array)) {
        throw new InvalidArgumentError('The write body must be a stream of Uint8Array chunks.', { details: { argument: 'body' } });
      }
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
