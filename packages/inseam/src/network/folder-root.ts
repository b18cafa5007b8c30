/**
 * A folder host's root must be a folder when the host is added or changed: a root that is
 * missing, or is a file, would otherwise be stored and only show as a probe reason later.
 *
 * - `fs`: the absolute `root` must exist and be a folder.
 * - `local`: roots under the network's folder (`data`, `_packages`, with a sub-folder) are the
 *   platform's own and are created when the host is stored, so only something else in the way (a
 *   file) is refused; a `${appRoot}` root must exist and be a folder.
 *
 * The message names the field, never the path: the person who typed it knows it, and a token
 * that may add hosts must not learn through it what exists outside any root.
 */
import { stat } from 'node:fs/promises';
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import { resolveLocalRoot, type RootBases } from './declarations.js';

/** Throws `invalid_config` (`details.fields: ["root"]`, `details.reason: "root_missing" | "root_not_a_folder"`). */
export async function checkFolderRoot(kind: string, config: Readonly<Record<string, unknown>>, bases: RootBases): Promise<void> {
  if (kind !== 'fs' && kind !== 'local') return;
  const root = config['root'];
  if (typeof root !== 'string') return;
  const folder = kind === 'fs' ? root : resolveLocalRoot(root, bases);
  if (folder === null) return;
  const createdByPlatform = kind === 'local' && !root.startsWith('${');
  let isFolder: boolean;
  try {
    isFolder = (await stat(folder)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The platform makes its own folders, nobody else's.
    if (code === 'ENOENT' && createdByPlatform) return;
    if (code === 'ENOTDIR') isFolder = false;
    else if (code === 'ENOENT') {
      throw new InvalidConfigError(`Invalid source config: field "root" names a folder that does not exist; create it first, or correct the path.`, {
        details: { fields: ['root'], reason: 'root_missing' },
      });
    }
    // Unreadable and the like: the host's probe reports it (fs_permission); the folder is there.
    else return;
  }
  if (!isFolder) {
    throw new InvalidConfigError(`Invalid source config: field "root" names a file, not a folder; give the folder that holds it.`, {
      details: { fields: ['root'], reason: 'root_not_a_folder' },
    });
  }
}
