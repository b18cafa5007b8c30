/**
 * Delete, relative to the parent's contained descriptor. A symlink is removed as a link (its
 * target is never touched, inside or outside the root); a folder needs `recursive` unless empty,
 * and is removed without following any link inside it.
 */
import { lstat, rm, rmdir, unlink, readlink } from 'node:fs/promises';
import { NotFoundError, PermissionDeniedError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import type { DeleteOptions } from '@neuralis/package-system/contracts';
import { openContainedHandle } from '@neuralis/package-system/paths';
import type { Address } from './address.js';
import { etagOf } from './etag.js';
import { withPathLock } from './path-lock.js';
import { errnoOf, fsFailure } from './system-errors.js';

const PROC_FD = '/proc/self/fd/';

/**
 * Throws: permission_denied (the root), not_found, precondition_failed (non-empty folder without
 * `recursive`, or an ifMatch that does not hold), containment_violation, unavailable.
 */
export async function removeEntry(rootPath: string, address: Address, options: DeleteOptions = {}): Promise<void> {
  const leaf = address.names[address.names.length - 1];
  if (leaf === undefined) throw new PermissionDeniedError('The source root itself cannot be deleted.');
  const directory = await openContainedHandle(rootPath, address.names.slice(0, -1).join('/'), { expect: 'directory' });
  try {
    const at = PROC_FD + directory.fd;
    const target = `${at}/${leaf}`;
    await withPathLock(`${await readlink(at)}\0${leaf}`, async () => {
      const stats = await lstat(target).catch((error: unknown) => {
        throw errnoOf(error) === 'ENOENT' ? new NotFoundError() : fsFailure(error);
      });
      if (options.ifMatch !== undefined && (!stats.isFile() || etagOf(stats) !== options.ifMatch)) {
        throw new PreconditionFailedError('The entry changed since that etag was read (or is not a file); nothing was deleted.');
      }
      try {
        if (!stats.isDirectory()) await unlink(target);
        else if (options.recursive === true) await rm(target, { recursive: true, force: false });
        else await rmdir(target);
      } catch (error) {
        const errno = errnoOf(error);
        if (errno === 'ENOTEMPTY' || errno === 'EEXIST') {
          throw new PreconditionFailedError('The folder is not empty; delete it with recursive: true to remove everything in it.');
        }
        throw errno === 'ENOENT' ? new NotFoundError() : fsFailure(error);
      }
      await directory.sync();
    });
  } finally {
    await directory.close();
  }
}
