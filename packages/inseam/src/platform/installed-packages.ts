/**
 * Connector packages a person installs into a running deployment, beside the built-in ones: added,
 * swapped for a new version and removed without a restart, with the trust the person gives each
 * (never one the manifest states). The store keeps what was installed; the loader holds what runs.
 *
 * `reconcile()` — the deployment's package-swap loop, run every few seconds by `inseam up` — makes
 * the loader match the store and the folders: a package another process installed is loaded, one it
 * removed is unloaded, and one whose package.json changed (a `connectors[]` entry added, changed or
 * dropped) is swapped. A swap keeps the previous version loaded when the new one fails; hosts of a
 * kept kind are bound to the new code at their next call while calls already running finish on the
 * instance they started on; hosts of a dropped kind become orphans (`orphan_source`).
 */
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, join, resolve } from 'node:path';
import {
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  isConnectorError,
  type PackageTrust,
} from '@neuralis/package-system/contracts';
import type { LoadedPackage, PackageLoader } from '@neuralis/package-system/loader';
import type { InstalledPackageRecord, PackageStore } from '../store/index.js';

/** The folder of a network's project root that holds its drops. */
const PACKAGES_FOLDER = '_packages';

/** The trusts a person may give an installed package; `first-party` is the platform's own packages. */
export const INSTALL_TRUSTS = ['trusted', 'untrusted', 'sandboxed'] as const;
export type InstallTrust = (typeof INSTALL_TRUSTS)[number];

/** One package as the surfaces show it. */
export interface PackageView {
  /** For a `_packages/` drop that never loaded: its folder's name (`_packages` when the folder itself could not be read). */
  readonly packageId: string;
  readonly version?: string;
  readonly trust: PackageTrust;
  /** A built-in package of inseam (not installed, not removable). */
  readonly builtin: boolean;
  /** Loaded and serving, or failed to load (its record is kept). */
  readonly state: 'loaded' | 'failed';
  /** The source kinds it provides, as loaded. */
  readonly kinds: readonly string[];
  /** The folder it was installed from; absent for built-ins. */
  readonly folder?: string;
  /** For a network's own `_packages/` drop: that network (its kinds and sources serve it alone). */
  readonly network?: string;
  readonly installedAt?: number;
  readonly installedBy?: string;
  /** Why the last load or swap failed; with `state: 'loaded'` the previous version is still serving. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** What a `_packages/` scan of one network did. */
export interface DropScan {
  readonly network: string;
  /** Package ids loaded for the first time or again because they changed. */
  readonly loaded: readonly string[];
  readonly unchanged: readonly string[];
  /** Package ids whose drop folder is gone: unloaded. */
  readonly removed: readonly string[];
  /** Drops (by folder name) that could not be loaded; an earlier version of one stays loaded. */
  readonly failed: readonly { readonly drop: string; readonly code: string; readonly message: string }[];
}

/** What one reconcile pass changed. */
export interface ReconcileOutcome {
  readonly loaded: readonly string[];
  readonly swapped: readonly string[];
  readonly removed: readonly string[];
  readonly failed: readonly string[];
}

export interface InstalledPackagesOptions {
  readonly loader: PackageLoader;
  readonly store: PackageStore;
  /** Ids of the built-in packages: listed, never removed or swapped. */
  readonly builtins: () => ReadonlySet<string>;
  /** Called with a package folder before it is loaded, so its declared credentials resolve during init. */
  readonly declareCredentials: (folder: string) => void;
  /** A network's project root, which holds its `_packages/` folder. */
  readonly projectRoot: (network: string) => string;
  /** Every network's slug, for the scans at start. */
  readonly networks: () => Promise<readonly string[]>;
}

export class InstalledPackages {
  readonly #o: InstalledPackagesOptions;
  /** package id → the package.json text it was last loaded (or tried) from. */
  readonly #loadedText = new Map<string, string>();
  readonly #failures = new Map<string, { code: string; message: string }>();
  /** network → the drops its last `_packages/` scan could not load (at start or by a rescan). */
  readonly #dropFailures = new Map<string, DropScan['failed']>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: InstalledPackagesOptions) {
    this.#o = options;
  }

