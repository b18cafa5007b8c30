/**
 * Reading a package folder: its real root and the `neuralis` block of its package.json, validated
 * for the trust the CALLER gives it. The manifest never states its own trust; nothing here reads
 * one from it. When the block omits `id` (or `version`), the package.json `name` (or `version`)
 * fills it, so a package need not repeat its name.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PackageManifest, PackageTrust } from '../contracts/index.js';
import { InvalidArgumentError, ManifestValidationError, NotFoundError, PACKAGE_TRUST_LEVELS } from '../contracts/index.js';
import { validateManifest, type CheckedSchemaRecord } from '../manifest/index.js';

export interface PackageFolder {
  /** The real (symlink-free) absolute path of the package folder. */
  readonly root: string;
  readonly manifest: PackageManifest;
  /** The package.json text the manifest came from, for change detection. */
  readonly manifestText: string;
}

/**
 * Throws `invalid_argument` for a trust outside PACKAGE_TRUST_LEVELS, `not_found` when the folder
 * does not exist, and `manifest_invalid` (or `trust_violation`, from the validator) for a missing
 * or malformed package.json, a missing `neuralis` block, or a manifest the trust does not allow.
 * Messages never contain the folder's path. `checkedSchemas` is passed to validateManifest.
 */
export async function readPackageFolder(folder: string, trust: PackageTrust, checkedSchemas?: CheckedSchemaRecord): Promise<PackageFolder> {
  if (!(PACKAGE_TRUST_LEVELS as readonly unknown[]).includes(trust)) {
    throw new InvalidArgumentError(`A package is loaded with a trust chosen by its installer: one of ${PACKAGE_TRUST_LEVELS.map((t) => `"${t}"`).join(', ')}.`);
  }
  if (typeof folder !== 'string' || folder === '' || folder.includes('\0')) {
    throw new InvalidArgumentError('A package folder must be given as a path.');
  }
  let root: string;
  try {
    root = await realpath(resolve(folder));
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
  } catch (cause) {
    throw new NotFoundError('No package folder exists at the given location.', { cause });
  }
  let manifestText: string;
  try {
    manifestText = await readFile(join(root, 'package.json'), 'utf8');
  } catch (cause) {
    throw issue('package.json', 'The package folder has no readable package.json.', 'a package.json with a "neuralis" block', cause);
  }
  let packageJson: unknown;
  try {
    packageJson = JSON.parse(manifestText);
  } catch (cause) {
    throw issue('package.json', 'package.json is not valid JSON.', 'a JSON object', cause);
  }
  if (typeof packageJson !== 'object' || packageJson === null || Array.isArray(packageJson)) {
    throw issue('package.json', 'package.json is not a JSON object.', 'a JSON object');
  }
  const block: unknown = Reflect.get(packageJson, 'neuralis');
  if (typeof block !== 'object' || block === null || Array.isArray(block)) {
    throw issue('neuralis', 'package.json has no "neuralis" manifest block.', 'an object describing the package connectors, sources and credentials');
  }
  const filled: Record<string, unknown> = { ...(block as Record<string, unknown>) };
  const name: unknown = Reflect.get(packageJson, 'name');
  const version: unknown = Reflect.get(packageJson, 'version');
  if (!Object.hasOwn(filled, 'id') && typeof name === 'string') filled['id'] = name;
  if (!Object.hasOwn(filled, 'version') && typeof version === 'string') filled['version'] = version;
  const manifest = validateManifest(filled, checkedSchemas === undefined ? { trust } : { trust, checkedSchemas });
  return Object.freeze({ root, manifest, manifestText });
}

function issue(path: string, message: string, expected: string, cause?: unknown): ManifestValidationError {
  return new ManifestValidationError([{ path, message, expected }], cause === undefined ? {} : { cause });
}
