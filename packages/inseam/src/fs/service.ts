/**
 * The filesystem service: the one way people and agents reach hosts. The HTTP API, the MCP
 * endpoint and the CLI call it with a `Caller` they built from their own authentication.
 *
 * Every operation, in this order:
 * 1. checks and copies the caller (`permission_denied` without a usable session) and copies the
 *    input objects field by field — identity never comes from input;
 * 2. routes the address to its host in the caller's network (`invalid_uri`, `not_found`,
 *    `permission_denied` for another network or another owner's host);
 * 3. checks the right the operation needs (`permission_denied` naming the right): read for list,
 *    stat, read, readStream and search hits; write for write; write and read for delete (a
 *    recursive delete needs both on every path the tree names below) and mkdir; read at a copy's
 *    source, delete's rights at a move's, and write at the target of both (a folder's: on every
 *    path the tree names below, and each file checked again as it goes); exec for exec and
 *    startRun — the host's tree, and for an agent its token's grants too (access.ts). A write
 *    where the caller may not read is a drop-box write (#drop);
 * 4. checks the call against the kind's flat capability set before dispatch (`unsupported`
 *    naming kind, operation and argument);
 * 5. dispatches to the host's port. Exec entries then pass the loader's entry check (the kind's
 *    execRequires features against the session) and the cwd's path policy.
 *
 * Offline hosts. A host is offline when its probe says so, when a live call answered
 * `unavailable`, or — for a runtime-gated kind — when isRuntimeActive() is false. list, stat,
 * read and readStream of an offline host answer from the catalog's synced content (`source:
 * "catalog"`), search always does; writes, deletes and exec go to the host and fail there.
 * Probes are cached (`probeTtlMs`) and refreshed in the background; reads never wait for one.
 *
 * Detached runs. startRun is an exec entry (rights, features, path policy) and records who
 * started the run; runStatus, runOutput, killRun and releaseRun check that ownership record only,
 * so a caller who lost the entry feature can still read and stop its runs, and nobody else can.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { ScopePredicate } from '@inseam/connector';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  UnavailableError,
  UnsupportedOperationError,
  hasErrorCode,
  isConnectorError,
  type ConnectorCapability,
  type ConnectorEntry,
  type ConnectorPort,
  type ConnectorReadResult,
  type DetachedRunOutput,
  type EntryType,
  type ExecResult,
} from '@neuralis/package-system/contracts';
import type { Entry } from '@inseam/connector';
import type { PermissionTree } from '@neuralis/package-system/contracts';
import { getConnectorBindingProvenance } from '@neuralis/package-system/loader';
import { assertCapability, guardedCall } from '@neuralis/package-system/dispatch';
import { addressFromSourceUri, addressToSourceUri, createAddress, formatAddress, type Address } from '../address/index.js';
import { SANDBOX_PACKAGE_ID } from '../sandbox/index.js';
import { DEFAULT_SEARCH_MODE, type SearchMode, type SearchPage } from '../search/index.js';
import type { HostRecord } from '../store/index.js';
import { Access, type FsPlatform, type HostAccess, type Target } from './access.js';
import { actorOf, checkCaller, mayUseHost, ownsRun, type CheckedCaller } from './caller.js';
import { CatalogSync } from './catalog-sync.js';
import { CatalogView, syncedReader } from './catalog-view.js';
import { confinementOf } from './confinement.js';
import { describeHolding, rootNameOf } from './holding.js';
import { HostLiveness, isErrorCode, probeReasonOf, within } from './liveness.js';
import {
  copyExecRequest,
  copyRange,
  copyReadOptions,
  copyWriteOptions,
  decodeListCursor,
  encodeListCursor,
  execRequest,
  inputObject,
  listDetail,
  listLimit,
  optionalBoolean,
  optionalString,
  optionalStrings,
  positive,
} from './input.js';
import { checkReadOptions, readPage, type Window, type WindowReader } from './paging.js';
import { renderRuntimeStack, type PackageOverview } from './runtime-stack.js';
import { entriesBelow, gather, keepsEmptyFolders, placeholderName } from './transfer.js';
import type {
  Caller,
  FsCopyOptions,
  FsDeleteOptions,
  FsFolder,
  FsMoveOptions,
  FsTransfer,
  FsEntry,
  FsExecOptions,
  FsExecRequest,
  FsHost,
  FsListOptions,
  FsListPage,
  FsReadOptions,
  FsReadResult,
  FsReadStream,
  FsReadStreamOptions,
  FsRun,
  FsRunStatus,
  FsSearchFilters,
  FsStat,
  FsWriteOptions,
  HostStatus,
} from './types.js';

export const DEFAULT_READ_BYTES = 256 * 1024;
export const MAX_READ_BYTES = 8 * 1024 * 1024;
export const DEFAULT_PROBE_TTL_MS = 30_000;
export const DEFAULT_PROBE_WAIT_MS = 500;
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;

export interface FsServiceOptions {
  /** How long a probe result counts as fresh. Default 30 s. */
  readonly probeTtlMs?: number;
  /** How long `hosts()` waits for a host's first probe before answering `unknown`. Default 500 ms. */
  readonly probeWaitMs?: number;
  /** How long one probe (or isRuntimeActive call) may take before it counts as failed. Default 5 s. */
  readonly probeTimeoutMs?: number;
  /** The per-message read cap when a read names none. Default 256 KiB. */
  readonly readBytes?: number;
  /** The largest `maxBytes` a read may ask for. Default 8 MiB. */
  readonly maxReadBytes?: number;
  readonly now?: () => number;
}

interface Dispatch {
  readonly port: ConnectorPort;
  readonly capabilities: ReadonlySet<ConnectorCapability>;
}

export class FsService {
  readonly #platform: FsPlatform;
  readonly #access: Access;
  readonly #catalog: CatalogView;
  readonly #catalogSync: CatalogSync;
  readonly #liveness: HostLiveness;
  readonly #readBytes: number;
  readonly #maxReadBytes: number;
  readonly #probeWaitMs: number;
  readonly #probeTimeoutMs: number;

  constructor(platform: FsPlatform, options: FsServiceOptions = {}) {
    this.#platform = platform;
    this.#access = new Access(platform);
    this.#catalog = new CatalogView(platform.catalog);
    this.#catalogSync = new CatalogSync({ crawler: platform.crawler, kinds: platform.kinds, catalog: platform.store.catalog, resync: (ref) => platform.requestCrawl(ref) });
    this.#probeTimeoutMs = positive(options.probeTimeoutMs, DEFAULT_PROBE_TIMEOUT_MS, 'probeTimeoutMs');
    this.#probeWaitMs = positive(options.probeWaitMs, DEFAULT_PROBE_WAIT_MS, 'probeWaitMs');
    this.#liveness = new HostLiveness({ ttlMs: positive(options.probeTtlMs, DEFAULT_PROBE_TTL_MS, 'probeTtlMs'), timeoutMs: this.#probeTimeoutMs, now: options.now ?? Date.now });
    this.#maxReadBytes = positive(options.maxReadBytes, MAX_READ_BYTES, 'maxReadBytes');
    this.#readBytes = Math.min(positive(options.readBytes, DEFAULT_READ_BYTES, 'readBytes'), this.#maxReadBytes);
  }

