/**
 * The platform: one data directory and everything that works on it, assembled in one place.
 *
 *   const platform = await openPlatform({ dataDir });
 *   await platform.networks.init('home');
 *   await platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: '/srv/notes' } });
 *   const run = await (await platform.sync({ network: 'home', host: 'notes' })).result;
 *   await platform.search.search('meeting', { network: 'home' });
 *   await platform.close();
 *
 * What it owns: the store — the embedded SQLite file `<dataDir>/inseam.db`, or PostgreSQL when
 * `storeUrl` (the CLI's `--store`) or INSEAM_DATABASE_URL names a postgres:// database — the
 * master key (INSEAM_MASTER_KEY, else `<dataDir>/master.key`, made at first start; every process
 * sharing a PostgreSQL store needs the same key), the credential store in the same database,
 * the egress gate, the sandbox host (started on first use), the package loader with the built-in
 * connector packages loaded first-party, the host kinds, the network service, the catalog, the
 * crawler, the sync scheduler and search.
 *
 * Syncing on a schedule starts only with `startSync()` (the server does; a CLI command does
 * not). Crawls people ask for (`requestCrawl`, an added host's first crawl, webhook deliveries)
 * go through `crawls`: in this process by default; a server on the shared store routes them
 * through the queue with `routeCrawls` (crawl-requests.ts).
 *
 * `close()` stops the scheduler, pauses running crawls at their next batch boundary (each resumes
 * from its checkpoint later), disposes the connectors, stops the sandbox and closes the gate and
 * the database, in that order; nothing committed is lost.
 */
import { addressFromSourceUri } from '../address/index.js';
import { Catalog } from '../catalog/index.js';
import {
  CredentialStore,
  HostCredentials,
  PackageCredentials,
  PostgresCredentialRecordStore,
  SqliteCredentialRecordStore,
  loadMasterKey,
  readDeploymentClients,
  type CredentialRecordStore,
  type InseamOAuthClient,
  type MasterKey,
} from '../credentials/index.js';
import { Crawler, SyncScheduler, type CrawlHandle, type CrawlerOptions, type SyncOptions, type SyncSchedulerOptions } from '../crawl/index.js';
import { createEgressGate, type EgressGate, type EgressGateOptions } from '../gate/index.js';
import { NetworkService, createPreparedHost, packageBaselines } from '../network/index.js';
import { SandboxHost, type SandboxHostOptions } from '../sandbox/index.js';
import { SearchService } from '../search/index.js';
import { PostgresStore, openStore, type HostInput, type HostRecord, type HostRef, type PlatformStore } from '../store/index.js';
import type { CredentialDeclaration, SessionContext } from '@neuralis/package-system/contracts';
import { PackageLoader } from '@neuralis/package-system/loader';
import { PlatformPaths, resolveDataDir, resolveStoreUrl, type PlatformEnv } from './data-dir.js';
import { CheckedSchemaFile } from './checked-schemas.js';
import { ownerAwareResolvers } from './source-owner.js';
import type { CrawlRequests, CrawlTicket, PrepareHost, QueuedCrawl, WebhookReceipt } from './crawl-requests.js';
import { EgressLog } from './egress-log.js';
import { HostKinds } from './host-kinds.js';
import { InstalledPackages, type ReconcileOutcome } from './installed-packages.js';
import { PackageSecrets } from './package-secrets.js';
import { APP_ROOT_ENV, builtinPackages, declaredCredentials, installRoot, type PackageSpec } from './packages.js';
import { PackageStates } from './package-states.js';
import { VectorIndexer } from '../vectors/index.js';
import { storeVectorSeams } from './vector-index.js';

export interface OpenPlatformOptions {
  /** The data directory (the CLI's `--data`); see resolveDataDir for the defaults. */
  readonly dataDir?: string;
  /** The store: a postgres:// URL, or a SQLite file; default INSEAM_DATABASE_URL, else `<dataDir>/inseam.db`. */
  readonly storeUrl?: string;
  /** Where INSEAM_DATA_DIR, INSEAM_DATABASE_URL, XDG_DATA_HOME, HOME and INSEAM_MASTER_KEY are read. Default `process.env`. */
  readonly env?: PlatformEnv;
  /** Packages loaded after the built-ins, with the trust their installer gives them. */
  readonly packages?: readonly PackageSpec[];
  readonly crawler?: Omit<CrawlerOptions, 'store'>;
  readonly scheduler?: Omit<SyncSchedulerOptions, 'crawler'>;
  readonly gate?: Omit<EgressGateOptions, 'recorder'>;
  readonly sandbox?: SandboxHostOptions;
}

