/**
 * The capability cross-check: an instance's `capabilities()` must equal the manifest's
 * `capabilities[]` exactly, and every capability's port member must be present exactly when the
 * capability is declared — `execDetached` against the `detached` facet included. A capability
 * without its member and a member without its capability are the same error, so an undeclared
 * capability-gated member (say a `write` method on a kind that did not declare `write`) is a
 * mismatch too. Members that gate nothing (probeConnection, isRuntimeActive, resolveOsUri,
 * helpers) are free.
 *
 * `capabilities()` is called once; the answer is frozen and is the only one the platform sees, so
 * a connector whose answer drifts between calls cannot widen itself later. Each member is read
 * once and captured, so swapping a method on the instance after the check changes nothing.
 */
import type { ConnectorCapability } from '../contracts/index.js';
import {
  CAPABILITY_MEMBERS,
  CONNECTOR_CAPABILITIES,
  ConnectorCapabilityMismatch,
  ConnectorFailedError,
  MANDATORY_CAPABILITIES,
  isConnectorCapability,
} from '../contracts/index.js';

type AnyFunction = (...args: never[]) => unknown;

/** The detached facet's verbs, captured from the instance. */
export interface CapturedDetachedFacet {
  readonly target: object;
  readonly start: AnyFunction;
  readonly status: AnyFunction;
  readonly output: AnyFunction;
  readonly kill: AnyFunction;
  readonly release: AnyFunction;
}

/** The instance's port methods as they were at check time (unbound; call with the instance). */
export interface CapturedMembers {
  readonly list: AnyFunction;
  readonly read: AnyFunction;
  readonly write?: AnyFunction;
  readonly walk?: AnyFunction;
  readonly scanContent?: AnyFunction;
  readonly stat?: AnyFunction;
  readonly delete?: AnyFunction;
  readonly exec?: AnyFunction;
  readonly detached?: CapturedDetachedFacet;
  readonly probeConnection?: AnyFunction;
  readonly isRuntimeActive?: AnyFunction;
  readonly resolveOsUri?: AnyFunction;
}

export interface CheckedConnector {
  readonly capabilities: ReadonlySet<ConnectorCapability>;
  readonly members: CapturedMembers;
}

export interface DeclaredCapabilities {
  readonly kind: string;
  readonly capabilities: readonly ConnectorCapability[];
  readonly runtimeGated?: boolean;
}

const DETACHED_VERBS = ['start', 'status', 'output', 'kill', 'release'] as const;
const FREE_MEMBERS = ['probeConnection', 'isRuntimeActive', 'resolveOsUri'] as const;

/**
 * Checks `instance` against its kind's declaration and returns the frozen capability set and the
 * captured members. Throws `capability_mismatch` listing every difference (details: `missing`,
 * `undeclared`, `unknown`, `missingMembers`, `undeclaredMembers`), and `connector_failed` when
 * `capabilities()` itself throws.
 */
