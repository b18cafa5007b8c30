/**
 * The `connectors[]` entry of the fs kind, and the pieces the local kind's entry shares with it.
 * package.json's `neuralis` block repeats this entry verbatim; manifest.test.ts keeps them equal.
 */
import type { ConnectorCapability, SourceConnectorEntry } from '@neuralis/package-system/contracts';
import { SHARED_CONFIG_PROPERTIES } from './config.js';

/** Every capability a folder source has; capabilities() returns exactly this set. */
export const FOLDER_CAPABILITIES = [
  'list',
  'read',
  'write',
  'walk',
  'scanContent',
  'stat',
  'delete',
  'exec',
  'execDetached',
] as const satisfies readonly ConnectorCapability[];

/** The feature a caller needs to open a shell on a folder source. */
export const FOLDER_EXEC_REQUIRES = ['exec.machine'] as const;

export const FS_PACKAGE_ID = '@inseam/connector-fs';

export const FS_CONNECTOR_ENTRY = {
  id: 'fs',
  type: 'source',
  kind: 'fs',
  transport: 'in-process',
  name: 'Folder',
  icon: 'Folder',
  category: 'disk',
  description: 'A folder on this device that an admin names by its absolute path.',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      root: {
        type: 'string',
        pattern: '^/',
        minLength: 1,
        description: 'Absolute path of the folder, e.g. /srv/shared.',
      },
      ...SHARED_CONFIG_PROPERTIES,
    },
    required: ['root'],
  },
  capabilities: FOLDER_CAPABILITIES,
  execRequires: FOLDER_EXEC_REQUIRES,
  defaultPermissions: { default: { read: true, write: false, exec: false } },
  defaultScope: 'project',
  scopeSelectable: true,
  allowedScopes: ['project', 'user', 'agent'],
  connectorFactory: './dist/index.js#createFsConnector',
} as const satisfies SourceConnectorEntry;
