/**
 * Manifest types: the `neuralis` block of a package's package.json. A manifest never states its
 * own trust; the installer assigns it (see PackageTrust) and the validator gates on it.
 */
import type { ConnectorCapability } from './capabilities.js';
import type { OwnershipScope, PermissionTree } from './session.js';

/** Assigned by whoever installs the package, never read from the manifest. */
export type PackageTrust = 'first-party' | 'trusted' | 'untrusted' | 'sandboxed';

export const PACKAGE_TRUST_LEVELS = ['first-party', 'trusted', 'untrusted', 'sandboxed'] as const satisfies readonly PackageTrust[];

/** A closed draft-07 JSON Schema for a source's config (`additionalProperties: false`). */
export type ConfigSchema = Readonly<Record<string, unknown>>;

export interface SourceConnectorEntry {
  readonly id: string;
  readonly type: 'source';
  readonly kind: string;
  readonly transport: 'in-process';
  readonly name: string;
  readonly icon?: string;
  /** UI grouping, e.g. disk, vector, machine, api, db; never derived by the platform. */
  readonly category?: string;
  readonly description?: string;
  readonly configSchema: ConfigSchema;
  readonly capabilities: readonly ConnectorCapability[];
  /** Non-empty feature ids that open a shell on this kind; required when exec is declared. */
  readonly execRequires?: readonly string[];
  readonly defaultPermissions?: PermissionTree;
  readonly defaultScope: OwnershipScope;
  readonly scopeSelectable?: boolean;
  readonly allowedScopes?: readonly OwnershipScope[];
  readonly runtimeGated?: boolean;
  /** `modulePath#exportName`, relative to the package root. */
  readonly connectorFactory: string;
}

export type McpTransport = 'in-process' | 'stdio' | 'streamable-http';

/** The closed set of MCP connector operating scopes. */
export const MCP_REQUIRED_SCOPES = ['local', 'project', 'user', 'app', 'managed'] as const;
export type McpRequiredScope = (typeof MCP_REQUIRED_SCOPES)[number];

export interface McpConnectorEntry {
  readonly id: string;
  readonly type: 'mcp';
  readonly transport: McpTransport;
  readonly name: string;
  readonly icon?: string;
  readonly category?: string;
  readonly description?: string;
  /** Required for streamable-http. */
  readonly url?: string;
  /** Required for stdio. */
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly requiredScopes?: readonly McpRequiredScope[];
  /** Advisory: which hosted tools this connector nominally surfaces. Gates nothing. */
  readonly defaultToolFilter?: { readonly include?: readonly string[]; readonly exclude?: readonly string[] };
}

export type ConnectorManifestEntry = SourceConnectorEntry | McpConnectorEntry;

export type RootToken = 'data' | '_packages' | '${appRoot}';

/** The allow-list of connector root tokens. Anything else (absolute, `..`, other `${…}`) is refused. */
export const ROOT_TOKENS = ['data', '_packages', '${appRoot}'] as const satisfies readonly RootToken[];

export interface SourceSyncSettings {
  readonly trigger: 'auto' | 'manual';
  /** ISO 8601 duration between interval syncs, e.g. `PT15M`. */
  readonly interval?: string;
  readonly exclude?: readonly string[];
  readonly alwaysActive?: boolean;
}

export interface SourceDeclaration {
  readonly source: string;
  readonly label: string;
  readonly kind: string;
  /** A root token, optionally followed by `/sub/path`; omitted for rootless kinds. */
  readonly root?: string;
  readonly scope: OwnershipScope;
  readonly description: string;
  readonly sync?: SourceSyncSettings;
  readonly permissions?: PermissionTree;
  readonly seed: 'auto' | 'discoverable';
  readonly visibility?: { readonly seeRequires?: readonly string[] };
}

export interface CredentialFieldDeclaration {
  readonly name: string;
  readonly label: string;
  readonly secret: boolean;
}

export interface CredentialDeclaration {
  readonly id: string;
  readonly label: string;
  readonly description?: string;
  /** Fields of the credential; one secret field named `value` when omitted. */
  readonly fields?: readonly CredentialFieldDeclaration[];
}

export interface PackageManifest {
  readonly id: string;
  readonly version?: string;
  /** Module exporting the optional `init(ctx: ConnectorInitContext)`, relative to the package root. */
  readonly main?: string;
  readonly connectors?: readonly ConnectorManifestEntry[];
  readonly sources?: readonly SourceDeclaration[];
  readonly credentials?: readonly CredentialDeclaration[];
}
