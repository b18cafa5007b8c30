/**
 * `inseam connector check <module>`: what can be checked without the host, in well under a
 * second. The module is loaded in the sandbox with no network — every request is refused — and
 * its describe() is validated (every problem with its JSON path), its defaultScope checked
 * against its dimensions (check 7), and, when given, the trial config file's credentials matched
 * against the `present` templates and its config against a config schema. Each problem names the
 * section of docs/connectors/authoring.md that explains it.
 */
import { EgressError, templateNames, type Description, type EgressPort } from '@inseam/connector';
import { isConnectorError, type ManifestIssue } from '@neuralis/package-system/contracts';
import { compileConfigValidator } from '@neuralis/package-system/manifest';
import { checkClosedSchema } from '../../connectors/index.js';
import { SandboxHost } from '../../sandbox/index.js';
import { validateDefaultScope } from '../../scope/index.js';
import { AUTHORING_DOC, DOC_SECTIONS, type DocSection } from '../../trial/index.js';
import { sectionOfIssue } from '../../trial/docs.js';

export interface CheckProblem {
  /** Where: a JSON path into describe() (`auth.present[0].value`), `config.<field>`, `credentials.<field>`, `configSchema`, or `module`. */
  readonly path: string;
  readonly message: string;
  readonly expected?: string;
  /** The section of docs/connectors/authoring.md that explains the rule. */
  readonly section: DocSection;
}

export interface ModuleCheckInput {
  readonly source: string;
  readonly label: string;
  /** Handed to createConnector; `{}` without a config file. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** The config file's credentials, when one was given: each `present` template must find its value. */
  readonly credentials?: Readonly<Record<string, string>>;
  /** A config schema to check, and to check `config` against. */
  readonly schema?: unknown;
}

export interface ModuleCheck {
  readonly kind: string | undefined;
  readonly ok: boolean;
  readonly problems: readonly CheckProblem[];
  /** What passed, for the readable report. */
  readonly notes: readonly string[];
}

/** Refuses every request: the check never reaches a host. */
const OFFLINE: EgressPort = {
  fetch: (request) => {
    let origin: string;
    try {
      origin = new URL(request.url).origin;
    } catch {
      origin = '';
    }
    return Promise.reject(new EgressError('origin_refused', origin, 'inseam connector check runs offline: the module may not send requests while it loads.'));
  },
};

function describeProblems(issues: readonly ManifestIssue[]): CheckProblem[] {
  return issues.map((issue) => ({ path: issue.path, message: issue.message, expected: issue.expected, section: sectionOfIssue(issue) }));
}

function summary(description: Description): string {
  const dimensions = Object.keys(description.dimensions);
  const ordering = dimensions.find((name) => description.dimensions[name]!.ordering === true);
  return `describe(): kind "${description.kind}"; capabilities ${description.capabilities.join(', ')}; auth ${description.auth.acquire.type}, origins ${description.auth.origins.join(', ')}; ${dimensions.length} dimension${dimensions.length === 1 ? '' : 's'}, ordering ${ordering}; ${description.writes === undefined ? 'read-only' : !description.writes.create && !description.writes.replace ? 'delete only' : `writes ${description.writes.mimes === '*' ? '*' : description.writes.mimes.join(', ')}${description.writes.roundTrip === 'normalised' ? ' (normalised)' : ''}`}`;
}

function schemaProblems(schema: unknown, config: Readonly<Record<string, unknown>>, notes: string[]): CheckProblem[] {
  const section = DOC_SECTIONS.configuration;
  try {
    checkClosedSchema(schema);
  } catch (error) {
    return [{ path: 'configSchema', message: error instanceof Error ? error.message : String(error), section }];
  }
  let validate: (value: unknown) => unknown;
  try {
    validate = compileConfigValidator(schema);
  } catch (error) {
    const issues = (error as { issues?: readonly ManifestIssue[] }).issues ?? [];
    return issues.length === 0
      ? [{ path: 'configSchema', message: error instanceof Error ? error.message : String(error), section }]
      : issues.map((issue) => ({ path: issue.path, message: issue.message, expected: issue.expected, section }));
  }
  try {
    validate(config);
  } catch (error) {
    const expected = (error as { details?: { expected?: unknown } }).details?.expected;
    return [{ path: 'config', message: error instanceof Error ? error.message : String(error), ...(Array.isArray(expected) ? { expected: expected.join('; ') } : {}), section }];
  }
  notes.push('config schema: closed and valid; the config file\'s config matches it');
  return [];
}

