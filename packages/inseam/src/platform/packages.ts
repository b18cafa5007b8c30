/**
 * The built-in connector packages, found as installed npm packages beside the platform and
 * loaded first-party. Their folders are looked up along Node's module search paths rather than
 * through their `exports` maps, which (rightly) export no `package.json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CredentialDeclaration, PackageTrust } from '@neuralis/package-system/contracts';
import { NotFoundError } from '@neuralis/package-system/contracts';

/** The built-in kinds' packages: fs, local, bucket (the pad, S3, R2), imap (mailboxes), vector (semantic search) and machine (SSH). */
export const BUILTIN_PACKAGES = ['@inseam/connector-fs', '@inseam/connector-local', '@inseam/connector-bucket', '@inseam/connector-imap', '@inseam/connector-vector', '@inseam/connector-machine'] as const;

/** A package folder to load, with the trust its installer gives it. */
export interface PackageSpec {
  readonly folder: string;
  readonly trust: PackageTrust;
  /** Import its code at the first binding of one of its kinds, not at start (see LoadPackageOptions.lazy). */
  readonly lazy?: boolean;
}

/**
 * The variable the loader-run `local` factory reads the app root from (APP_ROOT_ENV of
 * @inseam/connector-local, which the platform must not import just to read a name; a test pins
 * that the two agree).
 */
export const APP_ROOT_ENV = 'INSEAM_APP_ROOT';

const require = createRequire(import.meta.url);

/** The folder of an installed package. Throws `not_found` when it is not installed. */
export function installedPackageFolder(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    const folder = join(base, name);
    if (existsSync(join(folder, 'package.json'))) return folder;
  }
  throw new NotFoundError(`The built-in connector package ${name} is not installed; reinstall inseam.`, { details: { package: name } });
}

/**
 * The built-in packages, first-party, loaded lazily: a process imports the code of only the kinds
 * it binds (a CLI command reading an fs host never loads the IMAP or SSH clients).
 */
export function builtinPackages(): PackageSpec[] {
  return BUILTIN_PACKAGES.map((name) => ({ folder: installedPackageFolder(name), trust: 'first-party', lazy: true }));
}

/** The inseam install folder: the `${appRoot}` root token (this file is src/platform/ or dist/platform/). */
export function installRoot(): string {
  return dirname(dirname(dirname(fileURLToPath(import.meta.url))));
}

/**
 * A package's id and `neuralis.credentials[]`, read from its package.json before it is loaded:
 * the loader hands a package its credential resolver during the load, before the package is
 * listed as loaded. Unreadable manifests answer nothing; the loader reports them properly.
 */
export function declaredCredentials(folder: string): { readonly id: string; readonly credentials: readonly CredentialDeclaration[] } | undefined {
  try {
    const json = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: unknown; neuralis?: { id?: unknown; credentials?: unknown } };
    const id = typeof json.neuralis?.id === 'string' ? json.neuralis.id : typeof json.name === 'string' ? json.name : undefined;
    if (id === undefined) return undefined;
    return { id, credentials: Array.isArray(json.neuralis?.credentials) ? (json.neuralis.credentials as CredentialDeclaration[]) : [] };
  } catch {
    return undefined;
  }
}
