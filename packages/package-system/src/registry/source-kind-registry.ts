/**
 * SourceKindRegistry: the metadata of every registered source kind — what discovery, the admin
 * source-creation form and config validation read. It never holds a running connector; that is
 * ConnectorRegistry's job. The two lifecycles are separate on purpose: when a package is removed
 * its kinds leave this registry, and a source whose config is still on disk is then reported as
 * an orphan (`orphan_source`), which is a different thing from a connector that failed at run time.
 */
import type {
  ConfigSchema,
  ConnectorCapability,
  OwnershipScope,
  PackageTrust,
  PermissionTree,
  SourceConnectorEntry,
} from '../contracts/index.js';
import { AlreadyExistsError, KindNotRegisteredError } from '../contracts/index.js';
import type { ConfigValidator } from '../manifest/index.js';
import { lazyConfigValidator } from '../manifest/config-validator.js';

/** What registering one kind needs: the providing package, the trust its installer gave it, the entry. */
export interface SourceKindRegistration {
  readonly packageId: string;
  readonly trust: PackageTrust;
  readonly entry: SourceConnectorEntry;
}

/** The frozen metadata of one source kind. */
export interface SourceKindMetadata {
  readonly kind: string;
  /** The `connectors[].id` that declared the kind. */
  readonly connectorId: string;
  /** Human label (the entry's `name`). */
  readonly label: string;
  readonly category?: string;
  readonly icon?: string;
  readonly description?: string;
  readonly configSchema: ConfigSchema;
  readonly capabilities: readonly ConnectorCapability[];
  /** Feature ids that open a shell on this kind; empty for kinds without exec. */
  readonly execRequires: readonly string[];
  readonly defaultPermissions?: PermissionTree;
  readonly defaultScope: OwnershipScope;
  readonly scopeSelectable: boolean;
  /** Scopes a source of this kind may be created at; `['project']` when selection is disabled. */
  readonly allowedScopes: readonly OwnershipScope[];
  readonly runtimeGated: boolean;
  /** The `modulePath#exportName` reference of the factory, as declared. */
  readonly factory: string;
  readonly providerPackageId: string;
  readonly providerTrust: PackageTrust;
}

interface KindRecord {
  readonly metadata: SourceKindMetadata;
  readonly validate: ConfigValidator;
}

export class SourceKindRegistry {
  readonly #kinds = new Map<string, KindRecord>();

  /**
   * Throws exactly what `register` would, without changing anything: `already_exists` when another
   * package provides the kind, and whatever lazyConfigValidator throws for a bad schema. Lets a
   * loader check a whole package before registering any of it.
   */
  checkRegistration(registration: SourceKindRegistration): void {
    this.#prepare(registration);
  }

  /**
   * Registers (or, for the same providing package, replaces) a kind's metadata and checks its
   * config schema (compiled at the first config it validates). Throws `already_exists` when a different package already provides the kind.
   */
  register(registration: SourceKindRegistration): SourceKindMetadata {
    const record = this.#prepare(registration);
    this.#kinds.set(record.metadata.kind, record);
    return record.metadata;
  }

  /** Removes a kind's metadata. Returns false when the kind was not registered. */
  unregister(kind: string): boolean {
    return this.#kinds.delete(kind);
  }

  has(kind: string): boolean {
    return this.#kinds.has(kind);
  }

  get(kind: string): SourceKindMetadata | undefined {
    return this.#kinds.get(kind)?.metadata;
  }

  /** Every registered kind's metadata, sorted by kind. */
  list(): SourceKindMetadata[] {
    return [...this.#kinds.values()].map((record) => record.metadata).sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  }

  /** The kinds a package provides, sorted. */
  kindsOf(packageId: string): string[] {
    return this.list()
      .filter((metadata) => metadata.providerPackageId === packageId)
      .map((metadata) => metadata.kind);
  }

  /**
   * Validates a source config against the kind's configSchema and returns the validated config.
   * Throws `kind_not_registered` for an unknown kind and `invalid_config` (naming the field) for a
   * config the schema refuses.
   */
  validateConfig(kind: string, config: unknown): Readonly<Record<string, unknown>> {
    const record = this.#kinds.get(kind);
    if (record === undefined) throw new KindNotRegisteredError(kind);
    return record.validate(config);
  }

  #prepare({ packageId, trust, entry }: SourceKindRegistration): KindRecord {
    const existing = this.#kinds.get(entry.kind);
    if (existing !== undefined && existing.metadata.providerPackageId !== packageId) {
      throw new AlreadyExistsError(
        `Source kind "${entry.kind}" is already provided by package "${existing.metadata.providerPackageId}"; package "${packageId}" cannot register it too.`,
        { details: { kind: entry.kind, providerPackageId: existing.metadata.providerPackageId, packageId } },
      );
    }
    const validate = lazyConfigValidator(entry.configSchema);
    return { metadata: describeKind(packageId, trust, entry), validate };
  }
}

function describeKind(packageId: string, trust: PackageTrust, entry: SourceConnectorEntry): SourceKindMetadata {
  const scopeSelectable = entry.scopeSelectable === true;
  // The manifest rule: with selection disabled a kind's sources are project-owned.
  const defaultScope: OwnershipScope = scopeSelectable ? entry.defaultScope : 'project';
  const allowedScopes: readonly OwnershipScope[] = scopeSelectable ? (entry.allowedScopes ?? [defaultScope]) : ['project'];
  const metadata: SourceKindMetadata = {
    kind: entry.kind,
    connectorId: entry.id,
    label: entry.name,
    ...(entry.category === undefined ? {} : { category: entry.category }),
    ...(entry.icon === undefined ? {} : { icon: entry.icon }),
    ...(entry.description === undefined ? {} : { description: entry.description }),
    configSchema: frozenCopy(entry.configSchema),
    capabilities: Object.freeze([...entry.capabilities]),
    execRequires: Object.freeze([...(entry.execRequires ?? [])]),
    ...(entry.defaultPermissions === undefined ? {} : { defaultPermissions: frozenCopy(entry.defaultPermissions) }),
    defaultScope,
    scopeSelectable,
    allowedScopes: Object.freeze([...allowedScopes]),
    runtimeGated: entry.runtimeGated === true,
    factory: entry.connectorFactory,
    providerPackageId: packageId,
    providerTrust: trust,
  };
  return Object.freeze(metadata);
}

function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
