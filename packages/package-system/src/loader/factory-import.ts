/**
 * Importing a package's code: `connectorFactory` (`modulePath#exportName`) and `main`. A module
 * path is resolved inside the package root through the containment primitive (lexically, then by
 * realpath), so neither `../../outside.js` nor a symlink planted in the package can make the loader
 * import code from outside it — the refusal happens before anything is imported.
 *
 * Every import URL carries a digest of the file's bytes (`?rev=…`): an unchanged file is served
 * from the module cache, a changed one (a rescanned `_packages/` drop, a swapped package) is
 * evaluated afresh. Only the named file is cache-busted; modules it imports itself keep their
 * cached evaluation, so a drop that wants every change picked up ships self-contained modules.
 * Each distinct revision stays in the runtime's module cache for the life of the process.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { ConnectorFactory } from '../contracts/index.js';
import { ConnectorFailedError, ContainmentViolationError, ManifestValidationError, hasErrorCode } from '../contracts/index.js';
import { parseConnectorFactory, type ConnectorFactoryReference } from '../manifest/index.js';
import { resolveContained } from '../paths/index.js';

export type FactoryReference = ConnectorFactoryReference;

/** An imported module: its namespace, its real path and the digest of the bytes that were imported. */
export interface ImportedModule {
  readonly file: string;
  readonly digest: string;
  readonly namespace: Readonly<Record<string, unknown>>;
}

/**
 * Splits `modulePath#exportName` with the manifest's own rules. Throws `manifest_invalid` with the
 * issue at `where` (e.g. `connectors[0].connectorFactory`), so a caller that skipped
 * validateManifest still cannot name a path that leaves the package lexically.
 */
export function parseFactoryReference(reference: string, where: string): FactoryReference {
  try {
    return parseConnectorFactory(reference);
  } catch (error) {
    if (!(error instanceof ManifestValidationError)) throw error;
    throw new ManifestValidationError(
      error.issues.map((issue) => ({ ...issue, path: where })),
      { cause: error },
    );
  }
}

/**
 * The real path of `modulePath` inside `packageRoot`. Throws `containment_violation` (naming the
 * manifest field, never the path) when it leads outside the package lexically or through a
 * symlink, and `manifest_invalid` when it names nothing usable.
 */
export async function resolvePackageModule(packageRoot: string, modulePath: string, where: string): Promise<string> {
  try {
    return await resolveContained(packageRoot, modulePath);
  } catch (cause) {
    if (hasErrorCode(cause, 'containment_violation')) {
      throw new ContainmentViolationError(`${where} points outside the package root; it was not imported.`, {
        cause,
        details: { field: where },
      });
    }
    throw new ManifestValidationError([{ path: where, message: 'The module it names cannot be found inside the package.', expected: 'a compiled JavaScript module that exists in the package' }], {
      cause,
    });
  }
}

/**
 * The digest of the module's bytes, the `?rev=` an import of it carries. Throws `manifest_invalid`
 * naming only `where` when the file cannot be read.
 */
export async function digestPackageModule(file: string, where: string): Promise<string> {
  try {
    return createHash('sha256').update(await readFile(file)).digest('hex').slice(0, 16);
  } catch (cause) {
    throw new ManifestValidationError([{ path: where, message: 'The module it names cannot be read.', expected: 'a readable compiled JavaScript file' }], { cause });
  }
}

/**
 * Imports the module at real path `file`, keyed by the digest of its bytes as read now. Throws as
 * digestPackageModule, and `connector_failed` (cause kept, message naming only `where`) when
 * evaluating it fails.
 */
export async function importPackageModule(file: string, where: string): Promise<ImportedModule> {
  const rev = await digestPackageModule(file, where);
  const url = `${pathToFileURL(file).href}?rev=${rev}`;
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
  } catch (cause) {
    throw new ConnectorFailedError(`The module named by ${where} failed to load (a syntax error or a throw at import time).`, {
      cause,
      details: { field: where },
    });
  }
  return Object.freeze({ file, digest: rev, namespace });
}

/** Reads the factory export of an imported module. Throws `manifest_invalid` when it is not a function. */
export function factoryExport(module: ImportedModule, reference: FactoryReference, where: string): ConnectorFactory {
  const factory = module.namespace[reference.exportName];
  if (typeof factory !== 'function') {
    throw new ManifestValidationError([
      {
        path: where,
        message: `The module exports no function named "${reference.exportName}".`,
        expected: 'the name of an exported factory function (context) => ConnectorPort',
      },
    ]);
  }
  return factory as ConnectorFactory;
}
