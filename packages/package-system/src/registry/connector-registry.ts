/**
 * ConnectorRegistry: the runtime side — one entry per registered kind (who provides it and how to
 * build an instance) plus one binding per source (the checked, stamped instance the platform
 * routes calls to). Metadata lives in SourceKindRegistry; this registry only reads it, to tell an
 * orphan source (metadata gone) from a runtime failure.
 *
 * Rebinding a source is "latest wins": every bind takes a ticket, and a factory result that
 * arrives after the source was re-bound, unbound, or its kind re-registered or unregistered is
 * discarded with `binding_conflict` instead of overwriting the newer state.
 */
import type { ConnectorPort, OwnershipScope, PackageTrust, SourceConnectorEntry } from '../contracts/index.js';
import {
  AlreadyExistsError,
  BindingConflictError,
  ConnectorFailedError,
  InvalidArgumentError,
  KindNotRegisteredError,
  NotFoundError,
  OrphanSourceError,
  OWNERSHIP_SCOPES,
  UnavailableError,
  isConnectorError,
  type ConnectorError,
} from '../contracts/index.js';
import { checkRuntimeRegistrationTrust } from '../manifest/index.js';
import type { SourceKindRegistry } from './source-kind-registry.js';

/** One source to bind: its slug, its kind, its stored config and ownership, and the project root. */
export interface SourceBindingRequest {
  readonly source: string;
  readonly kind: string;
  /** The config as stored; validated against the kind's configSchema before the factory runs. */
  readonly config: unknown;
  readonly scope: OwnershipScope;
  /** Absolute project root; required for kinds that declare exec or execDetached. */
  readonly projectRoot?: string;
  /**
   * The platform's call context for this binding: the factory and every member call of the
   * handed-out instance (and each step of an iterator it returns) run inside it. A platform uses
   * it to name the source's owner to its credential resolver (an AsyncLocalStorage), since the
   * resolver a package's `init(ctx)` received is shared by all its bindings. Default: none.
   */
  readonly callContext?: BindingCallContext;
}

/** Runs `call` inside the platform's context for one binding and returns what it returns. */
export type BindingCallContext = <T>(call: () => T) => T;

/** A binding request whose config has passed the kind's configSchema. */
export interface ValidatedBindingRequest extends SourceBindingRequest {
  readonly config: Readonly<Record<string, unknown>>;
}

/**
 * How a kind is built at run time; the loader supplies it. `instantiate` returns a checked,
 * wrapped, frozen and stamped instance, or throws a ConnectorError.
 */
export interface ConnectorKindRuntime {
  readonly kind: string;
  readonly packageId: string;
  readonly trust: PackageTrust;
  readonly entry: SourceConnectorEntry;
  instantiate(request: ValidatedBindingRequest): Promise<ConnectorPort>;
}

/** What `resolve(kind)` answers: the runtime entry of a kind, without the means to build one. */
export interface RegisteredConnectorKind {
  readonly kind: string;
  readonly packageId: string;
  readonly trust: PackageTrust;
  readonly entry: SourceConnectorEntry;
}

export type SourceBindingState = 'binding' | 'bound' | 'failed' | 'detached';

export interface SourceBindingInfo {
  readonly source: string;
  readonly kind: string;
  /** `detached`: the kind's runtime was unregistered after the source was bound. */
  readonly state: SourceBindingState;
  readonly error?: ConnectorError;
}

/** The result of re-binding one source (after a package swap or rescan). */
export type RebindOutcome =
  | { readonly source: string; readonly ok: true }
  | { readonly source: string; readonly ok: false; readonly error: ConnectorError };

type Outcome =
  | { readonly state: 'binding' }
  | { readonly state: 'bound'; readonly instance: ConnectorPort }
  | { readonly state: 'failed'; readonly error: ConnectorError }
  | { readonly state: 'detached' };

interface SourceRecord {
  readonly request: SourceBindingRequest;
  readonly ticket: number;
  outcome: Outcome;
}

