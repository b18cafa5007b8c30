/**
 * PackageLoader: turns package folders into registered source kinds and binds sources to them.
 *
 *   const loader = new PackageLoader({ credentials, execPathPolicy });
 *   await loader.loadPackage('/opt/packages/notion', { trust: 'trusted' });   // at boot
 *   const notes = await loader.bindSource({ source: 'notes', kind: 'notion', config, scope: 'project' });
 *   loader.connectors.resolveBySource('notes');                                // what the fs service calls
 *   await loader.swapPackage('/opt/packages/notion-v2', { trust: 'trusted' }); // the package-swap loop
 *   await loader.scanProjectPackages('/srv/projects/p1', { projectId: 'p1' }); // `_packages/` drops
 *
 * Trust always comes from the caller (the installer), never from the manifest. Loading a package:
 * validate its manifest for that trust, import each source connector's factory module once (and
 * `main`), run the package's `init(ctx)` once, then register every kind's metadata and runtime —
 * all-or-nothing: a package that fails any step leaves the registries as they were. A swap or
 * rescan of a package already loaded replaces its kinds: new entries are added, dropped ones
 * unregistered (their sources become orphans), kept ones re-imported and their sources re-bound.
 * Load, swap, unload and scan run one at a time. A `lazy` load defers the import and the inits to
 * the first binding of one of the package's kinds (see LoadPackageOptions.lazy).
 */
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import type {
  ConnectorInitContext,
  ConnectorPort,
  CredentialResolver,
  PackageManifest,
  PackageState,
  PackageTrust,
  SourceConnectorEntry,
  ConnectorFactory,
} from '../contracts/index.js';
import {
  AlreadyExistsError,
  ConnectorFailedError,
  InvalidArgumentError,
  ManifestValidationError,
  NotFoundError,
  TrustViolationError,
  UnavailableError,
  isConnectorError,
  type ConnectorError,
} from '../contracts/index.js';
import { checkRuntimeRegistrationTrust, type CheckedSchemaRecord } from '../manifest/index.js';
import { ConnectorRegistry, SourceKindRegistry, type ConnectorKindRuntime, type RebindOutcome, type SourceBindingRequest } from '../registry/index.js';
import type { ExecPathPolicy } from './exec-guard.js';
import { digestPackageModule, factoryExport, importPackageModule, parseFactoryReference, resolvePackageModule, type FactoryReference, type ImportedModule } from './factory-import.js';
import { createKindRuntime } from './kind-runtime.js';
import { readPackageFolder, type PackageFolder } from './package-folder.js';
import { collectInits, createInitContext, runInits, type PackageInit } from './package-init.js';
import { PortAdapterRegistry, type PortAdapter } from './port-version.js';
import { listProjectDrops, type ProjectDrop } from './project-drops.js';

export interface PackageLoaderOptions {
  /** The credential store's resolver for one package; handed to its init(ctx). Default: none configured (`unavailable`). */
  readonly credentials?: (packageId: string) => CredentialResolver;
  /**
   * The platform's view of a package's state in a project, for `ctx.packageState()` (no project:
   * the deployment's view). Default `{ enabled: true, auto: false }`: a loader alone enables what it loads.
   */
  readonly packageState?: (packageId: string, projectId: string | undefined) => PackageState;
  /** Evaluates a source's path policy on an exec cwd. Without one, every exec entry is denied. */
  readonly execPathPolicy?: ExecPathPolicy;
  /** Config schemas known to pass from earlier loads, kept by the caller across processes (see CheckedSchemaRecord). */
  readonly checkedSchemas?: CheckedSchemaRecord;
}

export interface LoadPackageOptions {
  /** Assigned by the installer; never read from the manifest. */
  readonly trust: PackageTrust;
  /** The project the package is loaded for (a `_packages/` drop); passed to init(ctx). */
  readonly projectId?: string;
  /**
   * Import the package's code at the first binding of one of its kinds rather than now, so a
   * process that binds none of them never pays for loading it (the platform's built-in connectors:
   * a CLI command loads only those it uses). The manifest, trust and module paths are still checked
   * now; init(ctx) runs once, just before that first factory call. A module that fails to import or
   * to init then fails that binding and every later one (`connector_failed`), not the load.
   */
  readonly lazy?: boolean;
}

