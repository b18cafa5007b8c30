/**
 * The machine's files, reached over SFTP, with containment done on the machine's side: every path
 * is resolved with the server's realpath (which follows every symlink on the machine) and refused
 * with `containment_violation` when the result is not the root or below it. A symlink inside the
 * root that stays inside is followed; one that leads out, or nowhere, is refused.
 *
 * Swaps. SFTP has no openat and no O_NOFOLLOW, so an open cannot be tied to the check the way
 * openContainedHandle does locally. What is done instead: a file is opened by its resolved path
 * (which holds no symlink at check time) and the path is resolved again once the handle is open;
 * a folder swapped for a link in between is seen and the handle refused. A swap that is undone
 * again before the second check is not seen; docs/connectors/machine.md says so.
 */
import { posix } from 'node:path';
import {
  ContainmentViolationError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  UnsupportedFileTypeError,
} from '@neuralis/package-system/contracts';
import type { MachineConnection } from './connection.js';
import { sftpCall } from './sftp-call.js';
import type { SftpAttributes, SftpError, SftpSession } from './ssh.js';

export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const S_IFLNK = 0o120000;

export function isDirectory(attrs: SftpAttributes): boolean {
  return (attrs.mode & S_IFMT) === S_IFDIR;
}

export function isFile(attrs: SftpAttributes): boolean {
  return (attrs.mode & S_IFMT) === S_IFREG;
}

export function isLink(attrs: SftpAttributes): boolean {
  return (attrs.mode & S_IFMT) === S_IFLNK;
}

/** SFTP status codes (draft-ietf-secsh-filexfer-02). */
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

export function inside(real: string, rootPath: string): boolean {
  return real === rootPath || real.startsWith(rootPath === '/' ? '/' : `${rootPath}/`);
}

export interface Resolved {
  readonly sftp: SftpSession;
  readonly rootPath: string;
  /** The real path on the machine, inside the root. */
  readonly path: string;
  readonly attrs: SftpAttributes;
}

export class RemoteFiles {
  /** For tests only: runs between the containment check and the open, where a swap would land. */
  beforeOpen: ((path: string) => Promise<void>) | undefined;

  constructor(private readonly connection: MachineConnection) {}

  /** Runs one SFTP request; maps its failure to a typed error that names no path. */
  async call<T>(sftp: SftpSession, start: (done: (error: SftpError | undefined | null, value?: T) => void) => void): Promise<T> {
    try {
      return await sftpCall<T>(start);
    } catch (error) {
      throw this.mapError(error);
    }
  }

  mapError(error: unknown): Error {
    const lost = this.connection.connectionError(error);
    if (lost !== undefined) return lost;
    const code = (error as SftpError).code;
    if (code === NO_SUCH_FILE) return new NotFoundError('Nothing is at that path on the machine.');
    if (code === PERMISSION_DENIED) return new PermissionDeniedError('The machine refused access to that path for this login.');
    // A plain SFTP failure is the machine refusing this one operation, not the machine being away.
    return new PreconditionFailedError('The machine refused that file operation (a name already taken, a folder not empty, a full disk, or similar).', {
      details: { sftpStatus: typeof code === 'number' ? code : null },
    });
  }

  /** The real path of an existing object, inside the root. Throws not_found, containment_violation. */
  async resolve(names: readonly string[]): Promise<Resolved> {
    const { sftp, rootPath } = await this.connection.sftp();
    const lexical = posix.join(rootPath, ...names);
    let real: string;
    try {
      real = await sftpCall<string>((done) => sftp.realpath(lexical, done));
    } catch (error) {
      const mapped = this.mapError(error);
      if (mapped instanceof NotFoundError && names.length > 0) {
        // A link that leads nowhere is refused like one that leads out: it is never followed.
        const linked = await sftpCall<SftpAttributes>((done) => sftp.lstat(lexical, done)).then(isLink, () => false);
        if (linked) throw escaped();
      }
      throw mapped;
    }
    if (!inside(real, rootPath)) throw escaped();
    const attrs = await this.call<SftpAttributes>(sftp, (done) => sftp.stat(real, done));
    return { sftp, rootPath, path: real, attrs };
  }

  /** As resolve, and a folder is required. Throws not_a_directory too. */
  async resolveDirectory(names: readonly string[]): Promise<Resolved> {
    const resolved = await this.resolve(names);
    if (!isDirectory(resolved.attrs)) throw new NotADirectoryError('That path is a file, not a folder.');
    return resolved;
  }

  /**
   * Where an object at `names` is (or would be) written: the real parent folder, inside the root
   * (created with its missing ancestors when `createParents`), and the final name's state there —
   * missing, a file, a folder, or a link (followed only when it stays inside).
   */
  async resolveForWrite(names: readonly string[], createParents: boolean): Promise<{ sftp: SftpSession; rootPath: string; parent: string; path: string; existing: SftpAttributes | null }> {
    const { sftp, rootPath, parent } = await this.resolveParent(names, createParents);
    const lexical = posix.join(parent, names[names.length - 1]!);
    const linkAttrs = await sftpCall<SftpAttributes>((done) => sftp.lstat(lexical, done)).catch((error: unknown) => {
      const mapped = this.mapError(error);
      if (mapped instanceof NotFoundError) return null;
      throw mapped;
    });
    if (linkAttrs === null || !isLink(linkAttrs)) return { sftp, rootPath, parent, path: lexical, existing: linkAttrs };
    const target = await this.resolve(names);
    return { sftp, rootPath, parent: posix.dirname(target.path), path: target.path, existing: target.attrs };
  }