  /** Every package: the built-ins, then the installed ones, by id. */
  async list(): Promise<PackageView[]> {
    const builtins = this.#o.builtins();
    const loaded = this.#o.loader.listPackages();
    const views: PackageView[] = loaded.filter((entry) => builtins.has(entry.packageId)).map((entry) => view(entry, undefined, true, undefined));
    for (const record of await this.#o.store.list()) {
      views.push(view(this.#o.loader.getPackage(record.packageId), record, false, this.#failures.get(record.packageId)));
    }
    const drops = loaded.filter((entry) => entry.projectId !== undefined);
    for (const drop of drops) {
      const failed = this.#dropFailures.get(drop.projectId!)?.find((item) => item.drop === basename(drop.root));
      views.push({ ...view(drop, undefined, false, failed === undefined ? undefined : { code: failed.code, message: failed.message }), folder: drop.root, network: drop.projectId! });
    }
    // A drop that never loaded has no package to list, only its folder and why.
    for (const [network, failed] of this.#dropFailures) {
      for (const item of failed) {
        if (drops.some((drop) => drop.projectId === network && basename(drop.root) === item.drop)) continue;
        const folder = item.drop === PACKAGES_FOLDER ? join(this.#o.projectRoot(network), PACKAGES_FOLDER) : join(this.#o.projectRoot(network), PACKAGES_FOLDER, item.drop);
        views.push({ packageId: item.drop, trust: 'untrusted', builtin: false, state: 'failed', kinds: [], folder, network, error: { code: item.code, message: item.message } });
      }
    }
    return views.sort((a, b) => (a.builtin === b.builtin ? (a.packageId < b.packageId ? -1 : 1) : a.builtin ? -1 : 1));
  }

  /**
   * Installs the package in `folder` with `trust` for `by`, loading (and importing) it now: nothing
   * is stored unless it loads. Throws `invalid_argument` for a relative folder or a trust a person
   * cannot give, `already_exists` for an installed id or a kind another package provides, and the
   * loader's errors (`manifest_invalid`, `trust_violation`, `connector_failed`, `not_found`).
   */
  add(folder: string, trust: string, by: string): Promise<PackageView> {
    return this.#exclusive(async () => {
      const real = absoluteFolder(folder);
      const given = installTrust(trust);
      const text = await manifestText(real);
      this.#o.declareCredentials(real);
      const loaded = await this.#o.loader.loadPackage(real, { trust: given });
      const record = await this.#o.store.put({ packageId: loaded.packageId, folder: loaded.root, trust: given, installedAt: Date.now(), installedBy: by });
      this.#loadedText.set(loaded.packageId, text);
      this.#failures.delete(loaded.packageId);
      return view(loaded, record, false, undefined);
    });
  }

  /**
   * Replaces an installed package with the version in `folder` (default: the folder it was
   * installed from, read again), keeping its trust. Throws `not_found` for a package that is not
   * installed, `permission_denied` for a built-in, `invalid_argument` when the folder holds another
   * package, and the loader's errors — after which the previous version is still loaded.
   */
  swap(packageId: string, options: { readonly folder?: string }, by: string): Promise<PackageView> {
    return this.#exclusive(async () => {
      const record = await this.#installed(packageId);
      const folder = options.folder === undefined ? record.folder : absoluteFolder(options.folder);
      const text = await manifestText(folder);
      const id = manifestId(text);
      if (id !== packageId) {
        throw new InvalidArgumentError(`The folder holds package "${id ?? '(no id)'}", not "${packageId}"; install it as a package of its own.`, { details: { packageId } });
      }
      this.#o.declareCredentials(folder);
      const swapped = await this.#swapLoaded(record, folder, text);
      const updated = await this.#o.store.put({ ...record, folder: swapped.root, installedAt: Date.now(), installedBy: by });
      return view(swapped, updated, false, undefined);
    });
  }

  /**
   * Unloads and forgets an installed package. Hosts of its kinds stay stored as orphans, to work
   * again when a package providing the kind is installed. Throws `not_found` and
   * `permission_denied` (a built-in).
   */
  remove(packageId: string): Promise<{ readonly packageId: string; readonly kinds: readonly string[] }> {
    return this.#exclusive(async () => {
      await this.#installed(packageId);
      const kinds = this.#o.loader.getPackage(packageId) === undefined ? [] : (await this.#o.loader.unloadPackage(packageId)).kinds;
      await this.#o.store.delete(packageId);
      this.#loadedText.delete(packageId);
      this.#failures.delete(packageId);
      return { packageId, kinds };
    });
  }

  /**
   * Loads the stored packages at start, lazily (a command imports a package's code only when it
   * binds one of its kinds). A package that fails is listed as failed; the rest load.
   */
  loadInstalled(): Promise<void> {
    return this.#exclusive(async () => {
      for (const record of await this.#o.store.list()) await this.#loadRecord(record, true);
      for (const network of await this.#o.networks()) {
        await this.#scan(network).catch((error: unknown) => this.#dropFailures.set(network, [{ drop: PACKAGES_FOLDER, ...failure(error) }]));
      }
    });
  }

  /**
   * Loads a network's `_packages/` drops, re-loads those that changed and unloads those whose
   * folder is gone. A drop is code anyone who can write the network's folder could put there, so it
   * loads `untrusted`: MCP connectors and `sources[]` of kinds already installed, for that network
   * alone (`projectId` is the network); a source kind needs a person's `package add`. Throws
   * `invalid_uri` for a bad network slug and `unavailable` when `_packages/` cannot be read.
   */
  rescan(network: string): Promise<DropScan> {
    return this.#exclusive(() => this.#scan(network));
  }

  async #scan(network: string): Promise<DropScan> {
    const result = await this.#o.loader.scanProjectPackages(this.#o.projectRoot(network), { projectId: network });
    const failed = result.failed.map(({ drop, error }) => ({ drop, ...failure(error) }));
    if (failed.length === 0) this.#dropFailures.delete(network);
    else this.#dropFailures.set(network, failed);
    return { network, loaded: result.loaded.map((swap) => swap.package.packageId), unchanged: result.unchanged, removed: result.removed, failed };
  }

  /** One pass of the package-swap loop (see the module comment). Failures are kept per package, never thrown. */
  reconcile(): Promise<ReconcileOutcome> {
    return this.#exclusive(async () => {
      const outcome = { loaded: [] as string[], swapped: [] as string[], removed: [] as string[], failed: [] as string[] };
      const records = await this.#o.store.list();
      const stored = new Set(records.map((record) => record.packageId));
      const builtins = this.#o.builtins();
      for (const loaded of this.#o.loader.listPackages()) {
        if (builtins.has(loaded.packageId) || stored.has(loaded.packageId) || !this.#loadedText.has(loaded.packageId)) continue;
        await this.#o.loader.unloadPackage(loaded.packageId);
        this.#loadedText.delete(loaded.packageId);
        outcome.removed.push(loaded.packageId);
      }
      for (const record of records) {
        if (this.#o.loader.getPackage(record.packageId) === undefined) {
          if (await this.#loadRecord(record, false)) outcome.loaded.push(record.packageId);
          else outcome.failed.push(record.packageId);
          continue;
        }
        const text = await manifestText(record.folder).catch(() => undefined);
        if (text === undefined || text === this.#loadedText.get(record.packageId)) continue;
        try {
          this.#o.declareCredentials(record.folder);
          await this.#swapLoaded(record, record.folder, text);
          outcome.swapped.push(record.packageId);
        } catch {
          outcome.failed.push(record.packageId);
        }
      }
      return outcome;
    });
  }

  async #swapLoaded(record: InstalledPackageRecord, folder: string, text: string): Promise<LoadedPackage> {
    try {
      const swapped = (await this.#o.loader.swapPackage(folder, { trust: record.trust })).package;
      this.#loadedText.set(record.packageId, text);
      this.#failures.delete(record.packageId);
      return swapped;
    } catch (error) {
      // Tried once: the loop does not retry the same text, and the list says why it failed.
      this.#loadedText.set(record.packageId, text);
      this.#failures.set(record.packageId, failure(error));
      throw error;
    }
  }

  async #loadRecord(record: InstalledPackageRecord, lazy: boolean): Promise<boolean> {
    try {
      const text = await manifestText(record.folder);
      this.#o.declareCredentials(record.folder);
      await this.#o.loader.loadPackage(record.folder, { trust: record.trust, ...(lazy ? { lazy: true } : {}) });
      this.#loadedText.set(record.packageId, text);
      this.#failures.delete(record.packageId);
      return true;
    } catch (error) {
      this.#failures.set(record.packageId, failure(error));
      return false;
    }
  }

  async #installed(packageId: string): Promise<InstalledPackageRecord> {
    if (this.#o.builtins().has(packageId)) {
      throw new PermissionDeniedError(`Package "${packageId}" is built into inseam; it is updated with inseam itself, not removed or swapped.`, { details: { packageId } });
    }
    const record = await this.#o.store.get(packageId);
    if (record === null) throw new NotFoundError(`No package "${packageId}" is installed; \`inseam package ls\` lists them.`, { details: { packageId } });
    return record;
  }

  /** One change at a time, so a swap and a reconcile pass never interleave. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

function view(loaded: LoadedPackage | undefined, record: InstalledPackageRecord | undefined, builtin: boolean, error: { code: string; message: string } | undefined): PackageView {
  const packageId = loaded?.packageId ?? record?.packageId ?? '';
  return {
    packageId,
    ...(loaded?.version === undefined ? {} : { version: loaded.version }),
    trust: loaded?.trust ?? record?.trust ?? 'untrusted',
    builtin,
    state: loaded === undefined ? 'failed' : 'loaded',
    kinds: loaded?.kinds ?? [],
    ...(record === undefined ? {} : { folder: record.folder, installedAt: record.installedAt, installedBy: record.installedBy }),
    ...(error === undefined ? {} : { error }),
  };
}

/** A typed error's code and message (the loader's never name a path); anything else is a connector failure. */
function failure(error: unknown): { code: string; message: string } {
  if (isConnectorError(error)) return { code: error.code, message: error.message };
  return { code: 'connector_failed', message: 'The package could not be loaded.' };
}

