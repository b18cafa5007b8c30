/**
 * The credentials port. Secrets never travel on the factory context; a package declares them in
 * `neuralis.credentials[]` and reads them at run time through this resolver, which the loader
 * injects into the package's `init(ctx)`. The factory closes over it.
 */
export interface CredentialResolver {
  /**
   * Resolves credential `id` (as declared in `neuralis.credentials[]`) for a project, and within
   * it for a user or an agent when the call names one (a user- or agent-owned source passes its
   * owner): the platform looks from the narrowest scope named to the deployment's.
   *
   * Returns the stored field values (field name → value; a one-secret credential has a single
   * field named `value`), or `null` when the operator has not stored it at any applicable scope.
   * Throws `permission_denied` when the package did not declare `id`, and `unavailable` when the
   * store cannot be read. Never logs or echoes a value.
   */
  resolveCredential(id: string, options: { readonly projectId?: string; readonly userId?: string; readonly agentId?: string }): Promise<Readonly<Record<string, string>> | null>;
}

/** The lifecycle state of a package as the platform sees it, for runtime-gated connectors. */
export interface PackageState {
  readonly enabled: boolean;
  /** Enabled automatically (seeded), as opposed to switched on by a person. */
  readonly auto: boolean;
}

/**
 * What the loader hands a package's optional `init(ctx)` export, once, before any factory call.
 * Version 4 added `projectId` and `packageState()`.
 */
export interface ConnectorInitContext {
  readonly packageId: string;
  readonly credentials: CredentialResolver;
  /** The project the package was loaded for, when it was loaded for one (a `_packages/` drop). */
  readonly projectId?: string;
  /**
   * The package's current state in a project (network), as the platform keeps it; cheap, never
   * starts a runtime. Without `projectId`, the project the package was loaded for, if any. A
   * package loaded for one project cannot ask about another (`permission_denied`).
   */
  packageState(options?: { readonly projectId?: string }): PackageState;
}
