/**
 * Who a credential record belongs to. Every record lives in exactly one scope: a network (the
 * package system's project) and an owner inside it — the whole network (`project`), one user or
 * one agent — or, for operator-wide package credentials, the deployment (`network: null`).
 *
 * A record's scope and id are bound into its ciphertext as associated data, so a sealed record
 * copied to another scope or id does not decrypt.
 */
import type { OwnershipScope } from '@neuralis/package-system/contracts';
import { InvalidArgumentError, OWNERSHIP_SCOPES } from '@neuralis/package-system/contracts';

export interface CredentialScope {
  /** The network the record belongs to; `null` for a deployment-wide record (owner `project` only). */
  readonly network: string | null;
  readonly owner: OwnershipScope;
  /** The user or agent id, for owner `user` or `agent`; absent for `project`. */
  readonly ownerId?: string;
}

const MAX_NAME_LENGTH = 256;
// Control characters would make ids ambiguous in messages and logs.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The scope of records shared by the whole network. */
export function projectScope(network: string): CredentialScope {
  return checkScope({ network, owner: 'project' });
}

/** The scope of deployment-wide records, which every network falls back to for package credentials. */
export function deploymentScope(): CredentialScope {
  return { network: null, owner: 'project' };
}

export function userScope(network: string, userId: string): CredentialScope {
  return checkScope({ network, owner: 'user', ownerId: userId });
}

export function agentScope(network: string, agentId: string): CredentialScope {
  return checkScope({ network, owner: 'agent', ownerId: agentId });
}

/** Throws `invalid_argument` naming `what` when `value` is not a usable name (1–256 characters, no control characters). */
export function checkName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_NAME_LENGTH || CONTROL.test(value)) {
    throw new InvalidArgumentError(`The ${what} must be a string of 1 to ${MAX_NAME_LENGTH} characters without control characters.`, { details: { argument: what } });
  }
  return value;
}

/**
 * A validated copy of `scope`. Throws `invalid_argument` when the owner is not one of
 * `project`/`user`/`agent`, when a user or agent scope has no `ownerId` or a project scope has
 * one, or when a user or agent scope has no network.
 */
export function checkScope(scope: CredentialScope): CredentialScope {
  if (typeof scope !== 'object' || scope === null || !(OWNERSHIP_SCOPES as readonly string[]).includes(scope.owner)) {
    throw new InvalidArgumentError('A credential scope needs an owner of "project", "user" or "agent".', { details: { argument: 'scope' } });
  }
  const network = scope.network === null ? null : checkName(scope.network, 'network');
  if (scope.owner === 'project') {
    if (scope.ownerId !== undefined) throw new InvalidArgumentError('A project-owned credential scope takes no ownerId.', { details: { argument: 'scope.ownerId' } });
    return { network, owner: 'project' };
  }
  if (network === null) throw new InvalidArgumentError(`A ${scope.owner}-owned credential belongs to a network; name one.`, { details: { argument: 'scope.network' } });
  return { network, owner: scope.owner, ownerId: checkName(scope.ownerId, `${scope.owner} id`) };
}

/** The associated data sealed with a record: the format, its scope and its id, unambiguously encoded. */
export function associatedData(scope: CredentialScope, id: string): Buffer {
  return Buffer.from(JSON.stringify(['inseam-credential', 1, scope.network, scope.owner, scope.ownerId ?? null, id]), 'utf8');
}

/** A short, secret-free description of a scope for messages: `network "home"`, `user "u1" in network "home"`. */
export function describeScope(scope: CredentialScope): string {
  if (scope.network === null) return 'the deployment';
  if (scope.owner === 'project') return `network "${scope.network}"`;
  return `${scope.owner} "${scope.ownerId ?? ''}" in network "${scope.network}"`;
}
