/**
 * The pad: the network's own bucket on local disk (layout in pad-layout.ts, file header in
 * pad-header.ts). Every path goes through `resolveContained` / `openContainedHandle`, so a
 * symlink planted in the pad directory never leads out of it.
 *
 * Writes are atomic: the content streams into a temp file beside its final name (0600), the
 * header gets the MD5, the file is fsynced, then renamed over the old one and the folder fsynced.
 * Readers see the old object or the new one, never a mix. `ifMatch` and `createOnly` are checked
 * and the rename done under a per-key lock, so two writers in this process cannot both win; the
 * lock does not reach other processes (one inseam process owns a pad directory).
 *
 * Folders are created on write and removed again when their last object is deleted. A temp file
 * (or staging folder) left by a crash is never listed, and is removed when its folder is listed
 * once it is a day old.
 */
import { randomBytes, createHash } from 'node:crypto';
import { mkdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AlreadyExistsError,
  hasErrorCode,
  isConnectorError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  UnavailableError,
} from '@neuralis/package-system/contracts';
import type { ConnectorError, ProbeResult } from '@neuralis/package-system/contracts';
import { listContained, openContainedHandle, resolveContained } from '@neuralis/package-system/paths';
import { fileStream, writeAll } from './body.js';
import type { PadConfig } from './config.js';
import { compareKeys } from './keys.js';
import { KeyedLock, Mutex } from './locks.js';
import { mimeFromKey } from './mime.js';
import { entryName, folderPath, isHashedName, isTempName, objectPath, parseEntryName, SEGMENT_FILE, tempName } from './pad-layout.js';
import type { PadEntryKind } from './pad-layout.js';
import { encodeHeader, ETAG_PLACEHOLDER, readHeader } from './pad-header.js';
import type { PadHeader } from './pad-header.js';
import type { ByteWindow, GetResult, ListItem, ListRequest, ListResult, ObjectInfo, ObjectStore, PutRequest } from './store.js';

/** A temp file older than this is a crash leftover, not a write in progress. */
const STALE_TEMP_MS = 24 * 60 * 60 * 1000;
const PROC_FD = '/proc/self/fd/';

interface Child {
  /** The segment, plus '/' for a folder: the order S3 lists in. */
  readonly sortKey: string;
  readonly segment: string;
  readonly kind: PadEntryKind;
}

interface ChildQuery {
  /** Only children after this sort key (or at it, when inclusive). */
  readonly bound?: { readonly value: string; readonly inclusive: boolean };
  readonly startsWith?: string;
  readonly limit: number;
}

export class PadStore implements ObjectStore {
  readonly provider = 'pad' as const;
  private readonly keyLock = new KeyedLock();
  /** Serialises folder creation (with temp-file creation) against folder removal. */
  private readonly structure = new Mutex();

  private constructor(private readonly root: string) {}

