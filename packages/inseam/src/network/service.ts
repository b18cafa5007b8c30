/**
 * Networks and their hosts.
 *
 * - `init(slug)` creates a network with its pad (host `pad`, the network's own bucket) and every
 *   `seed: "auto"` source the loaded packages declare. A seed that cannot be created (its kind is
 *   not registered, its config does not validate, it is owned per user or agent and so attached
 *   by each owner — there is no owner when a network is made) is skipped and reported; the
 *   network is still created.
 * - `discoverable(network)` lists `seed: "discoverable"` sources; they are never created by
 *   themselves, only by `addDeclared` (a person adding one). A source owned per user or agent —
 *   discoverable, or `seed: "auto"`, which has no owner when the network is made — is attached by
 *   each owner for themselves (`addDeclared` with the owner): a clone under the re-qualified slug
 *   `{source}+{user|agent}.{owner}` (owned-slug.ts), attributed to the declaring package.
 * - `addHost` validates everything before anything is written: the network, the slug (address
 *   grammar, unused), the kind, the config against the kind's schema and its own rules, the scope
 *   against the kind's dimensions, ownership, sync settings, the permission tree, private-origin
 *   approvals, and credentials against the kind's AuthSpec fields. Any refusal leaves the store
 *   exactly as it was. The host row is written in one transaction; credentials are stored
 *   encrypted after it, and if that fails the host row is removed again. Credentials are never
 *   echoed: views carry the names of the stored fields only.
 * - `removeHost` stops its syncs, forgets its bindings, deletes its credentials, then the host
 *   with everything catalogued for it (entries, content index, crawl runs, sync state).
 * - New hosts are read only unless the person adding them turns writes on (`writable`), or gives
 *   a tree, or the package declaring the source does: the tree a host starts with is written
 *   into its row, so what it may do is visible and never changes under it. The pad, the
 *   network's own bucket, is read+write. `setPermissions` changes a host's tree later.
 */
import { mkdir } from 'node:fs/promises';
import type { AuthSpec, Description, Scope } from '@inseam/connector';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  InvalidConfigError,
  NotFoundError,
  isConnectorError,
  type OwnershipScope,
  type PermissionTree,
  type SourceSyncSettings,
} from '@neuralis/package-system/contracts';
import type { PackageLoader } from '@neuralis/package-system/loader';
import { checkHostSlug, checkNetworkSlug, createAddress, formatAddress } from '../address/index.js';
import { checkFieldValues, type HostCredentials } from '../credentials/index.js';
import { checkPermissionTree, withWrites } from '../fs/permissions.js';
import type { EgressGate } from '../gate/index.js';
import { hostCredentialRef, type HostDraft, type HostKinds } from '../platform/host-kinds.js';
import type { PlatformPaths } from '../platform/data-dir.js';
import { compileHostScope, validateScope } from '../scope/index.js';
import type { HostInput, HostRecord, HostRef, HostStore, NetworkRecord, Store } from '../store/index.js';
import { approvedConfig, presentedHostKey } from './host-keys.js';
import { attributeHost, declaredConfig, resolveLocalRoot, sourceOffers, type SourceOffer } from './declarations.js';
import { checkFolderRoot } from './folder-root.js';
import { canonicalSlug, ownedSlug, ownerIdFor, ownerQualifier, type HostAdder } from './owned-slug.js';
import { checkOwnership, checkPrivateOrigins, checkSyncSettings, checkText, defaultSync } from './host-input.js';

/** The slug of every network's pad. */
export const PAD_SLUG = 'pad';

/** The pad belongs to no one else: every caller of the network may keep files there (an agent still needs a grant). */
const PAD_PERMISSIONS: PermissionTree = Object.freeze({ default: Object.freeze({ read: true, write: true, exec: false }) });

const PAD_DESCRIPTION = "The network's own bucket, kept on this machine: a place for files that belong to no other host.";

