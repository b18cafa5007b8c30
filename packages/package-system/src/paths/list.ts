import { opendir } from 'node:fs/promises';
import type { Dir, Dirent } from 'node:fs';
import { fromSystemError, invalidPath } from './errors.js';

/** The type of a listed entry as the directory itself records it; symlinks are reported, not followed. */
export type ContainedEntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface ContainedDirEntry {
  /** The entry's name within the directory (never `.` or `..`). */
  readonly name: string;
  readonly type: ContainedEntryType;
}

/** Entries read from the kernel per batch: fewer round trips than Node's default of 32. */
const DIRECTORY_BATCH = 128;

/**
 * Streams the entries of `resolvedDir`, a directory path the caller has ALREADY resolved and
 * checked (typically with `resolveContained`). One batch of entries is in memory at a time, in the
 * order the filesystem returns them (unsorted). Each entry's type comes from the directory entry
 * itself (an `lstat` only where the filesystem does not record types), so a symlink is reported
 * as `symlink` and never followed; FIFOs, sockets and devices are `other`.
 *
 * No containment guarantee: this is a plain readdir of `resolvedDir`. If the tree can change
 * between resolving and listing, list the descriptor instead — open the directory with
 * `openContainedHandle(root, rel, { expect: 'directory' })` and pass `/proc/self/fd/<handle.fd>`,
 * which lists exactly the directory that was checked. Names are decoded as UTF-8. Breaking out of
 * the loop closes the directory.
 *
 * Throws (codes from CONTAINMENT_ERROR_CODES, messages never containing a path): `invalid_path`
 * (not an absolute path, or a NUL byte), `not_found`, `not_a_directory`, `permission_denied`,
 * `unavailable` (out of descriptors, I/O failure) — all from the iteration, since this is an async
 * generator: nothing runs, not even the argument check, until the first `next()`.
 */
export async function* listContained(resolvedDir: string): AsyncGenerator<ContainedDirEntry, void, undefined> {
  if (typeof resolvedDir !== 'string' || resolvedDir.charCodeAt(0) !== 47 || resolvedDir.includes('\0')) {
    throw invalidPath('not_absolute', 'The directory to list must be an absolute, already-resolved path.');
  }
  let dir: Dir;
  try {
    dir = await opendir(resolvedDir, { bufferSize: DIRECTORY_BATCH });
  } catch (error) {
    throw fromSystemError(error, 'target');
  }
  try {
    for (;;) {
      let dirent: Dirent | null;
      try {
        dirent = await dir.read();
      } catch (error) {
        throw fromSystemError(error, 'target');
      }
      if (dirent === null) return;
      yield { name: dirent.name, type: entryType(dirent) };
    }
  } finally {
    await dir.close().catch(ignore);
  }
}

function entryType(dirent: Dirent): ContainedEntryType {
  if (dirent.isFile()) return 'file';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isSymbolicLink()) return 'symlink';
  return 'other';
}

function ignore(): void {}