function absoluteFolder(folder: string): string {
  if (typeof folder !== 'string' || folder === '' || folder.includes('\0') || !isAbsolute(folder)) {
    throw new InvalidArgumentError('A package is installed from an absolute folder path.', { details: { argument: 'folder' } });
  }
  return resolve(folder);
}

function installTrust(trust: string): InstallTrust {
  if ((INSTALL_TRUSTS as readonly string[]).includes(trust)) return trust as InstallTrust;
  throw new InvalidArgumentError(
    `A package is installed with the trust the person installing gives it: one of ${INSTALL_TRUSTS.map((t) => `"${t}"`).join(', ')} ("first-party" is inseam's own packages). Trusted packages run in inseam's process and may contribute source kinds; untrusted and sandboxed ones only MCP connectors.`,
    { details: { argument: 'trust' } },
  );
}

async function manifestText(folder: string): Promise<string> {
  try {
    return await readFile(join(folder, 'package.json'), 'utf8');
  } catch (cause) {
    throw new NotFoundError('No package.json was found in the package folder.', { cause, details: { argument: 'folder' } });
  }
}

function manifestId(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as { name?: unknown; neuralis?: { id?: unknown } };
    return typeof json.neuralis?.id === 'string' ? json.neuralis.id : typeof json.name === 'string' ? json.name : undefined;
  } catch {
    return undefined;
  }
}