  /** The real folder `names` would be written in (all but the last name), inside the root. */
  async resolveParent(names: readonly string[], createParents: boolean): Promise<{ sftp: SftpSession; rootPath: string; parent: string }> {
    const { sftp, rootPath } = await this.connection.sftp();
    let parent = rootPath;
    for (const name of names.slice(0, -1)) {
      const next = posix.join(parent, name);
      // OpenSSH's realpath answers for a missing last name too; stat says whether it is there.
      let real = await this.#contained(sftp, rootPath, next);
      let attrs = await sftpCall<SftpAttributes>((done) => sftp.stat(real, done)).catch((error: unknown) => {
        const mapped = this.mapError(error);
        if (mapped instanceof NotFoundError) return null;
        throw mapped;
      });
      if (attrs === null) {
        const linked = await sftpCall<SftpAttributes>((done) => sftp.lstat(next, done)).then(isLink, () => false);
        if (linked) throw escaped();
        if (!createParents) throw new NotFoundError('A folder on the way to that path does not exist on the machine.');
        await this.call(sftp, (done) => sftp.mkdir(real, { mode: 0o755 }, done)).catch((mkdirError: unknown) => {
          // Made meanwhile by someone else is fine; what is there now is checked below.
          if (!(mkdirError instanceof PreconditionFailedError)) throw mkdirError;
        });
        real = await this.#contained(sftp, rootPath, next);
        attrs = await this.call<SftpAttributes>(sftp, (done) => sftp.stat(real, done));
      }
      if (!isDirectory(attrs)) throw new NotADirectoryError('A folder on the way to that path is a file.');
      parent = real;
    }
    return { sftp, rootPath, parent };
  }

  /** The server's realpath of `path`, refused unless inside the root. */
  async #contained(sftp: SftpSession, rootPath: string, path: string): Promise<string> {
    const real = await this.call<string>(sftp, (done) => sftp.realpath(path, done));
    if (!inside(real, rootPath)) throw escaped();
    return real;
  }

  /** Whether anything (a link that leads nowhere included) is at `names`, parents resolved and contained. */
  async nameTaken(names: readonly string[]): Promise<boolean> {
    const { sftp, parent } = await this.resolveParent(names, false);
    return sftpCall<SftpAttributes>((done) => sftp.lstat(posix.join(parent, names[names.length - 1]!), done)).then(
      () => true,
      () => false,
    );
  }

  /**
   * Opens a regular file for reading, checked as described above. The caller closes the handle.
   * Throws not_found, is refused for folders and special files, containment_violation.
   */
  async openFile(names: readonly string[]): Promise<{ sftp: SftpSession; handle: Buffer; attrs: SftpAttributes; path: string }> {
    const resolved = await this.resolve(names);
    if (isDirectory(resolved.attrs)) throw new IsADirectoryError('That path is a folder, not a file.');
    if (!isFile(resolved.attrs)) throw new UnsupportedFileTypeError('That path is not a regular file (a device, socket or pipe); it is not read.');
    const { sftp, rootPath, path } = resolved;
    if (this.beforeOpen !== undefined) await this.beforeOpen(path);
    const handle = await this.call<Buffer>(sftp, (done) => sftp.open(path, 'r', {}, done));
    try {
      const again = await this.call<string>(sftp, (done) => sftp.realpath(path, done));
      if (again !== path || !inside(again, rootPath)) throw escaped();
      const attrs = await this.call<SftpAttributes>(sftp, (done) => sftp.fstat(handle, done));
      if (!isFile(attrs)) throw new UnsupportedFileTypeError('That path is not a regular file; it is not read.');
      return { sftp, handle, attrs, path };
    } catch (error) {
      await sftpCall((done) => sftp.close(handle, done)).catch(() => undefined);
      throw error;
    }
  }

  /** Reads up to `length` bytes at `position` from an open handle, stopping early at end of file. */
  async readAt(sftp: SftpSession, handle: Buffer, position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const chunk = Math.min(length - filled, READ_CHUNK);
      const bytesRead = await this.call<number>(sftp, (done) =>
        sftp.read(handle, buffer, filled, chunk, position + filled, (error, count) => {
          // ssh2 reports end of file as an EOF status on a read past the end.
          if (error !== undefined && error !== null && error.code === 1) done(null, 0);
          else done(error, count);
        }),
      );
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === length ? buffer : buffer.subarray(0, filled);
  }

  async close(sftp: SftpSession, handle: Buffer): Promise<void> {
    await sftpCall((done) => sftp.close(handle, done)).catch(() => undefined);
  }
}

/** Bytes one SFTP read request asks for (OpenSSH serves at most 256 KiB; ssh2 splits larger). */
export const READ_CHUNK = 255 * 1024;

function escaped(): ContainmentViolationError {
  return new ContainmentViolationError('That path leads outside the host\'s folder on the machine (through a link, or a link that leads nowhere); it was refused.');
}
