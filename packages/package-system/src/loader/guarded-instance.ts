/**
 * Builds the object the registry hands out for a binding: a frozen ConnectorPort that forwards to
 * the connector through the members captured at check time, answers capabilities() from the frozen
 * snapshot, and routes `exec` and `detached.start` through the exec guard. Only port members are
 * exposed; anything else on the connector stays private to it.
 */
import type { ConnectorPort, ExecContext, ExecRequest } from '../contracts/index.js';
import { CONNECTOR_PORT_VERSION } from '../contracts/index.js';
import type { BindingCallContext } from '../registry/index.js';
import type { CapturedMembers, CheckedConnector } from './capability-check.js';
import { guardExecEntry, type ExecGuardOptions } from './exec-guard.js';

type AnyFunction = (...args: never[]) => unknown;

const FORWARDED = ['list', 'read', 'write', 'walk', 'scanContent', 'stat', 'delete', 'probeConnection', 'isRuntimeActive', 'resolveOsUri'] as const;

/**
 * `guard` names the binding (kind, source) and carries its entry features and path policy;
 * `callContext`, when the platform gave one, wraps every forwarded call and each step of an
 * async iterator a call returns (an iterator's steps run when its consumer asks, outside the call).
 */
export function buildGuardedInstance(target: object, checked: CheckedConnector, guard: ExecGuardOptions, callContext?: BindingCallContext): ConnectorPort {
  const { members } = checked;
  const forward = (fn: AnyFunction, self: object): ((...args: unknown[]) => unknown) => forwardIn(fn, self, callContext);
  const port: Record<string, unknown> = {
    kind: guard.kind,
    source: guard.source,
    portVersion: CONNECTOR_PORT_VERSION,
    capabilities: () => checked.capabilities,
  };
  for (const name of FORWARDED) {
    const fn = members[name];
    if (fn !== undefined) port[name] = forward(fn, target);
  }
  if (members.exec !== undefined) port['exec'] = guardExecEntry('exec', forward(members.exec, target) as EntryCall, guard);
  if (members.detached !== undefined) port['detached'] = guardedFacet(members.detached, guard, forward);
  return Object.freeze(port) as unknown as ConnectorPort;
}

/** A captured exec entry, typed as the port declares it. */
type EntryCall = (request: ExecRequest, context: ExecContext) => Promise<unknown>;

type Forward = (fn: AnyFunction, self: object) => (...args: unknown[]) => unknown;

function guardedFacet(facet: NonNullable<CapturedMembers['detached']>, guard: ExecGuardOptions, forward: Forward): Record<string, unknown> {
  return Object.freeze({
    start: guardExecEntry('detached.start', forward(facet.start, facet.target) as EntryCall, guard),
    // Not guarded on purpose: a caller who lost the entry feature must still read and stop its runs.
    status: forward(facet.status, facet.target),
    output: forward(facet.output, facet.target),
    kill: forward(facet.kill, facet.target),
    release: forward(facet.release, facet.target),
  });
}

function forwardIn(fn: AnyFunction, target: object, callContext: BindingCallContext | undefined): (...args: unknown[]) => unknown {
  if (callContext === undefined) return (...args: unknown[]) => Reflect.apply(fn, target, args);
  return (...args: unknown[]) => {
    const result = callContext(() => Reflect.apply(fn, target, args));
    return isAsyncIterable(result) && !isThenable(result) ? iterableIn(result, callContext) : result;
  };
}

function isThenable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/** The iterable as an async iterator too (as a generator object is), each step inside the call context. */
function iterableIn(iterable: AsyncIterable<unknown>, callContext: BindingCallContext): AsyncIterableIterator<unknown> {
  let iterator: AsyncIterator<unknown> | undefined;
  const inner = (): AsyncIterator<unknown> => (iterator ??= callContext(() => iterable[Symbol.asyncIterator]()));
  const stepped: AsyncIterableIterator<unknown> = {
    next: (...args: [] | [unknown]) => callContext(() => inner().next(...args)),
    return: (value?: unknown) => callContext(() => inner().return?.(value) ?? Promise.resolve({ done: true as const, value })),
    throw: (error?: unknown) => callContext(() => inner().throw?.(error) ?? Promise.reject(error)),
    [Symbol.asyncIterator]: () => stepped,
  };
  return stepped;
}
