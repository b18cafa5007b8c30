/**
 * The confinement plan the platform hands a connector with each exec entry (see
 * ExecConfinement): the caller's read and write rights at the host root and at every path the
 * host's tree names — so a connector that sandboxes commands mounts exactly what the tree allows —
 * and the data directory, which no command may see even when a host's root contains it.
 *
 * An agent writes inside a command only where its token could write and delete through the API:
 * a writable mount lets a command remove as well as change, so both grants must cover the path.
 * Each such grant's folder becomes a path of the plan too. With those and the tree's keys listed,
 * every other path's nearest listed ancestor answers for it exactly, as the tree and the grants
 * would: no key of either lies between them.
 */
import type { ExecConfinement } from '@neuralis/package-system/contracts';
import type { CheckedCaller } from './caller.js';
import { compileGrants, grantCovers } from './grants.js';
import type { CompiledPermissions } from './permissions.js';

/** Where the command runs: the host the cwd routed to. */
export interface ConfinedPlace {
  readonly network: string;
  readonly host: string;
}

export function confinementOf(permissions: CompiledPermissions, dataDir: string, caller: CheckedCaller, place: ConfinedPlace): ExecConfinement {
  const keys = new Set(['', ...Object.keys(permissions.tree.paths ?? {})]);
  const grants = caller.agentId === undefined ? undefined : compileGrants(caller.grants);
  for (const grant of grants ?? []) {
    if (grant.network === place.network && grant.host === place.host && grant.right !== 'exec') keys.add(grant.segments.join('/'));
  }
  const paths = [...keys].map((path) => {
    const segments = path === '' ? [] : path.split('/');
    const rights = permissions.rightsAt(segments);
    const granted =
      grants === undefined ||
      (grantCovers(grants, 'write', place.network, place.host, segments) && grantCovers(grants, 'delete', place.network, place.host, segments));
    return { path, read: rights.read, write: rights.write && granted };
  });
  return { paths, conceal: [dataDir] };
}