  /**
   * One page of the direct children of a directory; entries the caller may not read are left
   * out. Needs `read` at the directory. Offline: the synced children (directories implied by the
   * paths below them), with `source: "catalog"`; a cursor from a live page whose host has since
   * gone offline is `unavailable` (list again without it).
   * Throws: permission_denied, invalid_uri, invalid_argument (limit, cursor), not_found,
   * not_a_directory, unsupported, unavailable, timeout.
   */
  async list(caller: Caller, address: string, options: FsListOptions = {}): Promise<FsListPage> {
    const who = checkCaller(caller);
    const given = inputObject(options, 'options');
    const detail = listDetail(given['detail']);
    const limit = listLimit(given['limit'], detail);
    const cursor = decodeListCursor(given['cursor']);
    const target = await this.#access.target(who, address);
    this.#access.require(target, 'read');
    const fromCatalog = async (status: HostStatus, after?: string): Promise<FsListPage> => {
      const page = await this.#catalog.list(target.address, status, { limit, ...(after === undefined ? {} : { after }) });
      const entries = page.entries.filter((entry) => this.#readable(target, entry));
      return page.after === undefined ? { address: target.global, entries, source: 'catalog' } : { address: target.global, entries, cursor: encodeListCursor('c', page.after), source: 'catalog' };
    };
    if (cursor?.mode === 'catalog') return fromCatalog(this.#liveness.peek(this.#key(target.record)) ?? { state: 'offline' }, cursor.after);
    const live = async (): Promise<FsListPage> => {
      const { port, capabilities } = await this.#dispatch(target);
      const page = await guardedCall(port, capabilities, 'list', target.uri, { limit, ...(detail === 'full' ? {} : { detail }), ...(cursor === undefined ? {} : { cursor: cursor.value }) });
      const child = childOf(target);
      // With no permission key below the folder, its children have its rights (checked above).
      // Anything else a port returns (another folder's URI, a deeper one) is checked on its own.
      const childrenReadable = target.permissions.settledBelow(target.address.segments);
      const entries: FsEntry[] = [];
      for (const entry of page.entries) {
        const direct = child(entry.uri);
        const place = direct ?? this.#placeOf(target, entry);
        if (place !== null && ((direct !== undefined && childrenReadable) || target.permissions.allows(place.segments, 'read'))) entries.push(entryAt(place, entry));
      }
      return page.cursor === undefined ? { address: target.global, entries, source: 'live' } : { address: target.global, entries, cursor: encodeListCursor('l', page.cursor), source: 'live' };
    };
    if (cursor !== undefined) {
      try {
        return await this.#live(target, live);
      } catch (error) {
        if (hasErrorCode(error, 'unavailable')) {
          throw new UnavailableError(`Host "${target.record.slug}" went offline during this listing; list ${target.global} again without a cursor to get its synced content.`, {
            cause: error,
            details: { network: target.record.network, host: target.record.slug },
          });
        }
        throw error;
      }
    }
    return this.#withFallback(target, live, (status) => fromCatalog(status));
  }

  /**
   * Describes one object. Needs `read`. Kinds without the `stat` capability answer for the host
   * root only (`unsupported` elsewhere). Offline: the synced entry.
   * Throws: permission_denied, invalid_uri, not_found, unsupported, unavailable, timeout.
   */
  async stat(caller: Caller, address: string): Promise<FsStat> {
    const who = checkCaller(caller);
    const target = await this.#access.target(who, address);
    this.#access.require(target, 'read');
    const stat = await this.#withFallback<FsStat>(
      target,
      async () => {
        const { port, capabilities } = await this.#dispatch(target);
        if (!capabilities.has('stat') && target.address.segments.length === 0) return { ...this.#root(target), source: 'live' as const };
        const entry = this.#entry(target, await guardedCall(port, capabilities, 'stat', target.uri));
        if (entry === null) throw new NotFoundError(`Nothing exists at ${target.global}.`);
        return { ...entry, source: 'live' as const };
      },
      async (status) => ({ ...(await this.#catalog.stat(target.address, status)), source: 'catalog' as const }),
    );
    if (stat.type !== 'file') return stat;
    const envelope = await this.#catalog.envelope(target.address);
    return envelope === null ? stat : { ...stat, envelope };
  }

  /**
   * Reads one page of an object (see FsReadOptions and docs/fs.md "Reads"). Needs `read`.
   * - Whole read: the object if it fits `maxBytes`; a larger text object is `too_large` (read it
   *   in ranges or lines); a larger binary object comes back as a marker with no bytes.
   * - `range`: bytes from `offset`, at most `maxBytes`; text never ends inside a character.
   * - `lines`: whole lines from `start` (1-based) within `maxBytes`; text objects only.
   * Binary bytes are left out (a marker instead) when over the connector's inline cap, or when
   * the caller's model cannot take the type (image/*, video/*). Offline: the synced text.
   * Throws: permission_denied, invalid_uri, invalid_argument, not_found, is_a_directory,
   * too_large, unsupported_file_type, containment_violation, unavailable, timeout.
   */
  async read(caller: Caller, address: string, options: FsReadOptions = {}): Promise<FsReadResult> {
    const who = checkCaller(caller);
    const copied = copyReadOptions(options);
    const { cap, mode } = checkReadOptions(copied, this.#readBytes, this.#maxReadBytes);
    const target = await this.#access.target(who, address);
    this.#access.require(target, 'read');
    const request = { address: target.global, cap, model: who.model };
    return this.#withFallback<FsReadResult>(
      target,
      async () => {
        const { port, capabilities } = await this.#dispatch(target);
        const reader: WindowReader = async (offset, length) => windowOf(await guardedCall(port, capabilities, 'read', target.uri, { range: { offset, length } }), offset, length);
        return { ...(await readPage(reader, copied, request, mode)), source: 'live' as const };
      },
      async (status) => ({ ...(await readPage(syncedReader(await this.#catalog.text(target.address, status)), copied, request, mode)), source: 'catalog' as const }),
    );
  }

  /**
   * The raw bytes of an object (or of `range`, clipped to it) as a stream, for downloads. Needs
   * `read`. Errors while streaming surface on the stream. Offline: the synced text as bytes.
   * Throws: permission_denied, invalid_uri, invalid_argument, not_found, is_a_directory,
   * unavailable, timeout.
   */
  async readStream(caller: Caller, address: string, options: FsReadStreamOptions = {}): Promise<FsReadStream> {
    const who = checkCaller(caller);
    const range = copyRange(inputObject(options, 'options')['range']);
    const target = await this.#access.target(who, address);
    this.#access.require(target, 'read');
    return this.#withFallback<FsReadStream>(
      target,
      async () => {
        const host = await this.#platform.kinds.openHost(target.record);
        const entry = await host.stat(target.address.path);
        if (entry === null) throw await this.#missing(target);
        const size = entry.size;
        const start = range?.offset ?? 0;
        const wanted = range?.length === undefined ? undefined : start + range.length;
        const end = size === undefined ? wanted : Math.max(start, Math.min(size, wanted ?? size));
        const stream = await host.read(target.address.path, range === undefined ? {} : { range: [start, end ?? Number.MAX_SAFE_INTEGER] });
        return {
          address: target.global,
          stream,
          ...(size === undefined ? {} : { size }),
          ...(entry.etag === undefined ? {} : { etag: entry.etag }),
          ...(entry.mime === undefined ? {} : { mime: entry.mime }),
          offset: start,
          ...(end === undefined ? {} : { length: end - start }),
          source: 'live' as const,
        };
      },
      async (status) => {
        const synced = await this.#catalog.text(target.address, status);
        const start = Math.min(range?.offset ?? 0, synced.bytes.length);
        const end = Math.min(synced.bytes.length, range?.length === undefined ? synced.bytes.length : start + range.length);
        const slice = synced.bytes.subarray(start, end);
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new Uint8Array(slice));
            controller.close();
          },
        });
        return { address: target.global, stream, size: synced.bytes.length, ...(synced.etag === undefined ? {} : { etag: synced.etag }), mime: synced.mime, offset: start, length: end - start, source: 'catalog' as const };
      },
    );
  }

  /**
   * Creates or replaces an object atomically. Needs `write` (for an agent, a write grant too).
   * `ifMatch` and `createOnly` are enforced by the connector, or refused with `unsupported` —
   * never ignored. A caller that may not read the address writes into a drop box (#drop).
   * A stream is written as it comes where the kind's host can take one (a folder, a bucket, which
   * spools to disk), so the object is never whole in memory; a create-only or drop-box write, or a
   * `mime`, goes through the port, which takes the content whole.
   * Throws: permission_denied, invalid_uri, invalid_argument, precondition_failed,
   * already_exists, is_a_directory, not_a_directory, too_large, unsupported, unavailable, timeout.
   */
  async write(caller: Caller, address: string, content: string | Uint8Array | ReadableStream<Uint8Array>, options: FsWriteOptions = {}): Promise<FsEntry> {
    const who = checkCaller(caller);
    const copied = copyWriteOptions(options);
    if (typeof content !== 'string' && !(content instanceof Uint8Array) && !(content instanceof ReadableStream)) {
      throw new InvalidArgumentError('content must be a string, a Uint8Array or a ReadableStream of bytes.', { details: { argument: 'content' } });
    }
    const target = await this.#access.target(who, address);
    this.#access.require(target, 'write');
    return this.#store(target, content, copied, true);
  }

  /**
   * Writes at a target whose `write` right was checked, and (with `sync`, or always for a drop
   * box, whose place is its own) updates the catalog.
   */
  async #store(target: Target, content: string | Uint8Array | ReadableStream<Uint8Array>, options: WriteChoices, sync: boolean): Promise<FsEntry> {
    if (!target.permissions.allows(target.address.segments, 'read')) return this.#drop(target, await gather(content), options);
    const written = await this.#put(target, content, options);
    if (sync) await this.#catalogSync.written(target.record, target.address.path);
    return written;
  }

  async #put(target: Target, content: string | Uint8Array | ReadableStream<Uint8Array>, options: WriteChoices): Promise<FsEntry> {
    try {
      return await this.#live(target, async () => {
        const { port, capabilities } = await this.#dispatch(target);
        let body = content;
        if (body instanceof ReadableStream) {
          assertCapability(port.kind, capabilities, 'write');
          // The host Connector takes a stream but knows neither createOnly nor a MIME type.
          const host = options.createOnly === true || options.mime !== undefined ? undefined : await this.#platform.kinds.openHost(target.record);
          if (host?.write !== undefined) {
            await this.#refuseTreeConflicts(target, port, capabilities);
            return fileAt(target, await host.write(target.address.path, body, options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }));
          }
          body = await gather(body);
        }
        const written = await guardedCall(port, capabilities, 'write', target.uri, body, options);
        return this.#entry(target, written) ?? { ...this.#root(target), type: 'file' };
      });
    } finally {
      // A write refused before it read the stream must not leave its source open.
      if (content instanceof ReadableStream && !content.locked) await content.cancel().catch(() => undefined);
    }
  }

