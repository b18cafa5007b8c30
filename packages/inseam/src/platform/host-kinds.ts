/**
 * The kinds a network's hosts can be: the built-ins (fs, local, bucket) from their first-party
 * packages, sandboxed kinds through the sandbox adapter, and every other kind a loaded package
 * provides in-process (a trusted package's ConnectorPort v4). For each kind it gives the metadata
 * forms and validation read, the host `Connector` the crawler drives, and the `ConnectorPort`
 * the filesystem surface uses.
 *
 * Metadata lives in the package loader's SourceKindRegistry (sandboxed kinds are registered
 * there too), so config validation has one source of truth.
 *
 * Ports. A source slug is unique only inside one network, so each network has its own
 * ConnectorRegistry over the one loader; `fs` and `local` are registered there with the
 * loader's own runtimes (capability cross-check, provenance stamp, exec entry guard). `bucket`
 * gets a platform runtime: S3 and R2 ports send through the egress gate, bound to the host's
 * AuthSpec and stored credential (`redirects: 'return'`, the bucket's EgressPort contract), and
 * the instance is still cross-checked against the declared capabilities. Swapping a built-in
 * package at run time does not reach the per-network registries (built-ins are not swapped).
 *
 * Kinds from packages. Any other kind the loader has a runtime for is opened generically: its
 * port runtime is the loader's own (as for fs and local), its config is the stored one, and its
 * host Connector is a PortHost over the bound port (see port-host.ts), described from the kind's
 * declared capabilities without binding anything. These kinds are registered in a network's
 * registry when a port is opened, so a registry made before the package was loaded still binds
 * them, and a package swapped since gets its new runtime (and its sources a new binding); a kind
 * the loader dropped answers `kind_not_registered`.
 *
 * Platform-owned config. A pad's `path` is the network's pad folder and is filled in when a host
 * is opened, never stored, so a data directory can move; a config that sets it is refused.
 * `local` roots resolve under the network's project root; `${appRoot}` is the inseam install
 * folder (or INSEAM_APP_ROOT, which the loader-run `local` factory reads).
 *
 * Loading. Each connector package is imported when a host of its kind is first described, opened
 * or bound, never when the kinds are set up (the loader loads the built-in packages lazily too), so
 * a command pays only for the kinds it touches: `inseam ls` of a folder loads no IMAP, SSH, S3 or
 * embedding code.
 */
import type { AuthSpec, Connector, Description, EgressPort } from '@inseam/connector';
import type { ImapHost } from '@inseam/connector-imap';
import type { Embedder, VectorAccess, VectorIndex } from '@inseam/connector-vector';
import {
  ConnectorFailedError,
  InvalidConfigError,
  formatSourceUri,
  hasErrorCode,
  KindNotRegisteredError,
  UnavailableError,
  type ConfigSchema,
  type ConnectorCapability,
  type ConnectorFactoryContext,
  type ConnectorPort,
  type OwnershipScope,
  type PermissionTree,
} from '@neuralis/package-system/contracts';
import { checkConnectorCapabilities, type PackageLoader } from '@neuralis/package-system/loader';
import { ConnectorRegistry, type ConnectorKindRuntime, type SourceKindMetadata, type ValidatedBindingRequest } from '@neuralis/package-system/registry';
import { agentScope, projectScope, userScope, type HostCredentials, type HostRef as CredentialHostRef } from '../credentials/index.js';
import { addressFromHostPath, addressToSourceUri } from '../address/index.js';
import type { CrawlTarget } from '../crawl/index.js';
import type { EgressGate } from '../gate/index.js';
import { SANDBOX_PACKAGE_ID, sandboxedSourceKind, type SandboxHost, type SandboxLimits, type SandboxedSourcePort } from '../sandbox/index.js';
import type { HostRecord, HostRef } from '../store/index.js';
import { compilePermissions, unionBaselines, type CompiledPermissions } from '../fs/permissions.js';
import type { PlatformPaths } from './data-dir.js';
import { concealTree, concealingConnector, concealmentFor, type Concealment } from './concealment.js';
import { imapCredentials } from './imap-credentials.js';
import { PortHost, describePortHost } from './port-host.js';
import { ownerCallContext } from './source-owner.js';

