/**
 * A command's working directory, proven inside the root on its own descriptor. The child is
 * spawned with `cwd` set to this process's descriptor link (`/proc/<pid>/fd/N`), so the directory
 * it starts in is exactly the one that was checked, even if the path is swapped for a symlink in
 * between. The descriptor stays open until spawn() has returned (the child has exec'd by then).
 *
 * `spawnIn` must attach every listener it needs (exit, close, data, error) before it returns: the
 * descriptor is closed after it, on the thread pool, and a quick child can exit and emit its events
 * during that await — a listener attached afterwards never hears them.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { openContainedHandle } from '@neuralis/package-system/paths';
import type { Address } from './address.js';

export async function withContainedCwd<T>(rootPath: string, address: Address, spawnIn: (cwd: string) => T): Promise<T> {
  const directory = await openContainedHandle(rootPath, address.relative, { expect: 'directory' });
  try {
    return spawnIn(`/proc/${process.pid}/fd/${directory.fd}`);
  } finally {
    await directory.close();
  }
}

/** Throws `invalid_argument` unless `command` is a non-empty string without NUL bytes. */
export function checkCommand(command: unknown): string {
  if (typeof command !== 'string' || command.trim() === '' || command.includes('\0')) {
    throw new InvalidArgumentError('command must be a non-empty shell command line without NUL bytes.', { details: { argument: 'command' } });
  }
  return command;
}
