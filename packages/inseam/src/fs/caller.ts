/**
 * The caller as the service trusts it: a frozen copy of the session the surface authenticated,
 * taken once per call so nothing can change it between a check and a use. Identity never comes
 * from the operation's input objects; those are copied field by field and anything else on them
 * (a `session`, a `userId`, a `canRead`) is ignored.
 */
import { PermissionDeniedError, type SessionContext } from '@neuralis/package-system/contracts';
import { isNetworkSlug } from '../address/index.js';
import type { DetachedRunOwnership, HostRecord } from '../store/index.js';
import type { Grant } from './grants.js';

export interface CheckedCaller {
  readonly session: SessionContext;
  /** The caller's network (= `session.projectId`). */
  readonly network: string;
  readonly userId: string;
  readonly agentId: string | undefined;
  /** Present when the content goes to a model. */
  readonly model: { readonly image: boolean; readonly video: boolean } | undefined;
  /**
   * An agent's grants, copied (none for a person, whose rights are the host's tree alone).
   * Parsed only when a write, delete or exec asks (access.ts), so reads pay nothing for them.
   */
  readonly grants: readonly Grant[];
}

const ID_MAX = 256;
const NO_GRANTS: readonly Grant[] = Object.freeze([]);

/** The grants' own two fields, frozen; what is not shaped like a grant is dropped. */
function copyGrants(values: readonly unknown[]): readonly Grant[] {
  const copied: Grant[] = [];
  for (const value of values) {
    const right = field(value, 'right');
    const address = field(value, 'address');
    if (typeof right === 'string' && typeof address === 'string') copied.push(Object.freeze({ right, address } as Grant));
  }
  return Object.freeze(copied);
}

/**
 * Checks and copies a caller. Throws `permission_denied` when there is no usable session: no
 * userId, a projectId that is not a network slug, features that are not a set of strings.
 */
export function checkCaller(value: unknown): CheckedCaller {
  const session = field(value, 'session');
  const userId = field(session, 'userId');
  const agentId = field(session, 'agentId');
  const projectId = field(session, 'projectId');
  const features = field(session, 'features');
  if (!isId(userId) || (agentId !== undefined && !isId(agentId)) || !isNetworkSlug(projectId) || !isFeatureSet(features)) {
    throw new PermissionDeniedError('The call carries no authenticated caller: the surface must pass the session it authenticated (userId, projectId, features).');
  }
  const copied: SessionContext = Object.freeze({
    userId,
    ...(agentId === undefined ? {} : { agentId }),
    projectId,
    features: Object.freeze(new Set([...features].filter((feature): feature is string => typeof feature === 'string'))),
  });
  const model = field(value, 'model');
  const grants = field(value, 'grants');
  return Object.freeze({
    session: copied,
    network: projectId,
    userId,
    agentId: agentId,
    model: typeof model === 'object' && model !== null ? Object.freeze({ image: field(model, 'image') === true, video: field(model, 'video') === true }) : undefined,
    // A surface that hands an agent no grants gives it none: nothing is assumed.
    grants: agentId !== undefined && Array.isArray(grants) && grants.length > 0 ? copyGrants(grants) : NO_GRANTS,
  });
}

/**
 * Whether the caller may use a host at all: project hosts are everyone's in the network; a
 * user-owned host is its user's; an agent-owned host is its agent's.
 */
export function mayUseHost(caller: CheckedCaller, host: Pick<HostRecord, 'ownership' | 'ownerId'>): boolean {
  if (host.ownership === 'user') return host.ownerId === caller.userId;
  if (host.ownership === 'agent') return caller.agentId !== undefined && host.ownerId === caller.agentId;
  return true;
}

/**
 * Whether the caller owns a detached run: same network and user, and — when the caller is an
 * agent — the agent that started it. A user (no agent) owns the runs their agents started too.
 */
export function ownsRun(caller: CheckedCaller, run: DetachedRunOwnership): boolean {
  if (run.network !== caller.network || run.userId !== caller.userId) return false;
  return caller.agentId === undefined || run.agentId === caller.agentId;
}

/** The actor string a connector may write into its own audit row on kill. */
export function actorOf(caller: CheckedCaller): string {
  return caller.agentId === undefined ? caller.userId : `${caller.userId}/${caller.agentId}`;
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= ID_MAX;
}

function isFeatureSet(value: unknown): value is Iterable<unknown> {
  return value instanceof Set || (typeof value === 'object' && value !== null && typeof Reflect.get(value, 'has') === 'function' && Symbol.iterator in value);
}
