/**
 * ConnectorPort for the local kind: the fs kind's implementation (FolderConnector) over a token
 * root. `${appRoot}` needs the platform's application root: the platform passes it to
 * createLocalConnectorFactory when it registers the kind; the plain factory the manifest names
 * reads INSEAM_APP_ROOT instead. Roots under `data` and `_packages` need only the projectRoot the
 * loader puts on the factory context.
 */
import type { ConnectorFactory, ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import { createFolderConnector } from '@inseam/connector-fs';
import type { FolderConnector } from '@inseam/connector-fs';

export interface LocalConnectorOptions {
  /** The platform's absolute application root, for `${appRoot}` roots. */
  readonly appRoot?: string;
}

/** The environment variable the plain factory reads the application root from. */
export const APP_ROOT_ENV = 'INSEAM_APP_ROOT';

export function createLocalPort(context: ConnectorFactoryContext, options: LocalConnectorOptions = {}): FolderConnector {
  const appRoot = options.appRoot ?? process.env[APP_ROOT_ENV];
  return createFolderConnector(context, { kind: 'local', ...(appRoot === undefined || appRoot === '' ? {} : { appRoot }) });
}

/** A factory bound to the platform's application root, for the built-in registration line. */
export function createLocalConnectorFactory(options: LocalConnectorOptions): ConnectorFactory {
  return (context) => createLocalPort(context, options);
}
