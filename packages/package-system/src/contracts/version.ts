/**
 * The ConnectorPort contract version. Bumped on any breaking change. A connector shipped apart
 * from the platform pins the literal it was built against (`portVersion = 4 satisfies
 * ConnectorPortVersion`) instead of importing this constant, so an old binary is never relabelled
 * as current by an upgrade.
 */
export const CONNECTOR_PORT_VERSION = 4 as const;

export type ConnectorPortVersion = typeof CONNECTOR_PORT_VERSION;

/** Port versions the loader accepts. v1 exec signatures need an adapter and are refused. */
export const SUPPORTED_PORT_VERSIONS: readonly number[] = [CONNECTOR_PORT_VERSION];
