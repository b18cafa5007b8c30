/**
 * Port version gate. An instance must declare a `portVersion` the loader supports (4), or one for
 * which the platform registered an explicit adapter that turns it into a v4 port.
 *
 * How a v1 exec is detected: by the declared `portVersion` (1) together with an `exec` member or a
 * `detached` facet. The v1 `exec(command, cwd)` and the v4 `exec(request, context)` both take two
 * parameters, so arity cannot tell them apart, and reading a function's source text is guesswork;
 * the loader does not guess. That is why a connector pins its version as a literal: importing the
 * host's constant would relabel an old binary as v4. A v1 instance without exec is still refused,
 * as an unknown version, unless an adapter for 1 is registered.
 */
import type { ConnectorPort } from '../contracts/index.js';
import {
  CONNECTOR_PORT_VERSION,
  ConnectorFailedError,
  InvalidArgumentError,
  SUPPORTED_PORT_VERSIONS,
  UnsupportedPortVersionError,
  isConnectorError,
} from '../contracts/index.js';

export interface PortAdapterContext {
  readonly kind: string;
  readonly source: string;
  /** The version the instance declared. */
  readonly declaredVersion: number;
}

/**
 * Turns an instance built against an older port into a v4 ConnectorPort. The adapter owns the
 * translation (for v1 exec: mapping `(request, context)` onto `(command, cwd)`); the loader then
 * checks and guards the result like any v4 instance, so the entry features and path policy are
 * still enforced before the old code runs.
 */
export type PortAdapter = (instance: object, context: PortAdapterContext) => ConnectorPort;

export class PortAdapterRegistry {
  readonly #adapters = new Map<number, PortAdapter>();

  /**
   * Registers the adapter for one older port version. Throws `invalid_argument` for a version that
   * is not a positive integer, is natively supported, or already has an adapter.
   */
  register(version: number, adapter: PortAdapter): void {
    if (!Number.isInteger(version) || version < 1) {
      throw new InvalidArgumentError('A port adapter is registered for a positive integer port version.');
    }
    if (SUPPORTED_PORT_VERSIONS.includes(version)) {
      throw new InvalidArgumentError(`Port version ${version} is supported natively; it takes no adapter.`, { details: { version } });
    }
    if (typeof adapter !== 'function') throw new InvalidArgumentError('A port adapter must be a function.');
    if (this.#adapters.has(version)) {
      throw new InvalidArgumentError(`An adapter for port version ${version} is already registered.`, { details: { version } });
    }
    this.#adapters.set(version, adapter);
  }

  get(version: number): PortAdapter | undefined {
    return this.#adapters.get(version);
  }
}

/**
 * Returns `instance` itself when it declares a supported version, else the adapter's v4 port.
 * Throws `port_version_unsupported` (a v1 exec without an adapter, an unknown version, or an
 * adapter that did not produce a v4 port) and `connector_failed` when the adapter throws untyped.
 */
export function requireSupportedPort(instance: object, adapters: PortAdapterRegistry, context: Omit<PortAdapterContext, 'declaredVersion'>): object {
  const declared: unknown = Reflect.get(instance, 'portVersion');
  if (typeof declared === 'number' && SUPPORTED_PORT_VERSIONS.includes(declared)) return instance;
  const adapter = typeof declared === 'number' ? adapters.get(declared) : undefined;
  if (adapter === undefined) throw refusal(instance, declared, context.kind);
  let adapted: unknown;
  try {
    adapted = adapter(instance, { ...context, declaredVersion: declared as number });
  } catch (cause) {
    if (isConnectorError(cause)) throw cause;
    throw new ConnectorFailedError(`The port adapter for version ${String(declared)} failed on kind "${context.kind}".`, {
      cause,
      details: { kind: context.kind },
    });
  }
  if (typeof adapted !== 'object' || adapted === null || Reflect.get(adapted, 'portVersion') !== CONNECTOR_PORT_VERSION) {
    throw new UnsupportedPortVersionError(
      `The port adapter for version ${String(declared)} did not produce a version ${CONNECTOR_PORT_VERSION} port for kind "${context.kind}".`,
      { details: { kind: context.kind } },
    );
  }
  return adapted;
}

function refusal(instance: object, declared: unknown, kind: string): UnsupportedPortVersionError {
  const supported = SUPPORTED_PORT_VERSIONS.join(', ');
  if (declared === 1 && (typeof Reflect.get(instance, 'exec') === 'function' || Reflect.get(instance, 'detached') !== undefined)) {
    return new UnsupportedPortVersionError(
      `Connector kind "${kind}" is built against port version 1, whose exec(command, cwd) signature is not accepted without an adapter; rebuild it against version ${CONNECTOR_PORT_VERSION} or register a port adapter for version 1.`,
      { details: { kind, declaredVersion: 1, supported: SUPPORTED_PORT_VERSIONS.map(String) } },
    );
  }
  const valid = typeof declared === 'number' && Number.isFinite(declared);
  const shown = valid ? `port version ${String(declared)}` : 'no valid portVersion';
  return new UnsupportedPortVersionError(
    `Connector kind "${kind}" declares ${shown}; this loader supports ${supported}. Pin "portVersion = ${CONNECTOR_PORT_VERSION}" after rebuilding, or register a port adapter.`,
    { details: { kind, declaredVersion: valid ? (declared) : null, supported: SUPPORTED_PORT_VERSIONS.map(String) } },
  );
}