  /**
   * What a port's write refuses itself and a host's streaming write may not (a bucket's keys are
   * flat): a folder at the address, a file on the way to it.
   */
  async #refuseTreeConflicts(target: Target, port: ConnectorPort, capabilities: ReadonlySet<ConnectorCapability>): Promise<void> {
    const { network, host, segments } = target.address;
    if (segments.length === 0) throw new IsADirectoryError(`${target.global} is the root folder of its host; name a file inside it.`);
    if (!capabilities.has('stat')) return;
    const at = (depth: number): Address => createAddress({ network, host, segments: segments.slice(0, depth) });
    const found = await Promise.all(segments.map((_, index) => this.#statOrNull(port, capabilities, addressToSourceUri(at(index + 1)))));
    const blocking = found.slice(0, -1).findIndex((entry) => entry !== null && entry.type !== 'directory');
    if (blocking >= 0) throw new NotADirectoryError(`${formatAddress(at(blocking + 1))} is a file, so nothing can be written below it.`);
    if (found[found.length - 1]?.type === 'directory') throw new IsADirectoryError(`${target.global} is a folder; name a file inside it.`);
  }

  async #statOrNull(port: ConnectorPort, capabilities: ReadonlySet<ConnectorCapability>, uri: string): Promise<ConnectorEntry | null> {
    try {
      return await guardedCall(port, capabilities, 'stat', uri);
    } catch (error) {
      if (hasErrorCode(error, 'not_found') || hasErrorCode(error, 'not_a_directory')) return null;
      throw error;
    }
  }