export interface LoadedPackage {
  readonly packageId: string;
  readonly version?: string;
  /** Real path of the package folder. */
  readonly root: string;
  readonly trust: PackageTrust;
  readonly projectId?: string;
  /** Source kinds the package provides, in manifest order. */
  readonly kinds: readonly string[];
  readonly manifest: PackageManifest;
}

export interface PackageSwapResult {
  readonly package: LoadedPackage;
  /** Kinds new in this version. */
  readonly added: readonly string[];
  /** Kinds the previous version had and this one dropped. */
  readonly removed: readonly string[];
  /** Kinds in both versions; their code was re-imported and their sources re-bound. */
  readonly kept: readonly string[];
  /** Sources whose kind was removed; they now resolve as `orphan_source`. */
  readonly orphaned: readonly string[];
  /** Every source of the package's kinds bound again with the new code. */
  readonly rebound: readonly RebindOutcome[];
}

export interface PackageUnloadResult {
  readonly packageId: string;
  readonly kinds: readonly string[];
  readonly orphaned: readonly string[];
}

export interface ProjectScanOptions {
  readonly projectId: string;
  /** The trust for one drop. Default: every drop is `untrusted`. */
  readonly trustFor?: (drop: ProjectDrop) => PackageTrust;
}

export interface ProjectDropFailure {
  /** The folder name under `_packages/`. */
  readonly drop: string;
  readonly error: ConnectorError;
}

export interface ProjectScanResult {
  /** Drops loaded for the first time or re-loaded because they changed. */
  readonly loaded: readonly PackageSwapResult[];
  /** Package ids of drops found unchanged (same manifest, module bytes and trust). */
  readonly unchanged: readonly string[];
  /** Package ids of drops whose folder is gone; their kinds were unregistered. */
  readonly removed: readonly string[];
  /** Drops that could not be loaded; a previously loaded version of one stays loaded. */
  readonly failed: readonly ProjectDropFailure[];
}

interface PreparedKind {
  readonly entry: SourceConnectorEntry;
  readonly factory: ConnectorFactory;
}

interface PreparedPackage {
  readonly folder: PackageFolder;
  readonly trust: PackageTrust;
  readonly projectId?: string;
  readonly kinds: readonly PreparedKind[];
  readonly inits: readonly PackageInit[];
  readonly fingerprint: string;
}

interface PackageRecord {
  readonly info: LoadedPackage;
  readonly fingerprint: string;
  /** `${projectRoot}\0${dropName}` for a `_packages/` drop. */
  readonly dropKey?: string;
}

/** Trust levels whose code may run in the platform process. */
const IN_PROCESS_TRUST: readonly PackageTrust[] = ['first-party', 'trusted'];

const NO_CREDENTIAL_STORE: CredentialResolver = Object.freeze({
  resolveCredential: () => Promise.reject(new UnavailableError('No credential store is configured for this loader.')),
});

