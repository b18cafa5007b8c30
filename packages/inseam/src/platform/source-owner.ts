/**
 * The owner of the source a package connector is serving a call for.
 *
 * A package's `init(ctx)` gets one CredentialResolver for all its bindings, and the package
 * system gives a factory no owner id (only the ownership scope), so the connector cannot name the
 * user or agent whose credential it needs — and must not be able to name one. The platform binds
 * every user- or agent-owned host with a call context (`callContext` of the binding request) that
 * runs the factory and each call of the instance inside this AsyncLocalStorage; the resolver the
 * loader delegates to (`ownerAwareResolvers`) reads it and looks at the owner's scope first. A
 * connector of a project host, or any code outside a binding, resolves without an owner.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CredentialResolver } from '@neuralis/package-system/contracts';
import type { BindingCallContext } from '@neuralis/package-system/registry';
import type { HostRecord } from '../store/index.js';

export interface SourceOwner {
  readonly network: string;
  readonly ownership: 'user' | 'agent';
  readonly ownerId: string;
}

const owners = new AsyncLocalStorage<SourceOwner>();

/** The call context of a host's binding: its owner for a user- or agent-owned host, none otherwise. */
export function ownerCallContext(host: Pick<HostRecord, 'network' | 'ownership' | 'ownerId'>): BindingCallContext | undefined {
  if (host.ownership === 'project' || host.ownerId === null) return undefined;
  const owner: SourceOwner = Object.freeze({ network: host.network, ownership: host.ownership, ownerId: host.ownerId });
  return (call) => owners.run(owner, call);
}

/** The owner of the source whose call is running, or undefined. */
export function currentSourceOwner(): SourceOwner | undefined {
  return owners.getStore();
}

/**
 * Wraps the package resolvers so a call made for an owned source resolves at its owner's scope
 * (agent or user, then the network, then the deployment). The owner is added only for the
 * source's own network: a connector asking for another network's credential gets no owner's.
 */
export function ownerAwareResolvers(resolvers: (packageId: string) => CredentialResolver): (packageId: string) => CredentialResolver {
  return (packageId) => {
    const resolver = resolvers(packageId);
    return Object.freeze({
      resolveCredential(id: string, options: { readonly projectId?: string; readonly userId?: string; readonly agentId?: string }) {
        const owner = currentSourceOwner();
        // The package system passes the package's own options with no user or agent; only the platform's context names one.
        const { userId: _user, agentId: _agent, ...rest } = options ?? {};
        if (owner === undefined || (rest.projectId !== undefined && rest.projectId !== owner.network)) return resolver.resolveCredential(id, rest);
        return resolver.resolveCredential(id, { projectId: owner.network, ...(owner.ownership === 'user' ? { userId: owner.ownerId } : { agentId: owner.ownerId }) });
      },
    });
  };
}
