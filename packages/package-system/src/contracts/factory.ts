import type { ConnectorPort } from './port.js';
import type { OwnershipScope } from './session.js';

/**
 * What a connector factory receives: exactly six fields. There is deliberately no credentials map;
 * secrets come through the CredentialResolver injected into the package's `init(ctx)`.
 */
export interface ConnectorFactoryContext {
  readonly packageId: string;
  /** Absolute path of the package folder. */
  readonly packageRoot: string;
  /** The bound source slug (a URI scheme); may be a scoped variant, so never hard-code it. */
  readonly source: string;
  /** The config, already validated against the kind's configSchema. */
  readonly config: Readonly<Record<string, unknown>>;
  /** Absolute project root; required for factories of kinds that declare exec. */
  readonly projectRoot?: string;
  /** The persisted ownership scope of the source. */
  readonly scope: OwnershipScope;
}

export type ConnectorFactory = (context: ConnectorFactoryContext) => ConnectorPort | Promise<ConnectorPort>;
