/**
 * ConnectorPort v4 of the vector kind: the index of its network, read as files (layout.ts), and
 * semantic queries over it (`query`, a member of this class, not of the port: the capability list
 * is closed and has no search; the platform calls it on the instance it bound).
 *
 * What it shows, and what never:
 * - An entry shows only when its own host's permission tree lets it be read (`VectorAccess`),
 *   checked on every listing, stat, read, walk and hit — the vector source never lists a path its
 *   host would hide. The vector source's own tree applies on top, as for any host.
 * - A record holds what was embedded and where its chunks are, never text (vector-index.ts).
 *   A file's JSON is ASCII only (non-ASCII escaped), so no byte range splits a character.
 * - A binding made without an index (the manifest's plain factory, outside the platform) answers
 *   `unavailable` and probes `store_unreachable`: there is no index to show.
 *
 * Errors: `invalid_uri` (see layout.ts), `not_found`, `not_a_directory`, `is_a_directory`,
 * `invalid_argument` (cursor, limit, detail, range), `unavailable`; `query` adds the embedder's
 * (embedder.ts). `resolveOsUri` always throws `os_uri_unresolvable`: an index record is no file.
 */
import {
  InvalidArgumentError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  OsUriUnresolvableError,
  UnavailableError,
  type ConnectorCapability,
  type ConnectorEntry,
  type ConnectorListPage,
  type ConnectorPort,
  type ConnectorPortVersion,
  type ConnectorReadResult,
  type ListOptions,
  type ProbeResult,
  type ReadOptions,
  type WalkOptions,
} from '@neuralis/package-system/contracts';
import { createHash } from 'node:crypto';
import { checkRange, listDetail, pageSize } from '@inseam/connector-fs';
import { isZeroVector, type Embedder } from './embedder.js';
import { decodeCursor, encodeCursor, hostUri, locate, pastFolder, pathUri, segmentName, type VectorLocation } from './layout.js';
import { VECTOR_CAPABILITIES } from './manifest.js';
import type { IndexedEntry, VectorAccess, VectorIndex } from './vector-index.js';

/** Hits a query returns at most. */
export const MAX_QUERY_HITS = 100;
/** The index is asked for at most this many chunks per query (its own bound). */
const MAX_INDEX_K = 1000;

export interface VectorPortOptions {
  readonly index?: VectorIndex;
  /** Required with `index`: the entries' own hosts' read rule. */
  readonly access?: VectorAccess;
  /** The network's embedder, or how to get it (made on first query). */
  readonly embedder?: Embedder | (() => Promise<Embedder>);
}

export interface SemanticQuery {
  readonly text: string;
  /** 1 … 100; default 10. */
  readonly k?: number;
  /** Only entries of these host slugs. */
  readonly hosts?: readonly string[];
  /** The caller's own rule, checked on each hit after the host's tree and before the k are cut. */
  readonly canRead?: (host: string, path: string) => boolean | Promise<boolean>;
  readonly signal?: AbortSignal;
}

export interface SemanticHit {
  readonly host: string;
  /** The entry's canonical path on its host. */
  readonly path: string;
  /** The record's address on this source. */
  readonly uri: string;
  /** `[start, end)` of the chunk in the entry's indexed text. */
  readonly span: { readonly start: number; readonly end: number };
  /** Cosine similarity, higher is better. */
  readonly score: number;
  readonly contentKey: string | null;
  readonly model: string;
}

const JSON_MIME = 'application/json';

export class VectorConnector implements ConnectorPort {
  readonly kind = 'vector';
  readonly source: string;
  // Pinned as a literal: importing the platform's constant would relabel this code on upgrade.
  readonly portVersion = 4 satisfies ConnectorPortVersion;
  readonly #index: VectorIndex | undefined;
  readonly #access: VectorAccess;
  readonly #embedder: (() => Promise<Embedder>) | undefined;
  #embedderPromise: Promise<Embedder> | undefined;

  constructor(source: string, options: VectorPortOptions = {}) {
    this.source = source;
    this.#index = options.index;
    if (options.index !== undefined && options.access === undefined) throw new TypeError('A vector port over an index needs the entries’ access rule.');
    this.#access = options.access ?? { readable: () => false };
    const embedder = options.embedder;
    this.#embedder = embedder === undefined ? undefined : typeof embedder === 'function' ? embedder : () => Promise.resolve(embedder);
  }

