/**
 * `@inseam/connector-fs`: the built-in folder connector kinds. `fs` is exported here with its
 * manifest entry and factory; `local` (in `@inseam/connector-local`) reuses createFolderConnector.
 */
import type { ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import type { Connector } from '@inseam/connector';
import { createFolderConnector } from './factory.js';
import type { FolderConnector } from './port.js';

export { FS_CONNECTOR_ENTRY, FS_PACKAGE_ID, FOLDER_CAPABILITIES, FOLDER_EXEC_REQUIRES } from './manifest.js';
export {
  SHARED_CONFIG_PROPERTIES,
  DEFAULT_TEXT_CAP_BYTES,
  DEFAULT_INLINE_CAPS,
  DEFAULT_EXEC_TIMEOUT_MS,
  DEFAULT_EXEC_MAX_TIMEOUT_MS,
  DEFAULT_EXEC_OUTPUT_CAP_BYTES,
  DEFAULT_WATCH_MAX_DIRECTORIES,
} from './config.js';
export type { FolderSettings, InlineCaps, ExecSettings } from './config.js';
export { ROOT_TOKEN_PATTERN, parseRootToken } from './root.js';
export type { ParsedRootToken, TokenBases } from './root.js';
export { DEFAULT_ENV_ALLOWLIST } from './exec-env.js';
export { FolderConnector, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, listDetail, pageSize } from './port.js';
export { checkRange } from './read.js';
export type { RequestedRange } from './read.js';
export { FolderHost, describeFolder, DEFAULT_EXCLUDES, HOST_PAGE_SIZE } from './host.js';
export { createFolderConnector } from './factory.js';
export type { FolderConnectorOptions } from './factory.js';
export type { FolderKind } from './folder.js';

/** The `fs` kind's factory (`connectorFactory: "./dist/index.js#createFsConnector"`). */
export function createFsConnector(context: ConnectorFactoryContext): FolderConnector {
  return createFolderConnector(context, { kind: 'fs' });
}

/** The same `fs` source as the skill document's host Connector. */
export function createFsHost(context: ConnectorFactoryContext): Connector {
  return createFsConnector(context).host();
}
