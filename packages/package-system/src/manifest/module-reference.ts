/**
 * Module references inside a package: `main` and `connectorFactory` (`modulePath#exportName`).
 * A module path is checked lexically here; the loader still opens it through the containment
 * primitives, because a lexically clean path can cross a symlink.
 */
import { ManifestValidationError } from '../contracts/errors.js';
import { IssueCollector } from './issues.js';

export interface ConnectorFactoryReference {
  /** Relative to the package root, as written (a leading `./` is kept). */
  readonly modulePath: string;
  /** A named export of that module, or `default`. */
  readonly exportName: string;
}

export const MODULE_PATH_ACCEPTED =
  'a relative module path inside the package, e.g. "./dist/connectors/NotionConnector.js": "/"-separated segments of letters, digits, ".", "_", "-", "@", "+" or "~", ' +
  'no "..", "." or empty segment (except a leading "./"), no absolute path, drive letter or URL, ending in .js, .mjs or .cjs';

export const CONNECTOR_FACTORY_ACCEPTED = `"modulePath#exportName", where modulePath is ${MODULE_PATH_ACCEPTED}, and exportName is a JavaScript identifier`;

const SEGMENT = /^[A-Za-z0-9._@+~-]+$/;
const MODULE_EXTENSION = /\.(?:js|mjs|cjs)$/;
const EXPORT_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Why `modulePath` is refused, or undefined when it is acceptable. */
export function modulePathProblem(modulePath: string): string | undefined {
  if (modulePath === '') return 'The module path is empty.';
  if (modulePath.startsWith('/') || modulePath.startsWith('\\')) return 'The module path is absolute.';
  if (modulePath.includes(':')) return 'The module path contains ":" (a drive letter or a URL scheme).';
  if (modulePath.includes('\\')) return 'The module path uses "\\"; module paths are "/"-separated.';
  const segments = modulePath.split('/');
  const body = segments[0] === '.' ? segments.slice(1) : segments;
  if (body.length === 0) return 'The module path names no file.';
  for (const segment of body) {
    if (segment === '..') return 'The module path contains a ".." segment, which could leave the package.';
    if (segment === '' || segment === '.') return 'The module path contains an empty or "." segment.';
    if (!SEGMENT.test(segment)) return 'The module path contains a character outside the allowed set.';
  }
  if (!MODULE_EXTENSION.test(modulePath)) return 'The module path does not name a JavaScript module.';
  return undefined;
}

function splitFactory(reference: string): ConnectorFactoryReference | string {
  const hash = reference.indexOf('#');
  if (hash < 0) return 'The reference has no "#exportName" part.';
  if (reference.indexOf('#', hash + 1) >= 0) return 'The reference contains more than one "#".';
  const modulePath = reference.slice(0, hash);
  const exportName = reference.slice(hash + 1);
  const pathProblem = modulePathProblem(modulePath);
  if (pathProblem !== undefined) return pathProblem;
  if (!EXPORT_NAME.test(exportName)) return 'The export name is not a JavaScript identifier.';
  return { modulePath, exportName };
}

/** Reports a bad `connectorFactory` value at `path`. */
export function checkConnectorFactory(value: unknown, path: string, issues: IssueCollector): void {
  if (typeof value !== 'string') {
    issues.add(path, 'The connector factory must be a string.', CONNECTOR_FACTORY_ACCEPTED);
    return;
  }
  const result = splitFactory(value);
  if (typeof result === 'string') issues.add(path, result, CONNECTOR_FACTORY_ACCEPTED);
}

/**
 * Splits a `connectorFactory` reference for the loader. Throws `ManifestValidationError`
 * (`manifest_invalid`, issue path `connectorFactory`) when the reference breaks any rule above, so
 * a caller that skipped validateManifest still cannot import outside the package lexically.
 */
export function parseConnectorFactory(reference: string): ConnectorFactoryReference {
  const result = typeof reference === 'string' ? splitFactory(reference) : 'The connector factory must be a string.';
  if (typeof result === 'string') {
    throw new ManifestValidationError([{ path: 'connectorFactory', message: result, expected: CONNECTOR_FACTORY_ACCEPTED }]);
  }
  return result;
}
