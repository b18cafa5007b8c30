/**
 * The host `Connector` (what the crawler, the trial and downloads drive) over a ConnectorPort v4:
 * how a kind from a trusted in-process package becomes a host without code of its own.
 *
 * - describe(): built from the kind's declared capabilities, without touching the port (so adding
 *   a host of a runtime-gated kind never starts its runtime). Auth is `none` with no origins: the
 *   port runs in-process and trusted, so no gate stands between it and its store. Dimensions are
 *   those of a folder (path, size, mtime as the ordering, mime); listing is `free`.
 * - Paths: an entry's path is its port URI without `{source}://`, canonical as the port spells it.
 *   A host path becomes the port URI `{source}://{path}`, so a bad path fails the port's own
 *   check (`invalid_uri`).
 * - list(): files only, depth first over the port's directory listings (folders are implied by
 *   paths, never entries). The cursor encodes a stack of `{ folder, port cursor, offset }` frames,
 *   one per level being walked (and the name of the last entry walked, so a page listed again
 *   resumes after it even when entries before it came or went), so it round-trips across
 *   processes and its size grows with the depth of the tree, never with its size; the port pages
 *   of the open frames are all that is held in memory. An entry a port lists outside the folder it
 *   was asked about is left out (a broken or hostile port cannot make the walk loop). `prefix` is a
 *   string prefix of the path; `since` is ignored (the contract lets a host list older entries
 *   too; the crawler filters them); `order: "newest"` is refused with `unsupported`, since a port
 *   lists in its own order and sorting a whole listing to fake it is what the host contract
 *   forbids. A folder that vanishes mid-walk ends its part of the listing; one page makes at most
 *   `listCalls` port calls, so a run of empty folders gives a short (even empty) page with a
 *   cursor rather than one long call.
 * - stat(): port.stat, or without the `stat` capability a scan of the parent folder's listing.
 *   Null for no object, a folder, or a path through a file.
 * - read(): one port.read (a `range` [start, end) becomes `{ offset, length }`), streamed as bytes:
 *   text as UTF-8, `bytes` decoded from base64. A result whose bytes were left out over the
 *   connector's inline cap is `too_large` naming the cap; a text that cannot be the stored bytes
 *   (its UTF-8 length differs from the size read — a marker for a binary type) is
 *   `unsupported_file_type`; a range that splits a character of a text object (the port returns
 *   text, so those bytes cannot be had) is `invalid_argument`. A whole text object over the port's
 *   text cap stays the port's `too_large`: read it in ranges.
 * - write()/delete(): port.write with `ifMatch`, port.delete (a folder is `is_a_directory` when the
 *   port can stat); without the capability, `unsupported`.
 * Errors from the port keep their codes.
 */
import { createHash } from 'node:crypto';
import type { Connector, Description, Entry, HostCapability, HostListOptions, HostListPage, HostReadOptions } from '@inseam/connector';
import {
  collectCapped,
  ConnectorFailedError,
  InvalidArgumentError,
  IsADirectoryError,
  TooLargeError,
  UnsupportedFileTypeError,
  UnsupportedOperationError,
  hasErrorCode,
  type ConnectorCapability,
  type ConnectorEntry,
  type ConnectorPort,
  type ConnectorReadResult,
} from '@neuralis/package-system/contracts';

/** Files a list() page holds at most. */
export const PORT_HOST_PAGE_SIZE = 1000;
/** Port list calls one list() page makes at most. */
export const PORT_HOST_LIST_CALLS = 64;
/** The host contract's bound on a cursor's length. */
const MAX_CURSOR_LENGTH = 4096;
const STREAM_CHUNK = 64 * 1024;

/** What a PortHost needs to know of the port it drives. */
export interface PortHostBinding {
  readonly kind: string;
  /** The bound source slug: the scheme of the port's URIs. */
  readonly source: string;
  /** The kind's declared capabilities (what the port's capabilities() returns). */
  readonly capabilities: Iterable<ConnectorCapability>;
  /**
   * The port to call, asked for before every operation, so a port bound again (a package swap, a
   * failed bind retried) is picked up; its errors are the operation's errors.
   */
  port(): ConnectorPort | Promise<ConnectorPort>;
}

export interface PortHostOptions {
  /** Files per list() page. Default PORT_HOST_PAGE_SIZE. */
  readonly pageSize?: number;
  /** Port list calls per list() page. Default PORT_HOST_LIST_CALLS. */
  readonly listCalls?: number;
}