/** What forms, validation and listings show about a kind. */
export interface HostKindMetadata {
  readonly kind: string;
  readonly label: string;
  readonly category: string | null;
  readonly description: string;
  readonly configSchema: ConfigSchema;
  /** The port's capabilities, as declared. */
  readonly capabilities: readonly ConnectorCapability[];
  readonly providerPackageId: string;
  readonly sandboxed: boolean;
  /** Seeds a host's permission tree when the host sets none. */
  readonly defaultPermissions: PermissionTree | null;
  readonly defaultOwnership: OwnershipScope;
  readonly allowedOwnership: readonly OwnershipScope[];
}

/** A host as far as opening it goes: a stored record, or one being validated before it is stored. */
export type HostDraft = Pick<HostRecord, 'network' | 'slug' | 'kind' | 'config' | 'ownership' | 'ownerId' | 'privateOrigins'>;

/** A stored host with what the crawler reads from its record. */
export type OpenableHost = HostDraft & Pick<HostRecord, 'id' | 'updatedAt' | 'scope' | 'sync' | 'honoursOrder'>;

export interface SandboxedKindSpec {
  /** The module's text, as it passed the trial. */
  readonly source: string;
  /** The description the trial validated. */
  readonly description: Description;
  /** Closed draft-07 schema of a host's config (what createConnector receives). */
  readonly configSchema: ConfigSchema;
  readonly name?: string;
  readonly limits?: Partial<SandboxLimits>;
}

export interface HostKindsOptions {
  readonly loader: PackageLoader;
  readonly gate: EgressGate;
  readonly credentials: HostCredentials;
  readonly paths: PlatformPaths;
  /** The `${appRoot}` root token's folder. */
  readonly appRoot: string;
  /** The sandbox host, started on first use. */
  readonly sandbox: () => SandboxHost;
  /** A network's vector index and its hosts' read rule, for its `vector` hosts. */
  readonly vectorSeams: (network: string) => { readonly index: VectorIndex; readonly access: VectorAccess };
  /** Where the default embedder keeps its converted word table; default beside the wink package. */
  readonly embeddingsCacheDir?: string;
}

/** How one kind opens hosts; every method receives the host and the network's folders. */
interface KindDriver {
  /** The config with platform-owned fields filled in. Throws `invalid_config` when the stored config sets one. */
  openConfig(host: HostDraft): Readonly<Record<string, unknown>>;
  describe(host: HostDraft): Promise<Description>;
  openHost(host: OpenableHost): Promise<Connector>;
  /** The runtime registered in a network's ConnectorRegistry. */
  portRuntime(network: string): ConnectorKindRuntime;
}

interface OpenedHost {
  readonly version: string;
  readonly connector: Connector;
}

/** The tree of a host whose kind declares no default permissions: read only. */
export const FALLBACK_PERMISSIONS: PermissionTree = Object.freeze({ default: Object.freeze({ read: true, write: false, exec: false }) });

const UNBOUND_EGRESS: EgressPort = {
  fetch: () => Promise.reject(new UnavailableError('The host cannot reach the network yet: it was opened only to be described, or is still loading.')),
};

/** The credential store's reference for a host: the scope of its owner, and its slug. */
export function hostCredentialRef(host: Pick<HostRecord, 'network' | 'slug' | 'ownership' | 'ownerId'>): CredentialHostRef {
  const scope =
    host.ownership === 'user' ? userScope(host.network, host.ownerId ?? '') : host.ownership === 'agent' ? agentScope(host.network, host.ownerId ?? '') : projectScope(host.network);
  return { scope, host: host.slug };
}

/**
 * A sandboxed host that declares no writes reaches its origins as the submit-phase trial let it:
 * reads only (and the POSTs it declares in auth.readEndpoints), so a module that passed the trial
 * cannot start writing once installed.
 */
function sandboxedMode(description: Description): 'enforce' | 'audit' {
  return description.writes === undefined ? 'audit' : 'enforce';
}

function key(ref: { readonly network: string; readonly slug: string }): string {
  return `${ref.network}/${ref.slug}`;
}

function versionOf(host: OpenableHost): string {
  return `${host.id}@${host.updatedAt}`;
}