export class PackageLoader {
  /** Kind metadata: labels, schemas, capabilities, defaults, factory references. */
  readonly sourceKinds: SourceKindRegistry;
  /** Kind runtimes and source bindings: what the platform resolves instances from. */
  readonly connectors: ConnectorRegistry;
  readonly #options: PackageLoaderOptions;
  readonly #adapters = new PortAdapterRegistry();
  readonly #packages = new Map<string, PackageRecord>();
  /** projectRoot → drop folder name → package id. */
  readonly #drops = new Map<string, Map<string, string>>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: PackageLoaderOptions = {}) {
    this.#options = options;
    this.sourceKinds = new SourceKindRegistry();
    this.connectors = new ConnectorRegistry(this.sourceKinds);
  }

  /**
   * Loads a package folder with the trust its installer gives it. Throws `already_exists` when a
   * package with that id (or another package providing one of its kinds) is loaded,
   * `manifest_invalid` / `trust_violation` for a manifest the trust does not allow,
   * `containment_violation` for a module path leading outside the package, `connector_failed` when
   * a module or init(ctx) throws, and `not_found` for a missing folder.
   */
  loadPackage(folder: string, options: LoadPackageOptions): Promise<LoadedPackage> {
    return this.#exclusive(async () => {
      const prepared = await this.#prepare(folder, options, ({ id }) => {
        if (this.#packages.has(id)) {
          throw new AlreadyExistsError(`Package "${id}" is already loaded; use swapPackage to replace it.`, { details: { packageId: id } });
        }
      });
      return (await this.#commit(prepared, undefined)).package;
    });
  }

  /**
   * The package-swap entry point: loads `folder` in place of the loaded package with the same id
   * (or as a new package). connectors[] entries added since are registered, dropped ones are
   * unregistered, kept ones get the new code and their sources are re-bound. On any failure the
   * previous version stays loaded. Throws as loadPackage.
   */
  swapPackage(folder: string, options: LoadPackageOptions): Promise<PackageSwapResult> {
    return this.#exclusive(async () => {
      const prepared = await this.#prepare(folder, options);
      return this.#commit(prepared, this.#packages.get(prepared.folder.manifest.id));
    });
  }

  /** Unregisters every kind of a package; its sources become orphans. Throws `not_found`. */
  unloadPackage(packageId: string): Promise<PackageUnloadResult> {
    return this.#exclusive(async () => this.#unload(packageId));
  }

  /**
   * Scans `<projectRoot>/_packages/*` and loads every drop (trust `untrusted` unless `trustFor`
   * maps it). On a rescan a changed drop is re-loaded (its changed modules re-imported), an
   * unchanged one is left alone, and a drop whose folder is gone is unloaded. One drop failing
   * does not stop the others; failures are reported, not thrown. Throws `invalid_argument` for a
   * relative project root and `unavailable` when `_packages/` cannot be read.
   */
  scanProjectPackages(projectRoot: string, options: ProjectScanOptions): Promise<ProjectScanResult> {
    return this.#exclusive(async () => {
      if (typeof projectRoot !== 'string' || !isAbsolute(projectRoot)) {
        throw new InvalidArgumentError('A project root for a _packages/ scan must be an absolute path.');
      }
      const root = resolve(projectRoot);
      const drops = await listProjectDrops(root);
      const known = this.#drops.get(root) ?? new Map<string, string>();
      this.#drops.set(root, known);
      const loaded: PackageSwapResult[] = [];
      const unchanged: string[] = [];
      const failed: ProjectDropFailure[] = [];
      for (const drop of drops) {
        try {
          const outcome = await this.#loadDrop(root, drop, known, options);
          if (typeof outcome === 'string') unchanged.push(outcome);
          else loaded.push(outcome);
        } catch (error) {
          failed.push({ drop: drop.name, error: asConnectorError(error) });
        }
      }
      const present = new Set(drops.map((drop) => drop.name));
      const removed: string[] = [];
      for (const [name, packageId] of [...known]) {
        if (present.has(name)) continue;
        known.delete(name);
        if (this.#packages.get(packageId)?.dropKey === dropKey(root, name)) {
          this.#unload(packageId);
          removed.push(packageId);
        }
      }
      return { loaded, unchanged, removed, failed };
    });
  }

  /** Binds a source through the connector registry. Throws as ConnectorRegistry.bindSource. */
  bindSource(request: SourceBindingRequest): Promise<ConnectorPort> {
    return this.connectors.bindSource(request);
  }

  /**
   * Registers an adapter that turns instances of an older port version (for example v1, whose
   * exec took `(command, cwd)`) into v4 ports. Without one such instances are refused with
   * `port_version_unsupported`. Throws `invalid_argument` (see PortAdapterRegistry.register).
   */
  registerPortAdapter(version: number, adapter: PortAdapter): void {
    this.#adapters.register(version, adapter);
  }

  getPackage(packageId: string): LoadedPackage | undefined {
    return this.#packages.get(packageId)?.info;
  }

  /** Loaded packages, sorted by id. */
  listPackages(): LoadedPackage[] {
    return [...this.#packages.values()].map((record) => record.info).sort((a, b) => (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0));
  }

  async #loadDrop(root: string, drop: ProjectDrop, known: Map<string, string>, options: ProjectScanOptions): Promise<PackageSwapResult | string> {
    const trust = options.trustFor === undefined ? 'untrusted' : options.trustFor(drop);
    const key = dropKey(root, drop.name);
    const prepared = await this.#prepare(drop.folder, { trust, projectId: options.projectId }, ({ id }) => {
      const owner = this.#packages.get(id);
      if (owner !== undefined && owner.dropKey !== key) {
        throw new AlreadyExistsError(`Drop "${drop.name}" declares package id "${id}", which another package already uses.`, {
          details: { packageId: id, drop: drop.name },
        });
      }
    });
    const packageId = prepared.folder.manifest.id;
    const current = this.#packages.get(packageId);
    const previousId = known.get(drop.name);
    if (previousId !== undefined && previousId !== packageId && this.#packages.get(previousId)?.dropKey === key) {
      this.#unload(previousId);
    }
    if (current === undefined || current.fingerprint !== prepared.fingerprint) {
      const result = await this.#commit(prepared, current, key);
      known.set(drop.name, packageId);
      return result;
    }
    known.set(drop.name, packageId);
    return packageId;
  }

  /**
   * Reads and validates the folder, lets `admit` refuse the manifest before any of its code is
   * imported, then imports the modules (or, for a lazy load, only locates and digests them) and
   * collects the factories and inits.
   */
  async #prepare(folder: string, options: LoadPackageOptions, admit: (manifest: PackageManifest) => void = () => undefined): Promise<PreparedPackage> {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidArgumentError('loadPackage needs options with the trust its installer assigns.');
    }
    const { trust, projectId } = options;
    const packageFolder = await readPackageFolder(folder, trust, this.#options.checkedSchemas);
    const { manifest, root } = packageFolder;
    admit(manifest);
    /** Each module file once, in the order the manifest names them, with the field that first named it. */
    const located = new Map<string, { readonly where: string; readonly digest: string }>();
    const locate = async (modulePath: string, where: string): Promise<string> => {
      const file = await resolvePackageModule(root, modulePath, where);
      if (!located.has(file)) located.set(file, { where, digest: await digestPackageModule(file, where) });
      return file;
    };
    const initFiles: { readonly file: string; readonly where: string }[] = [];
    if (manifest.main !== undefined) {
      if (!IN_PROCESS_TRUST.includes(trust)) {
        throw new TrustViolationError(`Package "${manifest.id}" is ${trust}; its code (main) cannot run in the platform process.`, {
          details: { packageId: manifest.id, trust },
        });
      }
      initFiles.push({ file: await locate(manifest.main, 'main'), where: 'main' });
    }
    const declared: { readonly entry: SourceConnectorEntry; readonly file: string; readonly reference: FactoryReference; readonly where: string }[] = [];
    for (const [index, entry] of (manifest.connectors ?? []).entries()) {
      if (entry.type !== 'source') continue;
      // Checked before the module is imported: untrusted code never runs in-process.
      checkRuntimeRegistrationTrust(entry, trust);
      const where = `connectors[${index}].connectorFactory`;
      const reference = parseFactoryReference(entry.connectorFactory, where);
      const file = await locate(reference.modulePath, where);
      declared.push({ entry, file, reference, where });
      initFiles.push({ file, where });
    }
    const duplicate = declared.find((kind, index) => declared.findIndex((other) => other.entry.kind === kind.entry.kind) !== index);
    if (duplicate !== undefined) {
      throw new ManifestValidationError([{ path: 'connectors', message: `Kind "${duplicate.entry.kind}" is declared twice.`, expected: 'one connectors[] entry per kind' }]);
    }
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([trust, projectId ?? null, packageFolder.manifestText, [...located].map(([file, { digest }]) => [file, digest])]))
      .digest('hex');
    /** Imports every module once and reads the factories and the inits off them. */
    const importAll = async (): Promise<{ readonly factories: readonly ConnectorFactory[]; readonly inits: readonly PackageInit[] }> => {
      const modules = new Map<string, ImportedModule>();
      for (const [file, { where }] of located) modules.set(file, await importPackageModule(file, where));
      const factories = declared.map(({ file, reference, where }) => factoryExport(modules.get(file)!, reference, where));
      const inits = collectInits(initFiles.map(({ file, where }) => ({ module: modules.get(file)!, where })));
      return { factories, inits };
    };
    const base = { folder: packageFolder, trust, ...(projectId === undefined ? {} : { projectId }), fingerprint };
    if (options.lazy !== true) {
      const { factories, inits } = await importAll();
      return { ...base, kinds: declared.map(({ entry }, index) => ({ entry, factory: factories[index]! })), inits };
    }
    // One import and one run of the inits for the whole package, however many kinds bind at once.
    let ready: Promise<readonly ConnectorFactory[]> | undefined;
    const load = (): Promise<readonly ConnectorFactory[]> =>
      (ready ??= (async () => {
        const { factories, inits } = await importAll();
        await runInits(inits, this.#initContext(manifest, projectId));
        return factories;
      })());
    const kinds = declared.map(({ entry }, index): PreparedKind => ({ entry, factory: async (context) => (await load())[index]!(context) }));
    return { ...base, kinds, inits: [] };
  }

  #initContext(manifest: PackageManifest, projectId: string | undefined): ConnectorInitContext {
    const packageId = manifest.id;
    return createInitContext({
      packageId,
      ...(projectId === undefined ? {} : { projectId }),
      declaredCredentials: manifest.credentials ?? [],
      credentials: this.#options.credentials?.(packageId) ?? NO_CREDENTIAL_STORE,
      packageState: (project) => this.#options.packageState?.(packageId, project) ?? { enabled: true, auto: false },
    });
  }

  async #commit(prepared: PreparedPackage, previous: PackageRecord | undefined, key?: string): Promise<PackageSwapResult> {
    const { manifest, root } = prepared.folder;
    const packageId = manifest.id;
    const runtimes: ConnectorKindRuntime[] = prepared.kinds.map(({ entry, factory }) =>
      createKindRuntime({
        packageId,
        packageRoot: root,
        trust: prepared.trust,
        entry,
        factory,
        adapters: this.#adapters,
        pathPolicy: this.#options.execPathPolicy,
      }),
    );
    this.#assertRegistrable(runtimes);
    await runInits(prepared.inits, this.#initContext(manifest, prepared.projectId));
    // From here to the end of registration nothing awaits, so the checks still hold.
    this.#assertRegistrable(runtimes);
    const kinds = runtimes.map((runtime) => runtime.kind);
    const previousKinds = previous?.info.kinds ?? [];
    const removed = previousKinds.filter((kind) => !kinds.includes(kind));
    const orphaned = removed.flatMap((kind) => {
      this.sourceKinds.unregister(kind);
      return this.connectors.unregister(kind);
    });
    for (const runtime of runtimes) {
      this.sourceKinds.register({ packageId, trust: prepared.trust, entry: runtime.entry });
      this.connectors.registerKind(runtime);
    }
    const info: LoadedPackage = Object.freeze({
      packageId,
      ...(manifest.version === undefined ? {} : { version: manifest.version }),
      root,
      trust: prepared.trust,
      ...(prepared.projectId === undefined ? {} : { projectId: prepared.projectId }),
      kinds: Object.freeze(kinds),
      manifest,
    });
    this.#packages.set(packageId, { info, fingerprint: prepared.fingerprint, ...(key === undefined ? {} : { dropKey: key }) });
    const rebound = (await Promise.all(kinds.map((kind) => this.connectors.rebindKind(kind)))).flat();
    return {
      package: info,
      added: kinds.filter((kind) => !previousKinds.includes(kind)),
      removed,
      kept: kinds.filter((kind) => previousKinds.includes(kind)),
      orphaned: orphaned.sort(),
      rebound,
    };
  }

  #assertRegistrable(runtimes: readonly ConnectorKindRuntime[]): void {
    for (const runtime of runtimes) {
      this.sourceKinds.checkRegistration({ packageId: runtime.packageId, trust: runtime.trust, entry: runtime.entry });
      this.connectors.checkKindRegistration(runtime);
    }
  }

  #unload(packageId: string): PackageUnloadResult {
    const record = this.#packages.get(packageId);
    if (record === undefined) throw new NotFoundError(`No package "${packageId}" is loaded.`, { details: { packageId } });
    const orphaned = record.info.kinds.flatMap((kind) => {
      this.sourceKinds.unregister(kind);
      return this.connectors.unregister(kind);
    });
    this.#packages.delete(packageId);
    return { packageId, kinds: record.info.kinds, orphaned: orphaned.sort() };
  }

  /** Runs `task` after every earlier load/swap/unload/scan has settled. */
  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

function dropKey(projectRoot: string, name: string): string {
  return `${projectRoot}\0${name}`;
}

function asConnectorError(error: unknown): ConnectorError {
  if (isConnectorError(error)) return error;
  return new ConnectorFailedError('Loading the drop failed unexpectedly.', { cause: error });
}
