/**
 * Routing an address to its host and deciding what the caller may do there.
 *
 * - The address is read in the caller's network (a short form gets it; a global form naming
 *   another network is refused). Bad addresses are `invalid_uri`.
 * - The host must exist (`not_found`) and be usable by the caller: project hosts by everyone in
 *   the network, user or agent hosts by their owner only (`permission_denied`).
 * - Rights come from the host's permission tree (its own, else its kind's defaults, else read
 *   only) with the declaring package's URI policy baseline — the `permissions` of the package's
 *   `sources[]` entry the host is attributed to — unioned on top (see permissions.ts).
 * - An agent holds `write`, `delete` and `exec` only where its token's grants reach as well
 *   (grants.ts): the tree and the grants must both allow. A person's rights are the tree's.
 * - `delete` is the tree's `write` together with its `read`: what a caller cannot see it cannot
 *   remove, and a drop box (write without read) takes new objects only (docs/fs.md).
 * - A refusal names the right and the address (an address inside the host, never a host path).
 */
import { NotFoundError, PermissionDeniedError, type PermissionRights, type PermissionTree } from '@neuralis/package-system/contracts';
import { addressToSourceUri, createAddress, formatAddress, parseAddress, type Address } from '../address/index.js';
import { packageBaselines } from '../network/index.js';
import type { Platform } from '../platform/index.js';
import type { HostKinds } from '../platform/index.js';
import type { HostRecord, HostRef } from '../store/index.js';
import { mayUseHost, type CheckedCaller } from './caller.js';
import { compileGrants, grantCovers } from './grants.js';
import type { CompiledPermissions, PermissionRight } from './permissions.js';

/**
 * What the service needs of the platform. A `Platform` is one; the narrow shape keeps the
 * service's dependencies visible.
 */
export type FsPlatform = Pick<Platform, 'store' | 'catalog' | 'search' | 'loader' | 'packageStates' | 'paths' | 'crawler' | 'requestCrawl'> & {
  readonly kinds: Pick<HostKinds, 'openPort' | 'openHost' | 'permissionsOf' | 'crawlTarget' | 'concealment'>;
};

export type NetworkAddress = Address & { readonly network: string };

export interface HostAccess {
  readonly record: HostRecord;
  readonly ref: HostRef;
  readonly permissions: CompiledPermissions;
}

/** What an operation needs at an address: a right of the tree, or `delete` (see the module comment). */
export type AccessRight = PermissionRight | 'delete';

/** An address routed to its host, with what the caller may do there. */
export interface Target extends HostAccess {
  readonly caller: CheckedCaller;
  readonly address: NetworkAddress;
  /** The host's source URI of the address (what the port takes). */
  readonly uri: string;
  /** The global address, for answers and messages. */
  readonly global: string;
}

const RIGHT_VERBS: Readonly<Record<AccessRight, string>> = { read: 'read', write: 'write to', delete: 'delete', exec: 'run commands in' };

export class Access {
  readonly #platform: FsPlatform;

  constructor(platform: FsPlatform) {
    this.#platform = platform;
  }

  /** Routes an address. Throws `invalid_uri`, `permission_denied` (other network, other owner), `not_found`. */
  async target(caller: CheckedCaller, text: unknown): Promise<Target> {
    const parsed = parseAddress(text as string, { network: caller.network });
    if (parsed.network !== caller.network) {
      throw new PermissionDeniedError(`This caller works in network "${caller.network}"; the address names network "${parsed.network ?? ''}".`, {
        details: { network: caller.network },
      });
    }
    const address = parsed as NetworkAddress;
    const access = await this.host(caller, address.host);
    const target = { ...access, caller, address, uri: addressToSourceUri(address), global: formatAddress(address) };
    await this.#refuseConcealed(target);
    return target;
  }

