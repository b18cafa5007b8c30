/**
 * inseam's own data directory (the admin token, the master key, the store with its credentials)
 * never shows through a host whose root contains it — `fs` on a home folder with the default data
 * directory below it, or `local` on `${appRoot}` with `--data ./data`. Containment cannot help:
 * the data directory is inside the root. So such a host's permission tree denies every right at
 * the data directory's path (concealTree), and — since a symlink inside the root may point there —
 * what a call reaches is also checked by its real path (Concealment.covers).
 *
 * A root inside the data directory (every `local` root under `networks/`) conceals nothing: it
 * holds a network's own files, not the platform's state.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { PermissionDeniedError, type PermissionTree } from '@neuralis/package-system/contracts';
import type { Connector } from '@inseam/connector';
import { addressFromHostPath } from '../address/index.js';
import { NO_RIGHTS } from '../fs/permissions.js';

export interface Concealment {
  /** The data directory's path below the host root, decoded segments; [] when the root is the data directory. */
  readonly segments: readonly string[];
  /** Whether a real path (as resolveOsUri answers) is the data directory or lies inside it. */
  covers(osPath: string): boolean;
}

/** The data directory as seen from a host whose root's real path is `rootReal`; null when the root does not contain it. */
export async function concealmentFor(rootReal: string, dataDir: string): Promise<Concealment | null> {
  const dataReal = await realpath(dataDir).catch(() => dataDir);
  const inside = relative(rootReal, dataReal);
  // `..x` is a name below the root; only `..` itself or `../…` lies outside it.
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return null;
  return {
    segments: inside === '' ? [] : inside.split(sep),
    covers: (osPath) => osPath === dataReal || osPath.startsWith(dataReal.endsWith(sep) ? dataReal : dataReal + sep),
  };
}

/**
 * The tree with every right denied at `segments` and below: the data directory's own key, and no
 * key below it (a deeper allow would beat the deny).
 */
export function concealTree(tree: PermissionTree, segments: readonly string[]): PermissionTree {
  if (segments.length === 0) return { default: NO_RIGHTS };
  const at = segments.join('/');
  const paths = Object.fromEntries(Object.entries(tree.paths ?? {}).filter(([key]) => key !== at && !key.startsWith(`${at}/`)));
  return { ...tree, paths: { ...paths, [at]: NO_RIGHTS } };
}

/**
 * The host Connector the crawler gets for a host whose root contains the data directory: the data
 * directory's entries are left out of listings and watch events (the crawl then drops any an
 * earlier crawl kept, as for anything it no longer sees), a stat there or through a symlink into
 * it finds nothing, and such a read answers `permission_denied` — so no byte of it is indexed.
 * `realPathOf` answers a host path's real path (the port's resolveOsUri).
 */
export function concealingConnector(connector: Connector, concealment: Concealment, realPathOf: (path: string) => Promise<string>): Connector {
  const hidden = (path: string): boolean => {
    const segments = path === '' ? [] : addressFromHostPath(path, { host: 'x' }).segments;
    return concealment.segments.every((segment, index) => segments[index] === segment);
  };
  const reachesIn = async (path: string): Promise<boolean> => hidden(path) || concealment.covers(await realPathOf(path));
  const wrapped: Connector = {
    describe: () => connector.describe(),
    list: async (opts) => {
      const page = await connector.list(opts);
      return { ...page, entries: page.entries.filter((entry) => !hidden(entry.path)) };
    },
    stat: async (path) => ((await reachesIn(path).catch(() => false)) ? null : connector.stat(path)),
    read: async (path, opts) => {
      if (await reachesIn(path)) throw new PermissionDeniedError("That path leads into inseam's own data directory, which no host serves.", { details: { reason: 'data_directory' } });
      return connector.read(path, opts);
    },
  };
  const watch = connector.watch?.bind(connector);
  return watch === undefined ? wrapped : { ...wrapped, watch: (emit) => watch((event) => hidden(event.path) || (event.from !== undefined && hidden(event.from)) ? undefined : emit(event)) };
}