interface KindRecord {
  readonly runtime: ConnectorKindRuntime;
  readonly generation: number;
}

const SOURCE_SLUG = /^[a-z][a-z0-9+.-]*$/;

export class ConnectorRegistry {
  readonly #sourceKinds: SourceKindRegistry;
  readonly #kinds = new Map<string, KindRecord>();
  readonly #sources = new Map<string, SourceRecord>();
  #counter = 0;

  /** `sourceKinds` is read (never written) to validate configs and to recognise orphans. */
  constructor(sourceKinds: SourceKindRegistry) {
    this.#sourceKinds = sourceKinds;
  }

  /**
   * Throws exactly what `registerKind` would, without changing anything: `trust_violation` when
   * the package's trust may not contribute this connector (checked again here, at runtime
   * registration, even though manifest validation already refused it), `invalid_argument` when the
   * runtime's kind and entry disagree, `already_exists` when another package provides the kind.
   */
  checkKindRegistration(runtime: ConnectorKindRuntime): void {
    checkRuntimeRegistrationTrust(runtime.entry, runtime.trust);
    if (runtime.entry.type !== 'source' || runtime.entry.kind !== runtime.kind) {
      throw new InvalidArgumentError(`The runtime for kind "${runtime.kind}" carries the entry of another connector.`, {
        details: { kind: runtime.kind },
      });
    }
    const existing = this.#kinds.get(runtime.kind);
    if (existing !== undefined && existing.runtime.packageId !== runtime.packageId) {
      throw new AlreadyExistsError(
        `Connector kind "${runtime.kind}" is already provided by package "${existing.runtime.packageId}"; package "${runtime.packageId}" cannot register it too.`,
        { details: { kind: runtime.kind, providerPackageId: existing.runtime.packageId, packageId: runtime.packageId } },
      );
    }
  }

  /**
   * Registers a kind's runtime, or replaces it when the same package registers it again (a swap or
   * rescan). Existing bindings keep their instances until re-bound (see rebindKind); binds still in
   * flight against the old runtime are discarded when they finish. Throws as checkKindRegistration.
   */
  registerKind(runtime: ConnectorKindRuntime): void {
    this.checkKindRegistration(runtime);
    this.#kinds.set(runtime.kind, { runtime, generation: this.#next() });
  }

  /**
   * Removes a kind's runtime and clears every source binding that uses it (their records stay, as
   * `detached`, so resolveBySource can say why). Binds in flight for the kind are discarded.
   * Returns the sources that were cleared, sorted.
   */
  unregister(kind: string): string[] {
    this.#kinds.delete(kind);
    const cleared: string[] = [];
    for (const [source, record] of this.#sources) {
      if (record.request.kind !== kind) continue;
      this.#sources.set(source, { request: record.request, ticket: this.#next(), outcome: { state: 'detached' } });
      cleared.push(source);
    }
    return cleared.sort();
  }

  hasKind(kind: string): boolean {
    return this.#kinds.has(kind);
  }