  /**
   * A write by a caller that may write but not read the address. Its answer must not depend on
   * what is there, so: it never replaces (every such write is create-only); `ifMatch`, which
   * compares with what is there, is refused whatever is there; a name that is taken — or a
   * folder on the way that is a file — keeps what it holds, and the object goes under a new name
   * beside it (`report~3f9c2a1b.pdf`); and the answer says only the address asked for and the
   * bytes taken, never an etag or time from the store. Failures that do not depend on what is
   * there (unsupported, too_large, unavailable) are answered as ever.
   */
  async #drop(target: Target, content: string | Uint8Array, options: WriteChoices): Promise<FsEntry> {
    if (options.ifMatch !== undefined) {
      throw new PermissionDeniedError(`${target.global} may be written but not read by this caller, so a write cannot be conditional on what is there (ifMatch): it only ever adds a new object.`, {
        details: { right: 'read', reason: 'write_only', network: target.record.network, host: target.record.slug },
      });
    }
    const createOnly = { createOnly: true, ...(options.mime === undefined ? {} : { mime: options.mime }) };
    const placed = await this.#live(target, async () => {
      const { port, capabilities } = await this.#dispatch(target);
      try {
        await guardedCall(port, capabilities, 'write', target.uri, content, createOnly);
        return target.address.path;
      } catch (error) {
        if (!DROP_TAKEN.some((code) => hasErrorCode(error, code))) throw error;
        const elsewhere = await this.#dropPlace(target, port, capabilities);
        await guardedCall(port, capabilities, 'write', addressToSourceUri(elsewhere), content, createOnly);
        return elsewhere.path;
      }
    });
    await this.#catalogSync.written(target.record, placed);
    const size = typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.byteLength;
    return { ...this.#root(target), type: 'file', size };
  }

  /**
   * Where a dropped object goes when its own place is taken: the first folder on the way that is
   * not a folder (a file, a link) is swapped for a new name, else the object's own name is.
   */
  async #dropPlace(target: Target, port: ConnectorPort, capabilities: ReadonlySet<ConnectorCapability>): Promise<Address> {
    const { network, host, segments } = target.address;
    let index = segments.length - 1;
    if (capabilities.has('stat')) {
      for (let depth = 1; depth < segments.length; depth++) {
        const ancestor = addressToSourceUri(createAddress({ network, host, segments: segments.slice(0, depth) }));
        const entry = await guardedCall(port, capabilities, 'stat', ancestor).catch((error: unknown) => (hasErrorCode(error, 'not_found') ? null : { type: 'blocked' }));
        if (entry === null) break;
        if (entry.type !== 'directory') {
          index = depth - 1;
          break;
        }
      }
    }
    const renamed = [...segments];
    renamed[index] = uniqueName(segments[index]!);
    return createAddress({ network, host, segments: renamed });
  }

  /**
   * Removes an object. Needs `write` and `read` at the address (for an agent, a delete grant
   * too) — and, with `recursive`, both at every path the permission tree names below it, so a
   * denied child is never removed with its parent. A drop box (write without read) is never
   * emptied by its droppers: whether a name exists there is not theirs to learn.
   * Throws: permission_denied, invalid_uri, invalid_argument, not_found, precondition_failed,
   * unsupported, unavailable, timeout.
   */
  async delete(caller: Caller, address: string, options: FsDeleteOptions = {}): Promise<void> {
    const who = checkCaller(caller);
    const given = inputObject(options, 'options');
    const recursive = optionalBoolean(given['recursive'], 'recursive');
    const ifMatch = optionalString(given['ifMatch'], 'ifMatch');
    const target = await this.#access.target(who, address);
    if (recursive === true) this.#access.requireBelow(target, 'delete');
    else this.#access.require(target, 'delete');
    await this.#live(target, async () => {
      const { port, capabilities } = await this.#dispatch(target);
      try {
        await guardedCall(port, capabilities, 'delete', target.uri, { ...(recursive === undefined ? {} : { recursive }), ...(ifMatch === undefined ? {} : { ifMatch }) });
      } catch (error) {
        // Without ifMatch the only precondition a delete has is an empty folder.
        if (recursive === true || ifMatch !== undefined || !hasErrorCode(error, 'precondition_failed')) throw error;
        throw new PreconditionFailedError(`${target.global} is a folder with something in it; delete it recursively to remove it and everything below it.`, {
          cause: error,
          details: { reason: 'not_empty', network: target.record.network, host: target.record.slug },
        });
      }
    });
    await this.#catalogSync.removed(target.record, target.address.path, recursive === true);
  }

  /**
   * Makes a folder, and the folders on the way to it (as `mkdir -p`); a folder already there is
   * answered as it is (`created: false`). Needs `write` and `read` (the answer says whether the
   * folder was there). A host with real paths gets the folder by a write and removal of a
   * placeholder file inside it, so the port's own write makes the folders. A host whose folders
   * exist only through what is in them (a bucket) is left unchanged: the name is checked to be
   * free (no file there or on the way) and the answer is `implied: true`; the folder shows once
   * something is written below it. The catalog holds files only, so it does not change.
   * Throws: permission_denied, invalid_uri, already_exists (a file is there), not_a_directory (a
   * file on the way), unsupported (a host without write, or without delete to remove the
   * placeholder), unavailable, timeout.
   */
  async mkdir(caller: Caller, address: string): Promise<FsFolder> {
    const who = checkCaller(caller);
    const target = await this.#access.target(who, address);
    this.#access.require(target, 'write');
    this.#access.require(target, 'read');
    const folder = (created: boolean, implied: boolean): FsFolder => ({ ...this.#root(target), created, implied });
    return this.#live(target, async () => {
      const { port, capabilities } = await this.#dispatch(target);
      assertCapability(port.kind, capabilities, 'write');
      if (target.address.segments.length === 0) return folder(false, false);
      const there = capabilities.has('stat') ? await this.#statOrNull(port, capabilities, target.uri) : null;
      if (there?.type === 'directory') return folder(false, false);
      if (there !== null) throw new AlreadyExistsError(`${target.global} is a file; a folder cannot be made there.`, { details: { network: target.record.network, host: target.record.slug } });
      const { network, host, segments } = target.address;
      if (!(await keepsEmptyFolders(port, addressToSourceUri(createAddress({ network, host, segments: [] }))))) {
        await this.#refuseTreeConflicts(target, port, capabilities);
        return folder(false, true);
      }
      if (!capabilities.has('delete')) throw new UnsupportedOperationError(port.kind, 'mkdir');
      const placeholder = addressToSourceUri(createAddress({ network, host, segments: [...segments, placeholderName()] }));
      await guardedCall(port, capabilities, 'write', placeholder, new Uint8Array(), { createOnly: true });
      await guardedCall(port, capabilities, 'delete', placeholder, {});
      return folder(true, false);
    });
  }

  /**
   * Copies an object, or with `recursive` a folder and every file below it, to `to` on the same
   * host or another, streaming (see write). `to` naming an existing folder copies into it, under
   * the source's name. Needs `read` at the source (and, recursive, at every path the tree names
   * below it) and `write` at the target (likewise). Existing files are replaced unless
   * `createOnly`; folders with nothing in them are not copied. A copy that fails part way leaves
   * what it wrote so far.
   * Throws: permission_denied, invalid_uri, invalid_argument (the target inside the source),
   * not_found, is_a_directory (a folder without `recursive`), already_exists, not_a_directory,
   * precondition_failed, too_large, unsupported, unavailable, timeout.
   */
  async copy(caller: Caller, from: string, to: string, options: FsCopyOptions = {}): Promise<FsTransfer> {
    const who = checkCaller(caller);
    const given = inputObject(options, 'options');
    const recursive = optionalBoolean(given['recursive'], 'recursive') === true;
    const createOnly = optionalBoolean(given['createOnly'], 'createOnly') === true;
    return this.#transfer(who, from, to, { recursive, createOnly, move: false });
  }

  /**
   * Moves an object or a folder (everything below it) to `to`, on the same host or another: a
   * copy (as copy), then the source removed. Each file's removal is conditional on the etag it
   * was copied at — by the host where it can be (`ifMatch`), else by a stat just before — so a
   * file changed meanwhile is kept (`precondition_failed`) and its copy is the version read. The
   * files of a folder are all copied before any is removed: a move that fails part way leaves
   * the source whole. Needs `read` and `write` at the source (the `delete` of a delete) and
   * `write` at the target, and for a folder at every path the tree names below each. Within a
   * host the catalog's entries move with their identity; across hosts they are written and removed.
   * Throws: as copy, and invalid_argument for a host's root.
   */
  async move(caller: Caller, from: string, to: string, options: FsMoveOptions = {}): Promise<FsTransfer> {
    const who = checkCaller(caller);
    const given = inputObject(options, 'options');
    const createOnly = optionalBoolean(given['createOnly'], 'createOnly') === true;
    return this.#transfer(who, from, to, { recursive: true, createOnly, move: true });
  }

  async #transfer(who: CheckedCaller, from: string, to: string, how: { readonly recursive: boolean; readonly createOnly: boolean; readonly move: boolean }): Promise<FsTransfer> {
    const source = await this.#access.target(who, from);
    const sourceRight = how.move ? 'delete' : 'read';
    this.#access.require(source, sourceRight);
    if (how.move && source.address.segments.length === 0) throw new InvalidArgumentError(`${source.global} is the root of its host, which cannot be moved; move what is in it.`, { details: { argument: 'from' } });
    let target = await this.#access.target(who, to);
    const found = await this.#look(source);
    if (found === null) throw new NotFoundError(`Nothing exists at ${source.global}.`, { details: { network: source.record.network, host: source.record.slug } });
    // Into a folder that is there, as cp and mv do; a drop box is not looked into.
    if (source.address.segments.length > 0 && target.permissions.allows(target.address.segments, 'read') && (await this.#look(target))?.type === 'directory') {
      const { network, host, segments } = target.address;
      target = await this.#access.target(who, formatAddress(createAddress({ network, host, segments: [...segments, source.address.segments[source.address.segments.length - 1]!] })));
    }
    const sameHost = source.record.id === target.record.id;
    const inside = source.address.segments.every((segment, index) => target.address.segments[index] === segment);
    if (sameHost && inside) {
      throw new InvalidArgumentError(`${target.global} is ${target.address.segments.length === source.address.segments.length ? '' : 'inside '}${source.global}; name a place outside it.`, { details: { argument: 'to' } });
    }
    this.#access.require(target, 'write');
    const view = (type: EntryType, files: number, bytes: number): FsTransfer => ({ from: source.global, to: target.global, type, files, bytes });
    if (found.type === 'file') {
      const written = await this.#copyFile(source, target, how);
      if (how.move) await this.#finishMove(source, target, found.etag);
      return view('file', 1, written.size ?? 0);
    }
    if (!how.recursive) throw new IsADirectoryError(`${source.global} is a folder; copy it recursively to copy everything below it.`, { details: { argument: 'recursive', network: source.record.network, host: source.record.slug } });
    this.#access.requireBelow(source, sourceRight);
    this.#access.requireBelow(target, 'write');
    const { port, capabilities } = await this.#dispatch(source);
    const moved: { readonly from: Target; readonly to: Target; readonly etag: string | undefined }[] = [];
    const folders: string[] = [];
    let files = 0;
    let bytes = 0;
    for await (const entry of entriesBelow(port, capabilities, source.uri)) {
      const place = this.#placeOf(source, entry);
      if (place === null) continue;
      if (entry.type === 'directory') {
        if (how.move) folders.push(entry.uri);
        continue;
      }
      const relative = place.segments.slice(source.address.segments.length);
      const { network } = source.address;
      const fileFrom = await this.#access.target(who, formatAddress(createAddress({ network, host: source.address.host, segments: place.segments })));
      const fileTo = await this.#access.target(who, formatAddress(createAddress({ network, host: target.address.host, segments: [...target.address.segments, ...relative] })));
      this.#access.require(fileFrom, sourceRight);
      this.#access.require(fileTo, 'write');
      const written = await this.#copyFile(fileFrom, fileTo, how);
      files += 1;
      bytes += written.size ?? 0;
      if (how.move) moved.push({ from: fileFrom, to: fileTo, etag: entry.etag });
    }
    if (how.move) {
      for (const file of moved) await this.#finishMove(file.from, file.to, file.etag);
      await this.#removeFolders(source, port, capabilities, [...folders.reverse(), source.uri]);
    }
    return view('directory', files, bytes);
  }

  /** A file of a copy or move, streamed from its host to the target. */
  async #copyFile(source: Target, target: Target, how: { readonly createOnly: boolean; readonly move: boolean }): Promise<FsEntry> {
    const host = await this.#platform.kinds.openHost(source.record);
    const stream = await this.#live(source, () => host.read(source.address.path));
    // A move within a host moves the catalog entry once the source is gone (#finishMove).
    const syncNow = !(how.move && source.record.id === target.record.id);
    return this.#store(target, stream, how.createOnly ? { createOnly: true } : {}, syncNow);
  }

  /** Removes a moved file if it is still the version copied, and moves or removes its catalog entry. */
  async #finishMove(source: Target, target: Target, etag: string | undefined): Promise<void> {
    await this.#live(source, async () => {
      const { port, capabilities } = await this.#dispatch(source);
      const changed = (cause?: unknown): PreconditionFailedError =>
        new PreconditionFailedError(`${source.global} changed while it was moved, so it was kept; ${target.global} holds the version that was read.`, {
          ...(cause === undefined ? {} : { cause }),
          details: { network: source.record.network, host: source.record.slug },
        });
      try {
        await guardedCall(port, capabilities, 'delete', source.uri, etag === undefined ? {} : { ifMatch: etag });
      } catch (error) {
        if (etag !== undefined && hasErrorCode(error, 'precondition_failed')) throw changed(error);
        if (etag === undefined || !hasErrorCode(error, 'unsupported') || error.details['argument'] !== 'ifMatch' || !capabilities.has('stat')) throw error;
        // The host cannot make a delete conditional: compare just before deleting instead.
        if ((await this.#statOrNull(port, capabilities, source.uri))?.etag !== etag) throw changed();
        await guardedCall(port, capabilities, 'delete', source.uri, {});
      }
    });
    // A drop box's write placed and synced its object itself (#drop), as a write to another host did.
    const readable = target.permissions.allows(target.address.segments, 'read');
    if (source.record.id === target.record.id && readable) await this.#catalogSync.moved(source.record, source.address.path, target.address.path);
    else await this.#catalogSync.removed(source.record, source.address.path, false);
  }

  /** A moved folder's folders, deepest first: one that is gone already (a bucket's) or holds something new is left. */
  async #removeFolders(source: Target, port: ConnectorPort, capabilities: ReadonlySet<ConnectorCapability>, uris: readonly string[]): Promise<void> {
    await this.#live(source, async () => {
      for (const uri of uris) {
        await guardedCall(port, capabilities, 'delete', uri, {}).catch((error: unknown) => {
          if (!hasErrorCode(error, 'not_found') && !hasErrorCode(error, 'precondition_failed')) throw error;
        });
      }
    });
  }

  /** What is at a target, live: its entry, or null when nothing is there. */
  async #look(target: Target): Promise<Pick<ConnectorEntry, 'type' | 'etag' | 'size'> | null> {
    if (target.address.segments.length === 0) return { type: 'directory' };
    return this.#live(target, async () => {
      const { port, capabilities } = await this.#dispatch(target);
      if (capabilities.has('stat')) return this.#statOrNull(port, capabilities, target.uri);
      const entry = await (await this.#platform.kinds.openHost(target.record)).stat(target.address.path);
      return entry === null ? null : { type: 'file', ...(entry.etag === undefined ? {} : { etag: entry.etag }), ...(entry.size === undefined ? {} : { size: entry.size }) };
    });
  }

  /**
   * Search over the synced content of the caller's network, offline hosts included, by
   * `mode` (default hybrid: words and meaning, as on every surface); a hit is returned only when
   * the caller may read it (ownership, the host's tree and its baselines). Filters are copied field by field; a `canRead` or identity in them is ignored.
   * Throws: permission_denied, invalid_argument, invalid_uri, not_found, scope_invalid.
   */
  async search(caller: Caller, query: string, filters: FsSearchFilters = {}): Promise<SearchPage> {
    const who = checkCaller(caller);
    const given = inputObject(filters, 'filters');
    const hosts = optionalStrings(given['hosts'], 'hosts');
    const whereText = optionalStrings(given['whereText'], 'whereText');
    const where = given['where'];
    if (where !== undefined && !Array.isArray(where)) throw new InvalidArgumentError('where must be an array of predicates.', { details: { argument: 'where' } });
    const limit = given['limit'];
    const cursor = optionalString(given['cursor'], 'cursor');
    const mode = optionalString(given['mode'], 'mode');
    if (typeof query !== 'string') throw new InvalidArgumentError('The search query must be a string.', { details: { argument: 'query' } });
    // The caller's tree per host (ownership, the host's tree and its baselines); null where they may read nothing.
    const access = async (record: HostRecord): Promise<PermissionTree | null> => {
      if (record.network !== who.network) return null;
      const granted = await this.#access.host(who, record.slug).catch(() => null);
      return granted === null ? null : granted.permissions.tree;
    };
    return this.#platform.search.search(query, {
      network: who.network,
      ...(hosts === undefined ? {} : { hosts }),
      ...(where === undefined ? {} : { where: where as ScopePredicate[] }),
      ...(whereText === undefined ? {} : { whereText }),
      ...(limit === undefined ? {} : { limit: limit as number }),
      ...(cursor === undefined ? {} : { cursor }),
      mode: (mode ?? DEFAULT_SEARCH_MODE) as SearchMode,
      access,
    });
  }

  /**
   * Runs a command with `cwd` = a directory address. Needs `exec` at the cwd; then the loader's
   * entry check (every execRequires feature in the caller's session) and the cwd's path policy.
   * Only a port bound through the loader (its provenance matching the host) may run commands.
   * The port gets the caller's confinement plan (confinement.ts): what its sandbox lets the
   * command see of the host. `background` is refused: start detached runs with startRun (`unsupported` naming
   * `background` when the kind has no detached runs).
   * Throws: permission_denied, invalid_uri, invalid_argument, not_found, not_a_directory,
   * unsupported, containment_violation, unavailable.
   */
  async exec(caller: Caller, request: FsExecRequest, options: FsExecOptions = {}): Promise<ExecResult> {
    const who = checkCaller(caller);
    const copied = copyExecRequest(request);
    const signal = inputObject(options, 'options')['signal'];
    if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InvalidArgumentError('signal must be an AbortSignal.', { details: { argument: 'signal' } });
    const target = await this.#access.target(who, copied.cwd);
    this.#access.require(target, 'exec');
    const { port, capabilities } = await this.#dispatch(target);
    assertCapability(port.kind, capabilities, 'exec', [copied.background === undefined ? {} : { background: copied.background }]);
    if (copied.background === true) {
      throw new InvalidArgumentError('exec runs in the foreground; start a detached run with startRun.', { details: { argument: 'background' } });
    }
    this.#requireProvenance(port, target.record);
    const confinement = confinementOf(target.permissions, this.#platform.paths.dataDir, who, target.address);
    return guardedCall(port, capabilities, 'exec', execRequest(copied, target), { session: who.session, confinement, ...(signal === undefined ? {} : { signal }) });
  }

  /**
   * Starts a detached run — an exec entry, checked exactly as exec — and records its owner (the
   * caller's user and agent, network, host, run id) in the platform.
   * Throws: as exec, and `unsupported` when the kind has no detached runs.
   */
  async startRun(caller: Caller, request: FsExecRequest): Promise<FsRun> {
    const who = checkCaller(caller);
    const copied = copyExecRequest(request);
    const target = await this.#access.target(who, copied.cwd);
    this.#access.require(target, 'exec');
    const { port, capabilities } = await this.#dispatch(target);
    assertCapability(port.kind, capabilities, 'detached.start');
    this.#requireProvenance(port, target.record);
    const confinement = confinementOf(target.permissions, this.#platform.paths.dataDir, who, target.address);
    const { runId } = await guardedCall(port, capabilities, 'detached.start', execRequest(copied, target), { session: who.session, confinement });
    try {
      const owner = await this.#platform.store.detachedRuns.record({ runId, network: who.network, host: target.record.slug, userId: who.userId, agentId: who.agentId ?? null });
      return runView(owner);
    } catch (error) {
      // A run nobody owns could never be stopped again: end it.
      await guardedCall(port, capabilities, 'detached.kill', runId, actorOf(who)).catch(() => undefined);
      await guardedCall(port, capabilities, 'detached.release', runId).catch(() => undefined);
      throw error;
    }
  }

  /** The caller's own detached runs in its network that are not released, newest first. */
  async runs(caller: Caller): Promise<FsRun[]> {
    const who = checkCaller(caller);
    const owned = await this.#platform.store.detachedRuns.listByUser(who.network, who.userId);
    return owned.filter((run) => ownsRun(who, run)).map(runView);
  }

  /**
   * A run's state; `waitMs` long-polls (capped by the connector). Ownership only, no feature.
   * Throws: permission_denied (not the owner), not_found (unknown or released), invalid_argument.
   */
  async runStatus(caller: Caller, runId: string, options: { readonly waitMs?: number } = {}): Promise<FsRunStatus> {
    const waitMs = inputObject(options, 'options')['waitMs'];
    const owned = await this.#ownedRun(caller, runId);
    const status = await guardedCall(owned.port, owned.capabilities, 'detached.status', runId, waitMs as number | undefined);
    return { ...status, network: owned.network, host: owned.host };
  }

  /** Output from byte `since` (default 0), bounded per call. Ownership only. Throws as runStatus. */
  async runOutput(caller: Caller, runId: string, options: { readonly since?: number } = {}): Promise<DetachedRunOutput> {
    const since = inputObject(options, 'options')['since'] ?? 0;
    const owned = await this.#ownedRun(caller, runId);
    return guardedCall(owned.port, owned.capabilities, 'detached.output', runId, since as number);
  }

  /** Asks the run to stop; the end shows in runStatus. Ownership only. Throws as runStatus. */
  async killRun(caller: Caller, runId: string): Promise<{ readonly acknowledged: true }> {
    const owned = await this.#ownedRun(caller, runId);
    return guardedCall(owned.port, owned.capabilities, 'detached.kill', runId, actorOf(owned.caller));
  }

  /** Ends the run, forgets its output and its ownership record. Ownership only. Throws as runStatus. */
  async releaseRun(caller: Caller, runId: string): Promise<void> {
    const owned = await this.#ownedRun(caller, runId);
    try {
      await guardedCall(owned.port, owned.capabilities, 'detached.release', runId);
    } catch (error) {
      // The connector forgot the run already; the record goes too.
      if (!hasErrorCode(error, 'not_found')) throw error;
    }
    await this.#platform.store.detachedRuns.release(runId);
  }

  /**
   * The hosts of the caller's network it may use, with its rights at each root and a liveness
   * status (cached; a host never probed is waited for up to `probeWaitMs`). Runtime-gated hosts
   * are answered from isRuntimeActive(), which never starts the runtime; a stopped runtime is
   * offline with reason `runtime_offline` and is not probed.
   * Throws: permission_denied, not_found (no such network).
   */
  async hosts(caller: Caller): Promise<FsHost[]> {
    const who = checkCaller(caller);
    if ((await this.#platform.store.networks.get(who.network)) === null) {
      throw new NotFoundError(`There is no network "${who.network}".`, { details: { network: who.network } });
    }
    const records = (await this.#platform.store.hosts.list(who.network)).filter((record) => mayUseHost(who, record));
    return Promise.all(records.map((record) => this.#hostView(record, who)));
  }

  /**
   * The runtime-stack block for an agent's system prompt: the caller's hosts with their
   * descriptions, `[from <package>]` origin attribution and `(offline)` marks, and the
   * `<packages>` overview of the loaded manifests (source kinds, MCP connectors including
   * in-process ones, declared sources). Throws as hosts.
   */
  async runtimeStack(caller: Caller): Promise<string> {
    const who = checkCaller(caller);
    const hosts = await this.hosts(caller);
    return renderRuntimeStack(who.network, hosts, this.#packages(who.network));
  }

  /* ------------------------------------------------------------------ routing and liveness */

  async #dispatch(target: HostAccess): Promise<Dispatch> {
    const port = await this.#platform.kinds.openPort(target.record);
    return { port, capabilities: capabilitySet(port) };
  }

  #key(record: HostRecord): string {
    return `${record.id}@${record.updatedAt}`;
  }

  #gated(record: HostRecord): boolean {
    return this.#platform.loader.sourceKinds.get(record.kind)?.runtimeGated === true;
  }

  /**
   * The status to answer from the catalog with, or null to go live. A runtime-gated host asks
   * isRuntimeActive() every time (cheap by contract, and it never starts the runtime); other
   * hosts go by the cached probe, refreshing a stale one in the background.
   */
  async #offline(target: HostAccess): Promise<HostStatus | null> {
    const key = this.#key(target.record);
    if (this.#gated(target.record)) {
      const port = await this.#platform.kinds.openPort(target.record);
      const active = await this.#runtimeActive(port);
      if (active === false) return this.#liveness.note(key, { state: 'offline', reason: 'runtime_offline', runtimeActive: false, probed: false });
    }
    const cached = this.#liveness.peek(key);
    if (cached === undefined || cached.state !== 'offline' || cached.reason === 'runtime_offline') return null;
    if (!this.#liveness.isFresh(cached)) void this.#liveness.refresh(key, () => this.#probe(target.record));
    return cached;
  }

  /** Runs `live`, or answers from the catalog when the host is offline or turns out to be. */
  async #withFallback<T>(target: HostAccess, live: () => Promise<T>, fromCatalog: (status: HostStatus) => Promise<T>): Promise<T> {
    const status = await this.#offline(target);
    if (status !== null) return fromCatalog(status);
    try {
      return await this.#live(target, live);
    } catch (error) {
      if (!hasErrorCode(error, 'unavailable')) throw error;
      return fromCatalog(this.#liveness.peek(this.#key(target.record)) ?? { state: 'offline' });
    }
  }

  /** Runs a live call and records what it showed about the host's liveness. */
  async #live<T>(target: HostAccess, call: () => Promise<T>): Promise<T> {
    const key = this.#key(target.record);
    try {
      const result = await call();
      if (this.#liveness.peek(key)?.state !== 'online') this.#liveness.note(key, { state: 'online', probed: false });
      return result;
    } catch (error) {
      if (hasErrorCode(error, 'unavailable')) {
        this.#liveness.note(key, { state: 'offline', reason: probeReasonOf(error.details['reason']) ?? 'store_unreachable', code: 'unavailable', probed: false });
        // A passing failure must not hold a healthy host offline for a whole TTL: confirm it.
        void this.#liveness.refresh(key, () => this.#probe(target.record));
      }
      throw error;
    }
  }

  async #probe(record: HostRecord): Promise<HostStatus> {
    let port: ConnectorPort;
    try {
      port = await this.#platform.kinds.openPort(record);
    } catch (error) {
      return { state: 'offline', probed: false, ...(isConnectorError(error) ? { code: error.code } : {}) };
    }
    let runtimeActive: boolean | undefined;
    if (this.#gated(record)) {
      runtimeActive = await this.#runtimeActive(port);
      if (runtimeActive === false) return { state: 'offline', reason: 'runtime_offline', runtimeActive, probed: false };
    }
    const gated = runtimeActive === undefined ? {} : { runtimeActive };
    if (port.probeConnection === undefined) return { state: 'online', probed: false, ...gated };
    const probed = await port.probeConnection();
    if (probed?.connected === true) return { state: 'online', probed: true, ...gated };
    // The reason is checked against the fixed enum here, at run time: a connector that answers
    // anything else (a raw path, say) is shown as store_unreachable, and its text goes nowhere.
    const code = isErrorCode(probed?.code) ? probed.code : undefined;
    return { state: 'offline', reason: probeReasonOf(probed?.reason) ?? 'store_unreachable', ...(code === undefined ? {} : { code }), probed: true, ...gated };
  }

  /**
   * A host's status for listings. Runtime-gated hosts ask isRuntimeActive() first, every time: a
   * stopped runtime is offline without a probe (probing could wake it), and a runtime that came
   * back is probed afresh rather than left behind a cached `runtime_offline`.
   */
  async #status(record: HostRecord): Promise<HostStatus> {
    const key = this.#key(record);
    if (this.#gated(record)) {
      let port: ConnectorPort;
      try {
        port = await this.#platform.kinds.openPort(record);
      } catch (error) {
        return this.#liveness.note(key, { state: 'offline', probed: false, ...(isConnectorError(error) ? { code: error.code } : {}) });
      }
      const active = await this.#runtimeActive(port);
      if (active === false) return this.#liveness.note(key, { state: 'offline', reason: 'runtime_offline', runtimeActive: false, probed: false });
      if (this.#liveness.peek(key)?.reason === 'runtime_offline') this.#liveness.forget(key);
    }
    return this.#liveness.check(key, () => this.#probe(record), this.#probeWaitMs);
  }

  /** isRuntimeActive(), bounded; undefined when the connector does not answer it. */
  async #runtimeActive(port: ConnectorPort): Promise<boolean | undefined> {
    if (port.isRuntimeActive === undefined) return undefined;
    const answer = await within(Promise.resolve(port.isRuntimeActive()).catch(() => false), this.#probeTimeoutMs, false);
    return answer === true;
  }

  async #hostView(record: HostRecord, who: CheckedCaller): Promise<FsHost> {
    const metadata = this.#platform.loader.sourceKinds.get(record.kind);
    const status = await this.#status(record);
    return {
      network: record.network,
      slug: record.slug,
      address: formatAddress(createAddress({ network: record.network, host: record.slug, segments: [] })),
      kind: record.kind,
      label: record.label,
      description: record.description !== '' ? record.description : describeHolding({ kind: record.kind, label: metadata?.label }, rootNameOf(record.config), await this.#platform.store.catalog.countEntries(record.id)),
      origin: record.origin,
      ownership: record.ownership,
      ownerId: record.ownerId,
      category: metadata?.category ?? null,
      capabilities: metadata?.capabilities ?? [],
      rights: this.#access.rightsAtRoot(who, record),
      runtimeGated: metadata?.runtimeGated === true,
      status,
    };
  }

  #packages(network: string): PackageOverview[] {
    const overviews: PackageOverview[] = this.#platform.loader
      .listPackages()
      .filter((loaded) => loaded.projectId === undefined || loaded.projectId === network)
      .map((loaded) => {
        const connectors = loaded.manifest.connectors ?? [];
        return {
          packageId: loaded.packageId,
          ...(loaded.version === undefined ? {} : { version: loaded.version }),
          trust: loaded.trust,
          sourceKinds: connectors.flatMap((entry) =>
            entry.type === 'source' ? [{ kind: entry.kind, name: entry.name, ...(entry.category === undefined ? {} : { category: entry.category }), runtimeGated: entry.runtimeGated === true }] : [],
          ),
          mcp: connectors.flatMap((entry) =>
            entry.type === 'mcp' ? [{ id: entry.id, name: entry.name, transport: entry.transport, ...(entry.description === undefined ? {} : { description: entry.description }) }] : [],
          ),
          sources: (loaded.manifest.sources ?? []).map((declaration) => declaration.source),
          hosted: this.#platform.packageStates.enabled(loaded.packageId, network),
        };
      });
    const sandboxed = this.#platform.loader.sourceKinds.list().filter((metadata) => metadata.providerPackageId === SANDBOX_PACKAGE_ID);
    if (sandboxed.length > 0) {
      overviews.push({
        packageId: SANDBOX_PACKAGE_ID,
        trust: 'sandboxed',
        sourceKinds: sandboxed.map((metadata) => ({ kind: metadata.kind, name: metadata.label, ...(metadata.category === undefined ? {} : { category: metadata.category }), runtimeGated: metadata.runtimeGated })),
        mcp: [],
        sources: [],
        hosted: false,
      });
    }
    return overviews;
  }

  /* ------------------------------------------------------------------ exec and runs */

  /**
   * An execution caller compares the binding's provenance with the current authority: the port
   * must be one the loader checked and stamped for this very host (kind, source, provider,
   * project root), with the kind's entry features — otherwise its exec is not guarded.
   */
  #requireProvenance(port: ConnectorPort, record: HostRecord): void {
    const provenance = getConnectorBindingProvenance(port);
    const metadata = this.#platform.loader.sourceKinds.get(record.kind);
    const matches =
      provenance !== undefined &&
      metadata !== undefined &&
      provenance.kind === record.kind &&
      provenance.source === record.slug &&
      provenance.providerPackageId === metadata.providerPackageId &&
      provenance.projectRoot === resolve(this.#platform.paths.networkRoot(record.network)) &&
      provenance.execRequires.length > 0 &&
      provenance.execRequires.length === metadata.execRequires.length &&
      provenance.execRequires.every((feature) => metadata.execRequires.includes(feature));
    if (!matches) {
      throw new PermissionDeniedError(`Host "${record.slug}" is not bound through the package loader's exec guard for this network, so commands cannot run there.`, {
        details: { network: record.network, host: record.slug },
      });
    }
  }

  async #ownedRun(caller: Caller, runId: unknown): Promise<Dispatch & { readonly caller: CheckedCaller; readonly network: string; readonly host: string }> {
    const who = checkCaller(caller);
    if (typeof runId !== 'string' || runId === '' || runId.length > 256) {
      throw new InvalidArgumentError('runId must be the id startRun returned.', { details: { argument: 'runId' } });
    }
    const owner = await this.#platform.store.detachedRuns.get(runId);
    if (owner === null || owner.releasedAt !== null) throw new NotFoundError(`There is no detached run "${runId}" (it was never started, or it was released).`, { details: { runId } });
    if (!ownsRun(who, owner)) {
      throw new PermissionDeniedError(`Detached run "${runId}" was started by another caller; only its owner can read, stop or release it.`, { details: { runId } });
    }
    const record = await this.#platform.store.hosts.get({ network: owner.network, host: owner.host });
    if (record === null) throw new NotFoundError(`The host of detached run "${runId}" was removed.`, { details: { runId } });
    const port = await this.#platform.kinds.openPort(record);
    return { caller: who, port, capabilities: capabilitySet(port), network: owner.network, host: owner.host };
  }

  /* ------------------------------------------------------------------ helpers */

  #entry(target: Target, entry: ConnectorEntry): FsEntry | null {
    const place = this.#placeOf(target, entry);
    return place === null ? null : entryAt(place, entry);
  }

  /** Where an entry the port returned lies, or null when its URI is not one of the target's host. */
  #placeOf(target: Target, entry: ConnectorEntry): Place | null {
    let address: Address;
    try {
      address = addressFromSourceUri(entry.uri, { network: target.address.network });
    } catch {
      return null;
    }
    return address.host === target.address.host ? { global: formatAddress(address), host: address.host, path: address.path, segments: address.segments } : null;
  }

  #root(target: Target): FsEntry {
    return { address: target.global, host: target.address.host, path: target.address.path, name: target.address.segments[target.address.segments.length - 1] ?? '', type: 'directory' };
  }

  #readable(target: Target, entry: FsEntry): boolean {
    const segments = entry.path === '' ? [] : entry.path.split('/').map((segment) => decodeURIComponent(segment));
    return target.permissions.allows(segments, 'read');
  }

  /** Why the host Connector found nothing: a directory, or nothing at all. */
  async #missing(target: Target): Promise<Error> {
    if (target.address.segments.length === 0) return new IsADirectoryError(`${target.global} is a directory.`);
    const { port, capabilities } = await this.#dispatch(target);
    if (capabilities.has('stat')) {
      const entry = await guardedCall(port, capabilities, 'stat', target.uri).catch((error: unknown) => {
        if (hasErrorCode(error, 'not_found')) return null;
        throw error;
      });
      if (entry?.type === 'directory') return new IsADirectoryError(`${target.global} is a directory.`);
    }
    return new NotFoundError(`Nothing exists at ${target.global}.`);
  }
}

