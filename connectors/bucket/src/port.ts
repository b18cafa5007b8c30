/**
 * The bucket kind as a ConnectorPort (v4). A bucket is flat, so folders are views: a folder
 * exists while at least one key starts with its path plus '/'. It follows that
 * - an object `a` and a folder `a` can both exist (S3 allows it, and the host face shows such
 *   data as it is); a listing then shows `a` twice, once as a file and once as a directory, and
 *   `stat`/`read` address the object. This port does not create that state itself: `write`
 *   refuses an address that is a folder (`is_a_directory`) or lies below an object
 *   (`not_a_directory`);
 * - parents never need creating, and deleting the last object in a folder removes the folder.
 * Keys that cannot be a canonical URI (empty, `.` or `..` segments) are not listed or walked, and
 * a URI segment that decodes to a '/' is refused (`invalid_uri`): '/' only ever separates segments.
 */
import {
  formatSourceUri,
  InvalidArgumentError,
  InvalidUriError,
  IsADirectoryError,
  isConnectorError,
  NotADirectoryError,
  NotFoundError,
  OsUriUnresolvableError,
  parseSourceUri,
  PermissionDeniedError,
  PreconditionFailedError,
} from '@neuralis/package-system/contracts';
import type {
  ConnectorCapability,
  ConnectorEntry,
  ConnectorListPage,
  ConnectorPort,
  ConnectorPortVersion,
  ConnectorReadResult,
  ContentChunk,
  DeleteOptions,
  ListOptions,
  ProbeResult,
  ReadOptions,
  ScanContentOptions,
  WalkOptions,
  WriteOptions,
} from '@neuralis/package-system/contracts';
import { collectBytes, discard } from './body.js';
import type { ReadCaps } from './config.js';
import { unwrapCursor, wrapCursor } from './cursor.js';
import { baseName, checkObjectPath } from './keys.js';
import { readClassOf } from './mime.js';
import { looksLikeText, readResultOf } from './read-result.js';
import type { ListItem, ObjectInfo, ObjectStore } from './store.js';

export const BUCKET_PORT_CAPABILITIES = ['list', 'read', 'write', 'walk', 'scanContent', 'stat', 'delete'] as const satisfies readonly ConnectorCapability[];

const DEFAULT_PAGE = 1000;

export class BucketPort implements ConnectorPort {
  readonly kind = 'bucket';
  readonly portVersion = 4 satisfies ConnectorPortVersion;

  constructor(
    readonly source: string,
    private readonly store: ObjectStore,
    private readonly caps: ReadCaps,
    /** The configured key prefix, for the key-length check. */
    private readonly keyPrefix: string,
  ) {}

  capabilities(): ReadonlySet<ConnectorCapability> {
    return new Set(BUCKET_PORT_CAPABILITIES);
  }

  async list(uri: string, options: ListOptions = {}): Promise<ConnectorListPage> {
    const key = this.keyOf(uri);
    const limit = pageLimit(options.limit);
    const prefix = key === '' ? '' : `${key}/`;
    const listing = `port:${prefix}`;
    const cursor = options.cursor === undefined ? undefined : unwrapCursor(options.cursor, listing);
    const page = await this.store.list({ prefix, folders: true, limit, ...(cursor === undefined ? {} : { cursor }) });
    if (key !== '' && cursor === undefined && page.items.length === 0 && page.cursor === undefined) {
      await this.requireFolder(key);
    }
    const entries = page.items.map((item) => this.entryOfItem(item));
    return page.cursor === undefined ? { entries } : { entries, cursor: wrapCursor(listing, page.cursor) };
  }

  async read(uri: string, options: ReadOptions = {}): Promise<ConnectorReadResult> {
    const key = this.keyOf(uri);
    if (key === '') throw new IsADirectoryError('The root of a bucket is a folder; list it instead.');
    const window = windowOf(options);
    if (window !== undefined && window.end === window.start) {
      const info = await this.store.head(key);
      if (info === null) throw await this.missingObject(key);
      return { text: '', mime: info.mime, size: info.size, etag: info.etag, range: { offset: window.start, length: 0 } };
    }
    let got;
    try {
      got = await this.store.get(key, window);
    } catch (error) {
      if (isConnectorError(error) && error.code === 'not_found' && error.details['field'] === undefined) throw await this.missingObject(key);
      throw error;
    }
    return readResultOf(got, this.caps);
  }