  /** Registered kinds, sorted. */
  kinds(): string[] {
    return [...this.#kinds.keys()].sort();
  }

  /**
   * The runtime a kind was registered with, to register the same kind in another registry: source
   * slugs are unique only within one project, so a platform serving several projects (inseam's
   * networks) keeps one registry per project over one loader. Throws `kind_not_registered`.
   */
  runtimeOf(kind: string): ConnectorKindRuntime {
    const record = this.#kinds.get(kind);
    if (record === undefined) throw new KindNotRegisteredError(kind);
    return record.runtime;
  }

  /** The runtime entry of a kind. Throws `kind_not_registered`. */
  resolve(kind: string): RegisteredConnectorKind {
    const record = this.#kinds.get(kind);
    if (record === undefined) throw new KindNotRegisteredError(kind);
    const { runtime } = record;
    return Object.freeze({ kind: runtime.kind, packageId: runtime.packageId, trust: runtime.trust, entry: runtime.entry });
  }

  /**
   * Binds (or re-binds) a source and returns the instance the platform should use. While a re-bind
   * runs, the previous instance keeps serving; the new one replaces it only if this bind is still
   * the latest for the source when its factory returns.
   *
   * Throws `invalid_argument` (malformed request, or a scope the kind does not allow),
   * `orphan_source` (the kind's metadata is gone), `kind_not_registered` (metadata present, no
   * runtime), `invalid_config` (naming the field), `binding_conflict` (superseded while binding,
   * or the instance belongs to another binding), and whatever the kind's instantiate throws
   * (`connector_failed` with the cause kept, `capability_mismatch`, `port_version_unsupported`, …).
   * A failure is recorded, so resolveBySource reports it until the source is bound again.
   */
  async bindSource(request: SourceBindingRequest): Promise<ConnectorPort> {
    const snapshot = snapshotRequest(request);
    const ticket = this.#next();
    const previous = this.#sources.get(snapshot.source);
    const keep = previous?.outcome.state === 'bound' ? previous.outcome : undefined;
    this.#sources.set(snapshot.source, { request: snapshot, ticket, outcome: keep ?? { state: 'binding' } });
    try {
      const kindRecord = this.#kindFor(snapshot);
      const config = this.#sourceKinds.validateConfig(snapshot.kind, snapshot.config);
      const instance = await kindRecord.runtime.instantiate({ ...snapshot, config });
      this.#assertStillLatest(snapshot.source, ticket);
      if (this.#kinds.get(snapshot.kind)?.generation !== kindRecord.generation) {
        throw new BindingConflictError(
          `Kind "${snapshot.kind}" was re-registered or removed while source "${snapshot.source}" was binding; bind it again.`,
          { details: { source: snapshot.source, kind: snapshot.kind } },
        );
      }
      this.#setOutcome(snapshot.source, ticket, { state: 'bound', instance });
      return instance;
    } catch (error) {
      const typed = asConnectorError(error, snapshot);
      this.#setOutcome(snapshot.source, ticket, { state: 'failed', error: typed });
      throw typed;
    }
  }

  /** Forgets a source (it was deleted). A bind still in flight for it is discarded. Returns false if unknown. */
  unbindSource(source: string): boolean {
    return this.#sources.delete(source);
  }

  /**
   * The bound instance for a source. Throws the reason it has none: `not_found` (never bound),
   * `unavailable` (its first bind is still running), the recorded error of a failed bind (for
   * example `connector_failed`, cause kept), `orphan_source` (its kind's metadata is gone) or
   * `kind_not_registered` (metadata present but the runtime was unregistered).
   */
  resolveBySource(source: string): ConnectorPort {
    const record = this.#sources.get(source);
    if (record === undefined) {
      throw new NotFoundError(`No source "${source}" is bound.`, { details: { source } });
    }
    const { outcome, request } = record;
    switch (outcome.state) {
      case 'bound':
        return outcome.instance;
      case 'binding':
        throw new UnavailableError(`Source "${source}" is still being bound; try again shortly.`, { details: { source } });
      case 'failed':
        throw outcome.error;
      case 'detached':
        if (!this.#sourceKinds.has(request.kind)) throw new OrphanSourceError(source, request.kind);
        throw new KindNotRegisteredError(request.kind, { details: { source } });
    }
  }

  /** Every known source binding, sorted by source; optionally only those of one kind. */
  bindings(kind?: string): SourceBindingInfo[] {
    const result: SourceBindingInfo[] = [];
    for (const [source, { request, outcome }] of this.#sources) {
      if (kind !== undefined && request.kind !== kind) continue;
      result.push({ source, kind: request.kind, state: outcome.state, ...(outcome.state === 'failed' ? { error: outcome.error } : {}) });
    }
    return result.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  }

  /**
   * Binds again every source recorded for `kind` (bound, failed or detached), with the request it
   * was last bound with — after a package swap or rescan replaced the kind's code.
   */
  async rebindKind(kind: string): Promise<RebindOutcome[]> {
    const requests = [...this.#sources.values()].filter((record) => record.request.kind === kind).map((record) => record.request);
    const settled = await Promise.allSettled(requests.map((request) => this.bindSource(request)));
    return settled
      .map((result, index): RebindOutcome => {
        const source = requests[index]!.source;
        return result.status === 'fulfilled' ? { source, ok: true } : { source, ok: false, error: asConnectorError(result.reason, requests[index]!) };
      })
      .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  }

  #kindFor(request: SourceBindingRequest): KindRecord {
    const metadata = this.#sourceKinds.get(request.kind);
    if (metadata === undefined) throw new OrphanSourceError(request.source, request.kind);
    const record = this.#kinds.get(request.kind);
    if (record === undefined) throw new KindNotRegisteredError(request.kind, { details: { source: request.source } });
    if (!metadata.allowedScopes.includes(request.scope)) {
      throw new InvalidArgumentError(
        `Source "${request.source}" has scope "${request.scope}", but kind "${request.kind}" allows only ${metadata.allowedScopes.map((s) => `"${s}"`).join(', ')}.`,
        { details: { source: request.source, kind: request.kind, scope: request.scope, allowedScopes: metadata.allowedScopes } },
      );
    }
    return record;
  }

  #assertStillLatest(source: string, ticket: number): void {
    if (this.#sources.get(source)?.ticket !== ticket) {
      throw new BindingConflictError(
        `Source "${source}" was re-bound or removed while its factory was running; this instance is discarded.`,
        { details: { source } },
      );
    }
  }

  /** Writes an outcome only if `ticket` is still the source's latest bind. */
  #setOutcome(source: string, ticket: number, outcome: Outcome): void {
    const record = this.#sources.get(source);
    if (record !== undefined && record.ticket === ticket) record.outcome = outcome;
  }