export class HostKinds {
  readonly #o: HostKindsOptions;
  readonly #drivers = new Map<string, KindDriver>();
  readonly #registries = new Map<string, ConnectorRegistry>();
  /** The hosts a port runtime may be asked to bind, by network/slug (the registry hands a runtime only the slug). */
  readonly #bindable = new Map<string, OpenableHost>();
  readonly #portVersions = new Map<string, string>();
  /**
   * Binds in flight, by network/slug: callers that open a host while its factory runs share that
   * bind. Each bind of a source discards the instance of the one before it, so two at once would
   * fail the first with binding_conflict (a probe and a read opening a fresh host together).
   */
  readonly #binding = new Map<string, { readonly version: string; readonly port: Promise<ConnectorPort> }>();
  readonly #opened = new Map<string, OpenedHost>();
  readonly #sandboxedPorts = new Map<string, SandboxedSourcePort>();
  readonly #embedders = new Map<string, { readonly version: string; readonly embedder: Promise<Embedder> }>();
  readonly #concealed = new Map<string, { readonly version: string; readonly concealment: Concealment | null }>();

  constructor(options: HostKindsOptions) {
    this.#o = options;
    this.#drivers.set('fs', this.#folderDriver('fs'));
    this.#drivers.set('local', this.#folderDriver('local'));
    this.#drivers.set('bucket', this.#bucketDriver());
    this.#drivers.set('imap', this.#imapDriver());
    this.#drivers.set('vector', this.#vectorDriver());
  }

