/**
 * Listing folders on the machine. One readdir per folder (OpenSSH returns lstat attributes, so
 * links are seen as links); entries are name-sorted by UTF-16 code units. A link is resolved with
 * the server's realpath and kept only when it stays inside the root, described by its target;
 * devices, sockets and pipes are left out. A page's cursor names the last name returned, so paging
 * holds no state on either side.
 */
import { posix } from 'node:path';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { RemoteFiles } from './remote.js';
import { inside, isDirectory, isFile, isLink } from './remote.js';
import { sftpCall } from './sftp-call.js';
import type { SftpAttributes, SftpDirEntry, SftpSession } from './ssh.js';

export interface ListedChild {
  readonly name: string;
  readonly attrs: SftpAttributes;
  /** The child's real path (a link's target). */
  readonly path: string;
  readonly viaLink: boolean;
}

/** The children of the real folder `dir`, sorted, links resolved or dropped. */
export async function childrenOf(files: RemoteFiles, sftp: SftpSession, rootPath: string, dir: string): Promise<ListedChild[]> {
  const raw = await files.call<SftpDirEntry[]>(sftp, (done) => sftp.readdir(dir, done as never));
  const kept = raw.filter((entry) => entry.filename !== '.' && entry.filename !== '..').sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  const out: (ListedChild | undefined)[] = await Promise.all(
    kept.map(async (entry): Promise<ListedChild | undefined> => {
      const path = posix.join(dir, entry.filename);
      if (isFile(entry.attrs) || isDirectory(entry.attrs)) return { name: entry.filename, attrs: entry.attrs, path, viaLink: false };
      if (!isLink(entry.attrs)) return undefined;
      try {
        const real = await sftpCall<string>((done) => sftp.realpath(path, done));
        if (!inside(real, rootPath)) return undefined;
        const attrs = await sftpCall<SftpAttributes>((done) => sftp.stat(real, done));
        return isFile(attrs) || isDirectory(attrs) ? { name: entry.filename, attrs, path: real, viaLink: true } : undefined;
      } catch (error) {
        // A link that leads nowhere is left out; a lost connection is not hidden.
        const lost = files.mapError(error);
        if ((lost as { code?: string }).code === 'unavailable' && typeof (error as { code?: unknown }).code !== 'number') throw lost;
        return undefined;
      }
    }),
  );
  return out.filter((child): child is ListedChild => child !== undefined);
}

export function encodeCursor(after: string): string {
  return Buffer.from(JSON.stringify({ v: 1, after }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: unknown): string {
  if (typeof cursor !== 'string') throw badCursor();
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; after?: unknown };
    if (parsed.v === 1 && typeof parsed.after === 'string') return parsed.after;
  } catch {
    // Falls through.
  }
  throw badCursor();
}

function badCursor(): InvalidArgumentError {
  return new InvalidArgumentError('That cursor is not one this listing returned; list again without it.', { details: { argument: 'cursor' } });
}
