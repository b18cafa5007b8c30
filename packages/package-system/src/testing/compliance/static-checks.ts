/**
 * Checks that need no data: the port version and identity, the declared-versus-actual capability
 * match (both directions, members included), execRequires, and that undeclared operations are
 * refused with `unsupported`.
 */
import {
  CAPABILITY_MEMBERS,
  CONNECTOR_CAPABILITIES,
  MANDATORY_CAPABILITIES,
  isConnectorCapability,
  parseSourceUri,
} from '../../contracts/index.js';
import type { ConnectorCapability, ErrorDetails } from '../../contracts/index.js';
import { describeError, describeValue, ensure, expectErrorCode, fail, skip } from '../checks.js';
import { OPERATION_CAPABILITY, PORT_OPERATIONS, guardedCall } from '../../dispatch/guard.js';
import type { PortOperation } from '../../dispatch/guard.js';
import { MARKER, childUri, settle } from './context.js';
import type { ComplianceCheck, ComplianceContext } from './context.js';

const PINNED_VERSION = 4;

const portVersion: ComplianceCheck = {
  id: 'port.version',
  name: 'portVersion is pinned to the literal 4 (CONNECTOR_PORT_VERSION)',
  async run({ port }) {
    ensure(port.portVersion === PINNED_VERSION, {
      expected: `portVersion ${PINNED_VERSION}`,
      actual: `portVersion ${describeValue(port.portVersion)}`,
      fix: 'pin the version the connector was built against: `readonly portVersion = 4 satisfies ConnectorPortVersion`',
    });
    return `portVersion ${PINNED_VERSION}`;
  },
};

const portIdentity: ComplianceCheck = {
  id: 'port.identity',
  name: 'kind equals the manifest kind; source is the bound slug, a URI scheme',
  async run({ port, manifest }) {
    ensure(port.kind === manifest.kind, {
      expected: `kind ${describeValue(manifest.kind)} (the manifest's)`,
      actual: `kind ${describeValue(port.kind)}`,
    });
    let slugError: unknown;
    try {
      parseSourceUri(`${String(port.source)}://`);
    } catch (error) {
      slugError = error;
    }
    ensure(typeof port.source === 'string' && slugError === undefined, {
      expected: 'source is a slug such as "notes" (lowercase letter first; a-z, 0-9, "+", "." or "-")',
      actual: `source ${describeValue(port.source)}`,
      fix: 'read the slug from ConnectorFactoryContext.source; never hard-code a scheme',
    });
    return `kind ${port.kind}, source ${port.source}`;
  },
};

const mandatoryCapabilities: ComplianceCheck = {
  id: 'capabilities.mandatory',
  name: 'capabilities[] is drawn from the closed list, once each, and includes list and read',
  async run({ manifest }) {
    const declared = manifest.capabilities as readonly string[];
    const unknown = declared.filter((capability) => !isConnectorCapability(capability));
    const repeated = declared.filter((capability, index) => declared.indexOf(capability) !== index);
    const missing = MANDATORY_CAPABILITIES.filter((capability) => !declared.includes(capability));
    ensure(unknown.length === 0 && repeated.length === 0 && missing.length === 0, () => ({
      expected: `capabilities[] from {${CONNECTOR_CAPABILITIES.join(', ')}}, each once, with list and read`,
      actual: [
        unknown.length > 0 ? `unknown ${unknown.map(describeValue).join(', ')}` : '',
        repeated.length > 0 ? `repeated ${repeated.map(describeValue).join(', ')}` : '',
        missing.length > 0 ? `missing mandatory ${missing.join(', ')}` : '',
      ].filter(Boolean).join('; '),
    }));
    return `declared: ${declared.join(', ')}`;
  },
};

function actualCapabilities(context: ComplianceContext): Set<string> {
  let actual: unknown;
  try {
    actual = context.port.capabilities();
  } catch (error) {
    fail('capabilities() returns the capability set', `it threw ${describeError(error)}`);
  }
  ensure(actual instanceof Set, {
    expected: 'capabilities() returns a Set of capability names',
    actual: describeValue(actual),
  });
  return new Set([...actual].map(String));
}

const capabilityMatch: ComplianceCheck = {
  id: 'capabilities.match',
  name: 'capabilities() must exactly match capabilities[] declared in the manifest (both directions)',
  async run(context) {
    const actual = actualCapabilities(context);
    const declaredOnly = [...context.declared].filter((capability) => !actual.has(capability));
    const actualOnly = [...actual].filter((capability) => !context.declared.has(capability as ConnectorCapability));
    ensure(declaredOnly.length === 0 && actualOnly.length === 0, () => ({
      expected: `capabilities() = {${[...context.declared].join(', ')}} (the manifest's capabilities[])`,
      actual: `capabilities() = {${[...actual].join(', ')}}: ${[
        declaredOnly.length > 0 ? `declared but not offered: ${declaredOnly.join(', ')}` : '',
        actualOnly.length > 0 ? `offered but not declared: ${actualOnly.join(', ')}` : '',
      ].filter(Boolean).join('; ')}`,
      fix: 'return exactly the manifest list from capabilities(); the loader throws ConnectorCapabilityMismatch on any divergence',
    }));
    return `{${[...actual].join(', ')}}`;
  },
};

const DETACHED_VERBS = ['start', 'status', 'output', 'kill', 'release'] as const;