  /** Every kind hosts can be opened for (built-in, sandboxed, from a package), by kind. */
  list(): HostKindMetadata[] {
    return [...new Set([...this.#drivers.keys(), ...this.#o.loader.connectors.kinds()])]
      .sort()
      .filter((kind) => this.has(kind))
      .map((kind) => this.get(kind));
  }

  has(kind: string): boolean {
    return this.#driverOf(kind) !== undefined;
  }

  /** A kind's metadata. Throws `kind_not_registered`. */
  get(kind: string): HostKindMetadata {
    const metadata = this.#o.loader.sourceKinds.get(kind);
    if (metadata === undefined || this.#driverOf(kind) === undefined) throw new KindNotRegisteredError(kind);
    return toMetadata(metadata);
  }

  /**
   * Whether the kind's availability hangs on a runtime (its manifest's `runtimeGated`): such a
   * kind's OS paths are that runtime's own coordinates, not paths on this machine.
   */
  runtimeGated(kind: string): boolean {
    return this.#o.loader.sourceKinds.get(kind)?.runtimeGated === true;
  }

  /**
   * Validates a config against the kind's configSchema (defaults filled). Throws
   * `kind_not_registered`, and `invalid_config` naming every bad field.
   */
  validateConfig(kind: string, config: unknown): Readonly<Record<string, unknown>> {
    this.get(kind);
    return this.#o.loader.sourceKinds.validateConfig(kind, config);
  }

  /**
   * Registers a sandboxed kind (a connector module that passed the trial and a person approved).
   * Throws `description_invalid`, `already_exists` when a package already provides the kind, and
   * `manifest_invalid` for a config schema that is not closed.
   */
  registerSandboxed(spec: SandboxedKindSpec): HostKindMetadata {
    const template = sandboxedSourceKind({ ...spec, host: this.#o.sandbox(), egressFor: () => UNBOUND_EGRESS });
    this.#o.loader.sourceKinds.register(template.registration);
    const driver = this.#sandboxedDriver(spec);
    this.#drivers.set(template.kind, driver);
    for (const [network, registry] of this.#registries) registry.registerKind(driver.portRuntime(network));
    return this.get(template.kind);
  }

  /**
   * A host's permission tree, compiled: its own tree, else its kind's `defaultPermissions`, else
   * read only (FALLBACK_PERMISSIONS); package URI policy baselines are unioned on top.
   */
  permissionsOf(host: Pick<HostRecord, 'kind' | 'permissions'> & Partial<OpenableHost>, baselines: readonly PermissionTree[] = []): CompiledPermissions {
    const tree = unionBaselines(this.treeOf(host), baselines);
    const concealed = this.#concealedOf(host);
    return compilePermissions(concealed === null ? tree : concealTree(tree, concealed.segments));
  }

  /**
   * Whether the host's root contains the data directory, and where (see concealment.ts): worked
   * out once per version of the record from the root's real path, as the port resolves it. From
   * then on permissionsOf denies everything there. A kind with no OS paths conceals nothing; a
   * root that cannot be resolved now (missing) is asked again next time.
   */
  async concealment(host: OpenableHost): Promise<Concealment | null> {
    const known = this.#concealed.get(key(host));
    if (known !== undefined && known.version === versionOf(host)) return known.concealment;
    const port = await this.openPort(host).catch(() => undefined);
    if (port === undefined) return null;
    let concealment: Concealment | null = null;
    if (port.resolveOsUri !== undefined) {
      try {
        concealment = await concealmentFor(await port.resolveOsUri(formatSourceUri(host.slug, [])), this.#o.paths.dataDir);
      } catch (error) {
        if (!hasErrorCode(error, 'os_uri_unresolvable')) return null;
      }
    }
    this.#concealed.set(key(host), { version: versionOf(host), concealment });
    return concealment;
  }

  #concealedOf(host: Partial<OpenableHost>): Concealment | null {
    if (host.network === undefined || host.slug === undefined || host.id === undefined || host.updatedAt === undefined) return null;
    const known = this.#concealed.get(key({ network: host.network, slug: host.slug }));
    return known !== undefined && known.version === versionOf(host as OpenableHost) ? known.concealment : null;
  }

  /** A host's own tree, else its kind's `defaultPermissions`, else FALLBACK_PERMISSIONS (no baselines). */
  treeOf(host: Pick<HostRecord, 'kind' | 'permissions'>): PermissionTree {
    return host.permissions ?? this.#o.loader.sourceKinds.get(host.kind)?.defaultPermissions ?? FALLBACK_PERMISSIONS;
  }

  /** The config a host is opened with. Throws `kind_not_registered` or `invalid_config`. */
  openConfig(host: HostDraft): Readonly<Record<string, unknown>> {
    return this.#driver(host.kind).openConfig(host);
  }

  /** The host's description (kind, capabilities, auth, dimensions) for its config. */
  describe(host: HostDraft): Promise<Description> {
    return this.#driver(host.kind).describe(host);
  }

  /** The host Connector of a stored host, opened once and reused until the record changes. */
  async openHost(host: OpenableHost): Promise<Connector> {
    const opened = this.#opened.get(key(host));
    if (opened !== undefined && opened.version === versionOf(host)) return opened.connector;
    if (opened !== undefined) disposeConnector(opened.connector);
    const connector = await this.#driver(host.kind).openHost(host);
    this.#opened.set(key(host), { version: versionOf(host), connector });
    return connector;
  }

  /**
   * The ConnectorPort of a stored host, bound in its network's registry (re-bound when the record
   * changed, or when the package providing its kind was swapped). Throws what
   * ConnectorRegistry.bindSource throws: `kind_not_registered`, `orphan_source`, `invalid_config`,
   * `connector_failed`, `capability_mismatch`, …
   */
  async openPort(host: OpenableHost): Promise<ConnectorPort> {
    const registry = this.#registry(host.network);
    const runtimeChanged = this.#syncPackageRuntime(registry, host.network, host.kind);
    const version = versionOf(host);
    if (!runtimeChanged && this.#portVersions.get(key(host)) === version) {
      try {
        return registry.resolveBySource(host.slug);
      } catch {
        // A failed or detached binding is bound again below.
      }
    }
    const id = key(host);
    const inFlight = this.#binding.get(id);
    if (!runtimeChanged && inFlight !== undefined && inFlight.version === version) return inFlight.port;
    this.#bindable.set(id, host);
    const callContext = ownerCallContext(host);
    const port = registry
      .bindSource({
        source: host.slug,
        kind: host.kind,
        config: this.openConfig(host),
        scope: host.ownership,
        projectRoot: this.#o.paths.networkRoot(host.network),
        // A user's or agent's host: its calls name the owner to the package's credential resolver (source-owner.ts).
        ...(callContext === undefined ? {} : { callContext }),
      })
      .then((bound) => {
        this.#portVersions.set(id, version);
        return bound;
      })
      .finally(() => {
        if (this.#binding.get(id)?.port === port) this.#binding.delete(id);
      });
    this.#binding.set(id, { version, port });
    return port;
  }

  /** What the crawler needs to crawl a stored host. */
  async crawlTarget(host: OpenableHost): Promise<CrawlTarget> {
    const opened = await this.openHost(host);
    const concealment = await this.concealment(host);
    const connector =
      concealment === null
        ? opened
        : concealingConnector(opened, concealment, async (path) => {
            const port = await this.openPort(host);
            return port.resolveOsUri!(addressToSourceUri(addressFromHostPath(path, { host: host.slug })));
          });
    return {
      ref: { network: host.network, host: host.slug },
      connector,
      description: connector.describe(),
      scope: host.scope,
      sync: host.sync,
      honoursOrder: host.honoursOrder,
    };
  }

  /**
   * The embedder a `vector` host's config names, made once per version of the record: the offline
   * default, or an OpenAI-compatible client whose requests go through the egress gate bound to the
   * host's AuthSpec and stored credential. Throws `invalid_config` (not a vector host, or a config
   * parseVectorConfig refuses) and what createEmbedder throws.
   */
  embedder(host: OpenableHost): Promise<Embedder> {
    if (host.kind !== 'vector') return Promise.reject(new InvalidConfigError(`Host "${host.slug}" is of kind "${host.kind}", not "vector"; only vector hosts name an embedder.`));
    const cached = this.#embedders.get(key(host));
    if (cached !== undefined && cached.version === versionOf(host)) return cached.embedder;
    const embedder = import('@inseam/connector-vector').then((vector) => {
      const settings = vector.parseVectorConfig(host.config).embedder;
      return vector.createEmbedder(settings, {
        egress: () => this.#egress(host, vector.embedderAuth(settings), 'return'),
        ...(this.#o.embeddingsCacheDir === undefined ? {} : { cacheDir: this.#o.embeddingsCacheDir }),
      });
    });
    this.#embedders.set(key(host), { version: versionOf(host), embedder });
    // A failed start (an unconvertible table, say) is tried again next time.
    embedder.catch(() => {
      if (this.#embedders.get(key(host))?.embedder === embedder) this.#embedders.delete(key(host));
    });
    return embedder;
  }

  /** Drops what was opened for a host (its host Connector and its port binding). */
  forget(ref: HostRef): void {
    const id = `${ref.network}/${ref.host}`;
    const opened = this.#opened.get(id);
    if (opened !== undefined) disposeConnector(opened.connector);
    this.#opened.delete(id);
    this.#bindable.delete(id);
    this.#portVersions.delete(id);
    this.#binding.delete(id);
    this.#registries.get(ref.network)?.unbindSource(ref.host);
    this.#sandboxedPorts.get(id)?.dispose();
    this.#sandboxedPorts.delete(id);
    this.#embedders.delete(id);
  }

  /** Disposes every opened host and sandboxed port. */
  close(): void {
    for (const opened of this.#opened.values()) disposeConnector(opened.connector);
    this.#opened.clear();
    for (const port of this.#sandboxedPorts.values()) port.dispose();
    this.#sandboxedPorts.clear();
    this.#registries.clear();
  }

  #driver(kind: string): KindDriver {
    const driver = this.#driverOf(kind);
    if (driver === undefined) throw new KindNotRegisteredError(kind);
    return driver;
  }

  /** The kind's driver: a built-in or sandboxed one, else the generic one of a kind the loader has a runtime for. */
  #driverOf(kind: string): KindDriver | undefined {
    if (!this.#o.loader.sourceKinds.has(kind)) return undefined;
    const driver = this.#drivers.get(kind);
    if (driver !== undefined) return driver;
    return this.#o.loader.connectors.hasKind(kind) ? this.#packageDriver(kind) : undefined;
  }

  /**
   * For a kind from a package (neither built-in nor sandboxed): puts the loader's current runtime
   * in the network's registry when it is missing there or was replaced by a swap, and answers
   * whether it did (a binding made with the old runtime must be made again). A kind the loader
   * dropped is taken out of the registry too (its bindings detach) and throws `kind_not_registered`.
   */
  #syncPackageRuntime(registry: ConnectorRegistry, network: string, kind: string): boolean {
    if (this.#drivers.has(kind)) return false;
    const driver = this.#driverOf(kind);
    if (driver === undefined) {
      if (registry.hasKind(kind)) registry.unregister(kind);
      throw new KindNotRegisteredError(kind);
    }
    const runtime = driver.portRuntime(network);
    if (registry.hasKind(kind)) {
      if (registry.runtimeOf(kind) === runtime) return false;
      // Another package provides the kind now: the registry refuses a second provider, so the old one goes first.
      if (registry.resolve(kind).packageId !== runtime.packageId) registry.unregister(kind);
    }
    registry.registerKind(runtime);
    return true;
  }

  #registry(network: string): ConnectorRegistry {
    let registry = this.#registries.get(network);
    if (registry === undefined) {
      registry = new ConnectorRegistry(this.#o.loader.sourceKinds);
      for (const [kind, driver] of this.#drivers) {
        if (this.#o.loader.sourceKinds.has(kind)) registry.registerKind(driver.portRuntime(network));
      }
      this.#registries.set(network, registry);
    }
    return registry;
  }

  #bindableHost(network: string, source: string): OpenableHost {
    const host = this.#bindable.get(`${network}/${source}`);
    if (host === undefined) throw new UnavailableError(`Host "${source}" of network "${network}" is not open; open it through the platform.`);
    return host;
  }

  #egress(host: HostDraft, auth: AuthSpec, redirects: 'follow' | 'return', mode: 'enforce' | 'audit' = 'enforce'): EgressPort {
    return this.#o.gate.forHost({
      hostId: key(host),
      auth,
      credentials: this.#o.credentials.source(hostCredentialRef(host), auth),
      allowPrivateOrigins: host.privateOrigins,
      redirects,
      mode,
    });
  }

  #factoryContext(host: HostDraft, packageId: string): ConnectorFactoryContext {
    return {
      packageId,
      packageRoot: this.#o.loader.getPackage(packageId)?.root ?? this.#o.paths.networkRoot(host.network),
      source: host.slug,
      config: this.openConfig(host),
      projectRoot: this.#o.paths.networkRoot(host.network),
      scope: host.ownership,
    };
  }

  #folderDriver(kind: 'fs' | 'local'): KindDriver {
    const packageId = this.#packageOf(kind);
    return {
      openConfig: (host) => host.config,
      describe: async () => (await import('@inseam/connector-fs')).describeFolder(kind),
      openHost: async (host) => {
        const context = this.#factoryContext(host, packageId);
        if (kind === 'fs') return (await import('@inseam/connector-fs')).createFsHost(context);
        return (await import('@inseam/connector-local')).createLocalHost(context, { appRoot: this.#o.appRoot });
      },
      portRuntime: () => this.#o.loader.connectors.runtimeOf(kind),
    };
  }

  #bucketDriver(): KindDriver {
    const packageId = this.#packageOf('bucket');
    const openConfig = (host: HostDraft): Readonly<Record<string, unknown>> => {
      if (host.config['provider'] !== 'pad') return host.config;
      if (host.config['path'] !== undefined) {
        throw new InvalidConfigError('Invalid source config: field "path" is set by inseam for a pad (the network\'s own folder); leave it out.', {
          details: { fields: ['path'] },
        });
      }
      return { ...host.config, path: this.#o.paths.padDir(host.network) };
    };
    const remote = (host: HostDraft): boolean => host.config['provider'] !== 'pad';
    const load = () => import('@inseam/connector-bucket');
    const describe = async (host: HostDraft): Promise<Description> => (await (await load()).createBucketHost(openConfig(host), { egress: UNBOUND_EGRESS })).describe();
    return {
      openConfig,
      describe,
      openHost: async (host) => {
        const { createBucketHost } = await load();
        if (!remote(host)) return createBucketHost(openConfig(host));
        // The gate is bound to what the host declares, which needs the host first.
        const egress = lazyEgress();
        const connector = await createBucketHost(openConfig(host), { egress: egress.port });
        egress.bind(this.#egress(host, connector.describe().auth, 'return'));
        return connector;
      },
      portRuntime: (network) => {
        const runtime = this.#o.loader.connectors.runtimeOf('bucket');
        return {
          kind: 'bucket',
          packageId: runtime.packageId,
          trust: runtime.trust,
          entry: runtime.entry,
          instantiate: async (request: ValidatedBindingRequest) => {
            const host = { ...this.#bindableHost(network, request.source), config: request.config };
            const egress = remote(host) ? this.#egress(host, (await describe(host)).auth, 'return') : UNBOUND_EGRESS;
            let port: ConnectorPort;
            try {
              const { createBucketPort } = await load();
              port = await createBucketPort(
                { packageId, packageRoot: this.#o.loader.getPackage(packageId)?.root ?? '', source: request.source, config: request.config, ...(request.projectRoot === undefined ? {} : { projectRoot: request.projectRoot }), scope: request.scope },
                { egress },
              );
            } catch (cause) {
              throw new ConnectorFailedError(`The factory of kind "bucket" threw while binding source "${request.source}".`, { cause, details: { kind: 'bucket', source: request.source } });
            }
            checkConnectorCapabilities(port, runtime.entry);
            return port;
          },
        };
      },
    };
  }

  /**
   * `imap`: one ImapHost per stored host serves both the crawler and the port (one connection,
   * plus one for watch). IMAP is not HTTP, so it does not go through the egress gate; the login
   * comes from the host's stored credential (its AuthSpec fields, or the OAuth grant the flows
   * keep, renewed single-flight when the server refuses the token). The package is imported on
   * first use, so commands that never open a mailbox do not load the IMAP client.
   */
  #imapDriver(): KindDriver {
    const packageId = this.#packageOf('imap');
    const load = () => import('@inseam/connector-imap');
    const open = async (host: HostDraft): Promise<ImapHost> => {
      const imap = await load();
      const config = imap.parseImapConfig(host.config);
      const credentials = imapCredentials(this.#o.credentials.source(hostCredentialRef(host), imap.imapAuth(config)), config);
      return imap.createImapHost(host.config, { credentials });
    };
    return {
      openConfig: (host) => host.config,
      describe: async (host) => {
        const imap = await load();
        return imap.describeImap(imap.parseImapConfig(host.config));
      },
      openHost: open,
      portRuntime: (network) => {
        const runtime = this.#o.loader.connectors.runtimeOf('imap');
        return {
          kind: 'imap',
          packageId: runtime.packageId,
          trust: runtime.trust,
          entry: runtime.entry,
          instantiate: async (request: ValidatedBindingRequest) => {
            const host = { ...this.#bindableHost(network, request.source), config: request.config };
            let port: ConnectorPort;
            try {
              const imap = await load();
              const connector = (await this.openHost(host)) as ImapHost;
              port = await imap.createImapPort(
                { packageId, packageRoot: this.#o.loader.getPackage(packageId)?.root ?? '', source: request.source, config: request.config, scope: request.scope },
                { host: connector },
              );
            } catch (cause) {
              throw new ConnectorFailedError(`The factory of kind "imap" threw while binding source "${request.source}".`, { cause, details: { kind: 'imap', source: request.source } });
            }
            checkConnectorCapabilities(port, runtime.entry);
            return port;
          },
        };
      },
    };
  }

  /**
   * `vector`: a port over the network's index (vectorSeams), its queries embedded by the host's
   * embedder, and a PortHost over it. Its description is a PortHost's with the embedder's AuthSpec,
   * so a host's `apiKey` is checked and stored like any credential and the gate knows its origin.
   */
  #vectorDriver(): KindDriver {
    const packageId = this.#packageOf('vector');
    const capabilities = (): readonly ConnectorCapability[] => this.#o.loader.sourceKinds.get('vector')?.capabilities ?? [];
    return {
      openConfig: (host) => host.config,
      describe: async (host) => {
        const { embedderAuth, parseVectorConfig } = await import('@inseam/connector-vector');
        return { ...describePortHost('vector', capabilities()), auth: embedderAuth(parseVectorConfig(host.config).embedder) };
      },
      openHost: async (host) => new PortHost({ kind: 'vector', source: host.slug, capabilities: capabilities(), port: () => this.#openedPort(host) }),
      portRuntime: (network) => {
        const runtime = this.#o.loader.connectors.runtimeOf('vector');
        return {
          kind: 'vector',
          packageId: runtime.packageId,
          trust: runtime.trust,
          entry: runtime.entry,
          instantiate: async (request: ValidatedBindingRequest) => {
            const host = this.#bindableHost(network, request.source);
            const context = { packageId, packageRoot: this.#o.loader.getPackage(packageId)?.root ?? '', source: request.source, config: request.config, scope: request.scope };
            const { createVectorPort } = await import('@inseam/connector-vector');
            const port = createVectorPort(context, { ...this.#o.vectorSeams(network), embedder: () => this.embedder({ ...host, config: request.config }) });
            checkConnectorCapabilities(port, runtime.entry);
            return port;
          },
        };
      },
    };
  }

  /** A kind from a loaded package: the loader's runtime, the stored config, and a PortHost over the bound port. */
  #packageDriver(kind: string): KindDriver {
    const capabilities = (): readonly ConnectorCapability[] => this.#o.loader.sourceKinds.get(kind)?.capabilities ?? [];
    return {
      openConfig: (host) => host.config,
      describe: async () => describePortHost(kind, capabilities()),
      // Binding waits for the first call, and each call asks openPort again: a swapped package or a failed bind is picked up.
      openHost: async (host) => new PortHost({ kind, source: host.slug, capabilities: capabilities(), port: () => this.#openedPort(host) }),
      portRuntime: () => this.#o.loader.connectors.runtimeOf(kind),
    };
  }

  /**
   * The port behind an opened PortHost. Refused with `unavailable` once the host was forgotten or
   * opened again for a changed record, so a connector still held elsewhere never binds it anew.
   */
  #openedPort(host: OpenableHost): Promise<ConnectorPort> {
    if (this.#opened.get(key(host))?.version !== versionOf(host)) {
      return Promise.reject(new UnavailableError(`Host "${host.slug}" of network "${host.network}" was changed or removed since it was opened; open it again.`));
    }
    return this.openPort(host);
  }

  #sandboxedDriver(spec: SandboxedKindSpec): KindDriver {
    const load = (host: HostDraft, egress: EgressPort) =>
      this.#o.sandbox().load({ source: spec.source, label: key(host), config: host.config, egress, ...(spec.limits === undefined ? {} : { limits: spec.limits }) });
    return {
      openConfig: (host) => host.config,
      // The module itself says what a config means (its origins follow its base URL, say); loading it also runs its own config checks.
      describe: async (host) => {
        const connector = await load(host, UNBOUND_EGRESS);
        try {
          return connector.describe();
        } finally {
          connector.dispose();
        }
      },
      openHost: async (host) => {
        const egress = lazyEgress();
        const connector = await load(host, egress.port);
        const description = connector.describe();
        egress.bind(this.#egress(host, description.auth, 'follow', sandboxedMode(description)));
        return connector;
      },
      portRuntime: (network) => {
        const pending = new Map<string, ReturnType<typeof lazyEgress>>();
        const { runtime } = sandboxedSourceKind({
          ...spec,
          host: this.#o.sandbox(),
          egressFor: ({ source }) => {
            const egress = lazyEgress();
            pending.set(source, egress);
            return egress.port;
          },
        });
        return {
          ...runtime,
          instantiate: async (request) => {
            const port = (await runtime.instantiate(request)) as SandboxedSourcePort;
            pending.get(request.source)?.bind(this.#egress(this.#bindableHost(network, request.source), port.description.auth, 'follow', sandboxedMode(port.description)));
            pending.delete(request.source);
            const id = `${network}/${request.source}`;
            this.#sandboxedPorts.get(id)?.dispose();
            this.#sandboxedPorts.set(id, port);
            return port;
          },
        };
      },
    };
  }

  #packageOf(kind: string): string {
    return this.#o.loader.sourceKinds.get(kind)?.providerPackageId ?? SANDBOX_PACKAGE_ID;
  }
}

/**
 * An EgressPort for a connector whose AuthSpec is known only once it is loaded: requests before
 * `bind` are refused, after it they go to the gate bound to what the connector declared.
 */
function lazyEgress(): { readonly port: EgressPort; bind(egress: EgressPort): void } {
  let bound = UNBOUND_EGRESS;
  return { port: { fetch: (request) => bound.fetch(request) }, bind: (egress) => (bound = egress) };
}

function disposeConnector(connector: Connector): void {
  const dispose = (connector as { dispose?: unknown }).dispose;
  if (typeof dispose === 'function') (dispose as () => void).call(connector);
}

function toMetadata(metadata: SourceKindMetadata): HostKindMetadata {
  return Object.freeze({
    kind: metadata.kind,
    label: metadata.label,
    category: metadata.category ?? null,
    description: metadata.description ?? '',
    configSchema: metadata.configSchema,
    capabilities: metadata.capabilities,
    providerPackageId: metadata.providerPackageId,
    sandboxed: metadata.providerPackageId === SANDBOX_PACKAGE_ID,
    defaultPermissions: metadata.defaultPermissions ?? null,
    defaultOwnership: metadata.defaultScope,
    allowedOwnership: metadata.allowedScopes,
  });
}