/** An entry's address as an answer names it. */
interface Place {
  readonly global: string;
  readonly host: string;
  readonly path: string;
  readonly segments: readonly string[];
}

/** Names the `A-Z a-z 0-9 - . _ ~` characters spell, which every address form writes as they are. */
const PLAIN_NAME = /^[A-Za-z0-9._~-]+$/;

/**
 * The place of a direct child of the target from its source URI, without parsing the URI and
 * rebuilding the address for each of a listing's entries (most of a listing's cost in the
 * service). Only a plain name (not `.` or `..`) right below the target's own URI is taken;
 * anything else answers undefined and goes the full way (#placeOf), so a port's odd or hostile
 * URI is judged by the address parser as before. The prefixes come from the address functions
 * themselves (a probe child), so this never spells an address differently from them.
 */
function childOf(target: Target): (uri: string) => Place | undefined {
  const probe = createAddress({ network: target.address.network, host: target.address.host, segments: [...target.address.segments, PROBE_NAME] });
  const uriPrefix = addressToSourceUri(probe).slice(0, -PROBE_NAME.length);
  const globalPrefix = formatAddress(probe).slice(0, -PROBE_NAME.length);
  const pathPrefix = probe.path.slice(0, -PROBE_NAME.length);
  const host = target.address.host;
  const parent = target.address.segments;
  return (uri) => {
    if (!uri.startsWith(uriPrefix)) return undefined;
    const name = uri.slice(uriPrefix.length);
    if (!PLAIN_NAME.test(name) || name === '.' || name === '..') return undefined;
    return new ChildPlace(globalPrefix + name, host, pathPrefix + name, parent, name);
  };
}