function memberProblem(context: ComplianceContext, capability: ConnectorCapability): string | undefined {
  const declared = context.declared.has(capability);
  const member = CAPABILITY_MEMBERS[capability];
  const value = (context.port as unknown as Record<string, unknown>)[member];
  if (capability === 'execDetached') {
    if (!declared) return value === undefined ? undefined : 'has a detached facet but does not declare execDetached';
    if (typeof value !== 'object' || value === null) return 'declares execDetached but has no detached facet';
    const facet = value as Record<string, unknown>;
    const missing = DETACHED_VERBS.filter((verb) => typeof facet[verb] !== 'function');
    return missing.length === 0 ? undefined : `declares execDetached but its detached facet lacks ${missing.join(', ')}`;
  }
  if (declared) return typeof value === 'function' ? undefined : `declares ${capability} but has no ${member} member`;
  return value === undefined ? undefined : `does not declare ${capability} but has a ${member} member`;
}

const capabilityMembers: ComplianceCheck = {
  id: 'capabilities.members',
  name: 'each declared capability has its member and each undeclared one has none (execDetached ↔ the detached facet)',
  async run(context) {
    const problems = CONNECTOR_CAPABILITIES.map((capability) => memberProblem(context, capability)).filter(
      (problem): problem is string => problem !== undefined,
    );
    ensure(problems.length === 0, {
      expected: 'a member exactly for each declared capability',
      actual: `the port ${problems.join('; ')}`,
      fix: 'add the member for each declared capability and remove members of undeclared ones (a capability without the facet and a facet without the capability are the same error)',
    });
    return `members match {${[...context.declared].join(', ')}}`;
  },
};

const execRequires: ComplianceCheck = {
  id: 'manifest.exec-requires',
  name: 'declaring exec (or execDetached) requires a non-empty execRequires',
  async run({ manifest, declared }) {
    if (!declared.has('exec') && !declared.has('execDetached')) skip('exec: not declared');
    const features = manifest.execRequires;
    ensure(Array.isArray(features) && features.length > 0 && features.every((feature) => typeof feature === 'string' && feature !== ''), {
      expected: 'execRequires: a non-empty list of feature ids that open a shell on this kind',
      actual: `execRequires ${describeValue(features)}`,
      fix: 'declare e.g. "execRequires": ["exec.machine"]; an empty list is a door that is always open',
    });
    return `execRequires: ${(features as readonly string[]).join(', ')}`;
  },
};

/** Harmless arguments for a refused call: addresses that do not exist, a run id never issued. */
function probeArguments(context: ComplianceContext, operation: PortOperation): unknown[] {
  const nowhere = childUri(context.root, `${MARKER}-guard-${context.token}`);
  const request = { command: `echo ${MARKER}`, cwd: context.subject.execCwd ?? context.root };
  switch (operation) {
    case 'write':
      return [nowhere, MARKER];
    case 'exec':
    case 'detached.start':
      return [request, { session: context.session }];
    case 'detached.status':
    case 'detached.output':
    case 'detached.kill':
    case 'detached.release':
      return [`${MARKER}-no-run`, 0];
    default:
      return [nowhere];
  }
}

function refusalProblem(error: unknown, context: ComplianceContext, operation: string, argument?: string): string | undefined {
  const details = (error as { details?: ErrorDetails } | undefined)?.details;
  if ((error as { code?: unknown } | undefined)?.code !== 'unsupported') return `${operation}: ${describeError(error)}`;
  const named = details?.kind === context.port.kind && details?.operation === operation && (argument === undefined || details?.argument === argument);
  return named ? undefined : `${operation}: an unsupported error that names ${describeValue(details)} instead of kind, operation${argument === undefined ? '' : ' and argument'}`;
}

const undeclaredRefused: ComplianceCheck = {
  id: 'capabilities.undeclared-refused',
  name: 'an undeclared operation is refused with unsupported, naming kind, operation and argument',
  async run(context) {
    const declared = [...context.declared];
    const undeclared = PORT_OPERATIONS.filter((operation) => !context.declared.has(OPERATION_CAPABILITY[operation]));
    const backgroundApplies = context.declared.has('exec') && !context.declared.has('execDetached');
    if (undeclared.length === 0 && !backgroundApplies) skip('every capability is declared; nothing to refuse');
    const problems: string[] = [];
    for (const operation of undeclared) {
      try {
        await settle((guardedCall as (...args: unknown[]) => unknown)(context.port, declared, operation, ...probeArguments(context, operation)));
        problems.push(`${operation}: the dispatcher let it through`);
      } catch (error) {
        const problem = refusalProblem(error, context, operation);
        if (problem !== undefined) problems.push(problem);
      }
    }
    if (backgroundApplies) {
      const request = { command: `echo ${MARKER}`, cwd: context.subject.execCwd ?? context.root, background: true };
      try {
        await guardedCall(context.port, declared, 'exec', request, { session: context.session });
        problems.push('exec with background: the dispatcher let it through');
      } catch (error) {
        const problem = refusalProblem(error, context, 'exec', 'background');
        if (problem !== undefined) problems.push(problem);
      }
      const exec = context.port.exec;
      if (typeof exec === 'function') {
        const error = await expectErrorCode(() => exec.call(context.port, request, { session: context.session }), 'unsupported', {
          doing: 'exec with background: true on a kind without execDetached',
          fix: 'throw new UnsupportedOperationError(kind, "exec", "background") when background is asked and execDetached is not declared',
        });
        const problem = refusalProblem(error, context, 'exec', 'background');
        if (problem !== undefined) problems.push(`the connector's own exec: ${problem}`);
      }
    }
    ensure(problems.length === 0, {
      expected: 'every undeclared operation refused with code "unsupported" naming kind, operation (and argument)',
      actual: problems.join('; '),
    });
    return `refused: ${[...undeclared, ...(backgroundApplies ? ['exec(background)'] : [])].join(', ')}`;
  },
};

export const STATIC_CHECKS: readonly ComplianceCheck[] = [
  portVersion,
  portIdentity,
  mandatoryCapabilities,
  capabilityMatch,
  capabilityMembers,
  execRequires,
  undeclaredRefused,
];
