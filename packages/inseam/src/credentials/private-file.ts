/**
 * Reading a file that holds secrets (the master key file, the deployment's OAuth clients): opened
 * with `O_NOFOLLOW` and checked on the open descriptor, so what is checked is what is read. It
 * must be a regular file owned by the user inseam runs as, with no group or other permission bit.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { InvalidConfigError, UnavailableError } from '@neuralis/package-system/contracts';

export interface PrivateFile {
  /** How messages name it, e.g. "master key file". */
  readonly label: string;
  /** The prefix of `details.reason`: `<prefix>_symlink`, `_unreadable`, `_not_regular`, `_permissions`, `_owner`, `_too_large`. */
  readonly reason: string;
  readonly maxBytes: number;
}

/**
 * The file's bytes, or null when it does not exist. Throws `invalid_config` for a symlink, a
 * non-regular file, a mode others may read (naming the chmod to run), another owner or a file
 * over `maxBytes`; `unavailable` when it cannot be opened. Messages never hold the contents.
 */
export async function readPrivateFile(path: string, file: PrivateFile): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new InvalidConfigError(`The ${file.label} ${path} is a symbolic link; point the configuration at the real file.`, { details: { reason: `${file.reason}_symlink` } });
    throw new UnavailableError(`The ${file.label} ${path} cannot be opened (${typeof code === 'string' ? code : 'error'}); check that this user can read it.`, { details: { reason: `${file.reason}_unreadable` } });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new InvalidConfigError(`The ${file.label} ${path} is not a regular file.`, { details: { reason: `${file.reason}_not_regular` } });
    if (process.platform !== 'win32') {
      if ((stats.mode & 0o077) !== 0) {
        const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
        throw new InvalidConfigError(`The ${file.label} ${path} has mode ${mode}, so other users may read it; run \`chmod 600 ${path}\` (and consider what it holds exposed if they did).`, {
          details: { reason: `${file.reason}_permissions`, mode },
        });
      }
      const uid = process.getuid?.();
      if (uid !== undefined && stats.uid !== uid) {
        throw new InvalidConfigError(`The ${file.label} ${path} belongs to another user; it must be owned by the user inseam runs as.`, { details: { reason: `${file.reason}_owner` } });
      }
    }
    if (stats.size > file.maxBytes) throw new InvalidConfigError(`The ${file.label} ${path} is larger than ${file.maxBytes} bytes.`, { details: { reason: `${file.reason}_too_large` } });
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
