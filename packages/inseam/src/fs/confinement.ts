/**
 * The confinement plan the platform hands a connector with each exec entry (see
 * ExecConfinement): the caller's read and write rights at the host root and at every path the
 * host's tree names — so a connector that sandboxes commands mounts exactly what the tree allows —
 * and the data directory, which no command may see even when a host's root contains it.
 */
import type { ExecConfinement } from '@neuralis/package-system/contracts';
import type { CompiledPermissions } from './permissions.js';

export function confinementOf(permissions: CompiledPermissions, dataDir: string): ExecConfinement {
  const keys = ['', ...Object.keys(permissions.tree.paths ?? {})];
  const paths = keys.map((path) => {
    const rights = permissions.rightsAt(path === '' ? [] : path.split('/'));
    return { path, read: rights.read, write: rights.write };
  });
  return { paths, conceal: [dataDir] };
}
