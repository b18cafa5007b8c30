/**
 * The first gate: the whole `neuralis` block of a package's package.json, checked at load against
 * the trust the installer assigned. Every rule of docs/manifest.md runs and every issue is
 * reported at once, so an author fixes a manifest in one pass.
 */
import { ManifestValidationError } from '../contracts/errors.js';
import type { ConnectorManifestEntry, PackageManifest, PackageTrust, SourceConnectorEntry } from '../contracts/manifest.js';
import type { CheckedSchemaRecord } from './config-schema.js';
import { checkConnectors } from './connectors.js';
import { checkCredentials } from './credentials.js';
import { PACKAGE_ID_RULE, checkSlug, checkText } from './fields.js';
import { IssueCollector, ROOT_PATH, kindOf } from './issues.js';
import { checkJsonValue, cloneJson, deepFreeze, has, isPlainObject, own, type JsonObject } from './json.js';
import { MODULE_PATH_ACCEPTED, modulePathProblem } from './module-reference.js';
import { checkSources } from './sources.js';
import { assertPackageTrust } from './trust.js';

/** The top-level fields this validator owns; any other key belongs to another platform feature. */
export const MANIFEST_KEYS = ['id', 'version', 'main', 'connectors', 'sources', 'credentials'] as const;

export interface ValidateManifestOptions {
  /** Assigned by the installer; the manifest never states its own trust. */
  readonly trust: PackageTrust;
  /** Config schemas already known to pass (see CheckedSchemaRecord); the rest are checked in full and added. */
  readonly checkedSchemas?: CheckedSchemaRecord;
}

/**
 * Validates a package's `neuralis` block at `options.trust` and returns it as a frozen deep copy.
 *
 * The copy holds only the fields above (other top-level keys are ignored, not returned) and is
 * normalised for source connectors: `scopeSelectable` is made explicit (omitted means `false`);
 * when selection is disabled the scope is forced to project (`defaultScope: "project"`,
 * `allowedScopes: ["project"]`); when enabled, an omitted `allowedScopes` becomes `[defaultScope]`.
 *
 * Throws `ManifestValidationError` (`manifest_invalid`) carrying every issue found, each with
 * `path`, `message` and `expected`. Throws `InvalidArgumentError` (`invalid_argument`) when
 * `options.trust` is not a PackageTrust. Never reads the filesystem and never checks that a
 * source's kind is registered (a runtime check).
 */
export function validateManifest(manifest: unknown, options: ValidateManifestOptions): PackageManifest {
  assertPackageTrust(options?.trust);
  const trust = options.trust;
  const issues = new IssueCollector();
  if (!isPlainObject(manifest)) {
    issues.add(ROOT_PATH, `The manifest block must be an object, got ${kindOf(manifest)}.`, 'the "neuralis" object of package.json');
    throw new ManifestValidationError(issues.list());
  }
  for (const key of MANIFEST_KEYS) if (has(manifest, key)) checkJsonValue(own(manifest, key), key, issues);
  if (issues.size > 0) throw new ManifestValidationError(issues.list());

  checkSlug(manifest, 'id', '', issues, PACKAGE_ID_RULE);
  checkText(manifest, 'version', '', issues, { required: false });
  if (has(manifest, 'main')) {
    const main = own(manifest, 'main');
    const problem = typeof main === 'string' ? modulePathProblem(main) : `Expected a string, got ${kindOf(main)}.`;
    if (problem !== undefined) issues.add('main', problem, MODULE_PATH_ACCEPTED);
  }
  if (has(manifest, 'connectors')) checkConnectors(own(manifest, 'connectors'), 'connectors', trust, issues, options.checkedSchemas);
  if (has(manifest, 'sources')) checkSources(own(manifest, 'sources'), 'sources', trust, issues);
  if (has(manifest, 'credentials')) checkCredentials(own(manifest, 'credentials'), 'credentials', issues);
  if (issues.size > 0) throw new ManifestValidationError(issues.list());

  return deepFreeze(normaliseManifest(manifest));
}

function normaliseManifest(manifest: JsonObject): PackageManifest {
  const copy: JsonObject = {};
  for (const key of MANIFEST_KEYS) if (has(manifest, key)) copy[key] = cloneJson(own(manifest, key));
  if (Array.isArray(copy['connectors'])) copy['connectors'] = (copy['connectors'] as ConnectorManifestEntry[]).map(normaliseConnector);
  return copy as unknown as PackageManifest;
}

/** Makes the scope rules explicit so no consumer re-derives them (and none can derive them differently). */
function normaliseConnector(entry: ConnectorManifestEntry): ConnectorManifestEntry {
  if (entry.type !== 'source') return entry;
  const scopeSelectable = entry.scopeSelectable ?? false;
  if (!scopeSelectable) return { ...entry, defaultScope: 'project', scopeSelectable, allowedScopes: ['project'] } satisfies SourceConnectorEntry;
  return { ...entry, scopeSelectable, allowedScopes: entry.allowedScopes ?? [entry.defaultScope] } satisfies SourceConnectorEntry;
}
