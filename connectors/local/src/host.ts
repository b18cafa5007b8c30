/** The local kind as the skill document's host Connector: the fs kind's FolderHost over a token root. */
import type { ConnectorFactoryContext } from '@neuralis/package-system/contracts';
import type { Connector } from '@inseam/connector';
import { createLocalPort } from './port.js';
import type { LocalConnectorOptions } from './port.js';

export function createLocalHost(context: ConnectorFactoryContext, options: LocalConnectorOptions = {}): Connector {
  return createLocalPort(context, options).host();
}
