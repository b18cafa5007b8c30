/**
 * Binding provenance: the immutable record of who provided an instance and what it was bound to.
 * The loader snapshots it BEFORE awaiting the factory (so nothing that happens during the await —
 * a re-registered kind, a mutated request — can change what the instance is said to be), and
 * stamps it only on an instance that passed every check. Execution callers compare the record
 * with the current provider, source and project authority before they trust an instance.
 */
import { isAbsolute, resolve } from 'node:path';
import type { OwnershipScope, PackageTrust } from '../contracts/index.js';
import { BindingConflictError, InvalidArgumentError } from '../contracts/index.js';

export interface ConnectorBindingProvenance {
  readonly providerPackageId: string;
  readonly providerTrust: PackageTrust;
  readonly kind: string;
  readonly source: string;
  /** Canonical absolute project root, when the binding had one. */
  readonly projectRoot?: string;
  readonly scope: OwnershipScope;
  /** A frozen copy of the kind's execRequires feature ids; empty for kinds without exec. */
  readonly execRequires: readonly string[];
}

export interface ProvenanceInput {
  readonly providerPackageId: string;
  readonly providerTrust: PackageTrust;
  readonly kind: string;
  readonly source: string;
  readonly projectRoot?: string;
  readonly scope: OwnershipScope;
  readonly execRequires: readonly string[];
  /** Whether the kind declares exec or execDetached, which makes projectRoot mandatory. */
  readonly executes: boolean;
}

/** Handed-out (wrapped) instances → their record. */
const stamped = new WeakMap<object, ConnectorBindingProvenance>();
/** Objects factories returned → the binding they were accepted for. */
const claimed = new WeakMap<object, ConnectorBindingProvenance>();

/**
 * A frozen provenance record. Throws `invalid_argument` when a project root is given but not
 * absolute, or missing for a kind that executes commands (the message never echoes the path).
 */
export function snapshotBindingProvenance(input: ProvenanceInput): ConnectorBindingProvenance {
  const { projectRoot } = input;
  if (projectRoot === undefined) {
    if (input.executes) {
      throw new InvalidArgumentError(
        `Kind "${input.kind}" runs commands (exec), so source "${input.source}" needs an absolute projectRoot; none was given.`,
        { details: { kind: input.kind, source: input.source } },
      );
    }
  } else if (!isAbsolute(projectRoot) || projectRoot.includes('\0')) {
    throw new InvalidArgumentError(`The projectRoot of source "${input.source}" must be an absolute path.`, {
      details: { kind: input.kind, source: input.source },
    });
  }
  return Object.freeze({
    providerPackageId: input.providerPackageId,
    providerTrust: input.providerTrust,
    kind: input.kind,
    source: input.source,
    ...(projectRoot === undefined ? {} : { projectRoot: resolve(projectRoot) }),
    scope: input.scope,
    execRequires: Object.freeze([...input.execRequires]),
  });
}

/**
 * Refuses an object a factory returned when it already belongs to a different binding — either a
 * previous factory result or an instance the loader handed out. Throws `binding_conflict`. The
 * same binding again (same provider, kind, source, root, scope and entry ids) is not a conflict.
 */
export function assertUnclaimed(candidate: object, provenance: ConnectorBindingProvenance): void {
  const owner = claimed.get(candidate) ?? stamped.get(candidate);
  if (owner !== undefined && !sameBinding(owner, provenance)) {
    throw new BindingConflictError(
      `The factory of kind "${provenance.kind}" returned an instance already bound to source "${owner.source}"; one instance cannot serve source "${provenance.source}" too.`,
      { details: { kind: provenance.kind, source: provenance.source, boundSource: owner.source } },
    );
  }
}

/** Records a successfully checked binding: the factory's object and the wrapped instance handed out. */
export function stampInstance(factoryResult: object, instance: object, provenance: ConnectorBindingProvenance): void {
  claimed.set(factoryResult, provenance);
  stamped.set(instance, provenance);
}

/**
 * The provenance of an instance the loader handed out, or undefined for anything else (an object
 * that never passed the loader's checks must not be trusted for execution).
 */
export function getConnectorBindingProvenance(instance: unknown): ConnectorBindingProvenance | undefined {
  return typeof instance === 'object' && instance !== null ? stamped.get(instance) : undefined;
}

export function sameBinding(a: ConnectorBindingProvenance, b: ConnectorBindingProvenance): boolean {
  return (
    a.providerPackageId === b.providerPackageId &&
    a.providerTrust === b.providerTrust &&
    a.kind === b.kind &&
    a.source === b.source &&
    a.projectRoot === b.projectRoot &&
    a.scope === b.scope &&
    a.execRequires.length === b.execRequires.length &&
    a.execRequires.every((id, index) => b.execRequires[index] === id)
  );
}