/** The description of a host over a port of `kind` with these capabilities (see the module comment). */
export function describePortHost(kind: string, capabilities: Iterable<ConnectorCapability>): Description {
  const offered = new Set(capabilities);
  const write = offered.has('write');
  // The host contract claims delete only beside write (writes.delete), so a port that deletes but
  // cannot write is described read-only.
  const remove = write && offered.has('delete');
  const claimed: HostCapability[] = ['list'];
  if (offered.has('stat')) claimed.push('stat');
  claimed.push('read');
  if (write) claimed.push('write');
  if (remove) claimed.push('delete');
  return {
    kind,
    capabilities: claimed,
    auth: { acquire: { type: 'none' }, present: [], origins: [] },
    dimensions: {
      path: { type: 'path', from: 'path', description: 'The object path on the host, percent-encoded per segment.' },
      size: { type: 'bytes', from: 'size', description: 'Object size in bytes.' },
      mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'Last modification time of the object.' },
      mime: { type: 'string', from: 'mime', description: 'MIME type, as the connector reports it.' },
    },
    listing: 'free',
    ...(write ? { writes: { mimes: '*' as const, create: true, replace: true, delete: remove } } : {}),
  };
}

/** One level of the walk. `page` and `next` live only during a call; the cursor keeps the rest. */
interface Frame {
  /** The folder's path ('' for the root). */
  readonly folder: string;
  /** The folder's last segment as its path spells it ('' for the first frame). */
  readonly name: string;
  /** The port cursor the current page was listed with (absent: the folder's first page). */
  cursor: string | undefined;
  /** Entries of the current page already walked. */
  offset: number;
  /**
   * For a frame resumed from a cursor: the name of the last entry walked, so that when its page is
   * listed again the walk goes on after that entry even if entries before it came or went.
   */
  after?: string | undefined;
  page?: readonly ConnectorEntry[];
  next?: string | undefined;
}

/**
 * A frame as the cursor stores it: [name, port cursor or 0, offset], and for the innermost frame
 * the name of the last entry walked (an outer frame's is the name of the frame inside it).
 */
type StoredFrame = [string, string | 0, number] | [string, string | 0, number, string];

interface StoredCursor {
  /** A digest of the prefix, so a cursor is used only for the listing it came from. */
  readonly p: string;
  /** The `limit` the port pages were listed with: a frame's offset counts entries of such a page. */
  readonly l: number;
  readonly f: readonly StoredFrame[];
}

export class PortHost implements Connector {
  readonly #binding: PortHostBinding;
  readonly #capabilities: ReadonlySet<ConnectorCapability>;
  readonly #pageSize: number;
  readonly #listCalls: number;

  /** Throws `invalid_argument` for a page size or call budget that is not a whole number of at least 1. */
  constructor(binding: PortHostBinding, options: PortHostOptions = {}) {
    this.#binding = binding;
    this.#capabilities = new Set(binding.capabilities);
    this.#pageSize = positive(options.pageSize ?? PORT_HOST_PAGE_SIZE, 'pageSize');
    this.#listCalls = positive(options.listCalls ?? PORT_HOST_LIST_CALLS, 'listCalls');
  }

  /** A host over one port, described by what the port itself reports. */
  static over(port: ConnectorPort, options: PortHostOptions = {}): PortHost {
    return new PortHost({ kind: port.kind, source: port.source, capabilities: port.capabilities(), port: () => port }, options);
  }

