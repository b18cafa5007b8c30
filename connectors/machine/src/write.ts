/**
 * Conditional writes over SFTP. The bytes go to a fresh temporary file beside the target (opened
 * exclusively), which then replaces the target with posix-rename@openssh.com (atomic: readers see
 * the old or the new file) or, for `createOnly`, is hard-linked to the target's name with
 * hardlink@openssh.com, which fails when anything is there — the server enforces "create only".
 * `ifMatch` is compared with the current etag under a per-path lock, so this connector's own
 * writes to one path are ordered; a writer on the machine itself is not held by that lock.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { AlreadyExistsError, InvalidArgumentError, IsADirectoryError, PreconditionFailedError, hasErrorCode } from '@neuralis/package-system/contracts';
import type { WriteOptions } from '@neuralis/package-system/contracts';
import { etagOf } from './entry.js';
import type { RemoteFiles } from './remote.js';
import { isDirectory } from './remote.js';
import { sftpCall } from './sftp-call.js';
import type { SftpAttributes, SftpSession } from './ssh.js';

const WRITE_CHUNK = 255 * 1024;
const locks = new Map<string, Promise<void>>();

async function locked<T>(key: string, action: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const chained = previous.then(() => current);
  locks.set(key, chained);
  await previous;
  try {
    return await action();
  } finally {
    release();
    if (locks.get(key) === chained) locks.delete(key);
  }
}

/** Writes `chunks` to `names`; returns the new attributes. */
export async function writeRemote(files: RemoteFiles, lockKey: string, names: readonly string[], chunks: AsyncIterable<Uint8Array>, options: WriteOptions): Promise<SftpAttributes> {
  if (options.ifMatch !== undefined && options.createOnly === true) {
    throw new InvalidArgumentError('ifMatch and createOnly exclude each other; pass one.', { details: { argument: 'ifMatch' } });
  }
  return locked(`${lockKey}\0${names.join('/')}`, async () => {
    let target;
    try {
      target = await files.resolveForWrite(names, true);
    } catch (error) {
      // A link at the name that leads nowhere or out is "something there" to a create-only write.
      if (options.createOnly === true && hasErrorCode(error, 'containment_violation') && (await files.nameTaken(names))) {
        throw new AlreadyExistsError('Something is already at that path.');
      }
      throw error;
    }
    const { sftp, parent, path, existing } = target;
    if (existing !== null && isDirectory(existing)) throw new IsADirectoryError('That path is a folder; a file cannot replace it.');
    if (options.createOnly === true && existing !== null) throw new AlreadyExistsError('Something is already at that path.');
    if (options.ifMatch !== undefined && (existing === null || etagOf(existing) !== options.ifMatch)) {
      throw new PreconditionFailedError('The file changed since that etag was read (or is gone); read it again and retry.', { details: { argument: 'ifMatch' } });
    }
    const temp = posix.join(parent, `.${posix.basename(path).slice(0, 64)}.inseam-${randomBytes(6).toString('hex')}.tmp`);
    const handle = await files.call<Buffer>(sftp, (done) => sftp.open(temp, 'wx', { mode: existing === null ? 0o644 : existing.mode & 0o7777 }, done));
    let placed = false;
    try {
      let position = 0;
      try {
        for await (const chunk of chunks) {
          const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          for (let offset = 0; offset < buffer.length; offset += WRITE_CHUNK) {
            const length = Math.min(WRITE_CHUNK, buffer.length - offset);
            await files.call(sftp, (done) => sftp.write(handle, buffer, offset, length, position, done));
            position += length;
          }
        }
      } finally {
        await files.call(sftp, (done) => sftp.close(handle, done));
      }
      if (options.createOnly === true) {
        await files.call(sftp, (done) => sftp.ext_openssh_hardlink(temp, path, done)).catch(async (error: unknown) => {
          if (await files.nameTaken(names)) throw new AlreadyExistsError('Something is already at that path.');
          throw error;
        });
        await files.call(sftp, (done) => sftp.unlink(temp, done)).catch(() => undefined);
      } else {
        await files.call(sftp, (done) => sftp.ext_openssh_rename(temp, path, done));
      }
      placed = true;
    } finally {
      if (!placed) await sftpCall((done) => sftp.unlink(temp, done)).catch(() => undefined);
    }
    return bumpIfUnchanged(files, sftp, path, existing);
  });
}

/** Moves the mtime on a second when the write left size and mtime as they were (same size, same second). */
async function bumpIfUnchanged(files: RemoteFiles, sftp: SftpSession, path: string, previous: SftpAttributes | null): Promise<SftpAttributes> {
  const attrs = await files.call<SftpAttributes>(sftp, (done) => sftp.stat(path, done));
  if (previous === null || etagOf(attrs) !== etagOf(previous)) return attrs;
  await files.call(sftp, (done) => sftp.utimes(path, attrs.atime, attrs.mtime + 1, done));
  return files.call<SftpAttributes>(sftp, (done) => sftp.stat(path, done));
}
