/**
 * The closed capability list. `list` and `read` are mandatory; every other capability gates one
 * optional member of `ConnectorPort`, named in `CAPABILITY_MEMBERS`. A port's `capabilities()` must
 * equal its manifest's `capabilities[]` exactly (the loader checks both directions).
 */

export const CONNECTOR_CAPABILITIES = [
  'list',
  'read',
  'write',
  'walk',
  'scanContent',
  'stat',
  'delete',
  'exec',
  'execDetached',
] as const;

export type ConnectorCapability = (typeof CONNECTOR_CAPABILITIES)[number];

export const MANDATORY_CAPABILITIES = ['list', 'read'] as const satisfies readonly ConnectorCapability[];

/** The port member each capability gates; `execDetached` gates the `detached` facet. */
export const CAPABILITY_MEMBERS = {
  list: 'list',
  read: 'read',
  write: 'write',
  walk: 'walk',
  scanContent: 'scanContent',
  stat: 'stat',
  delete: 'delete',
  exec: 'exec',
  execDetached: 'detached',
} as const satisfies Record<ConnectorCapability, string>;

export function isConnectorCapability(value: unknown): value is ConnectorCapability {
  return typeof value === 'string' && (CONNECTOR_CAPABILITIES as readonly string[]).includes(value);
}
