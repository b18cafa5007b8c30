/**
 * The capability-guarded dispatcher (OpenDAL style): before a call reaches a connector, check it
 * against the kind's one flat capability set and answer `unsupported` naming the kind, the
 * operation and, when one argument is what is unsupported, that argument. The platform uses it
 * before dispatch; the compliance harness checks undeclared operations through it.
 */
import {
  CAPABILITY_MEMBERS,
  ConnectorCapabilityMismatch,
  UnsupportedOperationError,
} from '../contracts/index.js';
import type { ConnectorCapability, ConnectorPort, DetachedExecFacet } from '../contracts/index.js';

/** Every dispatchable port operation; detached verbs are addressed as `detached.<verb>`. */
export const PORT_OPERATIONS = [
  'list',
  'read',
  'write',
  'walk',
  'scanContent',
  'stat',
  'delete',
  'exec',
  'detached.start',
  'detached.status',
  'detached.output',
  'detached.kill',
  'detached.release',
] as const;

export type PortOperation = (typeof PORT_OPERATIONS)[number];

/** The capability each operation needs. */
export const OPERATION_CAPABILITY: Readonly<Record<PortOperation, ConnectorCapability>> = Object.freeze({
  list: 'list',
  read: 'read',
  write: 'write',
  walk: 'walk',
  scanContent: 'scanContent',
  stat: 'stat',
  delete: 'delete',
  exec: 'exec',
  'detached.start': 'execDetached',
  'detached.status': 'execDetached',
  'detached.output': 'execDetached',
  'detached.kill': 'execDetached',
  'detached.release': 'execDetached',
});

/** The signature of each operation, so `guardedCall` is typed like the member it dispatches to. */
export interface PortOperationSignatures {
  list: ConnectorPort['list'];
  read: ConnectorPort['read'];
  write: NonNullable<ConnectorPort['write']>;
  walk: NonNullable<ConnectorPort['walk']>;
  scanContent: NonNullable<ConnectorPort['scanContent']>;
  stat: NonNullable<ConnectorPort['stat']>;
  delete: NonNullable<ConnectorPort['delete']>;
  exec: NonNullable<ConnectorPort['exec']>;
  'detached.start': DetachedExecFacet['start'];
  'detached.status': DetachedExecFacet['status'];
  'detached.output': DetachedExecFacet['output'];
  'detached.kill': DetachedExecFacet['kill'];
  'detached.release': DetachedExecFacet['release'];
}

/** A capability set as the platform stores it: the manifest's list or the stamped set. */
export type CapabilitySet = ReadonlySet<ConnectorCapability> | readonly ConnectorCapability[];

function hasCapability(capabilities: CapabilitySet, capability: ConnectorCapability): boolean {
  // Any set-like object (the loader hands out a frozen set that is not a Set instance) answers has().
  return Array.isArray(capabilities) ? (capabilities as readonly string[]).includes(capability) : (capabilities as ReadonlySet<string>).has(capability);
}

function isPortOperation(value: string): value is PortOperation {
  return (PORT_OPERATIONS as readonly string[]).includes(value);
}

/**
 * Throws `UnsupportedOperationError(kind, operation[, argument])` (code `unsupported`) unless
 * `capabilities` allows the call. Argument-level rule: `exec` with `background: true` needs
 * `execDetached` and is refused naming the argument `background`. An unknown operation name is
 * refused the same way. Returns normally when the call may be dispatched.
 */
export function assertCapability(
  kind: string,
  capabilities: CapabilitySet,
  operation: PortOperation,
  args: readonly unknown[] = [],
): void {
  if (!isPortOperation(operation) || !hasCapability(capabilities, OPERATION_CAPABILITY[operation])) {
    throw new UnsupportedOperationError(kind, operation);
  }
  if (operation === 'exec' && isBackgroundRequest(args[0]) && !hasCapability(capabilities, 'execDetached')) {
    throw new UnsupportedOperationError(kind, operation, 'background');
  }
}

function isBackgroundRequest(request: unknown): boolean {
  return typeof request === 'object' && request !== null && (request as { background?: unknown }).background === true;
}

const ITERATING_OPERATIONS: ReadonlySet<PortOperation> = new Set(['walk', 'scanContent']);

/** An async iterable that throws `error` on the first step, as a refused walk/scanContent does. */
function failingIterable(error: Error): AsyncIterable<never> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
}

function resolveMember(port: ConnectorPort, operation: PortOperation): ((...args: unknown[]) => unknown) | undefined {
  if (operation.startsWith('detached.')) {
    const facet = port.detached as unknown as Record<string, unknown> | undefined;
    const verb = facet?.[operation.slice('detached.'.length)];
    return typeof verb === 'function' ? (verb.bind(facet) as (...args: unknown[]) => unknown) : undefined;
  }
  const member = (port as unknown as Record<string, unknown>)[operation];
  return typeof member === 'function' ? (member.bind(port) as (...args: unknown[]) => unknown) : undefined;
}

/**
 * Checks the call with `assertCapability`, then dispatches it to the port. The result has the
 * member's own shape, and so does a refusal: promise operations return a rejected promise,
 * `walk`/`scanContent` return an iterable whose first step throws. Nothing of the connector runs
 * for a refused call.
 * Refusals: `unsupported` (not in `capabilities`); `capability_mismatch` when the capability is
 * allowed but the port lacks its member (for execDetached: the `detached` facet or that verb).
 */
export function guardedCall<Op extends PortOperation>(
  port: ConnectorPort,
  capabilities: CapabilitySet,
  operation: Op,
  ...args: Parameters<PortOperationSignatures[Op]>
): ReturnType<PortOperationSignatures[Op]> {
  const refuse = (error: Error): ReturnType<PortOperationSignatures[Op]> =>
    (ITERATING_OPERATIONS.has(operation) ? failingIterable(error) : Promise.reject(error)) as ReturnType<PortOperationSignatures[Op]>;
  try {
    assertCapability(port.kind, capabilities, operation, args);
  } catch (error) {
    return refuse(error as Error);
  }
  const member = resolveMember(port, operation);
  if (member === undefined) {
    const capability = OPERATION_CAPABILITY[operation];
    const memberName = operation.startsWith('detached.') ? operation : CAPABILITY_MEMBERS[capability];
    return refuse(
      new ConnectorCapabilityMismatch(
        `Connector kind "${port.kind}" declares "${capability}" but has no "${memberName}" member.`,
        { details: { kind: port.kind, operation, capability } },
      ),
    );
  }
  return member(...args) as ReturnType<PortOperationSignatures[Op]>;
}