export function checkConnectorCapabilities(instance: object, declared: DeclaredCapabilities): CheckedConnector {
  const actual = readCapabilities(instance, declared.kind);
  const declaredSet = new Set(declared.capabilities);
  const problems: string[] = [];

  const unknown = actual.unknown;
  if (unknown.length > 0) problems.push(`capabilities() reports ${unknown.length} value(s) outside the closed capability list`);
  const missing = [...declaredSet].filter((capability) => !actual.known.has(capability));
  if (missing.length > 0) problems.push(`capabilities() lacks declared ${quoteAll(missing)}`);
  const undeclared = [...actual.known].filter((capability) => !declaredSet.has(capability));
  if (undeclared.length > 0) problems.push(`capabilities() claims undeclared ${quoteAll(undeclared)}`);
  const unmet = MANDATORY_CAPABILITIES.filter((capability) => !declaredSet.has(capability));
  if (unmet.length > 0) problems.push(`the mandatory ${quoteAll(unmet)} ${unmet.length > 1 ? 'are' : 'is'} not declared`);

  const members: Record<string, unknown> = {};
  const missingMembers: string[] = [];
  const undeclaredMembers: string[] = [];
  for (const capability of CONNECTOR_CAPABILITIES) {
    const member = CAPABILITY_MEMBERS[capability];
    const value: unknown = Reflect.get(instance, member);
    const present = value !== undefined && value !== null;
    if (declaredSet.has(capability)) {
      const captured = capability === 'execDetached' ? captureFacet(value) : typeof value === 'function' ? value : undefined;
      if (captured === undefined) missingMembers.push(member);
      else members[member] = captured;
    } else if (present) {
      undeclaredMembers.push(member);
    }
  }
  if (missingMembers.length > 0) {
    const hint = missingMembers.includes('detached') ? ' (the detached facet needs start, status, output, kill and release)' : '';
    problems.push(`declared capabilities have no working member: ${quoteAll(missingMembers)}${hint}`);
  }
  if (undeclaredMembers.length > 0) problems.push(`members present without their capability: ${quoteAll(undeclaredMembers)}`);

  for (const member of FREE_MEMBERS) {
    const value: unknown = Reflect.get(instance, member);
    if (typeof value === 'function') members[member] = value;
  }
  if (declared.runtimeGated === true && members['isRuntimeActive'] === undefined) {
    problems.push('the kind is runtimeGated but the instance has no isRuntimeActive()');
  }

  if (problems.length > 0) {
    throw new ConnectorCapabilityMismatch(`Connector kind "${declared.kind}" does not match its manifest: ${problems.join('; ')}.`, {
      details: {
        kind: declared.kind,
        missing,
        undeclared,
        unknown: unknown.length,
        missingMembers,
        undeclaredMembers,
      },
    });
  }
  return {
    capabilities: new FrozenCapabilitySet(CONNECTOR_CAPABILITIES.filter((capability) => actual.known.has(capability))),
    members: Object.freeze(members) as unknown as CapturedMembers,
  };
}

function readCapabilities(instance: object, kind: string): { known: Set<ConnectorCapability>; unknown: unknown[] } {
  const method: unknown = Reflect.get(instance, 'capabilities');
  if (typeof method !== 'function') {
    throw new ConnectorCapabilityMismatch(`Connector kind "${kind}" has no capabilities() method.`, { details: { kind } });
  }
  let answer: unknown;
  try {
    answer = method.call(instance);
  } catch (cause) {
    throw new ConnectorFailedError(`capabilities() of connector kind "${kind}" threw.`, { cause, details: { kind } });
  }
  if (typeof answer !== 'object' || answer === null || typeof (answer as Iterable<unknown>)[Symbol.iterator] !== 'function' || typeof answer === 'string') {
    throw new ConnectorCapabilityMismatch(`capabilities() of connector kind "${kind}" must return a Set of capability names.`, { details: { kind } });
  }
  const known = new Set<ConnectorCapability>();
  const unknown: unknown[] = [];
  for (const value of answer as Iterable<unknown>) {
    if (isConnectorCapability(value)) known.add(value);
    else unknown.push(value);
  }
  return { known, unknown };
}

function captureFacet(value: unknown): CapturedDetachedFacet | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const verbs: Record<string, unknown> = { target: value };
  for (const verb of DETACHED_VERBS) {
    const fn: unknown = Reflect.get(value, verb);
    if (typeof fn !== 'function') return undefined;
    verbs[verb] = fn;
  }
  return Object.freeze(verbs) as unknown as CapturedDetachedFacet;
}

function quoteAll(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
}

/**
 * An immutable ReadonlySet: the snapshot of the one capabilities() answer. It keeps its values in
 * a private Set, so no `Set.prototype.add.call` trick can widen it.
 */
export class FrozenCapabilitySet implements ReadonlySet<ConnectorCapability> {
  readonly #values: Set<ConnectorCapability>;

  constructor(values: Iterable<ConnectorCapability>) {
    this.#values = new Set(values);
    Object.freeze(this);
  }

  get size(): number {
    return this.#values.size;
  }

  has(value: ConnectorCapability): boolean {
    return this.#values.has(value);
  }

  forEach(callback: (value: ConnectorCapability, key: ConnectorCapability, set: ReadonlySet<ConnectorCapability>) => void, thisArg?: unknown): void {
    for (const value of this.#values) callback.call(thisArg, value, value, this);
  }

  entries(): SetIterator<[ConnectorCapability, ConnectorCapability]> {
    return this.#values.entries();
  }

  keys(): SetIterator<ConnectorCapability> {
    return this.#values.keys();
  }

  values(): SetIterator<ConnectorCapability> {
    return this.#values.values();
  }

  [Symbol.iterator](): SetIterator<ConnectorCapability> {
    return this.#values.values();
  }
}
