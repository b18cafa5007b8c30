/**
 * Who is calling. Built by the platform from the authenticated caller — never from tool input —
 * and handed to exec and detached.start so the loader can check entry features.
 */
export interface SessionContext {
  /** The authenticated user id. */
  readonly userId: string;
  /** The agent acting for the user, when the call comes from an agent. */
  readonly agentId?: string;
  /** The network (the package system's project) the call is made in. */
  readonly projectId: string;
  /** Feature ids granted to this caller, e.g. `exec.machine`. */
  readonly features: ReadonlySet<string>;
}

/** Who owns a source: the whole project (network), one user, or one agent. */
export type OwnershipScope = 'project' | 'user' | 'agent';

export const OWNERSHIP_SCOPES = ['project', 'user', 'agent'] as const satisfies readonly OwnershipScope[];

export interface PermissionRights {
  readonly read: boolean;
  readonly write: boolean;
  readonly exec: boolean;
}

/**
 * A source's permission tree: rights at the root plus overrides keyed by source-relative path
 * (whole segments, no leading slash). The most specific path wins; a deny on a child beats an
 * allow on its parent; no right implies another.
 */
export interface PermissionTree {
  readonly default: PermissionRights;
  readonly paths?: Readonly<Record<string, Partial<PermissionRights>>>;
}
