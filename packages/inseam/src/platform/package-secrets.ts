/**
 * Who may store which package credential (`neuralis.credentials[]`), for every surface: the CLI,
 * `/v1/credentials` and the web page call this, never PackageCredentials directly, so the owner
 * rules are one function.
 *
 * - `deployment`: every network falls back to it — a person with `packages.manage`;
 * - `network`: one network's — `hosts.manage` in that network (as adding a host with credentials);
 * - `user`: the calling person's own, in the network — never an agent's token, never another user's;
 * - `agent`: the calling agent's own (its token's agent id), in the network.
 *
 * Values are only ever written: no answer carries one back, only which scopes hold a value.
 */
import { InvalidArgumentError, NotFoundError, PermissionDeniedError, type CredentialDeclaration } from '@neuralis/package-system/contracts';
import type { PackageLoader } from '@neuralis/package-system/loader';
import { agentScope, deploymentScope, packageCredentialId, projectScope, userScope, type CredentialScope, type CredentialStore, type PackageCredentials } from '../credentials/index.js';
import { FEATURES } from './authorization.js';

export const SECRET_SCOPES = ['deployment', 'network', 'user', 'agent'] as const;
export type SecretScope = (typeof SECRET_SCOPES)[number];

/** Who asks: a token's or session's identity, or the local operator of the CLI. */
export interface SecretActor {
  readonly userId: string;
  readonly agentId: string | null;
  readonly features: ReadonlySet<string>;
}

/** One declared credential and the scopes the asker may see that hold a value for it. */
export interface PackageSecretView {
  readonly packageId: string;
  readonly credential: string;
  readonly label: string;
  /** The manifest's words for what the credential is for; absent when it gives none. */
  readonly description?: string;
  readonly fields: readonly { readonly name: string; readonly label: string; readonly secret: boolean }[];
  /** Which of the scopes the asker may manage hold a value (never the value). */
  readonly stored: Partial<Record<SecretScope, boolean>>;
}

/** One credential at one scope; `network` is needed for every scope but the deployment's. */
export interface SecretTarget {
  readonly packageId: string;
  readonly credential: string;
  readonly scope: string;
  readonly network?: string | undefined;
}

export interface PackageSecretsOptions {
  readonly loader: PackageLoader;
  readonly store: CredentialStore;
  readonly packages: PackageCredentials;
}

export class PackageSecrets {
  readonly #o: PackageSecretsOptions;

  constructor(options: PackageSecretsOptions) {
    this.#o = options;
  }

  /**
   * Every loaded package's declared credentials, with what the asker's scopes hold in `network`
   * (without one: the deployment's scope only, and no network's drops).
   */
  async list(actor: SecretActor, network: string | undefined): Promise<PackageSecretView[]> {
    const scopes = SECRET_SCOPES.filter((scope) => mayManage(actor, scope) && (network !== undefined || scope === 'deployment'));
    const held = new Map<SecretScope, Set<string>>();
    for (const scope of scopes) held.set(scope, new Set(await this.#o.store.list(scopeOf(actor, scope, network), 'package/')));
    const views: PackageSecretView[] = [];
    for (const loaded of this.#o.loader.listPackages()) {
      if (loaded.projectId !== undefined && loaded.projectId !== network) continue;
      for (const declaration of loaded.manifest.credentials ?? []) {
        const id = packageCredentialId(loaded.packageId, declaration.id);
        views.push({
          packageId: loaded.packageId,
          credential: declaration.id,
          label: declaration.label,
          ...(declaration.description === undefined ? {} : { description: declaration.description }),
          fields: (declaration.fields ?? [{ name: 'value', label: declaration.label, secret: true }]).map((field) => ({ name: field.name, label: field.label, secret: field.secret !== false })),
          stored: Object.fromEntries(scopes.map((scope) => [scope, held.get(scope)!.has(id)])),
        });
      }
    }
    return views;
  }

  /**
   * Stores `values` for the credential at `scope` in `network`. Throws `permission_denied` when the
   * asker may not write that scope, `not_found` for a package or credential that is not declared,
   * and `invalid_argument` for missing or unknown fields (naming fields, never values).
   */
  async set(actor: SecretActor, target: SecretTarget, values: Readonly<Record<string, string>>): Promise<void> {
    const scope = checkSecretScope(target.scope);
    assertMayManage(actor, scope);
    await this.#o.packages.set(scopeOf(actor, scope, target.network), target.packageId, this.#declaration(target.packageId, target.credential, target.network), values);
  }

  /** Removes the credential at `scope`; false when none was stored there. Throws as set. */
  async remove(actor: SecretActor, target: SecretTarget): Promise<boolean> {
    const scope = checkSecretScope(target.scope);
    assertMayManage(actor, scope);
    this.#declaration(target.packageId, target.credential, target.network);
    return this.#o.packages.remove(scopeOf(actor, scope, target.network), target.packageId, target.credential);
  }

  #declaration(packageId: string, credential: string, network: string | undefined): CredentialDeclaration {
    const loaded = this.#o.loader.getPackage(packageId);
    if (loaded === undefined || (loaded.projectId !== undefined && loaded.projectId !== network)) {
      throw new NotFoundError(`No package "${packageId}" is loaded; \`inseam package ls\` lists them.`, { details: { packageId } });
    }
    const declaration = loaded.manifest.credentials?.find((item) => item.id === credential);
    if (declaration === undefined) {
      throw new NotFoundError(`Package "${packageId}" declares no credential "${credential}" in neuralis.credentials[].`, { details: { packageId, credential } });
    }
    return declaration;
  }
}

function checkSecretScope(scope: string): SecretScope {
  if ((SECRET_SCOPES as readonly string[]).includes(scope)) return scope as SecretScope;
  throw new InvalidArgumentError(`A package credential is stored at one of ${SECRET_SCOPES.map((item) => `"${item}"`).join(', ')}.`, { details: { argument: 'scope' } });
}

function mayManage(actor: SecretActor, scope: SecretScope): boolean {
  switch (scope) {
    case 'deployment':
      return actor.agentId === null && actor.features.has(FEATURES.packagesManage);
    case 'network':
      return actor.features.has(FEATURES.hostsManage);
    case 'user':
      return actor.agentId === null;
    case 'agent':
      return actor.agentId !== null;
  }
}

function assertMayManage(actor: SecretActor, scope: SecretScope): void {
  if (mayManage(actor, scope)) return;
  const why: Record<SecretScope, string> = {
    deployment: "a deployment-wide credential is stored by a person with the packages.manage feature",
    network: "a network's credential is stored with the hosts.manage feature",
    user: "a user's credential is stored by that person, not by an agent's token",
    agent: "an agent's credential is stored with that agent's own token",
  };
  throw new PermissionDeniedError(`This token cannot store a credential at scope "${scope}": ${why[scope]}.`, { details: { scope } });
}

/** The store scope of `scope` for the asker: a user or agent scope is always the asker's own. */
function scopeOf(actor: SecretActor, scope: SecretScope, network: string | undefined): CredentialScope {
  if (scope === 'deployment') return deploymentScope();
  if (network === undefined) throw new InvalidArgumentError(`A credential at scope "${scope}" belongs to a network: name it.`, { details: { argument: 'network' } });
  if (scope === 'network') return projectScope(network);
  return scope === 'user' ? userScope(network, actor.userId) : agentScope(network, actor.agentId ?? '');
}