/** A direct child's place; its segments are built only if a permission check asks for them. */
class ChildPlace implements Place {
  constructor(
    readonly global: string,
    readonly host: string,
    readonly path: string,
    private readonly parent: readonly string[],
    private readonly name: string,
  ) {}

  get segments(): readonly string[] {
    return [...this.parent, this.name];
  }
}

const PROBE_NAME = 'x';

/** What a create-only write answers when its place is taken (see #drop). */
const DROP_TAKEN = ['already_exists', 'is_a_directory', 'not_a_directory', 'precondition_failed', 'containment_violation'] as const;

/** `name` with a random tag before its extension: `report.pdf` → `report~3f9c2a1b.pdf`. */
function uniqueName(name: string): string {
  const dot = name.lastIndexOf('.');
  const tag = `~${randomBytes(4).toString('hex')}`;
  return dot > 0 ? `${name.slice(0, dot)}${tag}${name.slice(dot)}` : `${name}${tag}`;
}

/** What a write may ask for, as copyWriteOptions copies it. */
interface WriteChoices {
  readonly ifMatch?: string;
  readonly createOnly?: boolean;
  readonly mime?: string;
}

/** The entry a host Connector's write answered, at the target it wrote. */
function fileAt(target: Target, entry: Entry): FsEntry {
  const built: { -readonly [K in keyof FsEntry]: FsEntry[K] } = {
    address: target.global,
    host: target.address.host,
    path: target.address.path,
    name: target.address.segments[target.address.segments.length - 1] ?? '',
    type: 'file',
  };
  if (entry.size !== undefined) built.size = entry.size;
  if (entry.mtime !== undefined) built.mtime = entry.mtime;
  if (entry.etag !== undefined) built.etag = entry.etag;
  if (entry.mime !== undefined) built.mime = entry.mime;
  return built;
}