export interface AddHostInput {
  readonly network: string;
  readonly slug: string;
  readonly kind: string;
  /** Validated against the kind's configSchema. Never a credential. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Which entries are crawled (docs/scope.md); null or absent: the kind's default scope. */
  readonly scope?: Scope | null;
  /** Values for the AuthSpec's fields; stored encrypted, never echoed. */
  readonly credentials?: Readonly<Record<string, string>>;
  /** Default: the slug. */
  readonly label?: string;
  readonly description?: string;
  /** Default: the kind's default ownership. */
  readonly ownership?: OwnershipScope;
  /** The user or agent id, for `user` or `agent` ownership. */
  readonly ownerId?: string;
  /**
   * Who is adding the host, when a token's surface adds it: a `user` or `agent` host is then
   * theirs only, and `ownerId` defaults to their id (owned-slug.ts). Absent: the operator (CLI).
   */
  readonly adder?: HostAdder;
  readonly sync?: SourceSyncSettings | null;
  /** The host's permission tree; absent: the kind's default permissions, with writes off unless `writable`. */
  readonly permissions?: PermissionTree | null;
  /**
   * Turns writes on (true: the tree's default `write`) or off (false: `write` nowhere) on top of
   * `permissions` or the kind's default. Absent: a given tree as it is, else writes off.
   */
  readonly writable?: boolean;
  /** Declared origins the person approves although they resolve to private addresses. */
  readonly privateOrigins?: readonly string[];
  /** The package whose `sources[]` entry this host comes from (see attribution in declarations.ts). */
  readonly declaredBy?: string;
  /** The host was shown to honour `list({ order: "newest" })` (by its kind's trial). Default false. */
  readonly honoursOrder?: boolean;
}

/**
 * What `updateHost` changes; an absent field stays as it is. Checked as strictly as `addHost`
 * checks it, against the host's kind: a change that fails any check changes nothing.
 */
export interface HostChange {
  /** The whole new config (defaults filled again); changing it re-binds the host and syncs it in full. */
  readonly config?: Readonly<Record<string, unknown>>;
  readonly label?: string;
  readonly description?: string;
  /** null: the kind's default scope again. A changed scope syncs the host in full. */
  readonly scope?: Scope | null;
  /** null: the kind's default sync (auto where the kind can watch or lists for free). */
  readonly sync?: SourceSyncSettings | null;
  /** A new tree; with `writable`, as `setPermissions` takes them. A person's act. */
  readonly permissions?: PermissionTree | null;
  readonly writable?: boolean;
}