  describe(): Description {
    return describePortHost(this.#binding.kind, this.#capabilities);
  }

  /**
   * One page of files (see the module comment). Throws `invalid_argument` for a malformed option or
   * a cursor not issued for this listing, `unsupported` for `order`, and what the port's list throws
   * (a missing host root stays `not_found`; a prefix naming no folder lists nothing).
   */
  async list(options: HostListOptions = {}): Promise<HostListPage> {
    const prefix = options.prefix ?? '';
    if (typeof prefix !== 'string') throw new InvalidArgumentError('prefix must be a string.', { details: { argument: 'prefix' } });
    if (options.since !== undefined && typeof options.since !== 'string') throw new InvalidArgumentError('since must be a string.', { details: { argument: 'since' } });
    if (options.order !== undefined) {
      if (options.order !== 'newest') throw new InvalidArgumentError('order must be "newest" or left out.', { details: { argument: 'order' } });
      throw new UnsupportedOperationError(this.#binding.kind, 'list', 'order');
    }
    const start = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const resumed = options.cursor === undefined ? undefined : decodeCursor(options.cursor, prefix, start);
    const stack: Frame[] = resumed?.frames ?? [{ folder: start, name: '', cursor: undefined, offset: 0 }];
    const limit = resumed?.limit ?? this.#pageSize;
    const port = await this.#binding.port();
    const entries: Entry[] = [];
    let calls = 0;
    while (stack.length > 0 && entries.length < this.#pageSize) {
      const frame = stack[stack.length - 1]!;
      if (frame.page === undefined) {
        if (calls >= this.#listCalls) break;
        calls += 1;
        try {
          const listed = await port.list(this.#uri(frame.folder), { ...(frame.cursor === undefined ? {} : { cursor: frame.cursor }), limit });
          frame.page = listed.entries;
          frame.next = listed.cursor;
          if (frame.after !== undefined) frame.offset = this.#resumeAt(frame.page, frame.folder, frame.after, frame.offset);
          delete frame.after;
        } catch (error) {
          // A folder gone since it was listed, or a prefix naming no folder, holds nothing; the root's failure is the host's.
          if (frame.folder !== '' && (hasErrorCode(error, 'not_found') || hasErrorCode(error, 'not_a_directory'))) {
            stack.pop();
            continue;
          }
          throw error;
        }
      }
      const page = frame.page;
      if (frame.offset >= page.length) {
        if (frame.next === undefined) {
          stack.pop();
          continue;
        }
        frame.cursor = frame.next;
        frame.offset = 0;
        delete frame.page;
        delete frame.next;
        continue;
      }
      const item = page[frame.offset]!;
      frame.offset += 1;
      const name = this.#childName(item, frame.folder);
      if (name === undefined) continue;
      const path = frame.folder === '' ? name : `${frame.folder}/${name}`;
      if (item.type === 'directory') {
        if (`${path}/`.startsWith(prefix)) stack.push({ folder: path, name, cursor: undefined, offset: 0 });
      } else if (item.type === 'file' && path.startsWith(prefix)) {
        entries.push(toEntry(item, path));
      }
    }
    if (stack.length === 0) return { entries };
    return { entries, cursor: this.#encodeCursor(prefix, limit, stack) };
  }

  /** The object's entry; null when nothing, a folder, or a path through a file is there. Throws what the port throws otherwise. */
  async stat(path: string): Promise<Entry | null> {
    const uri = this.#uri(checkPath(path));
    const port = await this.#binding.port();
    if (port.stat === undefined || !this.#capabilities.has('stat')) return this.#statByListing(port, path);
    let found: ConnectorEntry;
    try {
      found = await port.stat(uri);
    } catch (error) {
      if (hasErrorCode(error, 'not_found') || hasErrorCode(error, 'not_a_directory')) return null;
      throw error;
    }
    return found.type === 'file' ? toEntry(found, this.#pathOf(found.uri) ?? path) : null;
  }

  /**
   * The object's bytes (or `range` [start, end) of them, clipped to the object). Throws
   * `invalid_argument` for a bad range (or one splitting a character of a text object),
   * `too_large` (over the connector's inline cap, or a whole text over its text cap),
   * `unsupported_file_type` (the connector returns no bytes for the type), and what the port's
   * read throws (`not_found`, `is_a_directory`, …).
   */
  async read(path: string, options: HostReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const uri = this.#uri(checkPath(path));
    const range = checkRange(options.range);
    const port = await this.#binding.port();
    const result = await port.read(uri, range === undefined ? {} : { range: { offset: range[0], length: range[1] - range[0] } });
    return byteStream(this.#bytesOf(result, range));
  }

  /** Throws `unsupported` without the write capability, `invalid_argument` for a body that is not a byte stream, and what port.write throws. */
  async write(path: string, body: ReadableStream<Uint8Array>, options: { readonly ifMatch?: string } = {}): Promise<Entry> {
    const uri = this.#uri(checkPath(path));
    const port = await this.#binding.port();
    if (port.write === undefined || !this.#capabilities.has('write')) throw new UnsupportedOperationError(this.#binding.kind, 'write');
    const content = await collectWriteBody(body);
    const written = await port.write(uri, content, options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
    return toEntry(written, this.#pathOf(written.uri) ?? path);
  }

  /** Throws `unsupported` without the delete capability, `is_a_directory` for a folder (when the port can stat), and what port.delete throws. */
  async delete(path: string): Promise<void> {
    const uri = this.#uri(checkPath(path));
    const port = await this.#binding.port();
    if (port.delete === undefined || !this.#capabilities.has('delete')) throw new UnsupportedOperationError(this.#binding.kind, 'delete');
    if (port.stat !== undefined && this.#capabilities.has('stat') && (await port.stat(uri)).type === 'directory') {
      throw new IsADirectoryError('That path is a folder; the host deletes objects only.');
    }
    await port.delete(uri);
  }

  #uri(path: string): string {
    return `${this.#binding.source}://${path}`;
  }

  /** The path of a port URI on this source, or undefined for one on another. */
  #pathOf(uri: string): string | undefined {
    const scheme = `${this.#binding.source}://`;
    return typeof uri === 'string' && uri.startsWith(scheme) ? uri.slice(scheme.length) : undefined;
  }

  /** The last segment of an entry listed in `folder`, or undefined when the entry is not directly in it. */
  #childName(item: ConnectorEntry, folder: string): string | undefined {
    const path = this.#pathOf(item?.uri);
    if (path === undefined) return undefined;
    const name = folder === '' ? path : path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : '';
    return name === '' || name.includes('/') ? undefined : name;
  }

  /** stat for a port without it: the file's entry in its parent folder's listing. */
  async #statByListing(port: ConnectorPort, path: string): Promise<Entry | null> {
    const slash = path.lastIndexOf('/');
    const folder = slash < 0 ? '' : path.slice(0, slash);
    if (path === '' || path.endsWith('/')) return null;
    let cursor: string | undefined;
    do {
      let listed;
      try {
        listed = await port.list(this.#uri(folder), { ...(cursor === undefined ? {} : { cursor }), limit: this.#pageSize });
      } catch (error) {
        if (hasErrorCode(error, 'not_found') || hasErrorCode(error, 'not_a_directory')) return null;
        throw error;
      }
      const found = listed.entries.find((item) => this.#pathOf(item?.uri) === path);
      if (found !== undefined) return found.type === 'file' ? toEntry(found, path) : null;
      cursor = listed.cursor;
    } while (cursor !== undefined);
    return null;
  }

  #bytesOf(result: ConnectorReadResult, range: readonly [number, number] | undefined): Uint8Array {
    const { kind } = this.#binding;
    if (result.omitted !== undefined) {
      const cap = result.omitted.cap;
      throw new TooLargeError(`The ${result.mime} object is over the ${cap}-byte inline cap of connector kind "${kind}"; read it in ranges of at most ${cap} bytes.`, {
        details: { cap, size: result.size },
      });
    }
    if (result.bytes !== undefined) return new Uint8Array(Buffer.from(result.bytes, 'base64'));
    const bytes = new TextEncoder().encode(result.text);
    const expected = result.range?.length ?? (range === undefined ? result.size : Math.max(0, Math.min(result.size, range[1]) - Math.min(result.size, range[0])));
    if (bytes.byteLength !== expected) {
      if (range !== undefined && (result.text.startsWith('\uFFFD') || result.text.endsWith('\uFFFD'))) {
        throw new InvalidArgumentError(
          `The range [${range[0]}, ${range[1]}) splits a character: connector kind "${kind}" returns this ${result.mime} object as text, not bytes, so a range must start and end on character boundaries.`,
          { details: { argument: 'range' } },
        );
      }
      throw new UnsupportedFileTypeError(`Connector kind "${kind}" returns ${result.mime} objects as a description, not their bytes; they cannot be read through the host.`, {
        details: { kind, mime: result.mime },
      });
    }
    return bytes;
  }

  /**
   * Where the walk of a page listed again goes on: after the entry named `after`; when that entry
   * is gone, where it would sort in a page ordered by name; else at the offset walked before.
   */
  #resumeAt(page: readonly ConnectorEntry[], folder: string, after: string, offset: number): number {
    const index = page.findIndex((item) => this.#childName(item, folder) === after);
    if (index >= 0) return index + 1;
    const names = page.map((item) => item?.name);
    const ordered = names.every((name, at): name is string => typeof name === 'string' && (at === 0 || (names[at - 1] as string) < name));
    const gone = decodedSegment(after);
    if (ordered && gone !== undefined) {
      const next = names.findIndex((name) => (name) > gone);
      return next < 0 ? page.length : next;
    }
    return Math.min(offset, page.length);
  }

  #encodeCursor(prefix: string, limit: number, stack: readonly Frame[]): string {
    const frames = stack.map((frame, index): StoredFrame => {
      const stored: StoredFrame = [frame.name, frame.cursor ?? 0, frame.offset];
      if (index < stack.length - 1 || frame.offset === 0) return stored;
      const last = frame.page === undefined ? frame.after : this.#childName(frame.page[frame.offset - 1]!, frame.folder);
      return last === undefined ? stored : [...stored, last];
    });
    const stored: StoredCursor = { p: prefixDigest(prefix), l: limit, f: frames };
    const cursor = Buffer.from(JSON.stringify(stored), 'utf8').toString('base64url');
    if (cursor.length > MAX_CURSOR_LENGTH) {
      throw new ConnectorFailedError(
        `The folders of host "${this.#binding.source}" nest too deep (or connector kind "${this.#binding.kind}" issues cursors too long) to page through with a cursor of at most ${MAX_CURSOR_LENGTH} characters.`,
        { details: { kind: this.#binding.kind, reason: 'cursor_too_long' } },
      );
    }
    return cursor;
  }
}

function decodeCursor(text: unknown, prefix: string, start: string): { readonly frames: Frame[]; readonly limit: number } {
  const refuse = (): never => {
    throw new InvalidArgumentError('The cursor was not issued for this listing; list again without a cursor.', { details: { argument: 'cursor' } });
  };
  if (typeof text !== 'string' || text === '' || text.length > MAX_CURSOR_LENGTH) return refuse();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return refuse();
  }
  const stored = parsed as Partial<StoredCursor> | null;
  if (typeof stored !== 'object' || stored === null || stored.p !== prefixDigest(prefix) || !Array.isArray(stored.f) || stored.f.length === 0) return refuse();
  if (!Number.isSafeInteger(stored.l) || (stored.l as number) < 1) return refuse();
  const frames: Frame[] = [];
  const segment = (value: unknown): value is string => typeof value === 'string' && value !== '' && !value.includes('/');
  for (const [index, value] of stored.f.entries()) {
    const innermost = index === stored.f.length - 1;
    if (!Array.isArray(value) || !(value.length === 3 || (innermost && value.length === 4))) return refuse();
    const [name, cursor, offset, last] = value as unknown[];
    const validName = index === 0 ? name === '' : segment(name);
    if (!validName || !(cursor === 0 || (typeof cursor === 'string' && cursor !== '')) || !Number.isSafeInteger(offset) || (offset as number) < 0) return refuse();
    if (last !== undefined && !segment(last)) return refuse();
    const parent = frames[frames.length - 1];
    const folder = parent === undefined ? start : parent.folder === '' ? (name as string) : `${parent.folder}/${name as string}`;
    // An outer frame was left at the folder the next frame walks.
    if (parent !== undefined) parent.after = name as string;
    frames.push({ folder, name: name as string, cursor: cursor === 0 ? undefined : (cursor), offset: offset as number, after: last });
  }
  return { frames, limit: stored.l as number };
}

function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function prefixDigest(prefix: string): string {
  return createHash('sha256').update(prefix).digest('base64url').slice(0, 12);
}

function toEntry(item: ConnectorEntry, path: string): Entry {
  return {
    path,
    ...(item.size === undefined ? {} : { size: item.size }),
    ...(item.mtime === undefined ? {} : { mtime: item.mtime }),
    ...(item.etag === undefined ? {} : { etag: item.etag }),
    ...(item.mime === undefined ? {} : { mime: item.mime }),
  };
}

function checkPath(path: unknown): string {
  if (typeof path !== 'string') throw new InvalidArgumentError('path must be a string.', { details: { argument: 'path' } });
  return path;
}

function checkRange(range: unknown): readonly [number, number] | undefined {
  if (range === undefined) return undefined;
  const [start, end] = Array.isArray(range) && range.length === 2 ? (range as unknown[]) : [Number.NaN, Number.NaN];
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || (start as number) < 0 || (end as number) < (start as number)) {
    throw new InvalidArgumentError('range must be [start, end) with whole numbers 0 <= start <= end.', { details: { argument: 'range' } });
  }
  return [start as number, end as number];
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1.`, { details: { argument: name } });
  return value;
}

function byteStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + STREAM_CHUNK));
      offset += STREAM_CHUNK;
    },
  });
}

function collectWriteBody(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const notBytes = (): Error => new InvalidArgumentError('The write body must be a stream of Uint8Array chunks.', { details: { argument: 'body' } });
  if (typeof (body as Partial<ReadableStream<Uint8Array>> | null)?.getReader !== 'function') return Promise.reject(notBytes());
  return collectCapped(body, { maxBytes: Number.POSITIVE_INFINITY, tooLarge: notBytes, notBytes });
}