  async write(uri: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<ConnectorEntry> {
    const key = this.keyOf(uri);
    if (key === '') throw new IsADirectoryError('The root of a bucket is a folder; name an object under it.');
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw new InvalidArgumentError('Write content must be a string or a Uint8Array.', { details: { argument: 'content' } });
    }
    await this.refuseTreeConflicts(key);
    const body = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const info = await this.store.put({
      key,
      body,
      ...(options.mime === undefined ? {} : { mime: options.mime }),
      ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }),
      ...(options.createOnly === true ? { createOnly: true } : {}),
    });
    return this.entryOfObject(info);
  }

  async stat(uri: string): Promise<ConnectorEntry> {
    const key = this.keyOf(uri);
    if (key === '') return { uri: formatSourceUri(this.source, []), name: '', type: 'directory' };
    const info = await this.store.head(key);
    if (info !== null) return this.entryOfObject(info);
    if (await this.store.hasObjectsUnder(`${key}/`)) return this.entryOfFolder(key);
    throw new NotFoundError(`No object or folder exists at "${key}".`);
  }

  async delete(uri: string, options: DeleteOptions = {}): Promise<void> {
    const key = this.keyOf(uri);
    if (key === '') throw new PermissionDeniedError('The root of a bucket cannot be deleted.');
    const [info, isFolder] = await Promise.all([this.store.head(key), this.store.hasObjectsUnder(`${key}/`)]);
    if (info === null && !isFolder) {
      if (options.ifMatch !== undefined) throw new PreconditionFailedError(`No object exists at "${key}", so ifMatch cannot hold.`);
      throw new NotFoundError(`No object or folder exists at "${key}".`);
    }
    if (isFolder && options.recursive !== true && info === null) {
      throw new PreconditionFailedError(`"${key}" is a folder with objects in it; pass recursive to delete it and everything below.`);
    }
    if (info !== null) await this.store.delete(key, options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
    if (isFolder && options.recursive === true) await this.deleteBelow(`${key}/`);
  }

  async *walk(uri: string, options: WalkOptions = {}): AsyncIterable<ConnectorEntry> {
    const key = this.keyOf(uri);
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    if (!(maxDepth >= 1)) throw new InvalidArgumentError('maxDepth must be 1 or more.', { details: { argument: 'maxDepth' } });
    const prefix = key === '' ? '' : `${key}/`;
    if (key !== '') await this.requireFolder(key);
    if (maxDepth === 1) {
      let cursor: string | undefined;
      do {
        options.signal?.throwIfAborted();
        const page = await this.store.list({ prefix, folders: true, limit: DEFAULT_PAGE, ...(cursor === undefined ? {} : { cursor }) });
        for (const item of page.items) yield this.entryOfItem(item);
        cursor = page.cursor;
      } while (cursor !== undefined);
      return;
    }
    // One flat, key-ordered pass; folders are emitted when the first key inside them appears.
    const base = key === '' ? [] : key.split('/');
    let open: string[] = [];
    let cursor: string | undefined;
    do {
      options.signal?.throwIfAborted();
      const page = await this.store.list({ prefix, folders: false, limit: DEFAULT_PAGE, ...(cursor === undefined ? {} : { cursor }) });
      for (const item of page.items) {
        if (item.type !== 'object') continue;
        const below = item.info.key.split('/').slice(base.length);
        const folders = below.slice(0, -1);
        let shared = 0;
        while (shared < open.length && shared < folders.length && open[shared] === folders[shared]) shared++;
        for (let depth = shared; depth < folders.length; depth++) {
          if (depth + 1 <= maxDepth) yield this.entryOfFolder([...base, ...folders.slice(0, depth + 1)].join('/'));
        }
        open = folders;
        if (below.length <= maxDepth) yield this.entryOfObject(item.info);
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  async *scanContent(uri: string, options: ScanContentOptions = {}): AsyncIterable<ContentChunk> {
    const maxBytes = Math.min(options.maxBytesPerObject ?? this.caps.text, this.caps.text);
    for await (const entry of this.walk(uri, options.signal === undefined ? {} : { signal: options.signal })) {
      if (entry.type !== 'file') continue;
      const readClass = readClassOf(entry.mime ?? '');
      if (readClass !== 'text' && readClass !== 'unknown') {
        yield { entry, skipped: 'binary' };
        continue;
      }
      if ((entry.size ?? 0) > maxBytes) {
        yield { entry, skipped: 'too_large' };
        continue;
      }
      yield await this.contentOf(entry, readClass, maxBytes);
    }
  }

  probeConnection(): Promise<ProbeResult> {
    return this.store.probe();
  }

  /** No honest host path exists: S3 objects have none, and pad files carry a header before the bytes. */
  async resolveOsUri(uri: string): Promise<string> {
    this.keyOf(uri);
    throw new OsUriUnresolvableError('Bucket objects have no host filesystem path (pad files hold a header before the content); read them through the source.');
  }

  private async contentOf(entry: ConnectorEntry, readClass: 'text' | 'unknown', maxBytes: number): Promise<ContentChunk> {
    let bytes: Uint8Array;
    try {
      const got = await this.store.get(this.keyOf(entry.uri));
      if (got.info.size > maxBytes) {
        await discard(got.body);
        return { entry, skipped: 'too_large' };
      }
      bytes = await collectBytes(got.body, maxBytes);
    } catch (error) {
      if (isConnectorError(error) && (error.code === 'not_found' || error.code === 'too_large')) {
        return { entry, skipped: error.code === 'too_large' ? 'too_large' : 'unreadable' };
      }
      throw error;
    }
    if (readClass === 'unknown' && !looksLikeText(bytes)) return { entry, skipped: 'binary' };
    return { entry, text: new TextDecoder('utf-8').decode(bytes) };
  }

  private async deleteBelow(prefix: string): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.store.list({ prefix, folders: false, limit: DEFAULT_PAGE, ...(cursor === undefined ? {} : { cursor }) });
      for (const item of page.items) if (item.type === 'object') await this.store.delete(item.info.key);
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /**
   * Keeps the tree this port shows consistent: refuses to create an object where a folder is
   * (`is_a_directory`) or below an object (`not_a_directory`). Best effort: a concurrent writer
   * can still make both, which the flat store allows and listings then show twice.
   */
  private async refuseTreeConflicts(key: string): Promise<void> {
    const segments = key.split('/');
    const ancestors = segments.slice(0, -1).map((_, index) => segments.slice(0, index + 1).join('/'));
    const [isFolder, ...ancestorObjects] = await Promise.all([
      this.store.hasObjectsUnder(`${key}/`),
      ...ancestors.map(async (ancestor) => (await this.store.head(ancestor)) !== null),
    ]);
    if (isFolder === true) throw new IsADirectoryError(`"${key}" is a folder; name an object inside it.`);
    const blocking = ancestors.find((_, index) => ancestorObjects[index] === true);
    if (blocking !== undefined) throw new NotADirectoryError(`"${blocking}" is an object, so nothing can be written below it.`);
  }

  /** Throws not_a_directory when `key` is an object, not_found when nothing is there. */
  private async requireFolder(key: string): Promise<void> {
    if (await this.store.hasObjectsUnder(`${key}/`)) return;
    if ((await this.store.head(key)) !== null) throw new NotADirectoryError(`"${key}" is an object, not a folder.`);
    throw new NotFoundError(`No folder exists at "${key}".`);
  }

  private async missingObject(key: string): Promise<Error> {
    if (await this.store.hasObjectsUnder(`${key}/`)) return new IsADirectoryError(`"${key}" is a folder; list it instead.`);
    return new NotFoundError(`No object exists at "${key}".`);
  }

  /** The key a URI names ('' for the root). Throws invalid_uri. */
  private keyOf(uri: string): string {
    const { segments } = parseSourceUri(uri, this.source);
    if (segments.length === 0) return '';
    if (segments.some((segment) => segment.includes('/'))) {
      throw new InvalidUriError('A path segment may not contain an encoded "/" (%2F); in a bucket "/" only separates segments.');
    }
    const key = segments.join('/');
    try {
      return checkObjectPath(key, this.keyPrefix);
    } catch (error) {
      throw new InvalidUriError(isConnectorError(error) ? error.message : 'The path is not a valid object key.');
    }
  }

  private entryOfItem(item: ListItem): ConnectorEntry {
    return item.type === 'object' ? this.entryOfObject(item.info) : this.entryOfFolder(item.key);
  }

  private entryOfObject(info: ObjectInfo): ConnectorEntry {
    return {
      uri: formatSourceUri(this.source, info.key.split('/')),
      name: baseName(info.key),
      type: 'file',
      size: info.size,
      mtime: info.mtime,
      etag: info.etag,
      mime: info.mime,
    };
  }

  private entryOfFolder(key: string): ConnectorEntry {
    return { uri: formatSourceUri(this.source, key.split('/')), name: baseName(key), type: 'directory' };
  }
}

function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new InvalidArgumentError('limit must be a whole number of 1 or more.', { details: { argument: 'limit' } });
  }
  return Math.min(limit, DEFAULT_PAGE);
}

function windowOf(options: ReadOptions): { start: number; end?: number } | undefined {
  const range = options.range;
  if (range === undefined) return undefined;
  const { offset, length } = range;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new InvalidArgumentError('range.offset must be a whole number of 0 or more.', { details: { argument: 'range' } });
  }
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
    throw new InvalidArgumentError('range.length must be a whole number of 0 or more.', { details: { argument: 'range' } });
  }
  return length === undefined ? { start: offset } : { start: offset, end: offset + length };
}
