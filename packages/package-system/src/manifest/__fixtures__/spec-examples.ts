/**
 * The example manifest fragments of docs/spec package-system-connectors.md, verbatim, and small
 * builders for test manifests. Tests clone before mutating (structuredClone), never edit these.
 */

/** "Registering a source kind": the Notion connector entry. */
export const NOTION_CONNECTOR = {
  id: 'my-notion',
  type: 'source',
  kind: 'notion',
  transport: 'in-process',
  name: 'Notion Workspace',
  category: 'api',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      workspaceId: { type: 'string', minLength: 1 },
      apiKey: { type: 'string', minLength: 1 },
    },
    required: ['workspaceId', 'apiKey'],
  },
  capabilities: ['list', 'read', 'write', 'walk', 'scanContent'],
  defaultPermissions: { default: { read: true, write: true, exec: false } },
  defaultScope: 'project',
  scopeSelectable: true,
  allowedScopes: ['project', 'user', 'agent'],
  connectorFactory: './dist/connectors/NotionConnector.js#createNotionConnector',
} as const;

/** "Offering an in-process MCP connector": the Git entry. */
export const GIT_MCP_CONNECTOR = {
  id: 'git',
  type: 'mcp',
  transport: 'in-process',
  name: 'Git',
  icon: 'GitBranch',
  category: 'mcp',
  requiredScopes: ['project'],
} as const;

/** "Declaring sources": the sources[] example. */
export const SPEC_SOURCES = [
  {
    source: 'data',
    label: 'Project Data',
    kind: 'local',
    root: 'data',
    scope: 'project',
    description: "The project's shared working directory.",
    sync: { trigger: 'auto', exclude: ['_pending/**'], alwaysActive: true },
    permissions: { default: { read: true, write: true, exec: true } },
    seed: 'auto',
  },
  {
    source: 'notion',
    label: 'Notion Workspace',
    kind: 'notion',
    root: 'data',
    scope: 'project',
    description: 'A connected Notion workspace, browsable as files.',
    seed: 'discoverable',
  },
] as const;

/** The spec's exec snippet on a machine kind. */
export const EXEC_CONNECTOR = {
  id: 'machine',
  type: 'source',
  kind: 'machine',
  transport: 'in-process',
  name: 'Machine',
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
  capabilities: ['list', 'read', 'exec'],
  execRequires: ['exec.machine'],
  defaultScope: 'project',
  connectorFactory: './dist/machine.js#createMachineConnector',
} as const;

/** A streamable-http MCP entry: the one connector form any trust level may contribute. */
export const HTTP_MCP_CONNECTOR = {
  id: 'remote-search',
  type: 'mcp',
  transport: 'streamable-http',
  name: 'Remote search',
  url: 'https://mcp.example.com/mcp',
} as const;

/** A loosely typed deep copy, so a test can break one field of an example. */
 
export function copy(value: unknown): any {
  return structuredClone(value);
}
