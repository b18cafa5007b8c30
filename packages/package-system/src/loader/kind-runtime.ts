/**
 * One kind's runtime: how a source binding becomes a checked instance. For each binding:
 *   1. snapshot the provenance (provider, trust, kind, source, project root, scope, entry ids) —
 *      before the factory is awaited; exec kinds need an absolute project root;
 *   2. call the factory once with a frozen context of exactly six fields;
 *   3. refuse an object that already serves another binding, an unsupported port version, a
 *      kind/source the instance misreports, and any capability mismatch;
 *   4. wrap (exec guard), freeze and stamp the instance; only then is it handed out.
 * Steps 3 and 4 run without an await between them, so no other binding can claim the object
 * between the conflict check and the stamp.
 */
import type { ConnectorFactory, ConnectorFactoryContext, ConnectorPort, PackageTrust, SourceConnectorEntry } from '../contracts/index.js';
import { BindingConflictError, ConnectorFailedError, ManifestValidationError, isConnectorError } from '../contracts/index.js';
import type { BindingCallContext, ConnectorKindRuntime, ValidatedBindingRequest } from '../registry/index.js';
import { checkConnectorCapabilities } from './capability-check.js';
import type { ExecPathPolicy } from './exec-guard.js';
import { buildGuardedInstance } from './guarded-instance.js';
import { requireSupportedPort, type PortAdapterRegistry } from './port-version.js';
import { assertUnclaimed, snapshotBindingProvenance, stampInstance, type ConnectorBindingProvenance } from './provenance.js';

export interface KindRuntimeOptions {
  readonly packageId: string;
  readonly packageRoot: string;
  readonly trust: PackageTrust;
  readonly entry: SourceConnectorEntry;
  readonly factory: ConnectorFactory;
  readonly adapters: PortAdapterRegistry;
  readonly pathPolicy: ExecPathPolicy | undefined;
}

/**
 * Throws `manifest_invalid` when the entry declares exec or execDetached without a non-empty
 * execRequires — the manifest validator refuses that too; this keeps a door from ever opening if
 * a caller skipped it.
 */
export function createKindRuntime(options: KindRuntimeOptions): ConnectorKindRuntime {
  const { entry } = options;
  const executes = entry.capabilities.includes('exec') || entry.capabilities.includes('execDetached');
  const execRequires = Object.freeze([...(entry.execRequires ?? [])]);
  if (executes && execRequires.length === 0) {
    throw new ManifestValidationError([
      { path: 'execRequires', message: `Kind "${entry.kind}" declares exec without entry features.`, expected: 'a non-empty list of feature ids' },
    ]);
  }
  return Object.freeze({
    kind: entry.kind,
    packageId: options.packageId,
    trust: options.trust,
    entry,
    instantiate: async (request: ValidatedBindingRequest): Promise<ConnectorPort> => {
      const provenance = snapshotBindingProvenance({
        providerPackageId: options.packageId,
        providerTrust: options.trust,
        kind: entry.kind,
        source: request.source,
        ...(request.projectRoot === undefined ? {} : { projectRoot: request.projectRoot }),
        scope: request.scope,
        execRequires,
        executes,
      });
      const context = factoryContext(options, provenance, request.config);
      let produced: unknown;
      try {
        produced = await (request.callContext === undefined ? options.factory(context) : request.callContext(() => options.factory(context)));
      } catch (cause) {
        throw new ConnectorFailedError(`The factory of kind "${entry.kind}" threw while binding source "${provenance.source}".`, {
          cause,
          details: { kind: entry.kind, source: provenance.source, ...(isConnectorError(cause) ? { causeCode: cause.code } : {}) },
        });
      }
      return acceptInstance(produced, provenance, options, request.callContext);
    },
  });
}

/** Exactly six fields, frozen. The config is the validator's own frozen copy, private to this call. */
function factoryContext(options: KindRuntimeOptions, provenance: ConnectorBindingProvenance, config: Readonly<Record<string, unknown>>): ConnectorFactoryContext {
  return Object.freeze({
    packageId: options.packageId,
    packageRoot: options.packageRoot,
    source: provenance.source,
    config,
    ...(provenance.projectRoot === undefined ? {} : { projectRoot: provenance.projectRoot }),
    scope: provenance.scope,
  });
}

function acceptInstance(produced: unknown, provenance: ConnectorBindingProvenance, options: KindRuntimeOptions, callContext: BindingCallContext | undefined): ConnectorPort {
  const { kind, source } = provenance;
  if (typeof produced !== 'object' || produced === null) {
    throw new ConnectorFailedError(`The factory of kind "${kind}" returned no connector object for source "${source}".`, { details: { kind, source } });
  }
  try {
    assertUnclaimed(produced, provenance);
    const port = requireSupportedPort(produced, options.adapters, { kind, source });
    const reportedKind: unknown = Reflect.get(port, 'kind');
    const reportedSource: unknown = Reflect.get(port, 'source');
    if (reportedKind !== kind || reportedSource !== source) {
      throw new BindingConflictError(
        `The factory of kind "${kind}" returned an instance that reports a different ${reportedKind === kind ? 'source' : 'kind'} than the binding of source "${source}".`,
        { details: { kind, source } },
      );
    }
    const checked = checkConnectorCapabilities(port, options.entry);
    const instance = buildGuardedInstance(port, checked, { kind, source, execRequires: provenance.execRequires, pathPolicy: options.pathPolicy }, callContext);
    stampInstance(produced, instance, provenance);
    return instance;
  } catch (error) {
    if (isConnectorError(error)) throw error;
    // A throwing getter on the instance, for example.
    throw new ConnectorFailedError(`The instance for source "${source}" of kind "${kind}" failed while being checked.`, { cause: error, details: { kind, source } });
  }
}