/** A host as listings and `host show` present it: no secret, ever. */
export interface HostView {
  readonly network: string;
  readonly slug: string;
  /** The host root's global address, `inseam://{network}/{host}/`. */
  readonly address: string;
  readonly kind: string;
  readonly label: string;
  readonly description: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly scope: Scope | null;
  readonly sync: SourceSyncSettings | null;
  readonly permissions: PermissionTree | null;
  /** The declaring package, or null when a person added the host. */
  readonly origin: string | null;
  readonly ownership: OwnershipScope;
  readonly ownerId: string | null;
  readonly privateOrigins: readonly string[];
  readonly honoursOrder: boolean;
  /** False when the host's kind is not registered (an orphan: its package is gone). */
  readonly kindRegistered: boolean;
  /** How the host authenticates and which credential fields are stored (names only); null for an orphan. */
  readonly credentials: { readonly acquire: AuthSpec['acquire']['type']; readonly fields: readonly string[]; readonly stored: readonly string[] } | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface SkippedSeed {
  readonly packageId: string;
  readonly source: string;
  readonly error: { readonly code: string; readonly message: string };
}

export interface NetworkInit {
  readonly network: NetworkRecord;
  /** The pad and the seeded hosts. */
  readonly hosts: readonly HostView[];
  readonly skipped: readonly SkippedSeed[];
}

/** A discoverable source, as the "add a source" surface offers it. */
export interface DiscoverableSource {
  readonly packageId: string;
  readonly source: string;
  readonly label: string;
  readonly kind: string;
  readonly description: string;
  readonly root: string | null;
  readonly ownership: OwnershipScope;
  readonly kindRegistered: boolean;
  /** A host attributed to this declaration exists in the network. */
  readonly added: boolean;
  readonly seeRequires: readonly string[];
}

export interface NetworkServiceOptions {
  readonly store: Store;
  readonly kinds: HostKinds;
  readonly credentials: HostCredentials;
  readonly loader: PackageLoader;
  readonly gate: EgressGate;
  readonly paths: PlatformPaths;
  readonly appRoot: string;
  /**
   * Stores a host and runs `prepare` (its credentials and folders) before the add counts; throwing
   * from `prepare` must leave no host. The platform passes its crawl requests' createHost, which on
   * the shared store also queues the host's first crawl in the same transaction. Default: create,
   * prepare, delete again when preparing fails.
   */
  readonly createHost?: (network: string, input: HostInput, prepare: (host: HostRecord) => Promise<void>) => Promise<HostRecord>;
  /** Called after a host is stored (the platform schedules its syncs). */
  readonly hostAdded?: (host: HostRecord) => Promise<void> | void;
  /**
   * Called after a host's record changed (the platform re-binds it when `rebind`, and schedules or
   * syncs it again).
   */
  readonly hostChanged?: (host: HostRecord, change: { readonly rebind: boolean; readonly resync: boolean }) => Promise<void> | void;
  /** Called before a host is deleted (the platform stops its syncs and bindings). */
  readonly hostRemoving?: (ref: HostRef) => Promise<void> | void;
}

interface PreparedHost {
  readonly input: HostInput;
  readonly draft: HostDraft;
  readonly auth: AuthSpec;
  readonly credentials: Readonly<Record<string, string>> | null;
}

/**
 * Stores a host, then runs `prepare`; when preparing fails the host is deleted again and the error
 * rethrown. Rejects as `HostStore.create` does.
 */
export async function createPreparedHost(hosts: HostStore, network: string, input: HostInput, prepare: (host: HostRecord) => Promise<void>): Promise<HostRecord> {
  const record = await hosts.create(network, input);
  try {
    await prepare(record);
  } catch (error) {
    await hosts.delete({ network: record.network, host: record.slug }).catch(() => undefined);
    throw error;
  }
  return record;
}

export class NetworkService {
  readonly #o: NetworkServiceOptions;

  constructor(options: NetworkServiceOptions) {
    this.#o = options;
  }