interface PlatformParts {
  readonly paths: PlatformPaths;
  readonly appRoot: string;
  readonly store: PlatformStore;
  readonly masterKey: MasterKey['source'];
  readonly credentialStore: CredentialStore;
  readonly packageCredentials: PackageCredentials;
  readonly gate: EgressGate;
  readonly egressLog: EgressLog;
  readonly loader: PackageLoader;
  readonly packageStates: PackageStates;
  readonly sandboxOptions: SandboxHostOptions;
  /** Ids of the packages loaded at start (the built-ins and `options.packages`): not removable. */
  readonly builtinPackageIds: ReadonlySet<string>;
  /** Reads a package folder's `credentials[]` so its resolver knows them before it loads. */
  readonly declareCredentials: (folder: string) => void;
  /** The deployment's OAuth clients (`<data>/oauth-clients.json`). */
  readonly oauthClients: readonly InseamOAuthClient[];
}

export class Platform {
  readonly paths: PlatformPaths;
  /** The `${appRoot}` root token's folder. */
  readonly appRoot: string;
  /** The embedded SqliteStore, or a PostgresStore (`instanceof` tells). */
  readonly store: PlatformStore;
  /** Where the master key came from: INSEAM_MASTER_KEY, the key file, or a key file made now. */
  readonly masterKey: MasterKey['source'];
  readonly credentialStore: CredentialStore;
  /** Hosts' credentials (fields, OAuth grants, exchanged tokens). */
  readonly credentials: HostCredentials;
  /** Packages' `neuralis.credentials[]` values. */
  readonly packageCredentials: PackageCredentials;
  /** Who may store which package credential at which scope, for every surface (package-secrets.ts). */
  readonly packageSecrets: PackageSecrets;
  readonly gate: EgressGate;
  readonly egressLog: EgressLog;
  readonly loader: PackageLoader;
  /** Each package's enabled/auto state per network: `ctx.packageState()` and the MCP-hosting enable list. */
  readonly packageStates: PackageStates;
  readonly kinds: HostKinds;
  /** Packages a person installed, swapped and removed while running (installed-packages.ts). */
  readonly packages: InstalledPackages;
  readonly networks: NetworkService;
  readonly catalog: Catalog;
  readonly crawler: Crawler;
  readonly scheduler: SyncScheduler;
  readonly search: SearchService;
  /** Embeds what crawls catalogued, in the background after each crawl (vectors/indexer.ts). */
  readonly vectors: VectorIndexer;
  readonly #sandboxOptions: SandboxHostOptions;
  #sandbox: SandboxHost | undefined;
  readonly #handles = new Set<CrawlHandle>();
  #crawls: CrawlRequests;
  #syncing = false;
  #packageLoop: ReturnType<typeof setInterval> | undefined;
  #closing: Promise<void> | undefined;