  capabilities(): ReadonlySet<ConnectorCapability> {
    return new Set(VECTOR_CAPABILITIES);
  }

  async list(uri: string, options: ListOptions = {}): Promise<ConnectorListPage> {
    const location = locate(uri, this.source);
    const limit = pageSize(options.limit);
    const detail = listDetail(options.detail);
    const index = this.#requireIndex();
    if (location.kind === 'root') return this.#listRoot(index, options.cursor, limit);
    const host = location.host;
    const folder = location.kind === 'host' ? '' : location.path;
    if (location.kind === 'path' && (await this.#readableEntry(index, host, folder)) !== null) throw new NotADirectoryError(`${uri} is an entry's record, not a folder.`);
    const prefix = folder === '' ? '' : `${folder}/`;
    const listing = folder === '' ? host : `${host}/${folder}`;
    let after = options.cursor === undefined ? undefined : decodeCursor(options.cursor, listing);
    const entries: ConnectorEntry[] = [];
    let lastName: string | undefined;
    let exhausted = false;
    while (entries.length < limit && !exhausted) {
      const paths = await index.paths(host, { prefix, ...(after === undefined ? {} : { after }), limit: limit - entries.length + 1 });
      exhausted = paths.length < limit - entries.length + 1;
      for (const path of paths) {
        if (entries.length === limit) {
          exhausted = false;
          break;
        }
        const rest = path.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash < 0) {
          after = path;
          if (!(await this.#access.readable(host, path))) continue;
          const entry = detail === 'full' ? await index.entry(host, path) : null;
          entries.push(detail === 'full' && entry !== null ? fileEntry(this.source, entry) : { uri: pathUri(this.source, host, path), name: segmentName(rest), type: 'file' });
          lastName = path;
        } else {
          const child = `${prefix}${rest.slice(0, slash)}`;
          after = pastFolder(child);
          // A folder shows when something in it may be read: most often its first path, checked already.
          if ((await this.#access.readable(host, path)) || (await this.#holdsReadable(index, host, child))) {
            entries.push({ uri: pathUri(this.source, host, child), name: segmentName(rest.slice(0, slash)), type: 'directory' });
            lastName = after;
          }
          // The folder's other paths are skipped by asking again after them.
          exhausted = false;
          break;
        }
      }
    }
    if (entries.length === 0 && location.kind === 'path' && options.cursor === undefined) {
      throw new NotFoundError(`Nothing is indexed under ${uri}.`);
    }
    if (entries.length === 0 && location.kind === 'host' && options.cursor === undefined && !(await index.hosts()).includes(host)) {
      throw new NotFoundError(`Nothing of host "${host}" is indexed.`);
    }
    return exhausted || lastName === undefined ? { entries } : { entries, cursor: encodeCursor(listing, lastName) };
  }

  async read(uri: string, options: ReadOptions = {}): Promise<ConnectorReadResult> {
    const location = locate(uri, this.source);
    const range = checkRange(options.range);
    const index = this.#requireIndex();
    if (location.kind !== 'path') {
      await this.#requireFolder(index, location, uri);
      throw new IsADirectoryError(`${uri} is a folder of the vector index.`);
    }
    const entry = await this.#readableEntry(index, location.host, location.path);
    if (entry === null) {
      await this.#requireFolder(index, location, uri);
      throw new IsADirectoryError(`${uri} is a folder of the vector index.`);
    }
    const bytes = Buffer.from(recordJson(entry), 'utf8');
    const etag = etagOf(entry);
    if (range === undefined) return { text: bytes.toString('utf8'), mime: JSON_MIME, size: bytes.byteLength, etag };
    const start = Math.min(range.offset, bytes.byteLength);
    const end = range.length === undefined ? bytes.byteLength : Math.min(bytes.byteLength, start + range.length);
    return { text: bytes.subarray(start, end).toString('utf8'), mime: JSON_MIME, size: bytes.byteLength, etag, range: { offset: start, length: end - start } };
  }

  async stat(uri: string): Promise<ConnectorEntry> {
    const location = locate(uri, this.source);
    const index = this.#requireIndex();
    if (location.kind === 'root') return { uri: `${this.source}://`, name: '', type: 'directory' };
    if (location.kind === 'path') {
      const entry = await this.#readableEntry(index, location.host, location.path);
      if (entry !== null) return fileEntry(this.source, entry);
    }
    await this.#requireFolder(index, location, uri);
    return location.kind === 'host'
      ? { uri: hostUri(this.source, location.host), name: location.host, type: 'directory' }
      : { uri: pathUri(this.source, location.host, location.path), name: segmentName(location.path.slice(location.path.lastIndexOf('/') + 1)), type: 'directory' };
  }

  async *walk(uri: string, options: WalkOptions = {}): AsyncIterable<ConnectorEntry> {
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    if (!(maxDepth >= 1)) throw new InvalidArgumentError('maxDepth must be 1 or more.', { details: { argument: 'maxDepth' } });
    const stack: { uri: string; depth: number }[] = [{ uri, depth: 0 }];
    const root = await this.stat(uri);
    if (root.type !== 'directory') throw new NotADirectoryError(`${uri} is an entry's record, not a folder.`);
    while (stack.length > 0) {
      const { uri: folder, depth } = stack.pop()!;
      const children: ConnectorEntry[] = [];
      let cursor: string | undefined;
      do {
        if (options.signal?.aborted === true) throw new UnavailableError('The walk was aborted.', { details: { reason: 'aborted' } });
        const page = await this.list(folder, cursor === undefined ? {} : { cursor });
        children.push(...page.entries);
        cursor = page.cursor;
      } while (cursor !== undefined);
      // Depth first in listing order: children are yielded in order, folders walked as they come.
      const folders: { uri: string; depth: number }[] = [];
      for (const child of children) {
        yield child;
        if (child.type === 'directory' && depth + 1 < maxDepth) folders.push({ uri: child.uri, depth: depth + 1 });
      }
      stack.push(...folders.reverse());
    }
  }

  async probeConnection(): Promise<ProbeResult> {
    return this.#index === undefined ? { connected: false, reason: 'store_unreachable', code: 'unavailable' } : { connected: true };
  }

  async resolveOsUri(uri: string): Promise<string> {
    locate(uri, this.source);
    throw new OsUriUnresolvableError('The vector index keeps records in the database, not as files; use the entry’s own address on its host.');
  }

  /**
   * The chunks nearest in meaning to `text`, best first: the embedder's vector for the text, the
   * index's nearest chunks of its model, each kept only when its entry may be read on its host
   * and by `canRead` — checked before the k are cut, asking the index for more when too many were
   * refused. A text with no word the model knows has no hits. Throws `invalid_argument` for a k
   * out of 1…100 or a text that is not a string, `unavailable` without an index or embedder, and
   * what the embedder and the index throw.
   */
  async query(request: SemanticQuery): Promise<SemanticHit[]> {
    const index = this.#requireIndex();
    const k = request.k ?? 10;
    if (!Number.isInteger(k) || k < 1 || k > MAX_QUERY_HITS) throw new InvalidArgumentError(`k must be a whole number from 1 to ${MAX_QUERY_HITS}.`, { details: { argument: 'k' } });
    if (typeof request.text !== 'string') throw new InvalidArgumentError('The query text must be a string.', { details: { argument: 'text' } });
    const embedder = await this.#requireEmbedder();
    const [vector] = await embedder.embed([request.text], request.signal === undefined ? {} : { signal: request.signal });
    if (vector === undefined || isZeroVector(vector)) return [];
    const accepted: SemanticHit[] = [];
    for (let fetch = Math.min(MAX_INDEX_K, k * 4); ; fetch = Math.min(MAX_INDEX_K, fetch * 4)) {
      const hits = await index.search({ model: embedder.model, vector, k: fetch, ...(request.hosts === undefined ? {} : { hosts: request.hosts }) });
      accepted.length = 0;
      for (const hit of hits) {
        if (!(await this.#access.readable(hit.host, hit.path))) continue;
        if (request.canRead !== undefined && (await request.canRead(hit.host, hit.path)) !== true) continue;
        accepted.push({ host: hit.host, path: hit.path, uri: pathUri(this.source, hit.host, hit.path), span: hit.span, score: hit.score, contentKey: hit.contentKey, model: embedder.model });
        if (accepted.length === k) return accepted;
      }
      if (hits.length < fetch || fetch === MAX_INDEX_K) return accepted;
    }
  }

  #requireIndex(): VectorIndex {
    if (this.#index === undefined) {
      throw new UnavailableError('This vector source is not attached to an index; it works only as the vector host of an inseam network.', { details: { reason: 'no_index' } });
    }
    return this.#index;
  }

  #requireEmbedder(): Promise<Embedder> {
    if (this.#embedder === undefined) return Promise.reject(new UnavailableError('This vector source has no embedder to turn a query into a vector.', { details: { reason: 'no_embedder' } }));
    this.#embedderPromise ??= this.#embedder();
    // A failed start (say the wink table could not be converted) is tried again on the next query.
    this.#embedderPromise.catch(() => (this.#embedderPromise = undefined));
    return this.#embedderPromise;
  }

  /** The entry's records when it exists and may be read on its host; null otherwise. */
  async #readableEntry(index: VectorIndex, host: string, path: string): Promise<IndexedEntry | null> {
    if (!(await this.#access.readable(host, path))) return null;
    return index.entry(host, path);
  }

  /** Throws `not_found` unless the location is the root, a host with records, or a folder above a readable record. */
  async #requireFolder(index: VectorIndex, location: VectorLocation, uri: string): Promise<void> {
    if (location.kind === 'root') return;
    if (location.kind === 'host') {
      if ((await index.hosts()).includes(location.host)) return;
      throw new NotFoundError(`Nothing of host "${location.host}" is indexed.`);
    }
    if (!(await this.#holdsReadable(index, location.host, location.path))) throw new NotFoundError(`Nothing is indexed at ${uri}.`);
  }

  /** Whether some record under `folder` of `host` may be read. */
  async #holdsReadable(index: VectorIndex, host: string, folder: string): Promise<boolean> {
    for (let after: string | undefined; ; ) {
      const paths = await index.paths(host, { prefix: `${folder}/`, ...(after === undefined ? {} : { after }), limit: 100 });
      for (const path of paths) if (await this.#access.readable(host, path)) return true;
      if (paths.length < 100) return false;
      after = paths[paths.length - 1];
    }
  }

  async #listRoot(index: VectorIndex, cursor: string | undefined, limit: number): Promise<ConnectorListPage> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor, '');
    const hosts = (await index.hosts()).filter((host) => after === undefined || host > after);
    const page = hosts.slice(0, limit).map((host): ConnectorEntry => ({ uri: hostUri(this.source, host), name: host, type: 'directory' }));
    return hosts.length > limit ? { entries: page, cursor: encodeCursor('', page[page.length - 1]!.name) } : { entries: page };
  }
}

/** The record file of an entry, as list and stat report it. */
function fileEntry(source: string, entry: IndexedEntry): ConnectorEntry {
  const updated = Math.max(...entry.records.map((record) => record.updatedAt));
  return {
    uri: pathUri(source, entry.host, entry.path),
    name: segmentName(entry.path.slice(entry.path.lastIndexOf('/') + 1)),
    type: 'file',
    size: Buffer.byteLength(recordJson(entry)),
    mtime: new Date(updated).toISOString(),
    etag: etagOf(entry),
    mime: JSON_MIME,
  };
}

/** The JSON of an entry's records, ASCII only. */
export function recordJson(entry: IndexedEntry): string {
  const body = {
    host: entry.host,
    path: entry.path,
    records: entry.records.map((record) => ({
      model: record.model,
      state: record.state,
      contentKey: record.contentKey,
      indexedAt: record.indexedAt === null ? null : new Date(record.indexedAt).toISOString(),
      updatedAt: new Date(record.updatedAt).toISOString(),
      attempts: record.attempts,
      error: record.error,
      chunks: record.chunks.map((chunk) => [chunk.start, chunk.end]),
    })),
  };
  return `${JSON.stringify(body, null, 2).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/** Equal etags, equal record files. */
function etagOf(entry: IndexedEntry): string {
  return `"${createHash('sha256').update(recordJson(entry)).digest('base64url').slice(0, 22)}"`;
}
