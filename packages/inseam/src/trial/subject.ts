/**
 * Loading what is trialled. A module is loaded into the sandbox behind the trial's egress (the
 * gate, bound once describe() is validated); a host Connector object is described in-process.
 * Load and describe() failures are not thrown: they become check 1's failure, and every check
 * that needs the connector skips.
 */
import { templateNames, validateDescription, type Connector, type Description } from '@inseam/connector';
import { InvalidArgumentError, InvalidConfigError, isConnectorError } from '@neuralis/package-system/contracts';
import type { ManifestIssue } from '@neuralis/package-system/contracts';
import { describeError, listProblems, type FailureDetail } from '@neuralis/package-system/testing';
import type { SandboxedConnector, SandboxLogRecord } from '../sandbox/index.js';
import { DOC_SECTIONS, sectionOfIssue, type DocSection } from './docs.js';
import { TrialSandbox } from './sandbox.js';
import { TrialEgress } from './egress.js';
import type { TrialOptions } from './types.js';

export interface LoadedSubject {
  readonly connector?: Connector;
  readonly description?: Description;
  readonly loadFailure?: FailureDetail;
  /** The reference section that explains the load failure. */
  readonly loadSection?: DocSection;
  readonly egress?: TrialEgress;
  /** Sandbox records about this module (dropped watch events among them). */
  readonly logs: SandboxLogRecord[];
  /** Unloads the module and closes what the trial opened. */
  close(): Promise<void>;
}

const DEFAULT_LABEL = 'trial';
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/** A description problem as check 1 reports it. */
export function describeFailure(issues: readonly ManifestIssue[]): FailureDetail {
  return {
    expected: 'describe() returns a kind, capabilities, an AuthSpec with origins, and dimensions with exactly one ordering: true',
    actual: listProblems(issues.map((issue) => `${issue.path}: ${issue.message}`), 8),
    fix: listProblems(issues.map((issue) => `describe().${issue.path} should be ${issue.expected}`), 8),
  };
}

function issuesOf(error: unknown): readonly ManifestIssue[] | undefined {
  if (!isConnectorError(error) || error.code !== 'description_invalid') return undefined;
  const issues = (error as { issues?: unknown }).issues;
  return Array.isArray(issues) ? (issues as ManifestIssue[]) : undefined;
}

const LOAD_FIX = 'export createConnector(config) returning the connector (or a default export of the connector object) from one ES module with no imports; see the message for the failing line';

/**
 * Loads the subject. Throws only for the caller's mistakes: `invalid_argument` (a bad label),
 * `invalid_config` (a credential `present` needs is missing, or an allowPrivateOrigins entry is
 * not an exact declared origin).
 */
export async function loadSubject(options: TrialOptions): Promise<LoadedSubject> {
  const subject = options.subject;
  if ('connector' in subject) return describeInProcess(subject.connector);
  const label = subject.label ?? DEFAULT_LABEL;
  const logs: SandboxLogRecord[] = [];
  if (!LABEL.test(label)) throw new InvalidArgumentError('The trial label must be 1–128 letters, digits, ".", "_", ":", "/" or "-".');
  // Every record about the module (a dropped watch event) must reach check 8.
  const sandbox = options.sandbox ?? new TrialSandbox(options.log === undefined ? {} : { log: options.log });
  const unlisten = sandbox.listen(label, (record) => {
    logs.push(record);
    if (options.sandbox !== undefined) options.log?.(record);
  });
  const egress = new TrialEgress();
  const close = async (connector?: { dispose(): void }): Promise<void> => {
    connector?.dispose();
    unlisten();
    if (options.sandbox === undefined) await sandbox.close();
    await egress.close();
  };
  let connector: SandboxedConnector;
  try {
    connector = await sandbox.host.load({
      source: subject.module,
      label,
      config: options.config ?? {},
      egress,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
    });
  } catch (error) {
    const issues = issuesOf(error);
    const loadFailure =
      issues === undefined
        ? { expected: 'the module loads and describe() answers', actual: `loading failed with ${describeError(error)}`, fix: LOAD_FIX }
        : describeFailure(issues);
    const loadSection = issues?.[0] === undefined ? DOC_SECTIONS.sandboxModule : sectionOfIssue(issues[0]);
    return { loadFailure, loadSection, egress, logs, close: () => close() };
  }
  // From here on, a problem is the caller's (the config file's), not the connector's.
  const description = connector.describe();
  try {
    const missing = missingCredentials(description, options.credentials ?? {});
    if (missing.length > 0) {
      throw new InvalidConfigError(
        `The trial's credentials have no value for ${missing.map((name) => `"${name}"`).join(', ')}, which the connector's auth.present uses; add ${missing.length === 1 ? 'it' : 'them'} to "credentials" in the config file.`,
        { details: { fields: missing } },
      );
    }
    // Throws invalid_config when an allowPrivateOrigins entry is not an exact declared origin.
    egress.bind({
      auth: description.auth,
      credentials: options.credentials ?? {},
      allowPrivateOrigins: options.allowPrivateOrigins ?? [],
      phase: options.phase ?? 'submit',
    });
  } catch (error) {
    await close(connector);
    throw error;
  }
  return { connector, description, egress, logs, close: () => close(connector) };
}

/**
 * An in-process connector (a built-in kind). It runs without the gate, so a built-in that reaches
 * no network may declare no origins; every other rule of describe() applies.
 */
async function describeInProcess(connector: Connector): Promise<LoadedSubject> {
  const base = { logs: [], close: async () => undefined };
  let raw: unknown;
  try {
    raw = connector.describe();
  } catch (error) {
    return { ...base, loadFailure: { expected: 'describe() returns a description', actual: `it threw ${describeError(error)}` } };
  }
  try {
    return { ...base, connector, description: validateDescription(raw) };
  } catch (error) {
    const issues = issuesOf(error);
    if (issues === undefined) return { ...base, loadFailure: { expected: 'describe() returns a valid description', actual: describeError(error) } };
    const remaining = issues.filter((issue) => !(issue.path === 'auth.origins' && declaresNoOrigins(raw)));
    if (remaining.length > 0) return { ...base, loadFailure: describeFailure(remaining), loadSection: sectionOfIssue(remaining[0]!) };
    return { ...base, connector, description: withoutOrigins(raw) };
  }
}

function declaresNoOrigins(raw: unknown): boolean {
  const auth = (raw as { auth?: { origins?: unknown } }).auth;
  return Array.isArray(auth?.origins) && auth.origins.length === 0;
}

/** Validates with a stand-in origin, then puts the empty list back. */
function withoutOrigins(raw: unknown): Description {
  const value = raw as Description;
  const checked = validateDescription({ ...value, auth: { ...value.auth, origins: ['https://in-process.invalid'] } });
  return Object.freeze({ ...checked, auth: Object.freeze({ ...checked.auth, origins: Object.freeze([]) }) });
}

/** Credential names the AuthSpec's `present` templates use that `credentials` lacks. */
function missingCredentials(description: Description, credentials: Readonly<Record<string, string>>): string[] {
  const names = new Set<string>();
  for (const entry of description.auth.present) {
    for (const value of Object.values(entry)) {
      for (const name of templateNames(String(value)) ?? []) names.add(name);
    }
  }
  return [...names].filter((name) => typeof credentials[name] !== 'string');
}
