/**
 * The master key: 32 random bytes every credential record is sealed under (through keys derived
 * from it, see cipher.ts). It comes from `INSEAM_MASTER_KEY` when that is set, otherwise from a key
 * file that is created at first start.
 *
 * Accepted text forms, for the variable and the file alike (surrounding whitespace ignored):
 * 64 hex digits, or standard/URL-safe base64 of exactly 32 bytes (43 characters, `=` optional).
 * Anything else is refused: a passphrase or a truncated key would silently weaken every record.
 *
 * The key file is created atomically: the key is written to a temporary file opened with
 * `O_CREAT | O_EXCL` and mode 0600, flushed, then hard-linked into place (`link` fails if the name
 * exists), so a concurrent first start never sees a half-written key and never overwrites one.
 * An existing key file is opened with `O_NOFOLLOW` and checked on the open descriptor: it must be
 * a regular file owned by this user with no group or other permission bits at all.
 */
import { constants } from 'node:fs';
import { link, mkdir, open, unlink } from 'node:fs/promises';
import { readPrivateFile } from './private-file.js';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { InvalidConfigError, UnavailableError } from '@neuralis/package-system/contracts';

export const MASTER_KEY_ENV = 'INSEAM_MASTER_KEY';
export const MASTER_KEY_BYTES = 32;

const GENERATE_HINT = 'generate one with `openssl rand -base64 32`';
const MAX_KEY_FILE_BYTES = 1024;

export interface MasterKeyOptions {
  /** Where the variable is read from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The key file used (and created at first start) when `INSEAM_MASTER_KEY` is not set. */
  readonly keyFile: string;
}

export interface MasterKey {
  readonly key: Buffer;
  /** `env`: from INSEAM_MASTER_KEY; `file`: read from the key file; `created`: the key file was made now. */
  readonly source: 'env' | 'file' | 'created';
}

/**
 * Parses a master key written as hex or base64. Throws `invalid_config` naming `origin` (never
 * echoing the text) when it is not exactly 32 bytes in one of the accepted forms.
 */
export function parseMasterKey(text: string, origin: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(trimmed) || /^[A-Za-z0-9_-]{43}=?$/.test(trimmed)) {
    const bare = trimmed.replace(/=$/, '').replace(/-/g, '+').replace(/_/g, '/');
    const key = Buffer.from(bare, 'base64');
    // The last character carries 2 spare bits; only the canonical encoding is accepted.
    if (key.length === MASTER_KEY_BYTES && key.toString('base64').replace(/=$/, '') === bare) return key;
  }
  throw new InvalidConfigError(
    `${origin} is not a valid master key: it must be exactly ${MASTER_KEY_BYTES} bytes written as 64 hex digits or as base64 (44 characters); ${GENERATE_HINT}.`,
    { details: { reason: 'master_key_malformed' } },
  );
}

/**
 * The master key from `INSEAM_MASTER_KEY`, or else from `keyFile` (created with a fresh random
 * key when it does not exist). Throws `invalid_config` when the variable or the file content is
 * malformed, or when the key file is a symlink, not a regular file, owned by another user or has
 * any group/other permission bit set; `unavailable` when the file cannot be read or created.
 */
export async function loadMasterKey(options: MasterKeyOptions): Promise<MasterKey> {
  const fromEnv = (options.env ?? process.env)[MASTER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { key: parseMasterKey(fromEnv, MASTER_KEY_ENV), source: 'env' };
  const existing = await readKeyFile(options.keyFile);
  if (existing !== null) return { key: existing, source: 'file' };
  const created = await createKeyFile(options.keyFile);
  if (created !== null) return { key: created, source: 'created' };
  // Another process created it between our read and our link: use theirs.
  const raced = await readKeyFile(options.keyFile);
  if (raced === null) throw new UnavailableError(`The master key file ${options.keyFile} vanished while it was being created; start again.`);
  return { key: raced, source: 'file' };
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

async function readKeyFile(path: string): Promise<Buffer | null> {
  let bytes: Buffer | null;
  try {
    bytes = await readPrivateFile(path, { label: 'master key file', reason: 'key_file', maxBytes: MAX_KEY_FILE_BYTES });
  } catch (error) {
    // A key file too large to be a key says so in the master key's own words.
    if ((error as { details?: { reason?: unknown } }).details?.reason === 'key_file_too_large') {
      throw new InvalidConfigError(`The master key file ${path} is too large to be a master key.`, { details: { reason: 'master_key_malformed' } });
    }
    throw error;
  }
  return bytes === null ? null : parseMasterKey(bytes.toString('utf8'), `The master key file ${path}`);
}

/** Creates the key file; null when one already exists (another process won the race). */
async function createKeyFile(path: string): Promise<Buffer | null> {
  const key = randomBytes(MASTER_KEY_BYTES);
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      // The umask can only remove bits, but be explicit: the file must be 0600 whatever it is.
      await handle.chmod(0o600);
      await handle.writeFile(`${key.toString('base64')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, path);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return null;
      throw error;
    }
    return key;
  } catch (error) {
    throw new UnavailableError(`The master key file ${path} cannot be created (${errorCode(error) ?? 'error'}); check that its folder is writable, or set ${MASTER_KEY_ENV}.`, {
      details: { reason: 'key_file_uncreatable' },
    });
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
