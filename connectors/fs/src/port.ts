/**
 * ConnectorPort v4 for folder sources (kinds `fs` and `local`). Each method parses its URI with
 * parseSourceUri (plus address.ts's no-`/`-in-a-name rule), reaches the disk only through the
 * containment primitives, and reports a missing or unreadable root as `unavailable` with the probe
 * reason in `details.reason`. See README.md for limits and edge cases.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type {
  ConnectorCapability,
  ConnectorEntry,
  ConnectorListPage,
  ConnectorPort,
  ConnectorPortVersion,
  ConnectorReadResult,
  ContentChunk,
  DeleteOptions,
  DetachedExecFacet,
  ExecContext,
  ExecRequest,
  ExecResult,
  ListDetail,
  ListOptions,
  ProbeResult,
  ReadOptions,
  ScanContentOptions,
  WalkOptions,
  WriteOptions,
} from '@neuralis/package-system/contracts';
import { containedRealPath, openContainedHandle } from '@neuralis/package-system/paths';
import type { Connector } from '@inseam/connector';
import { addressOfUri, encodePath } from './address.js';
import { DetachedRuns } from './detached.js';
import { portEntry } from './entry.js';
import { runCommand } from './exec.js';
import type { FolderSource } from './folder.js';
import { FolderHost } from './host.js';
import { refuseHardLink } from './links.js';
import { FOLDER_CAPABILITIES } from './manifest.js';
import { checkRange, readObject } from './read.js';
import { withRoot } from './root.js';
import { scanFiles } from './scan.js';
import { TreeWalker } from './walker.js';
import { removeEntry } from './remove.js';
import { writeFileAtomic } from './write.js';

export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 10_000;
const WALK_CHUNK = 512;

/** Throws `invalid_argument` unless `detail` is `full` or `names` (absent: `full`). Shared with the vector kind. */
export function listDetail(detail: unknown): ListDetail {
  if (detail === undefined || detail === 'full' || detail === 'names') return detail ?? 'full';
  throw new InvalidArgumentError("detail must be 'full' or 'names'.", { details: { argument: 'detail' } });
}

