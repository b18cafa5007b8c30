/**
 * Atomic writes. The new content goes to a temp file in the target's own directory, is fsynced,
 * then renamed over the target (readers see the old or the new file, never a mix), and the
 * directory is fsynced so the rename survives a crash. Every step runs relative to a directory
 * descriptor proven inside the root (`/proc/self/fd/N/name`, the openat() Node lacks), so a
 * directory swapped for a symlink mid-write cannot redirect it.
 *
 * - `ifMatch` is compared with the current etag under a per-path lock (path-lock.ts): of two
 *   writes carrying the same etag exactly one succeeds.
 * - `createOnly` publishes with link(2), which fails on any existing entry — a dangling symlink
 *   included — and never follows one; where hard links are not supported it falls back to
 *   copying with O_EXCL, which has the same guarantee but is not atomic to readers.
 * - A symlink at the target is written through only when its target resolves inside the root
 *   (the link stays a link); a dangling or escaping one is refused with `containment_violation`.
 * - Missing parent directories are created one at a time, each relative to its parent's
 *   descriptor.
 * - The replaced file's permission bits are kept; a new file gets 0666 less the umask.
 * - A file with more than one hard link is not replaced unless `allowHardLinks` (links.ts).
 */
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readlink, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import {
  AlreadyExistsError,
  IsADirectoryError,
  PreconditionFailedError,
  UnavailableError,
  UnsupportedFileTypeError,
  hasErrorCode,
} from '@neuralis/package-system/contracts';
import { openContainedHandle, resolveContained } from '@neuralis/package-system/paths';
import type { Address } from './address.js';
import { etagOf, microseconds } from './etag.js';
import { refuseHardLink } from './links.js';
import { withPathLock } from './path-lock.js';
import { errnoOf, fsFailure } from './system-errors.js';
import { newTempName } from './write-names.js';

export type WriteBody = Uint8Array | AsyncIterable<Uint8Array>;

export interface AtomicWriteOptions {
  readonly ifMatch?: string;
  readonly createOnly?: boolean;
  /** Whether a file with more than one hard link may be replaced (links.ts); refused by default. */
  readonly allowHardLinks?: boolean;
}

const PROC_FD = '/proc/self/fd/';
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** link(2) errors meaning "this filesystem has no hard links", where create-only falls back to copying. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'ENOSYS']);

/**
 * Writes `body` to `address` under `rootPath` and returns the new file's stats.
 * Throws: is_a_directory, already_exists, precondition_failed, not_a_directory, permission_denied,
 * containment_violation, unsupported_file_type, invalid_path, not_found (root), unavailable.
 */
export async function writeFileAtomic(rootPath: string, address: Address, body: WriteBody, options: AtomicWriteOptions = {}): Promise<Stats> {
  return writeAt(rootPath, address.names, body, options, true);
}

async function writeAt(rootPath: string, names: readonly string[], body: WriteBody, options: AtomicWriteOptions, mayFollow: boolean): Promise<Stats> {
  const leaf = names[names.length - 1];
  if (leaf === undefined) throw new IsADirectoryError('The source root is a folder; name a file to write.');
  const directory = await openParent(rootPath, names.slice(0, -1));
  let symlinkTarget: readonly string[] | undefined;
  try {
    const at = PROC_FD + directory.fd;
    const lockKey = `${await readlink(at)}\0${leaf}`;
    const written = await withPathLock(lockKey, async () => {
      const current = await lstat(`${at}/${leaf}`).catch((error: unknown) => {
        if (errnoOf(error) === 'ENOENT') return undefined;
        throw fsFailure(error);
      });
      if (current?.isSymbolicLink() === true && options.createOnly !== true) return undefined;
      checkPreconditions(current, options);
      return replaceWithin(directory, leaf, body, current, options.createOnly === true);
    });
    if (written !== undefined) return written;
    if (!mayFollow) throw new UnavailableError('The folder kept changing while it was being written; retry.', { details: { reason: 'tree_changing' } });
    symlinkTarget = await containedTarget(rootPath, names);
  } finally {
    await directory.close();
  }
  return writeAt(rootPath, symlinkTarget, body, options, false);
}

function checkPreconditions(current: Stats | undefined, options: AtomicWriteOptions): void {
  if (current !== undefined) {
    if (options.createOnly === true) {
      throw new AlreadyExistsError('Something already exists at that path (a symbolic link, even a dangling one, counts); nothing was written.');
    }
    if (current.isDirectory()) throw new IsADirectoryError('A folder exists at that path; a file cannot replace it.');
    if (!current.isFile()) throw new UnsupportedFileTypeError();
    refuseHardLink(current, options.allowHardLinks === true);
  }
  if (options.ifMatch !== undefined && (current === undefined || etagOf(current) !== options.ifMatch)) {
    throw new PreconditionFailedError(
      current === undefined
        ? 'ifMatch was given but nothing exists at that path; nothing was written.'
        : 'The file changed since that etag was read (etag mismatch); nothing was written. Read it again and retry.',
    );
  }
}

