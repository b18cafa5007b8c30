/**
 * The `connectors[]` entry of the local kind: a folder named by a project-relative root token
 * (`data`, `_packages`, `${appRoot}`, optionally followed by `/sub/path`). Everything but the root
 * is the fs kind's: same capabilities, settings and behaviour.
 * package.json's `neuralis` block repeats this entry verbatim; manifest.test.ts keeps them equal.
 */
import type { SourceConnectorEntry } from '@neuralis/package-system/contracts';
import { FOLDER_CAPABILITIES, FOLDER_EXEC_REQUIRES, ROOT_TOKEN_PATTERN, SHARED_CONFIG_PROPERTIES } from '@inseam/connector-fs';

export const LOCAL_PACKAGE_ID = '@inseam/connector-local';

export const LOCAL_CONNECTOR_ENTRY = {
  id: 'local',
  type: 'source',
  kind: 'local',
  transport: 'in-process',
  name: 'Project folder',
  icon: 'FolderRoot',
  category: 'disk',
  description: "A folder of the project (data, _packages) or of the platform's application root, named by a root token.",
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      root: {
        type: 'string',
        pattern: ROOT_TOKEN_PATTERN,
        description: 'A root token: data, _packages or ${appRoot}, optionally followed by /sub/folder.',
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
  connectorFactory: './dist/index.js#createLocalConnector',
} as const satisfies SourceConnectorEntry;