/** Throws `invalid_argument` unless `limit` is a whole number from 1 to MAX_PAGE_SIZE (absent: DEFAULT_PAGE_SIZE). Shared with the vector kind. */
export function pageSize(limit: unknown): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new InvalidArgumentError(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`, { details: { argument: 'limit' } });
  }
  return limit;
}

export class FolderConnector implements ConnectorPort {
  readonly kind: string;
  readonly source: string;
  // Pinned as a literal: importing the platform's constant would relabel this code on upgrade.
  readonly portVersion = 4 satisfies ConnectorPortVersion;
  readonly detached: DetachedExecFacet;

  private readonly runs: DetachedRuns;

  constructor(private readonly folder: FolderSource) {
    this.kind = folder.kind;
    this.source = folder.source;
    this.runs = new DetachedRuns(folder.stateDir);
    const runs = this.runs;
    this.detached = {
      start: (request, context) => {
        const cwd = addressOfUri(request.cwd, this.source);
        return withRoot(folder.root, (rootPath) => runs.start(rootPath, cwd, request, context, folder.settings.exec));
      },
      status: (runId, waitMs) => runs.status(runId, waitMs),
      output: (runId, since) => runs.output(runId, since),
      kill: (runId, actor) => runs.kill(runId, actor),
      release: (runId) => runs.release(runId),
    };
  }

  capabilities(): ReadonlySet<ConnectorCapability> {
    return new Set(FOLDER_CAPABILITIES);
  }

  /**
   * Direct children, name-sorted, `limit` (default 1000, at most 10,000) per page. With `detail:
   * 'names'` no entry is stat'ed (names.ts): entries carry name, type and mime only.
   */
  async list(uri: string, options: ListOptions = {}): Promise<ConnectorListPage> {
    const address = addressOfUri(uri, this.source);
    const limit = pageSize(options.limit);
    const detail = listDetail(options.detail);
    const source = this.source;
    if (detail === 'names') {
      const cursor = options.cursor;
      return withRoot(this.folder.root, (rootPath) =>
        this.folder.names.page({ rootPath, folder: address.names, source: `${source}://`, limit, ...(cursor === undefined ? {} : { cursor }) }),
      );
    }
    return withRoot(this.folder.root, (rootPath) =>
      this.folder.listings.page(
        {
          listing: `port-list\0${address.relative}`,
          ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
          limit,
          walker: { rootPath, start: address.names, maxDepth: 1, includeDirectories: true, allowHardLinks: this.folder.settings.allowHardLinks },
        },
        (path, name, type, stats) => portEntry(source, path, name, type, stats),
      ),
    );
  }

  async read(uri: string, options: ReadOptions = {}): Promise<ConnectorReadResult> {
    const address = addressOfUri(uri, this.source);
    const range = checkRange(options.range);
    return withRoot(this.folder.root, (rootPath) => readObject(rootPath, address, range, this.folder.settings));
  }

  /** The MIME type follows the name; `options.mime` is not stored (a folder keeps no metadata). */
  async write(uri: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<ConnectorEntry> {
    const address = addressOfUri(uri, this.source);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    if (!(bytes instanceof Uint8Array)) {
      throw new InvalidArgumentError('content must be a string or a Uint8Array.', { details: { argument: 'content' } });
    }
    const stats = await withRoot(this.folder.root, (rootPath) => writeFileAtomic(rootPath, address, bytes, { ...options, allowHardLinks: this.folder.settings.allowHardLinks }));
    return portEntry(this.source, encodePath(address.names), address.names[address.names.length - 1]!, 'file', stats);
  }

  /** Streams every entry below `uri`, depth first, name-sorted; directories before their contents. */
  async *walk(uri: string, options: WalkOptions = {}): AsyncGenerator<ConnectorEntry> {
    const address = addressOfUri(uri, this.source);
    if (options.maxDepth !== undefined && (!Number.isInteger(options.maxDepth) || options.maxDepth < 1)) {
      throw new InvalidArgumentError('maxDepth must be a whole number of at least 1.', { details: { argument: 'maxDepth' } });
    }
    const walker = await withRoot(this.folder.root, (rootPath) =>
      TreeWalker.open({
        rootPath,
        start: address.names,
        includeDirectories: true,
        allowHardLinks: this.folder.settings.allowHardLinks,
        ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
      }),
    );
    const chunk: ConnectorEntry[] = [];
    while (!walker.done) {
      options.signal?.throwIfAborted();
      await walker.fill(WALK_CHUNK, (path, name, type, stats) => {
        chunk.push(portEntry(this.source, path, name, type, stats));
        return true;
      });
      yield* chunk;
      chunk.length = 0;
    }
  }

  /** Text of every file below `uri`; binary, oversized and unreadable files come back `skipped`. */
  async *scanContent(uri: string, options: ScanContentOptions = {}): AsyncGenerator<ContentChunk> {
    const rootPath = await withRoot(this.folder.root, async (path) => path);
    const maxBytes = options.maxBytesPerObject ?? this.folder.settings.textCapBytes;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new InvalidArgumentError('maxBytesPerObject must be a non-negative integer.', { details: { argument: 'maxBytesPerObject' } });
    }
    const walkOptions = options.signal === undefined ? {} : { signal: options.signal };
    yield* scanFiles(rootPath, this.source, this.walk(uri, walkOptions), maxBytes, this.folder.settings.allowHardLinks);
  }

  async stat(uri: string): Promise<ConnectorEntry> {
    const address = addressOfUri(uri, this.source);
    return withRoot(this.folder.root, async (rootPath) => {
      const handle = await openContainedHandle(rootPath, address.relative, { expect: 'any' });
      try {
        const stats = await handle.stat();
        refuseHardLink(stats, this.folder.settings.allowHardLinks);
        const name = address.names[address.names.length - 1] ?? '';
        return portEntry(this.source, encodePath(address.names), name, stats.isDirectory() ? 'directory' : 'file', stats);
      } finally {
        await handle.close();
      }
    });
  }

  async delete(uri: string, options: DeleteOptions = {}): Promise<void> {
    const address = addressOfUri(uri, this.source);
    await withRoot(this.folder.root, (rootPath) => removeEntry(rootPath, address, options));
  }

  async exec(request: ExecRequest, context: ExecContext): Promise<ExecResult> {
    const cwd = addressOfUri(request.cwd, this.source);
    // Hidden even from a command that runs while a detached run is started beside it.
    await this.runs.prepare();
    return withRoot(this.folder.root, (rootPath) => runCommand(rootPath, cwd, request, context, this.folder.settings.exec, [this.folder.stateDir]));
  }

  /** One stat of the root. */
  async probeConnection(): Promise<ProbeResult> {
    try {
      return await this.folder.root.probe();
    } catch {
      return { connected: false, reason: 'fs_unreachable' };
    }
  }

  /**
   * The real host path (symlinks inside the root resolved), read back from the descriptor the
   * containment check opened, so it is the path of what was checked. Missing: `not_found`.
   */
  async resolveOsUri(uri: string): Promise<string> {
    const address = addressOfUri(uri, this.source);
    // The root must be a folder; below it, a file or a folder.
    const expect = address.names.length === 0 ? 'directory' : 'any';
    return withRoot(this.folder.root, (rootPath) => containedRealPath(rootPath, address.relative, { expect }));
  }

  /** The same source as the skill document's host Connector (for the trial and the crawler). */
  host(): Connector {
    return new FolderHost(this.folder);
  }
}
