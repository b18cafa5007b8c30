/**
 * A package's optional `init(ctx)`: how the loader hands it the CredentialResolver (secrets never
 * travel on the factory context). The `main` module's `init` runs first, then any distinct `init`
 * a factory module exports (one function exported from several modules runs once). All of them
 * run once per load, before the package's kinds are registered — so before any factory call.
 */
import type { ConnectorInitContext, CredentialDeclaration, CredentialResolver, PackageState } from '../contracts/index.js';
import { ConnectorFailedError, ManifestValidationError, PermissionDeniedError, isConnectorError } from '../contracts/index.js';
import type { ImportedModule } from './factory-import.js';

export type PackageInit = (context: ConnectorInitContext) => unknown;

export interface InitModule {
  readonly module: ImportedModule;
  /** The manifest field that named the module, for messages (`main`, `connectors[0].connectorFactory`). */
  readonly where: string;
}

/**
 * The distinct `init` exports of `modules`, in order. Throws `manifest_invalid` when a module
 * exports something called `init` that is not a function.
 */
export function collectInits(modules: readonly InitModule[]): PackageInit[] {
  const inits: PackageInit[] = [];
  for (const { module, where } of modules) {
    const init = module.namespace['init'];
    if (init === undefined) continue;
    if (typeof init !== 'function') {
      throw new ManifestValidationError([{ path: where, message: 'The module exports "init", but it is not a function.', expected: 'an exported function init(ctx)' }]);
    }
    if (!inits.includes(init as PackageInit)) inits.push(init as PackageInit);
  }
  return inits;
}

export interface InitContextInput {
  readonly packageId: string;
  readonly projectId?: string;
  readonly declaredCredentials: readonly CredentialDeclaration[];
  readonly credentials: CredentialResolver;
  readonly packageState: (projectId: string | undefined) => PackageState;
}

/**
 * A frozen ConnectorInitContext. Its resolver refuses (`permission_denied`) credential ids the
 * package did not declare and, for a package loaded for one project, any other project.
 */
export function createInitContext(input: InitContextInput): ConnectorInitContext {
  const declared = new Set(input.declaredCredentials.map((credential) => credential.id));
  const delegate = input.credentials;
  const credentials: CredentialResolver = Object.freeze({
    resolveCredential(id: string, options: { readonly projectId?: string }) {
      if (!declared.has(id)) {
        return Promise.reject(
          new PermissionDeniedError(`Package "${input.packageId}" did not declare credential "${id}" in neuralis.credentials[].`, {
            details: { packageId: input.packageId, credential: id },
          }),
        );
      }
      // A package loaded for one project (a `_packages/` drop) resolves only that project's credentials.
      const requested = options?.projectId;
      if (input.projectId !== undefined && requested !== undefined && requested !== input.projectId) {
        return Promise.reject(
          new PermissionDeniedError(`Package "${input.packageId}" was loaded for another project and cannot resolve credentials of project "${requested}".`, {
            details: { packageId: input.packageId, credential: id },
          }),
        );
      }
      const projectId = requested ?? input.projectId;
      return delegate.resolveCredential(id, projectId === undefined ? {} : { projectId });
    },
  });
  return Object.freeze({
    packageId: input.packageId,
    credentials,
    ...(input.projectId === undefined ? {} : { projectId: input.projectId }),
    packageState: (options?: { readonly projectId?: string }) => {
      const requested = options?.projectId;
      if (input.projectId !== undefined && requested !== undefined && requested !== input.projectId) {
        throw new PermissionDeniedError(`Package "${input.packageId}" was loaded for another project and cannot read its state in project "${requested}".`, {
          details: { packageId: input.packageId },
        });
      }
      return input.packageState(requested ?? input.projectId);
    },
  });
}

/** Runs each init once, in order. Throws `connector_failed` (cause kept) when one throws untyped. */
export async function runInits(inits: readonly PackageInit[], context: ConnectorInitContext): Promise<void> {
  for (const init of inits) {
    try {
      await init(context);
    } catch (cause) {
      if (isConnectorError(cause)) throw cause;
      throw new ConnectorFailedError(`init(ctx) of package "${context.packageId}" failed.`, { cause, details: { packageId: context.packageId } });
    }
  }
}
