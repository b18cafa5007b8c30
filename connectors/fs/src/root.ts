/**
 * Where a folder source's root is, and whether it can be reached. `fs` roots are absolute paths an
 * admin names; `local` roots are the spec's tokens (`data`, `_packages`, `${appRoot}`, optionally
 * followed by `/sub/path`) resolved against the project root or the platform's app root.
 *
 * A root that is missing, not a directory or unreadable is an operational state, not a bad
 * request: operations then throw `unavailable` carrying the probe reason (`fs_unreachable`,
 * `fs_permission`) in `details.reason`, and probeConnection reports the same reason.
 */
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import {
  InvalidConfigError,
  ROOT_TOKENS,
  UnavailableError,
  hasErrorCode,
  isConnectorError,
} from '@neuralis/package-system/contracts';
import type { ProbeResult, RootToken } from '@neuralis/package-system/contracts';
import { resolveContained } from '@neuralis/package-system/paths';

export interface FolderRoot {
  /** The absolute path the containment primitives anchor on. Throws `unavailable` when unreachable. */
  path(): Promise<string>;
  /** One stat of the root: connected, or `fs_unreachable` / `fs_permission`. Never throws. */
  probe(): Promise<ProbeResult>;
}

/** An `fs` root: the configured absolute path, used as given (the primitives realpath it). */
export function absoluteRoot(root: string): FolderRoot {
  return {
    path: async () => root,
    probe: () => probePath(root),
  };
}

/** Throws `invalid_config` unless `root` is an absolute folder path. */
export function checkAbsoluteRoot(root: unknown): string {
  if (typeof root !== 'string' || root.length < 1 || !root.startsWith('/') || root.includes('\0')) {
    throw new InvalidConfigError('"root" must be the absolute path of a folder on this device, such as "/srv/shared".', {
      details: { field: 'root' },
    });
  }
  return root;
}

export interface TokenBases {
  /** Absolute project root; `data` and `_packages` resolve under it. */
  readonly projectRoot?: string;
  /** Absolute platform application root; `${appRoot}` resolves to it. */
  readonly appRoot?: string;
}

export interface ParsedRootToken {
  readonly token: RootToken;
  /** Names below the token's folder; [] for the token itself. */
  readonly subPath: readonly string[];
}

/** The JSON-Schema pattern of a local root: a token, then optional `/name` segments (never `.` or `..`). */
export const ROOT_TOKEN_PATTERN = '^(data|_packages|\\$\\{appRoot\\})(/(?!\\.{1,2}(/|$))[^/\\\\]+)*$';

/**
 * Parses `data`, `_packages`, `${appRoot}`, each optionally followed by `/sub/path`. Absolute
 * paths, `..`/`.` segments, backslashes and unknown `${…}` tokens are refused with
 * `invalid_config`, as the spec's root-token allow-list requires.
 */
export function parseRootToken(root: unknown): ParsedRootToken {
  const refuse = (why: string): never => {
    throw new InvalidConfigError(`"root" ${why} A local root is one of ${ROOT_TOKENS.join(', ')}, optionally followed by "/sub/folder".`, {
      details: { field: 'root' },
    });
  };
  if (typeof root !== 'string' || root.length === 0) return refuse('is missing.');
  const [head, ...rest] = root.split('/');
  if (!(ROOT_TOKENS as readonly string[]).includes(head!)) {
    return refuse(root.startsWith('/') ? 'is an absolute path (use the fs kind for absolute folders).' : 'does not start with a known token.');
  }
  for (const name of rest) {
    if (name === '' || name === '.' || name === '..' || name.includes('\\') || name.includes('\0') || name.includes('${')) {
      return refuse('has an empty, ".", ".." or otherwise invalid segment.');
    }
  }
  return { token: head as RootToken, subPath: rest };
}

/** Throws `invalid_config` unless `root` is a valid local root token; returns it unchanged. */
export function checkRootToken(root: unknown): string {
  parseRootToken(root);
  return root as string;
}

/**
 * A `local` root. The token's base folder comes from `bases`; a missing base is a setup problem
 * (`invalid_config`) found at construction, not at first use. A sub path is resolved through
 * `resolveContained` on every call, so a symlink planted on it can never lead out of the base.
 */
