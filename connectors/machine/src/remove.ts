/**
 * Deleting on the machine. The parent folders are resolved and contained; the final name is never
 * followed: a link is removed itself, never what it points at. A folder goes only when empty, or
 * with `recursive`, depth first, again without following any link inside it.
 */
import { posix } from 'node:path';
import { NotFoundError, PermissionDeniedError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import type { DeleteOptions } from '@neuralis/package-system/contracts';
import { etagOf } from './entry.js';
import type { RemoteFiles } from './remote.js';
import { isDirectory } from './remote.js';
import type { SftpAttributes, SftpDirEntry, SftpSession } from './ssh.js';

export async function removeRemote(files: RemoteFiles, names: readonly string[], options: DeleteOptions): Promise<void> {
  if (names.length === 0) throw new PermissionDeniedError("The host's folder itself cannot be deleted.");
  const { sftp, parent } = await files.resolveParent(names, false);
  const path = posix.join(parent, names[names.length - 1]!);
  const attrs = await files.call<SftpAttributes>(sftp, (done) => sftp.lstat(path, done));
  if (options.ifMatch !== undefined && (isDirectory(attrs) || etagOf(attrs) !== options.ifMatch)) {
    throw new PreconditionFailedError('The file changed since that etag was read; read it again and retry.', { details: { argument: 'ifMatch' } });
  }
  if (!isDirectory(attrs)) {
    await files.call(sftp, (done) => sftp.unlink(path, done));
    return;
  }
  const children = await files.call<SftpDirEntry[]>(sftp, (done) => sftp.readdir(path, done as never));
  if (children.length > 0 && options.recursive !== true) {
    throw new PreconditionFailedError('The folder is not empty; delete it with recursive to remove everything in it.', { details: { argument: 'recursive' } });
  }
  await removeTree(files, sftp, path, children);
}

async function removeTree(files: RemoteFiles, sftp: SftpSession, path: string, children: readonly SftpDirEntry[]): Promise<void> {
  for (const child of children) {
    if (child.filename === '.' || child.filename === '..') continue;
    const childPath = posix.join(path, child.filename);
    // readdir's attributes are lstat's: a link to a folder is removed as a link.
    if (isDirectory(child.attrs)) {
      const grandchildren = await files.call<SftpDirEntry[]>(sftp, (done) => sftp.readdir(childPath, done as never));
      await removeTree(files, sftp, childPath, grandchildren);
    } else {
      await files.call(sftp, (done) => sftp.unlink(childPath, done)).catch((error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
      });
    }
  }
  await files.call(sftp, (done) => sftp.rmdir(path, done));
}