  #next(): number {
    this.#counter += 1;
    return this.#counter;
  }
}

/** A private copy, so a caller mutating its request object later cannot change a stored binding. */
function snapshotRequest(request: SourceBindingRequest): SourceBindingRequest {
  if (typeof request !== 'object' || request === null) throw new InvalidArgumentError('A binding request must be an object.');
  const { source, kind, scope, projectRoot, callContext } = request;
  if (callContext !== undefined && typeof callContext !== 'function') {
    throw new InvalidArgumentError(`The call context of source "${String(source)}" must be a function.`, { details: { source: String(source) } });
  }
  if (typeof source !== 'string' || !SOURCE_SLUG.test(source)) {
    throw new InvalidArgumentError('The source slug must start with a lowercase letter and use only a-z, 0-9, "+", "." or "-".');
  }
  if (typeof kind !== 'string' || kind === '') throw new InvalidArgumentError(`Source "${source}" names no kind.`, { details: { source } });
  if (!(OWNERSHIP_SCOPES as readonly unknown[]).includes(scope)) {
    throw new InvalidArgumentError(`Source "${source}" has no valid scope; expected one of "project", "user", "agent".`, { details: { source } });
  }
  if (projectRoot !== undefined && typeof projectRoot !== 'string') {
    throw new InvalidArgumentError(`The project root of source "${source}" must be a string path.`, { details: { source } });
  }
  let config: unknown;
  try {
    config = structuredClone(request.config);
  } catch (cause) {
    throw new InvalidArgumentError(`The config of source "${source}" is not plain data.`, { cause, details: { source } });
  }
  return Object.freeze({ source, kind, scope, config, ...(projectRoot === undefined ? {} : { projectRoot }), ...(callContext === undefined ? {} : { callContext }) });
}

function asConnectorError(error: unknown, request: SourceBindingRequest): ConnectorError {
  if (isConnectorError(error)) return error;
  return new ConnectorFailedError(`Binding source "${request.source}" of kind "${request.kind}" failed unexpectedly.`, {
    cause: error,
    details: { source: request.source, kind: request.kind },
  });
}
