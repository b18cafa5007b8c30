/**
 * Builds the object the registry hands out for a binding: a frozen ConnectorPort that forwards to
 * the connector through the members captured at check time, answers capabilities() from the frozen
 * snapshot, and routes `exec` and `detached.start` through the exec guard. Only port members are
 * exposed; anything else on the connector stays private to it.
 */
import type { ConnectorPort, ExecContext, ExecRequest } from '../contracts/index.js';
import { CONNECTOR_PORT_VERSION } from '../contracts/index.js';
import type { CapturedMembers, CheckedConnector } from './capability-check.js';
import { guardExecEntry, type ExecGuardOptions } from './exec-guard.js';

type AnyFunction = (...args: never[]) => unknown;

const FORWARDED = ['list', 'read', 'write', 'walk', 'scanContent', 'stat', 'delete', 'probeConnection', 'isRuntimeActive', 'resolveOsUri'] as const;

/** `guard` names the binding (kind, source) and carries its entry features and path policy. */
export function buildGuardedInstance(target: object, checked: CheckedConnector, guard: ExecGuardOptions): ConnectorPort {
  const { members } = checked;
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
  if (members.detached !== undefined) port['detached'] = guardedFacet(members.detached, guard);
  return Object.freeze(port) as unknown as ConnectorPort;
}

/** A captured exec entry, typed as the port declares it. */
type EntryCall = (request: ExecRequest, context: ExecContext) => Promise<unknown>;

function guardedFacet(facet: NonNullable<CapturedMembers['detached']>, guard: ExecGuardOptions): Record<string, unknown> {
  return Object.freeze({
    start: guardExecEntry('detached.start', forward(facet.start, facet.target) as EntryCall, guard),
    // Not guarded on purpose: a caller who lost the entry feature must still read and stop its runs.
    status: forward(facet.status, facet.target),
    output: forward(facet.output, facet.target),
    kill: forward(facet.kill, facet.target),
    release: forward(facet.release, facet.target),
  });
}

function forward(fn: AnyFunction, target: object): (...args: unknown[]) => unknown {
  return (...args: unknown[]) => Reflect.apply(fn, target, args);
}
