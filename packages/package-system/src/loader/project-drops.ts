/**
 * Project `_packages/` drops: every real sub-folder of `<projectRoot>/_packages` is one package.
 * Symlinked entries and dot-folders are skipped — a drop is a folder placed there, not a pointer
 * to code elsewhere on the host.
 */
import { readdir } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { InvalidArgumentError, UnavailableError } from '../contracts/index.js';

export const PROJECT_PACKAGES_FOLDER = '_packages';

export interface ProjectDrop {
  /** The folder name under `_packages/`. */
  readonly name: string;
  readonly folder: string;
}

/**
 * The drops under `projectRoot`, sorted by name; [] when there is no `_packages/` folder. Throws
 * `invalid_argument` for a relative project root and `unavailable` when the folder cannot be read.
 */
export async function listProjectDrops(projectRoot: string): Promise<ProjectDrop[]> {
  if (typeof projectRoot !== 'string' || !isAbsolute(projectRoot)) {
    throw new InvalidArgumentError('A project root for a _packages/ scan must be an absolute path.');
  }
  const base = join(projectRoot, PROJECT_PACKAGES_FOLDER);
  let entries;
  try {
    entries = await readdir(base, { withFileTypes: true });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UnavailableError('The project _packages/ folder cannot be read.', { cause });
  }
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => ({ name: entry.name, folder: join(base, entry.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