// Assigned field by field: a listing builds one per entry, and object spreads cost several times more.
function entryAt(place: Place, entry: ConnectorEntry): FsEntry {
  const built: { -readonly [K in keyof FsEntry]: FsEntry[K] } = { address: place.global, host: place.host, path: place.path, name: entry.name, type: entry.type };
  if (entry.size !== undefined) built.size = entry.size;
  if (entry.mtime !== undefined) built.mtime = entry.mtime;
  if (entry.etag !== undefined) built.etag = entry.etag;
  if (entry.mime !== undefined) built.mime = entry.mime;
  return built;
}

/**
 * A port read as a window. A connector that ignored the range (it must not, but the service
 * does not trust it to) gets its answer cut to the range here.
 */
function windowOf(result: ConnectorReadResult, offset: number, length: number): Window {
  const binary = result.bytes !== undefined || result.omitted !== undefined;
  const common = { mime: result.mime, size: result.size, ...(result.etag === undefined ? {} : { etag: result.etag }), binary };
  const inlineCap = result.omitted === undefined ? {} : { inlineCap: result.omitted.cap };
  if (result.range !== undefined) {
    return { ...common, ...inlineCap, offset: result.range.offset, length: result.range.length, text: result.text, ...(result.bytes === undefined ? {} : { bytes: result.bytes }) };
  }
  if (binary && result.bytes === undefined) return { ...common, ...inlineCap, offset, length: 0, text: result.text };
  const whole = binary ? Buffer.from(result.bytes!, 'base64') : Buffer.from(result.text, 'utf8');
  const slice = whole.subarray(Math.min(offset, whole.length), Math.min(whole.length, offset + length));
  return binary ? { ...common, offset, length: slice.length, text: result.text, bytes: slice.toString('base64') } : { ...common, offset, length: slice.length, text: slice.toString('utf8') };
}

/**
 * The port's capabilities as a plain Set: the loader hands out a frozen ReadonlySet, which the
 * guard's array-or-Set check would read as an array.
 */
function capabilitySet(port: ConnectorPort): ReadonlySet<ConnectorCapability> {
  return new Set(port.capabilities());
}

function runView(owner: { readonly runId: string; readonly network: string; readonly host: string; readonly userId: string; readonly agentId: string | null; readonly createdAt: number }): FsRun {
  return { runId: owner.runId, network: owner.network, host: owner.host, userId: owner.userId, agentId: owner.agentId, createdAt: owner.createdAt };
}