/**
 * Loads the module offline and checks it; never throws for the module's faults. `sandbox` is a
 * host to load it in (closed by the caller); by default one is started and stopped for the check.
 */
export async function checkConnectorModule(input: ModuleCheckInput, sandbox?: SandboxHost): Promise<ModuleCheck> {
  const config = input.config ?? {};
  const problems: CheckProblem[] = [];
  const notes: string[] = [];
  if (input.schema !== undefined) problems.push(...schemaProblems(input.schema, config, notes));
  const host = sandbox ?? new SandboxHost({ limits: { loadTimeoutMs: 5000, callTimeoutMs: 5000 } });
  let description: Description | undefined;
  try {
    const connector = await host.load({ source: input.source, label: input.label, config, egress: OFFLINE });
    description = connector.describe();
    connector.dispose();
  } catch (error) {
    const issues = isConnectorError(error) && error.code === 'description_invalid' ? ((error as { issues?: readonly ManifestIssue[] }).issues ?? []) : [];
    if (issues.length > 0) problems.push(...describeProblems(issues));
    else if (isConnectorError(error) && error.code === 'egress_refused') {
      const origin = typeof error.details['origin'] === 'string' ? ` (to ${error.details['origin']})` : '';
      problems.push({
        path: 'module',
        message: `The module sent a request while loading${origin}; inseam connector check runs offline, and the trial refuses every request sent before describe() is validated.`,
        expected: 'createConnector(config) and describe() that send no request: fetch from list, stat, read, write, delete and watch',
        section: DOC_SECTIONS.sandboxModule,
      });
    } else problems.push({ path: 'module', message: error instanceof Error ? error.message : String(error), expected: 'export createConnector(config) returning the connector, from one ES module with no imports', section: DOC_SECTIONS.sandboxModule });
  } finally {
    if (sandbox === undefined) await host.close();
  }
  if (description !== undefined) {
    notes.push(summary(description));
    if (description.defaultScope !== undefined) {
      try {
        validateDefaultScope(description);
        notes.push('defaultScope: valid against the dimensions');
      } catch (error) {
        const issues = (error as { issues?: readonly ManifestIssue[] }).issues ?? [];
        problems.push(...issues.map((issue) => ({ path: issue.path, message: issue.message, expected: issue.expected, section: DOC_SECTIONS.defaultScope })));
      }
    }
    if (input.credentials !== undefined) {
      const missing = new Set<string>();
      for (const form of description.auth.present) {
        for (const value of Object.values(form)) for (const name of templateNames(String(value)) ?? []) if (typeof input.credentials[name] !== 'string') missing.add(name);
      }
      for (const name of missing) {
        problems.push({ path: `credentials.${name}`, message: `The config file has no credential "${name}", which auth.present uses.`, expected: `"credentials": { "${name}": "…" } in the config file`, section: DOC_SECTIONS.authPresent });
      }
      if (missing.size === 0) notes.push('config file: its credentials fill every present template');
    }
  }
  return { kind: description?.kind, ok: problems.length === 0, problems, notes };
}

/** The readable report: a verdict line, then each problem (with its section) or each note. */
export function formatModuleCheck(check: ModuleCheck, label: string, durationMs: number): string {
  const name = check.kind ?? label;
  const lines = [`inseam connector check — ${name}: ${check.ok ? 'OK' : `${check.problems.length} problem${check.problems.length === 1 ? '' : 's'}`}`];
  for (const problem of check.problems) {
    lines.push(`  ${problem.path}: ${problem.message}`);
    if (problem.expected !== undefined) lines.push(`     expected: ${problem.expected}`);
    lines.push(`     see: ${AUTHORING_DOC}#${problem.section}`);
  }
  if (check.ok) for (const note of check.notes) lines.push(`  ${note}`);
  lines.push(`time: ${durationMs} ms`);
  return `${lines.join('\n')}\n`;
}