  /**
   * On a host whose root contains the data directory, the tree already denies its path; a symlink
   * inside the root may still lead there, so the address's real path (or, for a name not made
   * yet, its nearest existing ancestor's) must lie outside it.
   */
  async #refuseConcealed(target: Target): Promise<void> {
    const concealment = await this.#platform.kinds.concealment(target.record);
    if (concealment === null) return;
    const port = await this.#platform.kinds.openPort(target.record);
    const { network, host, segments } = target.address;
    for (let depth = segments.length; depth >= 0; depth--) {
      const uri = addressToSourceUri(createAddress({ network, host, segments: segments.slice(0, depth) }));
      const real = await port.resolveOsUri?.(uri).catch(() => undefined);
      if (real === undefined) continue;
      if (concealment.covers(real)) throw concealedPath(target);
      return;
    }
  }

  /** A host of the caller's network. Throws `not_found` (no such network or host), `permission_denied` (owned by someone else). */
  async host(caller: CheckedCaller, slug: string): Promise<HostAccess> {
    const ref = { network: caller.network, host: slug };
    const record = await this.#platform.store.hosts.get(ref);
    if (record === null) {
      if ((await this.#platform.store.networks.get(caller.network)) === null) {
        throw new NotFoundError(`There is no network "${caller.network}".`, { details: { network: caller.network } });
      }
      throw new NotFoundError(`Network "${caller.network}" has no host "${slug}".`, { details: { network: caller.network, host: slug } });
    }
    this.requireHost(caller, record);
    await this.#platform.kinds.concealment(record);
    return { record, ref, permissions: this.permissionsOf(record) };
  }

  /** Throws `permission_denied` unless the caller may use the host at all. */
  requireHost(caller: CheckedCaller, record: HostRecord): void {
    if (!mayUseHost(caller, record)) {
      throw new PermissionDeniedError(`Host "${record.slug}" of network "${record.network}" belongs to another ${record.ownership}; only its owner can use it.`, {
        details: { network: record.network, host: record.slug },
      });
    }
  }

  /**
   * Throws `permission_denied` naming the right unless the caller holds it at the address: the
   * host's tree allows it, and for an agent a grant of its token covers the address as well.
   */
  require(target: Target, right: AccessRight): void {
    if (!treeAllows(target.permissions, target.address.segments, right)) throw denied(target, right, target.global);
    const { caller, address } = target;
    if (right !== 'read' && caller.agentId !== undefined && !grantCovers(compileGrants(caller.grants), right, address.network, address.host, address.segments)) {
      throw new PermissionDeniedError(
        `This agent's token has no "${right}" grant covering ${target.global}; a person grants it with \`inseam token create --agent ${caller.agentId} --grant ${right}:<address>\`.`,
        { details: { right, reason: 'no_grant', network: target.record.network, host: target.record.slug } },
      );
    }
  }

  /**
   * For a recursive delete: the right must hold at the address and, by the tree, at every path
   * below it that the tree names, since a deny on a child beats an allow on its parent. (A grant
   * covers everything below the address it covers, so it needs no second look.)
   */
  requireBelow(target: Target, right: AccessRight): void {
    this.require(target, right);
    const prefix = target.address.segments;
    for (const key of Object.keys(target.permissions.tree.paths ?? {})) {
      const segments = key.split('/');
      const below = segments.length > prefix.length && prefix.every((segment, index) => segments[index] === segment);
      if (below && !treeAllows(target.permissions, segments, right)) {
        const child = formatAddress(createAddress({ network: target.address.network, host: target.address.host, segments }));
        throw denied(target, right, child);
      }
    }
  }

  /**
   * The caller's rights at a host's root: the tree's, and for an agent `write` and `exec` only
   * where a grant of its token covers the root (a grant further down is not the root's).
   */
  rightsAtRoot(caller: CheckedCaller, record: HostRecord): PermissionRights {
    const tree = this.permissionsOf(record).rightsAt([]);
    if (caller.agentId === undefined) return tree;
    const grants = compileGrants(caller.grants);
    const granted = (right: 'write' | 'exec'): boolean => tree[right] && grantCovers(grants, right, record.network, record.slug, []);
    return { read: tree.read, write: granted('write'), exec: granted('exec') };
  }

  /** The host's compiled tree with the declaring package's baseline unioned on top. */
  permissionsOf(record: HostRecord): CompiledPermissions {
    return this.#platform.kinds.permissionsOf(record, this.baselines(record));
  }

  /** The URI policy baselines of a host: its declaring package's `permissions` for it. */
  baselines(record: HostRecord): PermissionTree[] {
    return packageBaselines(this.#platform.loader, record);
  }
}

/** Whether the tree allows `right` at a path; deleting takes the tree's `write` and `read`. */
function treeAllows(permissions: CompiledPermissions, segments: readonly string[], right: AccessRight): boolean {
  if (right !== 'delete') return permissions.allows(segments, right);
  const rights = permissions.rightsAt(segments);
  return rights.write && rights.read;
}

function concealedPath(target: Target): PermissionDeniedError {
  return new PermissionDeniedError(`${target.global} leads into inseam's own data directory, which no host serves.`, {
    details: { reason: 'data_directory', network: target.record.network, host: target.record.slug },
  });
}

function denied(target: Target, right: AccessRight, where: string): PermissionDeniedError {
  const needs = right === 'delete' ? 'the "write" and "read" rights are not both granted there' : `the "${right}" right is not granted there`;
  return new PermissionDeniedError(`Host "${target.record.slug}" does not let this caller ${RIGHT_VERBS[right]} ${where} (${needs}).`, {
    details: { right, network: target.record.network, host: target.record.slug },
  });
}