  /** Opens (creating, 0700, when missing) the pad directory named by the config. */
  static async open(config: PadConfig): Promise<PadStore> {
    try {
      await mkdir(config.path, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw fsError(error, 'create the pad directory');
    }
    return new PadStore(config.path);
  }

  async list(request: ListRequest): Promise<ListResult> {
    return request.folders ? this.listFolder(request) : this.listFlat(request);
  }

  head(key: string): Promise<ObjectInfo | null> {
    return this.readInfo(key);
  }

  async get(key: string, window?: ByteWindow): Promise<GetResult> {
    let handle: FileHandle;
    try {
      handle = await openContainedHandle(this.root, objectPath(key.split('/')));
    } catch (error) {
      throw missingAsNotFound(error, key);
    }
    try {
      const [stats, { header, length }] = await Promise.all([handle.stat(), readHeader(handle)]);
      const info = infoOf(key, stats.size - length, stats.mtime, header);
      const start = Math.min(window?.start ?? 0, info.size);
      const end = Math.max(start, Math.min(window?.end ?? info.size, info.size));
      const body = fileStream(handle, length + start, end - start);
      return {
        info,
        contentType: header.mime,
        body,
        ...(window === undefined ? {} : { range: { offset: window.start, length: end - start } }),
      };
    } catch (error) {
      await handle.close().catch(ignore);
      throw error;
    }
  }

  async put(request: PutRequest): Promise<ObjectInfo> {
    const segments = request.key.split('/');
    const folders = segments.slice(0, -1);
    const leaf = segments[segments.length - 1]!;
    const finalName = entryName(leaf, 'object');
    const header: PadHeader = {
      etag: ETAG_PLACEHOLDER,
      mime: request.mime ?? mimeFromKey(request.key),
      ...(isHashedName(finalName) ? { segment: leaf } : {}),
    };
    // Fail early, before a large body is consumed for nothing; checked again under the lock.
    await this.checkConditions(request);
    const dirRel = folderPath(folders);
    const temp = tempName(randomBytes(12).toString('hex'));
    const handle = await this.structure.run(async () => {
      await this.ensureFolders(folders);
      return openContainedHandle(this.root, joinRel(dirRel, temp), { access: 'create', createMode: 0o600 });
    });
    let renamed = false;
    try {
      const headerBytes = encodeHeader(header);
      const { md5, size } = await writeContent(handle, headerBytes, request.body);
      const finalHeader = encodeHeader({ ...header, etag: md5 });
      await handle.write(finalHeader, 0, finalHeader.byteLength, 0);
      await handle.sync();
      const stats = await handle.stat();
      await handle.close();
      const info = infoOf(request.key, size, stats.mtime, { ...header, etag: md5 });
      await this.keyLock.run(request.key, async () => {
        await this.checkConditions(request);
        const dirAbs = await resolveContained(this.root, dirRel);
        try {
          await rename(join(dirAbs, temp), join(dirAbs, finalName));
        } catch (error) {
          throw fsError(error, 'store the object');
        }
        renamed = true;
        await this.syncFolder(dirRel);
      });
      return info;
    } catch (error) {
      await handle.close().catch(ignore);
      if (!renamed) {
        await this.removeTemp(dirRel, temp);
        await this.prune(folders);
      }
      throw error;
    }
  }

  async delete(key: string, options: { readonly ifMatch?: string } = {}): Promise<void> {
    const segments = key.split('/');
    const folders = segments.slice(0, -1);
    const removed = await this.keyLock.run(key, async () => {
      const current = await this.readInfo(key);
      if (options.ifMatch !== undefined && (current === null || current.etag !== unquote(options.ifMatch))) {
        throw new PreconditionFailedError(`The object at "${key}" is not at the version ifMatch names; nothing was deleted.`);
      }
      if (current === null) return false;
      const dirRel = folderPath(folders);
      const dirAbs = await resolveContained(this.root, dirRel);
      try {
        await unlink(join(dirAbs, entryName(segments[segments.length - 1]!, 'object')));
      } catch (error) {
        if (errnoOf(error) !== 'ENOENT') throw fsError(error, 'delete the object');
      }
      await this.syncFolder(dirRel);
      return true;
    });
    if (removed) await this.prune(folders);
  }

  async hasObjectsUnder(prefix: string): Promise<boolean> {
    const segments = prefix.slice(0, -1).split('/');
    const children = await this.selectChildren(segments, { limit: 1 });
    return children !== null && children.length > 0;
  }

  async probe(): Promise<ProbeResult> {
    try {
      await resolveContained(this.root, '');
      return { connected: true };
    } catch (error) {
      const code = isConnectorError(error) ? error.code : 'unavailable';
      return { connected: false, reason: code === 'permission_denied' ? 'fs_permission' : 'fs_unreachable', code };
    }
  }

  async close(): Promise<void> {}

  private async listFolder(request: ListRequest): Promise<ListResult> {
    const segments = request.prefix === '' ? [] : request.prefix.slice(0, -1).split('/');
    const query: ChildQuery = { limit: request.limit + 1, ...(request.cursor === undefined ? {} : { bound: { value: request.cursor, inclusive: false } }) };
    const children = await this.selectChildren(segments, query);
    if (children === null) return { items: [] };
    const page = children.slice(0, request.limit);
    const items: ListItem[] = [];
    for (const child of page) {
      const key = [...segments, child.segment].join('/');
      if (child.kind === 'folder') {
        items.push({ type: 'folder', key });
        continue;
      }
      const info = await this.listedInfo(key);
      if (info !== null) items.push({ type: 'object', info });
    }
    const last = page[page.length - 1];
    return children.length > request.limit && last !== undefined ? { items, cursor: last.sortKey } : { items };
  }

  private async listFlat(request: ListRequest): Promise<ListResult> {
    const cut = request.prefix.lastIndexOf('/');
    const start = cut === -1 ? [] : request.prefix.slice(0, cut).split('/');
    if (start.some((segment) => segment === '' || segment === '.' || segment === '..')) return { items: [] };
    const found: ObjectInfo[] = [];
    await this.walkFlat(start, request.prefix.slice(cut + 1), request.cursor, request.limit + 1, found);
    const page = found.slice(0, request.limit);
    const items = page.map((info): ListItem => ({ type: 'object', info }));
    const last = page[page.length - 1];
    return found.length > request.limit && last !== undefined ? { items, cursor: last.key } : { items };
  }

  /**
   * Appends, in key order, up to `want` objects below the folder `folders` whose key is after
   * `startAfter`; at the top folder only names starting with `startsWith` count.
   */
  private async walkFlat(folders: readonly string[], startsWith: string, startAfter: string | undefined, want: number, found: ObjectInfo[]): Promise<void> {
    const folderKey = folders.length === 0 ? '' : `${folders.join('/')}/`;
    let bound: ChildQuery['bound'];
    if (startAfter !== undefined && startAfter.startsWith(folderKey)) {
      const rest = startAfter.slice(folderKey.length);
      const slash = rest.indexOf('/');
      // Inside a folder the cursor points into: resume within it (inclusive of that folder).
      bound = slash === -1 ? { value: rest, inclusive: false } : { value: rest.slice(0, slash + 1), inclusive: true };
    }
    for (;;) {
      const batch = want - found.length;
      if (batch <= 0) return;
      const children = await this.selectChildren(folders, { limit: batch, startsWith, ...(bound === undefined ? {} : { bound }) });
      if (children === null) return;
      for (const child of children) {
        if (found.length >= want) return;
        if (child.kind === 'folder') {
          await this.walkFlat([...folders, child.segment], '', startAfter, want, found);
        } else {
          const info = await this.listedInfo(folderKey + child.segment);
          if (info !== null) found.push(info);
        }
      }
      const last = children[children.length - 1];
      if (children.length < batch || last === undefined) return;
      bound = { value: last.sortKey, inclusive: false };
    }
  }

  /**
   * The first `limit` children of a folder in key order, within the query's bounds; null when the
   * folder does not exist. Holds at most `limit` children in memory, however large the folder.
   */
  private async selectChildren(folders: readonly string[], query: ChildQuery): Promise<Child[] | null> {
    let dir: FileHandle;
    try {
      dir = await openContainedHandle(this.root, folderPath(folders), { expect: 'directory' });
    } catch (error) {
      if (hasErrorCode(error, 'not_found') || hasErrorCode(error, 'not_a_directory')) return null;
      throw error;
    }
    const selected: Child[] = [];
    try {
      const dirPath = PROC_FD + dir.fd;
      for await (const entry of listContained(dirPath)) {
        if (isTempName(entry.name)) {
          if (entry.type === 'file' || entry.type === 'directory') await this.sweepIfStale(folderPath(folders), entry.name);
          continue;
        }
        const parsed = parseEntryName(entry.name);
        if (parsed === undefined) continue;
        if (parsed.kind === 'object' ? entry.type !== 'file' : entry.type !== 'directory') continue;
        const segment = parsed.segment ?? (await readHashedSegment(dirPath, entry.name, parsed.kind));
        if (segment === undefined) continue;
        const child: Child = { segment, kind: parsed.kind, sortKey: parsed.kind === 'folder' ? `${segment}/` : segment };
        if (query.startsWith !== undefined && !child.sortKey.startsWith(query.startsWith)) continue;
        if (query.bound !== undefined) {
          const order = compareKeys(child.sortKey, query.bound.value);
          if (order < 0 || (order === 0 && !query.bound.inclusive)) continue;
        }
        insertBounded(selected, child, query.limit);
      }
    } finally {
      await dir.close().catch(ignore);
    }
    return selected;
  }

  private async readInfo(key: string): Promise<ObjectInfo | null> {
    let handle: FileHandle;
    try {
      handle = await openContainedHandle(this.root, objectPath(key.split('/')));
    } catch (error) {
      if (hasErrorCode(error, 'not_found') || hasErrorCode(error, 'not_a_directory')) return null;
      throw error;
    }
    try {
      const [stats, { header, length }] = await Promise.all([handle.stat(), readHeader(handle)]);
      return infoOf(key, stats.size - length, stats.mtime, header);
    } finally {
      await handle.close().catch(ignore);
    }
  }

  /** As readInfo, but a damaged file is left out of a listing rather than failing all of it. */
  private async listedInfo(key: string): Promise<ObjectInfo | null> {
    try {
      return await this.readInfo(key);
    } catch (error) {
      if (isConnectorError(error) && error.details['reason'] === 'pad_object_damaged') return null;
      throw error;
    }
  }

  private async checkConditions(request: PutRequest): Promise<void> {
    if (request.ifMatch === undefined && request.createOnly !== true) return;
    const current = await this.readInfo(request.key);
    if (request.createOnly === true && current !== null) {
      throw new AlreadyExistsError(`An object already exists at "${request.key}"; nothing was written.`);
    }
    if (request.ifMatch !== undefined && current === null) {
      throw new PreconditionFailedError(`No object exists at "${request.key}", so ifMatch cannot hold; nothing was written.`);
    }
    if (request.ifMatch !== undefined && current !== null && current.etag !== unquote(request.ifMatch)) {
      throw new PreconditionFailedError(`The object at "${request.key}" changed since it was read (etag mismatch); nothing was written.`);
    }
  }

  /** Creates the folder chain for `folders`; a hashed folder is born with its `.seg` (via rename). */
  private async ensureFolders(folders: readonly string[]): Promise<void> {
    for (let depth = 1; depth <= folders.length; depth++) {
      const segment = folders[depth - 1]!;
      const parentRel = folderPath(folders.slice(0, depth - 1));
      const name = entryName(segment, 'folder');
      try {
        if (!isHashedName(name)) {
          await mkdir(await resolveContained(this.root, joinRel(parentRel, name), { allowMissing: true }));
          continue;
        }
        if (await this.exists(joinRel(parentRel, name))) continue;
        const staging = `.${randomBytes(12).toString('hex')}.tmpdir`;
        await mkdir(await resolveContained(this.root, joinRel(parentRel, staging), { allowMissing: true }));
        const segmentFile = await openContainedHandle(this.root, joinRel(joinRel(parentRel, staging), SEGMENT_FILE), { access: 'create', createMode: 0o600 });
        try {
          await writeAll(segmentFile, Buffer.from(segment, 'utf8'));
          await segmentFile.sync();
        } finally {
          await segmentFile.close();
        }
        const parentAbs = await resolveContained(this.root, parentRel);
        await rename(join(parentAbs, staging), join(parentAbs, name)).catch(async (error: unknown) => {
          await rm(join(parentAbs, staging), { recursive: true, force: true });
          const errno = errnoOf(error);
          if (errno !== 'ENOTEMPTY' && errno !== 'EEXIST') throw error;
        });
      } catch (error) {
        if (errnoOf(error) === 'EEXIST') continue;
        throw isConnectorError(error) ? error : fsError(error, 'create a folder');
      }
    }
  }

  /** Removes the folders of `folders`, deepest first, while they hold no object or folder. */
  private async prune(folders: readonly string[]): Promise<void> {
    await this.structure.run(async () => {
      for (let depth = folders.length; depth >= 1; depth--) {
        const rel = folderPath(folders.slice(0, depth));
        let abs: string;
        try {
          abs = await resolveContained(this.root, rel);
        } catch {
          return;
        }
        const names: string[] = [];
        try {
          for await (const entry of listContained(abs)) names.push(entry.name);
        } catch {
          return;
        }
        if (names.some((name) => name !== SEGMENT_FILE)) return;
        try {
          if (names.length > 0) await unlink(join(abs, SEGMENT_FILE));
          await rmdir(abs);
        } catch {
          return;
        }
      }
    });
  }

  private async syncFolder(rel: string): Promise<void> {
    const dir = await openContainedHandle(this.root, rel, { expect: 'directory' });
    try {
      await dir.sync();
    } catch {
      // Some filesystems cannot fsync a directory; the rename is still atomic.
    } finally {
      await dir.close().catch(ignore);
    }
  }

  private async exists(rel: string): Promise<boolean> {
    try {
      await resolveContained(this.root, rel);
      return true;
    } catch (error) {
      if (hasErrorCode(error, 'not_found')) return false;
      throw error;
    }
  }

  private async removeTemp(dirRel: string, temp: string): Promise<void> {
    try {
      await unlink(await resolveContained(this.root, joinRel(dirRel, temp)));
    } catch {
      // Already gone, or the folder went with it.
    }
  }

  private async sweepIfStale(dirRel: string, name: string): Promise<void> {
    try {
      const abs = await resolveContained(this.root, joinRel(dirRel, name));
      if (Date.now() - (await stat(abs)).mtimeMs > STALE_TEMP_MS) await rm(abs, { recursive: true, force: true });
    } catch {
      // Best effort: a leftover that cannot be removed now is tried again on the next listing.
    }
  }
}

/** Streams `body` after `header` into the file, returning the content's MD5 (hex) and size. */
async function writeContent(handle: FileHandle, header: Uint8Array, body: Uint8Array | ReadableStream<Uint8Array>): Promise<{ md5: string; size: number }> {
  const hash = createHash('md5');
  let size = 0;
  try {
    await writeAll(handle, header);
    if (body instanceof Uint8Array) {
      hash.update(body);
      await writeAll(handle, body);
      size = body.byteLength;
    } else {
      const reader = body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          hash.update(value);
          await writeAll(handle, value);
          size += value.byteLength;
        }
      } finally {
        reader.releaseLock();
      }
    }
  } catch (error) {
    throw isConnectorError(error) || errnoOf(error) === undefined ? error : fsError(error, 'write the object');
  }
  return { md5: hash.digest('hex'), size };
}