  /**
   * Creates a network with its pad and the auto-seeded sources. Throws `invalid_uri` for a bad
   * slug, `already_exists` when the network exists, `unavailable` when the store fails (nothing
   * of the network is left behind).
   */
  async init(slug: string, options: { readonly label?: string } = {}): Promise<NetworkInit> {
    const network = checkNetworkSlug(slug);
    const label = options.label === undefined ? network : checkText(options.label, 'label', { allowEmpty: false });
    if ((await this.#o.store.networks.get(network)) !== null) throw new AlreadyExistsError(`A network "${network}" exists already; choose another slug.`, { details: { network } });
    const planned: PreparedHost[] = [await this.#prepare({ network, slug: PAD_SLUG, kind: 'bucket', config: { provider: 'pad' }, label: 'Pad', description: PAD_DESCRIPTION, permissions: PAD_PERMISSIONS }, { pad: true, networkStored: false })];
    const skipped: SkippedSeed[] = [];
    for (const offer of sourceOffers(this.#o.loader, network)) {
      const { declaration } = offer;
      if (declaration.seed !== 'auto') continue;
      try {
        if (planned.some((host) => host.draft.slug === declaration.source)) {
          throw new AlreadyExistsError(`Another seeded source already uses the slug "${declaration.source}".`, { details: { host: declaration.source } });
        }
        if (declaration.scope !== 'project') {
          throw new InvalidArgumentError(`Source "${declaration.source}" is owned per ${declaration.scope}; each ${declaration.scope} attaches their own (host add --from ${offer.packageId}), as "${declaration.source}+${declaration.scope}.{id}".`, {
            details: { argument: 'scope' },
          });
        }
        planned.push(await this.#prepare(offerInput(network, offer), { pad: false, networkStored: false }));
      } catch (error) {
        if (!isConnectorError(error)) throw error;
        skipped.push({ packageId: offer.packageId, source: declaration.source, error: { code: error.code, message: error.message } });
      }
    }
    const record = await this.#o.store.networks.create({ slug: network, label });
    const stored: HostRecord[] = [];
    try {
      // Each host's folders are made before it counts as added (so before its first crawl can be taken); a failure removes the whole network.
      for (const host of planned) stored.push(await this.#createHost(network, host.input, (record) => this.#prepareFolders(network, [record])));
    } catch (error) {
      await this.#o.store.networks.delete(network).catch(() => undefined);
      throw error;
    }
    for (const host of stored) await this.#o.hostAdded?.(host);
    return { network: record, hosts: await Promise.all(stored.map((host) => this.#view(host))), skipped };
  }

  /** Every network, by slug. */
  list(): Promise<NetworkRecord[]> {
    return this.#o.store.networks.list();
  }

  /** The network. Throws `invalid_uri` for a bad slug and `not_found`. */
  async get(slug: string): Promise<NetworkRecord> {
    const network = await this.#o.store.networks.get(checkNetworkSlug(slug));
    if (network === null) throw new NotFoundError(`There is no network "${slug}"; create it with \`inseam network init ${slug}\`.`, { details: { network: slug } });
    return network;
  }

  /** The `seed: "discoverable"` sources of the loaded packages, for the network. */
  async discoverable(network: string, adder?: HostAdder): Promise<DiscoverableSource[]> {
    const hosts = await this.#o.store.hosts.list((await this.get(network)).slug);
    return sourceOffers(this.#o.loader, network)
      // An owned auto seed is attached per owner, so it is offered like a discoverable one.
      .filter((offer) => offer.declaration.seed === 'discoverable' || offer.declaration.scope !== 'project')
      .map(({ packageId, declaration }) => ({
        packageId,
        source: declaration.source,
        label: declaration.label,
        kind: declaration.kind,
        description: declaration.description,
        root: declaration.root ?? null,
        ownership: declaration.scope,
        kindRegistered: this.#o.kinds.has(declaration.kind),
        // An owned source counts as added when the asking owner has attached their clone.
        added: hosts.some(
          (host) =>
            host.origin === packageId &&
            canonicalSlug(host) === declaration.source &&
            (declaration.scope === 'project' || (adder !== undefined && host.ownerId === (declaration.scope === 'user' ? adder.userId : (adder.agentId ?? null)))),
        ),
        seeRequires: declaration.visibility?.seeRequires ?? [],
      }));
  }

  /** Adds a host; see the module comment. Throws the typed error of the first check that fails. */
  async addHost(input: AddHostInput): Promise<HostView> {
    const prepared = await this.#prepare(input, { pad: false, networkStored: true });
    const prepare = async (record: HostRecord): Promise<void> => {
      const ref = hostCredentialRef(record);
      // A host of the same name removed earlier must not hand its grants to this one.
      await this.#o.credentials.remove(ref);
      if (prepared.credentials !== null) await this.#o.credentials.setFields(ref, prepared.auth, prepared.credentials);
      await this.#prepareFolders(record.network, [record]);
    };
    const record = await this.#createHost(prepared.draft.network, prepared.input, prepare);
    await this.#o.hostAdded?.(record);
    return this.#view(record);
  }

  /**
   * Adds a declared source (usually a discoverable one) with the declaration's fields, `overrides`
   * taking precedence. Throws `not_found` when the package declares no such source, then as addHost.
   */
  async addDeclared(network: string, packageId: string, source: string, overrides: Partial<Omit<AddHostInput, 'network' | 'declaredBy'>> = {}): Promise<HostView> {
    const offer = sourceOffers(this.#o.loader, network).find((item) => item.packageId === packageId && item.declaration.source === source);
    if (offer === undefined) throw new NotFoundError(`Package "${packageId}" declares no source "${source}".`, { details: { packageId, source } });
    const ownership = overrides.ownership ?? offer.declaration.scope;
    if (ownership === 'project') return this.addHost({ ...offerInput(network, offer), ...overrides, network, declaredBy: packageId });
    // A user's or agent's clone: the owner is the adder (when a token adds it), and the slug is re-qualified for them.
    const ownerId = overrides.adder === undefined ? overrides.ownerId : ownerIdFor(overrides.adder, ownership, overrides.ownerId);
    const slug = ownedSlug(offer.declaration.source, ownership, ownerId ?? null);
    const ownerFolder = ownerQualifier({ slug, ownership, ownerId: ownerId ?? null });
    return this.addHost({ ...offerInput(network, offer), config: declaredConfig(offer.declaration, ownerFolder), ...overrides, ownership, ...(ownerId === undefined ? {} : { ownerId }), slug, network, declaredBy: packageId });
  }

  /** The network's hosts, by slug. Throws `not_found` for an unknown network. */
  async listHosts(network: string): Promise<HostView[]> {
    const hosts = await this.#o.store.hosts.list((await this.get(network)).slug);
    return Promise.all(hosts.map((host) => this.#view(host)));
  }

  /** The stored host record. Throws `invalid_uri` for bad slugs and `not_found`. */
  async hostRecord(ref: HostRef): Promise<HostRecord> {
    const network = checkNetworkSlug(ref.network);
    const host = checkHostSlug(ref.host);
    const record = await this.#o.store.hosts.get({ network, host });
    if (record === null) {
      await this.get(network);
      throw new NotFoundError(`Network "${network}" has no host "${host}".`, { details: { network, host } });
    }
    return record;
  }

  /** One host, without secrets. Throws as hostRecord. */
  async showHost(ref: HostRef): Promise<HostView> {
    return this.#view(await this.hostRecord(ref));
  }

  /** Removes a host with its catalog, credentials and schedule. Throws as hostRecord; the pad is `invalid_argument`. */
  async removeHost(ref: HostRef): Promise<void> {
    const record = await this.hostRecord(ref);
    if (isPad(record)) {
      throw new InvalidArgumentError(`"${PAD_SLUG}" is network "${record.network}"'s own bucket and stays with the network.`, { details: { network: record.network, host: record.slug } });
    }
    const stored = { network: record.network, host: record.slug };
    await this.#o.hostRemoving?.(stored);
    await this.#o.credentials.remove(hostCredentialRef(record));
    await this.#o.store.hosts.delete(stored);
  }

  async #createHost(network: string, input: HostInput, prepare: (host: HostRecord) => Promise<void>): Promise<HostRecord> {
    return this.#o.createHost === undefined ? createPreparedHost(this.#o.store.hosts, network, input, prepare) : this.#o.createHost(network, input, prepare);
  }

  /** `existing`: the stored host a change is checked for (its slug is taken by itself; its credentials stay). */
  async #prepare(input: AddHostInput, mode: { readonly pad: boolean; readonly networkStored: boolean; readonly existing?: HostRecord }): Promise<PreparedHost> {
    const network = checkNetworkSlug(input.network);
    if (mode.networkStored) await this.get(network);
    const slug = checkHostSlug(input.slug);
    const kind = this.#o.kinds.get(input.kind);
    if (!mode.pad && input.kind === 'bucket' && input.config?.['provider'] === 'pad') {
      throw new InvalidConfigError(`Invalid source config: provider "pad" is the network's own bucket, host "${PAD_SLUG}", made with the network; add s3 or r2 buckets here.`, {
        details: { fields: ['provider'] },
      });
    }
    const config = this.#o.kinds.validateConfig(kind.kind, input.config ?? {});
    const requestedOwner = input.adder === undefined ? input.ownerId : ownerIdFor(input.adder, input.ownership ?? kind.defaultOwnership, input.ownerId);
    const { ownership, ownerId } = checkOwnership(input.ownership, requestedOwner, kind);
    const privateOrigins = input.privateOrigins === undefined ? [] : checkPrivateOrigins(input.privateOrigins);
    const draft: HostDraft = { network, slug, kind: kind.kind, config, ownership, ownerId, privateOrigins };
    // Refuses a config that sets a field the platform owns (a pad's path).
    this.#o.kinds.openConfig(draft);
    const description = await this.#o.kinds.describe(draft);
    const scope = input.scope === undefined || input.scope === null ? null : validateScope(input.scope, description);
    compileHostScope(description, scope ?? undefined);
    // A declared source's sync is its package's to say, the pad's is nobody's; a person's host gets its kind's default.
    const byDefault = mode.pad || input.declaredBy !== undefined ? null : defaultSync(description);
    const sync = input.sync === undefined || input.sync === null ? byDefault : checkSyncSettings(input.sync);
    const permissions = mode.existing !== undefined && input.permissions === undefined && input.writable === undefined ? mode.existing.permissions : this.#startingTree(kind.kind, input);
    if (privateOrigins.length > 0) {
      // The gate compiles the approvals against the declared origins, refusing any that is not one.
      this.#o.gate.forHost({ hostId: `${network}/${slug}`, auth: description.auth, credentials: { fields: async () => ({}) }, allowPrivateOrigins: privateOrigins });
    }
    const credentials = mode.existing === undefined ? checkCredentials(input.credentials, description) : null;
    await checkFolderRoot(kind.kind, config, this.#bases(network));
    const label = input.label === undefined ? slug : checkText(input.label, 'label', { allowEmpty: false });
    const text = input.description === undefined ? '' : checkText(input.description, 'description', { allowEmpty: true });
    if (mode.networkStored && mode.existing === undefined && (await this.#o.store.hosts.get({ network, host: slug })) !== null) {
      throw new AlreadyExistsError(`Network "${network}" has a host "${slug}" already; choose another slug.`, { details: { network, host: slug } });
    }
    const owned = { slug, ownership, ownerId };
    const origin = attributeHost({ slug: canonicalSlug(owned), kind: kind.kind, config }, sourceOffers(this.#o.loader, network), this.#bases(network), input.declaredBy, ownerQualifier(owned));
    const hostInput: HostInput = {
      slug,
      kind: kind.kind,
      label,
      description: text,
      config,
      scope,
      sync,
      permissions,
      origin,
      ownership,
      ownerId,
      privateOrigins,
      honoursOrder: input.honoursOrder === true,
    };
    return { input: hostInput, draft, auth: description.auth, credentials };
  }

  /** What a new host may do (see the module comment). Throws `invalid_argument` for a bad tree or `writable`. */
  #startingTree(kind: string, input: Pick<AddHostInput, 'permissions' | 'writable'>): PermissionTree {
    if (input.writable !== undefined && typeof input.writable !== 'boolean') {
      throw new InvalidArgumentError('writable must be true or false.', { details: { argument: 'writable' } });
    }
    const given = input.permissions === undefined || input.permissions === null ? null : checkPermissionTree(input.permissions);
    if (given !== null && input.writable === undefined) return given;
    return withWrites(given ?? this.#o.kinds.treeOf({ kind, permissions: null }), input.writable === true);
  }

  /**
   * Changes what a host lets callers do: a new tree, and/or writes turned on or off on top of
   * it (or of the host's current tree). Answers the host. Throws as hostRecord, and
   * `invalid_argument` for a bad tree or when neither is given.
   */
  async setPermissions(ref: HostRef, change: { readonly permissions?: PermissionTree | null; readonly writable?: boolean }): Promise<HostView> {
    const record = await this.hostRecord(ref);
    if ((change.permissions === undefined || change.permissions === null) && change.writable === undefined) {
      throw new InvalidArgumentError('Give the new permission tree, or writable: true or false.', { details: { argument: 'permissions' } });
    }
    const base = change.permissions === undefined || change.permissions === null ? this.#o.kinds.treeOf(record) : change.permissions;
    const permissions = this.#startingTree(record.kind, { permissions: base, ...(change.writable === undefined ? {} : { writable: change.writable }) });
    return this.#view(await this.#o.store.hosts.update({ network: record.network, host: record.slug }, { permissions }));
  }

  /**
   * Changes a host's config, label, description, scope, sync settings or permissions. The host as
   * changed is checked as `addHost` checks a new one (its kind's config schema and rules, a folder
   * root that exists, the scope against the new description, sync settings, the tree); the first
   * check that fails throws its typed error and nothing is changed. A changed config re-binds the
   * host; a changed config or scope syncs it in full. Throws as hostRecord, and `invalid_argument`
   * for an empty change or a change to the pad's config.
   */
  async updateHost(ref: HostRef, change: HostChange): Promise<HostView> {
    const record = await this.hostRecord(ref);
    if (typeof change !== 'object' || change === null || Object.keys(change).length === 0) {
      throw new InvalidArgumentError('Give at least one field to change: config, label, description, scope, sync, permissions or writable.', { details: { argument: 'change' } });
    }
    const unknown = Object.keys(change).filter((name) => !CHANGE_FIELDS.includes(name));
    if (unknown.length > 0) throw new InvalidArgumentError(`These fields cannot be changed: ${unknown.join(', ')}.`, { details: { argument: 'change', fields: unknown } });
    if (isPad(record) && change.config !== undefined) {
      throw new InvalidArgumentError(`"${PAD_SLUG}" is network "${record.network}"'s own bucket; its config is the platform's.`, { details: { argument: 'config' } });
    }
    const base = change.permissions === undefined || change.permissions === null ? this.#o.kinds.treeOf(record) : change.permissions;
    const prepared = await this.#prepare(
      {
        network: record.network,
        slug: record.slug,
        kind: record.kind,
        config: change.config ?? record.config,
        scope: change.scope === undefined ? record.scope : change.scope,
        sync: change.sync === undefined ? record.sync : change.sync,
        label: change.label ?? record.label,
        description: change.description ?? record.description,
        ownership: record.ownership,
        ...(record.ownerId === null ? {} : { ownerId: record.ownerId }),
        privateOrigins: record.privateOrigins,
        honoursOrder: record.honoursOrder,
        ...(record.origin === null ? {} : { declaredBy: record.origin }),
        ...(change.permissions === undefined && change.writable === undefined ? {} : { permissions: base }),
        ...(change.writable === undefined ? {} : { writable: change.writable }),
      },
      { pad: isPad(record), networkStored: true, existing: record },
    );
    const next = prepared.input;
    const rebind = JSON.stringify(next.config) !== JSON.stringify(record.config);
    const resync = rebind || JSON.stringify(next.scope) !== JSON.stringify(record.scope);
    // Left alone, the sync settings stay as stored (a host stored without any is not given the default by a label change).
    const sync = change.sync === undefined ? record.sync : (next.sync ?? null);
    const updated = await this.#o.store.hosts.update(
      { network: record.network, host: record.slug },
      { label: next.label!, description: next.description!, config: next.config!, scope: next.scope ?? null, sync, permissions: next.permissions ?? null, origin: next.origin ?? null },
    );
    if (rebind) await this.#prepareFolders(updated.network, [updated]);
    await this.#o.hostChanged?.(updated, { rebind, resync });
    return this.#view(updated);
  }

  /** The host key a machine host's machine presents now, for a person to compare (host-keys.ts). */
  async presentedHostKey(ref: HostRef): Promise<string> {
    return presentedHostKey(await this.hostRecord(ref));
  }

  /** Pins `fingerprint` as a machine host's approved key, once the machine presents it (host-keys.ts). */
  async trustHostKey(ref: HostRef, fingerprint: string): Promise<HostView> {
    // As a config change: validated like any, and the host re-bound so its connection uses the pin.
    return this.updateHost(ref, { config: await approvedConfig(await this.hostRecord(ref), fingerprint) });
  }

  /** The network's folder and pad, and the folders of `local` hosts rooted in the project. */
  async #prepareFolders(network: string, hosts: readonly HostRecord[]): Promise<void> {
    await mkdir(this.#o.paths.networkRoot(network), { recursive: true, mode: 0o700 });
    for (const host of hosts) {
      if (isPad(host)) await mkdir(this.#o.paths.padDir(network), { recursive: true, mode: 0o700 });
      const root = host.config['root'];
      if (host.kind !== 'local' || typeof root !== 'string' || root.startsWith('${')) continue;
      const folder = resolveLocalRoot(root, this.#bases(network));
      if (folder !== null) await mkdir(folder, { recursive: true, mode: 0o700 });
    }
  }

  #bases(network: string): { projectRoot: string; appRoot: string } {
    return { projectRoot: this.#o.paths.networkRoot(network), appRoot: this.#o.appRoot };
  }

  async #view(record: HostRecord): Promise<HostView> {
    let credentials: HostView['credentials'] = null;
    const registered = this.#o.kinds.has(record.kind);
    if (registered) {
      try {
        const auth = (await this.#o.kinds.describe(record)).auth;
        const fields = (auth.fields ?? []).map((field) => field.name);
        const stored = fields.length === 0 ? [] : Object.keys(await this.#o.credentials.source(hostCredentialRef(record), auth).fields());
        credentials = { acquire: auth.acquire.type, fields, stored };
      } catch (error) {
        if (!isConnectorError(error)) throw error;
      }
    }
    return {
      network: record.network,
      slug: record.slug,
      address: formatAddress(createAddress({ network: record.network, host: record.slug, segments: [] })),
      kind: record.kind,
      label: record.label,
      description: record.description,
      config: record.config,
      scope: record.scope,
      sync: record.sync,
      permissions: record.permissions,
      origin: record.origin,
      ownership: record.ownership,
      ownerId: record.ownerId,
      privateOrigins: record.privateOrigins,
      honoursOrder: record.honoursOrder,
      kindRegistered: registered,
      credentials,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  }
}

const CHANGE_FIELDS: readonly string[] = ['config', 'label', 'description', 'scope', 'sync', 'permissions', 'writable'];

function isPad(host: Pick<HostRecord, 'slug' | 'kind' | 'config'>): boolean {
  return host.slug === PAD_SLUG && host.kind === 'bucket' && host.config['provider'] === 'pad';
}

function offerInput(network: string, offer: SourceOffer): AddHostInput {
  const { declaration } = offer;
  return {
    network,
    slug: declaration.source,
    kind: declaration.kind,
    config: declaredConfig(declaration),
    label: declaration.label,
    description: declaration.description,
    ownership: declaration.scope,
    ...(declaration.sync === undefined ? {} : { sync: declaration.sync }),
    ...(declaration.permissions === undefined ? {} : { permissions: declaration.permissions }),
    declaredBy: offer.packageId,
  };
}

/**
 * The credential values to store, or null for none. Every declared field is required for static
 * and exchange acquisition (the gate cannot fill a template without them); OAuth 2 hosts may be
 * added without fields and authorized afterwards. Unknown names are refused. Throws
 * `invalid_argument` naming the fields, never a value.
 */
function checkCredentials(values: Readonly<Record<string, string>> | undefined, description: Description): Readonly<Record<string, string>> | null {
  const fields = description.auth.fields ?? [];
  const given = values ?? {};
  const acquire = description.auth.acquire.type;
  if (Object.keys(given).length === 0 && (fields.length === 0 || acquire === 'oauth2')) return null;
  try {
    return checkFieldValues(fields, given);
  } catch (error) {
    if (isConnectorError(error) && fields.length === 0) {
      throw new InvalidArgumentError(`Hosts of kind "${description.kind}" take no credentials; leave them out.`, { details: { fields: Object.keys(given) } });
    }
    throw error;
  }
}