  constructor(parts: PlatformParts, options: OpenPlatformOptions) {
    this.paths = parts.paths;
    this.appRoot = parts.appRoot;
    this.store = parts.store;
    this.masterKey = parts.masterKey;
    this.credentialStore = parts.credentialStore;
    this.credentials = new HostCredentials({ store: parts.credentialStore, oauth: { clients: parts.oauthClients } });
    this.packageCredentials = parts.packageCredentials;
    this.packageSecrets = new PackageSecrets({ loader: parts.loader, store: parts.credentialStore, packages: parts.packageCredentials });
    this.gate = parts.gate;
    this.egressLog = parts.egressLog;
    this.loader = parts.loader;
    this.packageStates = parts.packageStates;
    this.#sandboxOptions = parts.sandboxOptions;
    this.kinds = new HostKinds({
      loader: parts.loader,
      gate: parts.gate,
      credentials: this.credentials,
      paths: parts.paths,
      appRoot: parts.appRoot,
      sandbox: () => this.sandbox,
      vectorSeams: (network) => storeVectorSeams({ store: parts.store, network, permissionsOf: (record) => this.kinds.permissionsOf(record) }),
    });
    this.packages = new InstalledPackages({
      loader: parts.loader,
      store: parts.store.packages,
      builtins: () => parts.builtinPackageIds,
      declareCredentials: parts.declareCredentials,
      projectRoot: (network) => parts.paths.networkRoot(network),
      networks: async () => (await parts.store.networks.list()).map((network) => network.slug),
    });
    this.catalog = new Catalog(parts.store.catalog);
    // Embedding follows every write of the crawler, off its critical path: a crawl that ended, and
    // change events (watches, webhooks, the fs service's writes, a queue worker's jobs) as they land.
    this.crawler = new Crawler({ ...options.crawler, store: parts.store.catalog, history: parts.store.syncHistory, memos: parts.store.hostMemos, onWritten: (ref) => this.#written(ref) });
    this.scheduler = new SyncScheduler({ ...options.scheduler, crawler: this.crawler });
    this.networks = new NetworkService({
      store: parts.store,
      kinds: this.kinds,
      credentials: this.credentials,
      loader: parts.loader,
      gate: parts.gate,
      paths: parts.paths,
      appRoot: parts.appRoot,
      createHost: (network, input, prepare) => this.#crawls.createHost(network, input, prepare),
      hostAdded: (host) => this.#schedule(host),
      hostChanged: (host, change) => this.#hostChanged(host, change),
      hostRemoving: (ref) => this.#stopHost(ref),
    });
    this.vectors = new VectorIndexer({ store: parts.store, embedderOf: (host) => this.kinds.embedder(host) });
    this.search = new SearchService({ store: parts.store, catalog: this.catalog, kinds: this.kinds });
    this.#crawls = new InProcessCrawlRequests(this);
  }

  /** Where requested crawls run: in this process, unless `routeCrawls` handed them to a queue. */
  get crawls(): CrawlRequests {
    return this.#crawls;
  }

  /**
   * Sends requested crawls, added hosts' first crawls and webhook deliveries through `requests` from now on — the
   * server on the shared store passes the queue's. Call it before serving requests.
   */
  routeCrawls(requests: CrawlRequests): void {
    this.#crawls = requests;
  }

  /** Starts or queues a crawl of a host, wherever crawls run (see `crawls`). Throws as CrawlRequests.request. */
  requestCrawl(ref: HostRef, options: SyncOptions = {}): Promise<CrawlTicket> {
    this.#open();
    return this.#crawls.request(ref, options);
  }

  get dataDir(): string {
    return this.paths.dataDir;
  }

  /** The sandbox host for sandboxed kinds; its process starts with the first module loaded. */
  get sandbox(): SandboxHost {
    this.#sandbox ??= new SandboxHost(this.#sandboxOptions);
    return this.#sandbox;
  }

  /**
   * Starts (or resumes) a crawl of a host. Throws `invalid_uri`/`not_found` for the host and the
   * kind's errors for opening it; see `CrawlHandle.result` for how the crawl itself ends.
   */
  async sync(ref: HostRef, options: SyncOptions = {}): Promise<CrawlHandle> {
    this.#open();
    const record = await this.networks.hostRecord(ref);
    const handle = this.crawler.sync(await this.kinds.crawlTarget(record), options);
    this.#handles.add(handle);
    void handle.result.finally(() => this.#handles.delete(handle)).catch(() => undefined);
    return handle;
  }

  /** The crawler wrote entries of the host: their text is embedded in the background. */
  #written(ref: HostRef): void {
    if (this.#closing === undefined) void this.vectors.request(ref.network);
  }

  /**
   * Schedules every host by its sync settings (auto hosts sync now and on their interval, and are
   * watched when their kind can), and every host added from now on. A host that cannot be
   * opened is reported through the scheduler's `failed` event and left out.
   */
  async startSync(): Promise<void> {
    this.#open();
    this.#syncing = true;
    for (const network of await this.store.networks.list()) {
      for (const host of await this.store.hosts.list(network.slug)) {
        await this.#schedule(host);
        if (host.sync?.trigger !== 'auto') await this.#resumeUnfinished(host);
      }
      // What an earlier process left pending (a killed embedding run) is embedded now.
      void this.vectors.request(network.slug);
    }
  }

  /**
   * A host nothing syncs by itself still gets the crawl a person started and a stop (or a crash)
   * left unfinished: it resumes from its checkpoint, as an auto host's does when it is scheduled.
   */
  async #resumeUnfinished(host: HostRecord): Promise<void> {
    const ref = { network: host.network, host: host.slug };
    try {
      if ((await this.store.catalog.unfinishedRun(host.id)) === null) return;
      this.scheduler.syncNow(ref);
    } catch (error) {
      this.scheduler.emit('failed', ref, error);
    }
  }

  /** Adds a host to the scheduler once syncing has started; a host that cannot be opened is reported, not thrown. */
  async #schedule(host: HostRecord): Promise<void> {
    if (!this.#syncing) return;
    try {
      this.scheduler.add(await this.kinds.crawlTarget(host));
    } catch (error) {
      this.scheduler.emit('failed', { network: host.network, host: host.slug }, error);
    }
  }

  /**
   * The loader's exec path policy: a command may run with working directory `cwd` when the host's
   * permission tree, with its package's URI policy baseline unioned on top (as the fs service
   * reads it), allows `exec` there. The session's project is the network.
   */
  async execAllowed(session: SessionContext, cwd: string, source: string): Promise<boolean> {
    const record = await this.store.hosts.get({ network: session.projectId, host: source });
    if (record === null) return false;
    const address = addressFromSourceUri(cwd, { network: session.projectId });
    return address.host === source && this.kinds.permissionsOf(record, packageBaselines(this.loader, record)).allows(address.segments, 'exec');
  }

  /** Stops everything cleanly; see the module comment. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /**
   * Runs the package-swap loop (`packages.reconcile()`) every `intervalMs` until close, so packages
   * installed, swapped or removed by another process, or edited in their folders, follow without a
   * restart. `report` hears every pass that changed something.
   */
  watchPackages(intervalMs: number, report: (outcome: ReconcileOutcome) => void): void {
    this.#open();
    clearInterval(this.#packageLoop);
    this.#packageLoop = setInterval(() => {
      void this.packages.reconcile().then((outcome) => {
        if (Object.values(outcome).some((ids: readonly string[]) => ids.length > 0)) report(outcome);
      }, () => undefined);
    }, intervalMs);
    this.#packageLoop.unref();
  }

  async #close(): Promise<void> {
    clearInterval(this.#packageLoop);
    this.#syncing = false;
    await this.scheduler.stop();
    const running = [...this.#handles];
    for (const handle of running) handle.pause();
    await Promise.allSettled(running.map((handle) => handle.result));
    await this.vectors.close();
    this.kinds.close();
    await this.#sandbox?.close();
    await this.gate.close();
    await this.store.close();
  }

  /**
   * A changed host: a new config drops its bindings and its unfinished run (whose cursor belongs to
   * the old config) and crawls it afresh in full; a new scope crawls it in full; it is scheduled by
   * its (maybe new) sync settings. A crawl that cannot start is reported, not thrown: the change is
   * stored.
   */
  async #hostChanged(host: HostRecord, change: { readonly rebind: boolean; readonly resync: boolean }): Promise<void> {
    const ref = { network: host.network, host: host.slug };
    // A vector host's new config may name another model: its network is embedded again for it.
    if (host.kind === 'vector') void this.vectors.request(host.network);
    if (change.rebind) await this.#stopHost(ref);
    if (change.resync) {
      try {
        await this.#crawls.request(ref, { mode: 'full', ...(change.rebind ? { restart: true } : {}) });
      } catch (error) {
        this.scheduler.emit('failed', ref, error);
      }
    }
    await this.#schedule(host);
  }

  async #stopHost(ref: HostRef): Promise<void> {
    await this.scheduler.remove(ref);
    const running = this.crawler.running(ref);
    running?.pause();
    await running?.result.catch(() => undefined);
    this.kinds.forget(ref);
  }

