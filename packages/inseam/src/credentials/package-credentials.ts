/**
 * Credentials of trusted packages: what they declare in `neuralis.credentials[]` and read at run
 * time through the `CredentialResolver` the loader injects into `init(ctx)`.
 *
 * A package's credential is stored as record `package/{packageId}/{credentialId}`, so two
 * packages that happen to declare the same id never read each other's secret. It is stored at one
 * of four scopes: for the whole deployment (`deploymentScope()`, by the operator), for one network
 * (`projectScope(network)`), for one user in a network (`userScope`, by that user) or for one agent
 * (`agentScope`, by that agent's token). `resolveCredential(id, { projectId, userId, agentId })`
 * looks from the narrowest scope the call names to the widest — the agent's, the user's, the
 * network's, then the deployment's — and without a projectId in the deployment only.
 *
 * A credential without `fields` has one secret field named `value`. Only declared field names
 * are stored and returned.
 */
import type { CredentialDeclaration, CredentialResolver } from '@neuralis/package-system/contracts';
import { InvalidArgumentError, PermissionDeniedError, UnavailableError, isConnectorError } from '@neuralis/package-system/contracts';
import { MAX_FIELD_VALUE_LENGTH } from './fields.js';
import { agentScope, checkName, checkScope, deploymentScope, projectScope, userScope } from './scope.js';
import type { CredentialScope } from './scope.js';
import type { CredentialStore } from './store.js';

export function packageCredentialId(packageId: string, credentialId: string): string {
  return `package/${packageId}/${credentialId}`;
}

function fieldNames(declaration: CredentialDeclaration): string[] {
  return declaration.fields === undefined ? ['value'] : declaration.fields.map((field) => field.name);
}

/** The scopes a resolution looks in, narrowest first. A user or agent is looked up only within a network. */
function lookupScopes(options: { readonly projectId?: string; readonly userId?: string; readonly agentId?: string }): CredentialScope[] {
  const { projectId, userId, agentId } = options;
  if (projectId === undefined) return [deploymentScope()];
  return [
    ...(agentId === undefined ? [] : [agentScope(projectId, agentId)]),
    ...(userId === undefined ? [] : [userScope(projectId, userId)]),
    projectScope(projectId),
    deploymentScope(),
  ];
}

export class PackageCredentials {
  readonly #store: CredentialStore;

  constructor(store: CredentialStore) {
    this.#store = store;
  }

  /**
   * Stores `values` for `declaration` of `packageId` at `scope` (any of the four; who may store at
   * which is the caller's check), replacing what was there. Every declared field is required.
   * Throws `invalid_argument` naming missing or unknown fields (never a value) or a bad scope.
   */
  async set(scope: CredentialScope, packageId: string, declaration: CredentialDeclaration, values: Readonly<Record<string, string>>): Promise<void> {
    const checked = checkScope(scope);
    const names = fieldNames(declaration);
    const problems = names.filter((name) => typeof values[name] !== 'string' || values[name] === '' || (values[name]?.length ?? 0) > MAX_FIELD_VALUE_LENGTH);
    const unknown = Object.keys(values).filter((name) => !names.includes(name));
    if (problems.length > 0 || unknown.length > 0) {
      const parts = [...problems.map((name) => `"${name}" needs a non-empty value of at most ${MAX_FIELD_VALUE_LENGTH} characters`), ...unknown.map((name) => `"${name}" is not a field of this credential`)];
      throw new InvalidArgumentError(`Credential "${declaration.id}" of package "${packageId}" is not valid: ${parts.join('; ')}.`, {
        details: { fields: [...problems, ...unknown] },
      });
    }
    const stored: Record<string, string> = {};
    for (const name of names) stored[name] = values[name] as string;
    await this.#store.put(checked, packageCredentialId(checkName(packageId, 'package id'), checkName(declaration.id, 'credential id')), stored);
  }

  async remove(scope: CredentialScope, packageId: string, credentialId: string): Promise<boolean> {
    return this.#store.delete(scope, packageCredentialId(packageId, credentialId));
  }

  /**
   * The resolver for one package. It refuses (`permission_denied`) any id the package did not
   * declare, resolves `null` when the credential is stored at no applicable scope, and rejects
   * with `unavailable` when the store cannot be read (including a record that fails its
   * integrity check). It never logs or echoes a value.
   */
  resolverFor(packageId: string, declarations: readonly CredentialDeclaration[]): CredentialResolver {
    checkName(packageId, 'package id');
    const declared = new Map(declarations.map((declaration) => [declaration.id, declaration]));
    return Object.freeze({
      resolveCredential: async (id: string, options: { readonly projectId?: string; readonly userId?: string; readonly agentId?: string }) => {
        const declaration = declared.get(id);
        if (declaration === undefined) {
          throw new PermissionDeniedError(`Package "${packageId}" did not declare credential "${id}" in neuralis.credentials[].`, { details: { packageId, credential: id } });
        }
        const scopes = lookupScopes(options ?? {});
        const recordId = packageCredentialId(packageId, id);
        for (const scope of scopes) {
          let stored;
          try {
            stored = await this.#store.get(scope, recordId);
          } catch (error) {
            if (isConnectorError(error) && error.code === 'unavailable') throw error;
            throw new UnavailableError(`The credential store could not be read for credential "${id}" of package "${packageId}".`, { details: { packageId, credential: id } });
          }
          if (stored === null) continue;
          const values: Record<string, string> = {};
          for (const name of fieldNames(declaration)) {
            const value = stored[name];
            if (typeof value === 'string') values[name] = value;
          }
          return Object.freeze(values);
        }
        return null;
      },
    });
  }

  /**
   * Resolvers for the package loader's `credentials` option: `declarationsOf(packageId)` gives
   * the package's `neuralis.credentials[]` (undefined or empty: it declared none, and every id
   * is refused).
   */
  resolvers(declarationsOf: (packageId: string) => readonly CredentialDeclaration[] | undefined): (packageId: string) => CredentialResolver {
    return (packageId) => this.resolverFor(packageId, declarationsOf(packageId) ?? []);
  }
}
