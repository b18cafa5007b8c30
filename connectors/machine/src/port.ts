/**
 * ConnectorPort v4 for a machine over SSH. Files go over SFTP through RemoteFiles, which keeps
 * every path inside the root as the machine resolves it. Every method parses its URI with
 * parseSourceUri against the bound source first; a machine that cannot be reached answers
 * `unavailable` with the probe reason in `details.reason`.
 */
import { posix } from 'node:path';
import { InvalidArgumentError, InvalidUriError, parseSourceUri } from '@neuralis/package-system/contracts';
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
  ListOptions,
  ProbeResult,
  ReadOptions,
  ScanContentOptions,
  WalkOptions,
  WriteOptions,
} from '@neuralis/package-system/contracts';
import { checkRange, listDetail, pageSize } from '@inseam/connector-fs';
import type { MachineConfig } from './config.js';
import type { MachineConnection } from './connection.js';
import { DetachedRuns } from './detached.js';
import { entryOf } from './entry.js';
import { requireWholeRoot, runCommand } from './exec.js';
import { childrenOf, decodeCursor, encodeCursor } from './listing.js';
import { MACHINE_CAPABILITIES } from './manifest.js';
import { fileStream, readObject } from './read.js';
import { RemoteFiles } from './remote.js';
import { removeRemote } from './remove.js';
import { scanFiles } from './scan.js';
import { writeRemote } from './write.js';

export class MachinePort implements ConnectorPort {
  readonly kind = 'machine';
  readonly source: string;
  // Pinned as a literal: importing the platform's constant would relabel this code on upgrade.
  readonly portVersion = 4 satisfies ConnectorPortVersion;
  readonly files: RemoteFiles;
  readonly detached: DetachedExecFacet;

  constructor(
    source: string,
    readonly config: MachineConfig,
    readonly connection: MachineConnection,
  ) {
    this.source = source;
    this.files = new RemoteFiles(connection);
    const runs = new DetachedRuns(connection, this.files, config);
    this.detached = {
      start: async (request, context) => {
        requireWholeRoot(context.confinement);
        const cwd = await this.#cwd(request.cwd);
        return runs.start(cwd, request);
      },
      status: (runId, waitMs) => runs.status(runId, waitMs),
      output: (runId, since) => runs.output(runId, since),
      kill: (runId, actor) => runs.kill(runId, actor),
      release: (runId) => runs.release(runId),
    };
  }

