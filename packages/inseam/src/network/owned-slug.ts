/**
 * User- and agent-owned sources: the re-qualified slug, and who may own one.
 *
 * A declared source's `source` is its canonical slug, a network-wide name. A clone owned by one
 * user or one agent is attached under a re-qualified slug, `{canonical}+{user|agent}.{owner}`
 * (`notion+user.alice`, `scratch+agent.agent-7`), so every owner's clone has its own address
 * and URI scheme in the network and two owners never share a binding. The owner part is the
 * owner id itself when it is already a slug word (a lowercase letter, then lowercase letters,
 * digits and `-`); any other id — or one too long for the 64-character slug — is written as `0`
 * and the first 16 hex digits of its SHA-256, which starts with a digit and so can never be read
 * as a literal id. Who owns a host is its stored `ownership`/`ownerId`, never parsed from the slug.
 *
 * An owned host is created by its owner only (`ownerIdFor`): a person's token for a `user` host
 * (as the person's own id), an agent's token for an `agent` host (as the agent's id). Otherwise
 * one person could create a host "owned" by another whose package credentials — resolved at the
 * owner's scope — would then flow to a config the other never chose.
 */
import { createHash } from 'node:crypto';
import { InvalidArgumentError, PermissionDeniedError, type OwnershipScope } from '@neuralis/package-system/contracts';
import { HOST_SLUG_MAX, checkHostSlug } from '../address/index.js';

/** Who is adding a host: a person (agentId null) or an agent of that person. */
export interface HostAdder {
  readonly userId: string;
  readonly agentId?: string | null;
}

const LITERAL_OWNER = /^[a-z][a-z0-9-]*$/;

function ownerPart(ownerId: string, room: number): string {
  if (LITERAL_OWNER.test(ownerId) && ownerId.length <= room && !ownerId.endsWith('-')) return ownerId;
  return `0${createHash('sha256').update(ownerId, 'utf8').digest('hex').slice(0, 16)}`;
}

function suffixOf(ownership: 'user' | 'agent', ownerId: string, canonical: string): string {
  const prefix = `+${ownership}.`;
  return `${prefix}${ownerPart(ownerId, HOST_SLUG_MAX - canonical.length - prefix.length)}`;
}

/**
 * The slug of `canonical` re-qualified for one owner; `canonical` itself for a project source.
 * Throws `invalid_uri` for a bad canonical slug and `invalid_argument` when the re-qualified slug
 * would be longer than a host slug may be.
 */
export function ownedSlug(canonical: string, ownership: OwnershipScope, ownerId: string | null): string {
  const slug = checkHostSlug(canonical);
  if (ownership === 'project') return slug;
  if (ownerId === null || ownerId === '') throw new InvalidArgumentError(`A source owned by one ${ownership} needs the ${ownership}'s id.`, { details: { argument: 'ownerId' } });
  const qualified = `${slug}${suffixOf(ownership, ownerId, slug)}`;
  if (qualified.length > HOST_SLUG_MAX) {
    throw new InvalidArgumentError(`Source "${slug}" has too long a slug to be attached per ${ownership}: "${qualified}" is longer than ${HOST_SLUG_MAX} characters.`, {
      details: { argument: 'slug' },
    });
  }
  return checkHostSlug(qualified);
}

/** The canonical slug of a host: its slug without its owner's qualifier (a project host's slug as it is). */
export function canonicalSlug(host: { readonly slug: string; readonly ownership: OwnershipScope; readonly ownerId: string | null }): string {
  if (host.ownership === 'project' || host.ownerId === null) return host.slug;
  const plus = host.slug.lastIndexOf(`+${host.ownership}.`);
  if (plus <= 0) return host.slug;
  const canonical = host.slug.slice(0, plus);
  return host.slug === `${canonical}${suffixOf(host.ownership, host.ownerId, canonical)}` ? canonical : host.slug;
}

/** The owner's qualifier of an owned host (`user.alice` of `scratch+user.alice`), or undefined for a project host or an unqualified slug. */
export function ownerQualifier(host: { readonly slug: string; readonly ownership: OwnershipScope; readonly ownerId: string | null }): string | undefined {
  const canonical = canonicalSlug(host);
  return canonical === host.slug ? undefined : host.slug.slice(canonical.length + 1);
}

/**
 * The owner id of a host `adder` adds with `ownership`: the adder's own user id for `user`, its
 * agent id for `agent`, none for `project`. A given `ownerId` must be that id. Throws
 * `permission_denied` when an agent's token asks for a user's host, a person's token for an
 * agent's, or anyone for another owner's.
 */
export function ownerIdFor(adder: HostAdder, ownership: OwnershipScope, ownerId: string | undefined): string | undefined {
  if (ownership === 'project') return ownerId;
  const agent = adder.agentId ?? null;
  const own = ownership === 'user' ? (agent === null ? adder.userId : null) : agent;
  if (own === null) {
    throw new PermissionDeniedError(
      ownership === 'user' ? "A host owned by a user is added by that person's own token; an agent's token cannot add one." : "A host owned by an agent is added by that agent's own token.",
      { details: { reason: 'not_owner', argument: 'ownership' } },
    );
  }
  if (ownerId !== undefined && ownerId !== own) {
    throw new PermissionDeniedError(`A host owned by a ${ownership} is added by its owner only; this token cannot add one for another ${ownership}.`, {
      details: { reason: 'not_owner', argument: 'ownerId' },
    });
  }
  return own;
}
