/**
 * `sources[]` declarations of the loaded packages, and origin attribution.
 *
 * A package's `sources[]` entry declares a concrete host: `seed: "auto"` ones are created when a
 * network is initialised; `seed: "discoverable"` ones are only offered (`NetworkService.
 * discoverable`) and created when a person adds them. The manifest validator has already applied
 * the trust gate (auto needs trusted or first-party, `${appRoot}` first-party).
 *
 * Attribution. A host is attributed to the package that declares a source with its slug and its
 * kind. For a rooted `local` source the resolved root must match as well — the folder the host's
 * root token names under the network's project root (or the app root) must be the folder the
 * declaration's root names — so a person's own mount that merely reuses a declared slug is not
 * attributed to the package. Roots are compared lexically, after parsing: `data/reports` and
 * `data/reports` match, `data` and `data/reports` do not.
 */
import { parseRootToken } from '@inseam/connector-fs';
import type { PackageTrust, PermissionTree, SourceDeclaration } from '@neuralis/package-system/contracts';
import type { HostRecord } from '../store/index.js';
import type { PackageLoader } from '@neuralis/package-system/loader';
import { canonicalSlug } from './owned-slug.js';
import { join } from 'node:path';

/** One `sources[]` entry of a loaded package. */
export interface SourceOffer {
  readonly packageId: string;
  readonly trust: PackageTrust;
  readonly declaration: SourceDeclaration;
}

/** Where root tokens lead, for one network. */
export interface RootBases {
  readonly projectRoot: string;
  readonly appRoot: string;
}

/**
 * Every `sources[]` entry of the packages loaded for `network`, by package id, in manifest order:
 * the deployment's packages, and that network's own `_packages/` drops (never another network's).
 */
export function sourceOffers(loader: PackageLoader, network: string): SourceOffer[] {
  return loader
    .listPackages()
    .filter((loaded) => loaded.projectId === undefined || loaded.projectId === network)
    .flatMap((loaded) => (loaded.manifest.sources ?? []).map((declaration) => ({ packageId: loaded.packageId, trust: loaded.trust, declaration })));
}

/** The URI policy baselines of a host: the `permissions` its declaring package's `sources[]` entry gives it. */
export function packageBaselines(loader: PackageLoader, record: Pick<HostRecord, 'network' | 'origin' | 'slug' | 'kind' | 'ownership' | 'ownerId'>): PermissionTree[] {
  if (record.origin === null) return [];
  // A user's or agent's clone has the baselines of the source it was attached from.
  const canonical = canonicalSlug(record);
  return sourceOffers(loader, record.network)
    .filter(({ packageId, declaration }) => packageId === record.origin && declaration.source === canonical && declaration.kind === record.kind)
    .flatMap(({ declaration }) => (declaration.permissions === undefined ? [] : [declaration.permissions]));
}

/**
 * The host config a declaration seeds: its root, when it has one. A user's or agent's clone of a
 * rooted `local` source (`ownerFolder`: the owner's qualifier, `user.alice`) gets a folder of its
 * own below that root, so one owner's clone never shows another's files.
 */
export function declaredConfig(declaration: SourceDeclaration, ownerFolder?: string): Record<string, unknown> {
  if (declaration.root === undefined) return {};
  return { root: ownerFolder !== undefined && declaration.kind === 'local' ? `${declaration.root.replace(/\/+$/, '')}/${ownerFolder}` : declaration.root };
}

/** The folder a `local` root token names, lexically; null for a root that is not a valid token. */
export function resolveLocalRoot(root: unknown, bases: RootBases): string | null {
  let parsed;
  try {
    parsed = parseRootToken(root);
  } catch {
    return null;
  }
  const base = parsed.token === '${appRoot}' ? bases.appRoot : join(bases.projectRoot, parsed.token);
  return join(base, ...parsed.subPath);
}

/**
 * The package a host is attributed to, or null. With `declaredBy`, only that package's
 * declarations are considered (a person adding a discoverable source); a host that no longer
 * matches the declaration (another slug, kind or root) is not attributed.
 */
export function attributeHost(
  host: { readonly slug: string; readonly kind: string; readonly config: Readonly<Record<string, unknown>> },
  offers: readonly SourceOffer[],
  bases: RootBases,
  declaredBy?: string,
  ownerFolder?: string,
): string | null {
  for (const offer of offers) {
    const { declaration } = offer;
    if (declaredBy !== undefined && offer.packageId !== declaredBy) continue;
    if (declaration.source !== host.slug || declaration.kind !== host.kind) continue;
    if (declaration.kind === 'local' && declaration.root !== undefined) {
      const declared = resolveLocalRoot(declaredConfig(declaration, ownerFolder)['root'], bases);
      if (declared === null || declared !== resolveLocalRoot(host.config['root'], bases)) continue;
    }
    return offer.packageId;
  }
  return null;
}