  #open(): void {
    if (this.#closing !== undefined) throw new Error('The platform is closed.');
  }
}

/**
 * Opens the platform on a data directory (created 0700 when missing) and its store. Throws
 * `invalid_argument` for a store URL that is neither postgres:// nor a file, `invalid_config`
 * for a malformed or mismatched master key or a database newer than this inseam, `unavailable`
 * when the data directory or database cannot be used, `not_found` when a built-in connector
 * package is missing, and the loader's errors for a package that cannot be loaded. Whatever was
 * opened before a failure is closed again.
 */
export async function openPlatform(options: OpenPlatformOptions = {}): Promise<Platform> {
  const env = options.env ?? process.env;
  const paths = new PlatformPaths(resolveDataDir({ dataDir: options.dataDir, env }));
  await paths.prepare();
  // The loader-run `local` factory reads the app root from the environment; it is a constant of the install.
  const appRoot = nonEmpty(process.env[APP_ROOT_ENV]) ?? installRoot();
  process.env[APP_ROOT_ENV] = appRoot;
  const store = await openStore(resolveStoreUrl({ storeUrl: options.storeUrl, env }), { defaultPath: paths.database });
  let gate: EgressGate | undefined;
  try {
    const masterKey = await loadMasterKey({ env, keyFile: paths.masterKey });
    const oauthClients = await readDeploymentClients(paths.oauthClients);
    const records: CredentialRecordStore = store instanceof PostgresStore ? await PostgresCredentialRecordStore.open(store) : SqliteCredentialRecordStore.open(store.database);
    const credentialStore = await CredentialStore.open({ records, masterKey: masterKey.key });
    const egressLog = new EgressLog();
    gate = createEgressGate({ ...options.gate, recorder: egressLog });
    const specs = [...builtinPackages(), ...(options.packages ?? [])];
    const declared = new Map<string, readonly CredentialDeclaration[]>();
    const declareCredentials = (folder: string): void => {
      const found = declaredCredentials(folder);
      if (found !== undefined) declared.set(found.id, found.credentials);
    };
    for (const spec of specs) declareCredentials(spec.folder);
    const packageCredentials = new PackageCredentials(credentialStore);
    let platform: Platform | undefined;
    const packageStates = new PackageStates();
    const loader = new PackageLoader({
      credentials: ownerAwareResolvers(packageCredentials.resolvers((packageId) => declared.get(packageId))),
      packageState: (packageId, network) => packageStates.state(packageId, network),
      execPathPolicy: (session, cwd, source) => platform?.execAllowed(session, cwd, source) ?? false,
      checkedSchemas: new CheckedSchemaFile(paths.checkedSchemas),
    });
    for (const spec of specs) await loader.loadPackage(spec.folder, { trust: spec.trust, ...(spec.lazy === true ? { lazy: true } : {}) });
    const builtinPackageIds = new Set(loader.listPackages().map((loaded) => loaded.packageId));
    platform = new Platform(
      { paths, appRoot, store, masterKey: masterKey.source, credentialStore, packageCredentials, gate, egressLog, loader, packageStates, sandboxOptions: options.sandbox ?? {}, builtinPackageIds, declareCredentials, oauthClients },
      options,
    );
    await platform.packages.loadInstalled();
    return platform;
  } catch (error) {
    await gate?.close();
    await store.close();
    throw error;
  }
}

/** Crawls in this process: what `platform.sync` does, and hosts stored directly. */
class InProcessCrawlRequests implements CrawlRequests {
  readonly where = 'process';
  readonly #platform: Platform;

  constructor(platform: Platform) {
    this.#platform = platform;
  }

  async request(ref: HostRef, options: SyncOptions = {}): Promise<CrawlTicket> {
    return { where: 'process', handle: await this.#platform.sync(ref, options) };
  }

  async createHost(network: string, input: HostInput, prepare: PrepareHost): Promise<HostRecord> {
    return createPreparedHost(this.#platform.store.hosts, network, input, prepare);
  }

  async webhook(host: HostRecord, request: Request): Promise<WebhookReceipt> {
    const outcome = await this.#platform.crawler.applyWebhook(await this.#platform.kinds.crawlTarget(host), request);
    return { where: 'process', written: outcome.written, moved: outcome.moved, deleted: outcome.deleted, ignored: outcome.ignored, errors: outcome.errors, rescan: outcome.rescan !== null };
  }

  async queued(): Promise<QueuedCrawl | null> {
    return null;
  }

  async heldElsewhere(): Promise<boolean> {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