export function tokenRoot(root: string, bases: TokenBases): FolderRoot {
  const { token, subPath } = parseRootToken(root);
  const base = baseFolder(token, bases);
  if (subPath.length === 0) return absoluteRoot(base);
  const relative = subPath.join('/');
  const resolve = async (): Promise<string> => {
    try {
      return await resolveContained(base, relative);
    } catch (error) {
      throw unreachableFrom(error);
    }
  };
  return {
    path: resolve,
    probe: async () => {
      let resolved: string;
      try {
        resolved = await resolveContained(base, relative);
      } catch (error) {
        return { connected: false, reason: hasErrorCode(error, 'permission_denied') ? 'fs_permission' : 'fs_unreachable' };
      }
      return probePath(resolved);
    },
  };
}

function baseFolder(token: RootToken, bases: TokenBases): string {
  if (token === '${appRoot}') {
    if (bases.appRoot === undefined || !bases.appRoot.startsWith('/')) {
      throw new InvalidConfigError(
        'The root "${appRoot}" needs the platform application root; the platform supplies it to createLocalConnectorFactory({ appRoot }) or as INSEAM_APP_ROOT.',
        { details: { field: 'root' } },
      );
    }
    return bases.appRoot;
  }
  if (bases.projectRoot === undefined || !bases.projectRoot.startsWith('/')) {
    throw new InvalidConfigError(`The root "${token}" is project-relative, but the source was bound without an absolute projectRoot.`, {
      details: { field: 'root' },
    });
  }
  return `${bases.projectRoot.replace(/\/+$/, '')}/${token}`;
}

/** Cheap: one stat. Unreadability is judged from the mode bits (ACLs are not consulted). */
export async function probePath(path: string): Promise<ProbeResult> {
  let stats: Stats;
  try {
    stats = await stat(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { connected: false, reason: code === 'EACCES' || code === 'EPERM' ? 'fs_permission' : 'fs_unreachable' };
  }
  if (!stats.isDirectory()) return { connected: false, reason: 'fs_unreachable' };
  if (!canListDirectory(stats)) return { connected: false, reason: 'fs_permission' };
  return { connected: true };
}

/** Who the platform runs as, for judging permission bits. */
export interface ProcessIdentity {
  readonly uid: number;
  readonly gids: readonly number[];
}

function currentIdentity(): ProcessIdentity | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  return { uid, gids: [process.getgid?.() ?? -1, ...(process.getgroups?.() ?? [])] };
}

/** Whether `who` may read and search a directory with these owner and mode bits (root always may). */
export function canListDirectory(stats: Pick<Stats, 'uid' | 'gid' | 'mode'>, who: ProcessIdentity | undefined = currentIdentity()): boolean {
  if (who === undefined || who.uid === 0) return true;
  const READ_AND_SEARCH = 0o5;
  if (stats.uid === who.uid) return ((stats.mode >> 6) & READ_AND_SEARCH) === READ_AND_SEARCH;
  if (who.gids.includes(stats.gid)) return ((stats.mode >> 3) & READ_AND_SEARCH) === READ_AND_SEARCH;
  return (stats.mode & READ_AND_SEARCH) === READ_AND_SEARCH;
}

const ROOT_SENSITIVE_CODES = new Set(['not_found', 'not_a_directory', 'permission_denied', 'containment_violation', 'invalid_path']);

/**
 * Turns a containment failure into `unavailable` when the ROOT is what is wrong (checked with one
 * probe, only on the error path), so callers can tell an offline source from a missing object.
 * Any other error is returned unchanged.
 */
export async function explainRootFailure(root: FolderRoot, error: unknown): Promise<unknown> {
  if (!isConnectorError(error) || !ROOT_SENSITIVE_CODES.has(error.code)) return error;
  if (error instanceof UnavailableError) return error;
  const probe = await root.probe();
  if (probe.connected) return error;
  return rootUnavailable(probe.reason ?? 'fs_unreachable');
}

export function rootUnavailable(reason: 'fs_unreachable' | 'fs_permission' | 'runtime_offline' | 'store_unreachable'): UnavailableError {
  const message =
    reason === 'fs_permission'
      ? "The source's root folder cannot be read by the platform (permission denied); an admin must fix its permissions."
      : "The source's root folder does not exist or is not a folder; an admin must restore it or change the source's root.";
  return new UnavailableError(message, { details: { reason } });
}

function unreachableFrom(error: unknown): UnavailableError {
  return rootUnavailable(hasErrorCode(error, 'permission_denied') ? 'fs_permission' : 'fs_unreachable');
}

/** Runs `operation` against the root path, translating root-caused failures into `unavailable`. */
export async function withRoot<T>(root: FolderRoot, operation: (rootPath: string) => Promise<T>): Promise<T> {
  try {
    return await operation(await root.path());
  } catch (error) {
    throw await explainRootFailure(root, error);
  }
}