async function readHashedSegment(dirPath: string, name: string, kind: PadEntryKind): Promise<string | undefined> {
  try {
    const handle = await openContainedHandle(dirPath, kind === 'object' ? name : `${name}/${SEGMENT_FILE}`);
    try {
      if (kind === 'object') return (await readHeader(handle)).header.segment;
      return (await handle.readFile()).toString('utf8');
    } finally {
      await handle.close().catch(ignore);
    }
  } catch {
    // Half-made (a crash between mkdir and rename cannot leave one, but a hand edit can): skip it.
    return undefined;
  }
}

function insertBounded(selected: Child[], child: Child, limit: number): void {
  const last = selected[selected.length - 1];
  if (selected.length >= limit && last !== undefined && compareKeys(child.sortKey, last.sortKey) >= 0) return;
  let low = 0;
  let high = selected.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareKeys(selected[middle]!.sortKey, child.sortKey) < 0) low = middle + 1;
    else high = middle;
  }
  selected.splice(low, 0, child);
  if (selected.length > limit) selected.pop();
}

function infoOf(key: string, size: number, mtime: Date, header: PadHeader): ObjectInfo {
  return { key, size: Math.max(0, size), mtime: mtime.toISOString(), etag: header.etag, mime: header.mime, md5: header.etag };
}

function joinRel(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

function unquote(etag: string): string {
  return etag.length >= 2 && etag.startsWith('"') && etag.endsWith('"') ? etag.slice(1, -1) : etag;
}

function missingAsNotFound(error: unknown, key: string): unknown {
  if (hasErrorCode(error, 'not_found') || hasErrorCode(error, 'not_a_directory')) return new NotFoundError(`No object exists at "${key}".`);
  return error;
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('E') ? code : undefined;
}

/** A system error as a typed one; Node's message names the path, so it is never kept. */
function fsError(error: unknown, action: string): ConnectorError {
  if (isConnectorError(error)) return error;
  const errno = errnoOf(error);
  if (errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS') {
    return new PermissionDeniedError(`The pad directory does not allow inseam to ${action}.`, { details: { errno } });
  }
  if (errno === 'ENOSPC' || errno === 'EDQUOT') {
    return new UnavailableError(`The disk holding the pad is full; could not ${action}.`, { details: { errno } });
  }
  return new UnavailableError(`Could not ${action} in the pad directory.`, { details: { errno: errno ?? 'unknown' } });
}

function ignore(): void {}