  /** The real path of the folder a command runs in: the exact source URI, resolved and contained. */
  async #cwd(uri: unknown): Promise<string> {
    if (typeof uri !== 'string') throw new InvalidUriError('cwd must be a source URI of this host.');
    return (await this.files.resolveDirectory(this.#names(uri))).path;
  }

  /**
   * Runs a command on the machine (see exec.ts). The loader has checked `exec.machine` and the
   * platform the cwd's path policy before this runs.
   */
  async exec(request: ExecRequest, context: ExecContext): Promise<ExecResult> {
    requireWholeRoot(context.confinement);
    const cwd = await this.#cwd(request.cwd);
    return runCommand(this.connection, cwd, request, context, this.config.exec);
  }

  /**
   * The machine's own absolute path behind `uri` (symlinks resolved by the machine): a coordinate
   * on that machine, never a path on the inseam host. Missing: `not_found`.
   */
  async resolveOsUri(uri: string): Promise<string> {
    return (await this.files.resolve(this.#names(uri))).path;
  }

  capabilities(): ReadonlySet<ConnectorCapability> {
    return new Set<ConnectorCapability>(MACHINE_CAPABILITIES);
  }

  /** A name holding `/` (an encoded slash) could never be a file's name on the machine: refused, never joined as a path. */
  #names(uri: string): readonly string[] {
    const { segments } = parseSourceUri(uri, this.source);
    if (segments.some((segment) => segment.includes('/'))) throw new InvalidUriError('A path segment contains an encoded "/"; names on a machine never do.');
    return segments;
  }

  /** Direct children, name-sorted, `limit` (default 1000, at most 10,000) per page. */
  async list(uri: string, options: ListOptions = {}): Promise<ConnectorListPage> {
    const names = this.#names(uri);
    const limit = pageSize(options.limit);
    listDetail(options.detail);
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const dir = await this.files.resolveDirectory(names);
    const children = await childrenOf(this.files, dir.sftp, dir.rootPath, dir.path);
    const start = after === undefined ? 0 : children.findIndex((child) => child.name > after);
    const page = start < 0 ? [] : children.slice(start, start + limit);
    const entries = page.map((child) => entryOf(this.source, [...names, child.name], child.attrs));
    const more = start >= 0 && start + limit < children.length;
    return more ? { entries, cursor: encodeCursor(page[page.length - 1]!.name) } : { entries };
  }

  async read(uri: string, options: ReadOptions = {}): Promise<ConnectorReadResult> {
    const names = this.#names(uri);
    return readObject(this.files, names, checkRange(options.range), this.config);
  }

  /**
   * The bytes [start, end) of a file (end exclusive, clipped to the file) as a stream, read ahead
   * over SFTP; for large files, where read's whole-result form would hold everything in memory.
   */
  async readStream(uri: string, range?: readonly [number, number]): Promise<{ readonly stream: ReadableStream<Uint8Array>; readonly size: number }> {
    const names = this.#names(uri);
    if (range !== undefined) {
      const [start, end] = range;
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
        throw new InvalidArgumentError('range must be [start, end) with whole numbers 0 <= start <= end.', { details: { argument: 'range' } });
      }
    }
    return fileStream(this.files, names, range);
  }

  async write(uri: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<ConnectorEntry> {
    const names = this.#names(uri);
    if (names.length === 0) throw new InvalidArgumentError("The host's folder itself cannot be written as a file.", { details: { argument: 'uri' } });
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    if (!(bytes instanceof Uint8Array)) throw new InvalidArgumentError('content must be a string or a Uint8Array.', { details: { argument: 'content' } });
    const attrs = await writeRemote(this.files, this.source, names, once(bytes), options);
    return entryOf(this.source, names, attrs);
  }

  /** Every entry below `uri`, depth first, name-sorted, folders before their contents; links to folders are not followed. */
  async *walk(uri: string, options: WalkOptions = {}): AsyncGenerator<ConnectorEntry> {
    const names = this.#names(uri);
    const maxDepth = options.maxDepth;
    if (maxDepth !== undefined && (!Number.isInteger(maxDepth) || maxDepth < 1)) {
      throw new InvalidArgumentError('maxDepth must be a whole number of at least 1.', { details: { argument: 'maxDepth' } });
    }
    const dir = await this.files.resolveDirectory(names);
    yield* this.#walkFolder(dir.sftp, dir.rootPath, dir.path, names, 1, maxDepth, options.signal);
  }

  async *#walkFolder(
    sftp: Parameters<typeof childrenOf>[1],
    rootPath: string,
    path: string,
    names: readonly string[],
    depth: number,
    maxDepth: number | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ConnectorEntry> {
    signal?.throwIfAborted();
    const children = await childrenOf(this.files, sftp, rootPath, path);
    for (const child of children) {
      const childNames = [...names, child.name];
      const entry = entryOf(this.source, childNames, child.attrs);
      if (child.viaLink && entry.type === 'directory') continue;
      yield entry;
      if (entry.type === 'directory' && (maxDepth === undefined || depth < maxDepth)) {
        yield* this.#walkFolder(sftp, rootPath, posix.join(path, child.name), childNames, depth + 1, maxDepth, signal);
      }
    }
  }

  /** Text of every file below `uri`; binary, oversized and unreadable files come back `skipped`. */
  async *scanContent(uri: string, options: ScanContentOptions = {}): AsyncGenerator<ContentChunk> {
    const maxBytes = options.maxBytesPerObject ?? this.config.textCapBytes;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new InvalidArgumentError('maxBytesPerObject must be a non-negative integer.', { details: { argument: 'maxBytesPerObject' } });
    }
    yield* scanFiles(this, this.walk(uri, options.signal === undefined ? {} : { signal: options.signal }), maxBytes);
  }

  async stat(uri: string): Promise<ConnectorEntry> {
    const names = this.#names(uri);
    const resolved = await this.files.resolve(names);
    return entryOf(this.source, names, resolved.attrs);
  }

  async delete(uri: string, options: DeleteOptions = {}): Promise<void> {
    await removeRemote(this.files, this.#names(uri), options);
  }

  /** From the connection's state, as the last attempt left it; never connects. */
  async probeConnection(): Promise<ProbeResult> {
    if (this.connection.state === 'ready') return { connected: true };
    const cause = this.connection.lastFailure;
    if (cause === undefined) return { connected: false, reason: 'runtime_offline', code: 'unavailable' };
    return { connected: false, reason: cause.reason, code: cause.code };
  }

  isRuntimeActive(): boolean {
    return this.connection.isActive();
  }

  dispose(): void {
    this.connection.dispose();
  }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
