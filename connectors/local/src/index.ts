/**
 * `@inseam/connector-local`: the built-in `local` kind, a folder named by a project-relative root
 * token. It is the fs kind's implementation with a token root; see `@inseam/connector-fs`.
 */
import type { ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import type { FolderConnector } from '@inseam/connector-fs';
import { createLocalPort } from './port.js';

export { LOCAL_CONNECTOR_ENTRY, LOCAL_PACKAGE_ID } from './manifest.js';
export { createLocalConnectorFactory, createLocalPort, APP_ROOT_ENV } from './port.js';
export type { LocalConnectorOptions } from './port.js';
export { createLocalHost } from './host.js';

/** The local kind's factory (`connectorFactory: "./dist/index.js#createLocalConnector"`); `${appRoot}` from INSEAM_APP_ROOT. */
export function createLocalConnector(context: ConnectorFactoryContext): FolderConnector {
  return createLocalPort(context);
}