/** The real names (below the root) a symlink at `names` leads to, proven inside the root. */
async function containedTarget(rootPath: string, names: readonly string[]): Promise<readonly string[]> {
  const [rootReal, target] = await Promise.all([resolveContained(rootPath, ''), resolveContained(rootPath, names.join('/'), { allowMissing: true })]);
  const inside = target.slice(rootReal === '/' ? 1 : rootReal.length + 1);
  return inside.split('/');
}

async function replaceWithin(directory: FileHandle, leaf: string, body: WriteBody, current: Stats | undefined, createOnly: boolean): Promise<Stats> {
  const at = PROC_FD + directory.fd;
  const tempPath = `${at}/${newTempName()}`;
  const targetPath = `${at}/${leaf}`;
  let temp: FileHandle;
  try {
    temp = await open(tempPath, TEMP_FLAGS, 0o666);
  } catch (error) {
    throw fsFailure(error);
  }
  let published = false;
  try {
    if (current !== undefined) await temp.chmod(current.mode & 0o7777);
    await writeBody(temp, body);
    if (current !== undefined) await ensureLaterMtime(temp, current);
    await temp.sync();
    if (createOnly) await publishNew(tempPath, targetPath);
    else await rename(tempPath, targetPath);
    published = true;
    await directory.sync();
    // After the rename: rename updates ctime, which is part of the etag.
    return await temp.stat();
  } catch (error) {
    throw fsFailure(error);
  } finally {
    await temp.close().catch(() => undefined);
    if (!published) await unlink(tempPath).catch(() => undefined);
  }
}

async function writeBody(handle: FileHandle, body: WriteBody): Promise<void> {
  if (body instanceof Uint8Array) {
    await writeAll(handle, body);
    return;
  }
  for await (const chunk of body) await writeAll(handle, chunk);
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset);
    offset += bytesWritten;
  }
}

/**
 * Makes the new file's mtime strictly later than the version it replaces, so the etag changes
 * even when the size is the same, the clock has not ticked, and the inode number was recycled.
 */
async function ensureLaterMtime(handle: FileHandle, replaced: Stats): Promise<void> {
  const floor = microseconds(replaced.mtimeMs);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const stats = await handle.stat();
    if (microseconds(stats.mtimeMs) > floor) return;
    // Seconds as a double carry ~0.24 µs of precision today; a few µs of margin survives rounding.
    await handle.utimes(stats.atimeMs / 1000, (replaced.mtimeMs + attempt * 0.004) / 1000);
  }
  const stats = await handle.stat();
  if (microseconds(stats.mtimeMs) <= floor) {
    throw new UnavailableError('The filesystem did not record a newer modification time; nothing was written.', {
      details: { reason: 'mtime_not_advancing' },
    });
  }
}

/** Publishes the temp file under a name that must not exist yet; never follows anything there. */
async function publishNew(tempPath: string, targetPath: string): Promise<void> {
  try {
    await link(tempPath, targetPath);
  } catch (error) {
    if (!NO_HARD_LINKS.has(errnoOf(error) ?? '')) throw error;
    await copyFile(tempPath, targetPath, constants.COPYFILE_EXCL);
  }
  await unlink(tempPath);
}

/**
 * Opens the directory `names` under the root, creating missing ones one level at a time, each
 * with mkdir relative to its parent's descriptor and reopened with O_NOFOLLOW.
 */
async function openParent(rootPath: string, names: readonly string[]): Promise<FileHandle> {
  try {
    return await openContainedHandle(rootPath, names.join('/'), { expect: 'directory' });
  } catch (error) {
    if (!hasErrorCode(error, 'not_found') || names.length === 0) throw error;
  }
  let depth = names.length - 1;
  let directory: FileHandle | undefined;
  while (directory === undefined) {
    try {
      directory = await openContainedHandle(rootPath, names.slice(0, depth).join('/'), { expect: 'directory' });
    } catch (error) {
      if (!hasErrorCode(error, 'not_found') || depth === 0) throw error;
      depth -= 1;
    }
  }
  for (; depth < names.length; depth++) {
    const at = `${PROC_FD}${directory.fd}/${names[depth]!}`;
    let next: FileHandle;
    try {
      await mkdir(at, 0o777).catch((error: unknown) => {
        if (errnoOf(error) !== 'EEXIST') throw error;
      });
      next = await open(at, DIRECTORY_FLAGS);
    } catch (error) {
      await directory.close();
      // Something other than a plain directory is in the way (a symlink, a file, a race):
      // let the containment primitive decide what it is and whether it may be used.
      if (errnoOf(error) === 'ELOOP' || errnoOf(error) === 'ENOTDIR') {
        return openContainedHandle(rootPath, names.join('/'), { expect: 'directory' });
      }
      throw fsFailure(error);
    }
    await directory.close();
    directory = next;
  }
  return directory;
}
