/**
 * The ConnectorPort compliance harness. A connector runs it from its own test in a few lines:
 *
 *   const report = await runCompliance({ port, manifest, scratch: `${port.source}://tmp` });
 *   expect(failedChecks(report)).toEqual([]);
 *
 * It exercises every declared capability, checks declared (manifest) against actual
 * (`capabilities()` and the members) in both directions, and checks the error taxonomy. It never
 * throws for a connector's faults: each is a failed check with expected / actual / fix. It imports
 * no test framework.
 */
import { formatCheckReport, runCheck, summarizeChecks } from '../checks.js';
import type { CheckDefinition } from '../checks.js';
import { createContext } from './context.js';
import type { ComplianceCheck } from './context.js';
import { DATA_CHECKS, ERROR_CHECKS } from './data-checks.js';
import { EXEC_CHECKS, releaseOpenRuns } from './exec-checks.js';
import { OPTIONAL_CHECKS } from './optional-checks.js';
import { STATIC_CHECKS } from './static-checks.js';
import type { ComplianceOptions, ComplianceReport, ComplianceSubject } from './types.js';
import { CLEANUP_CHECKS, WRITE_CHECKS } from './write-checks.js';

/** In run order; cleanup is last so every check can use the scratch tree. */
const CHECKS: readonly ComplianceCheck[] = [
  ...STATIC_CHECKS,
  ...DATA_CHECKS,
  ...WRITE_CHECKS,
  ...ERROR_CHECKS,
  ...EXEC_CHECKS,
  ...OPTIONAL_CHECKS,
  ...CLEANUP_CHECKS,
];

/** Every check the harness runs, in order: id, the rule it enforces, the capability it exercises. */
export const COMPLIANCE_CHECKS: readonly CheckDefinition<string>[] = Object.freeze(
  CHECKS.map(({ id, name, capability }) => Object.freeze(capability === undefined ? { id, name } : { id, name, capability })),
);

/**
 * Runs every compliance check against `subject` and reports each as pass, fail or skip.
 * Checks run one after another; a check still waiting on the connector after
 * `options.checkTimeoutMs` fails as timed out. Detached runs the harness started are released
 * and its scratch directory is deleted (when delete is declared) before it returns.
 */
export async function runCompliance(subject: ComplianceSubject, options: ComplianceOptions = {}): Promise<ComplianceReport> {
  const context = createContext(subject);
  const records = [];
  try {
    for (const [index, check] of CHECKS.entries()) {
      const definition = COMPLIANCE_CHECKS[index] as CheckDefinition<string>;
      records.push(await runCheck(definition, () => check.run(context), { timeoutMs: options.checkTimeoutMs }));
    }
  } finally {
    await releaseOpenRuns(context);
  }
  return summarizeChecks(typeof subject.port.kind === 'string' ? subject.port.kind : subject.manifest.kind, records);
}

/** The report as plain text for people: one line per check, failure details indented. */
export function formatComplianceReport(report: ComplianceReport): string {
  return formatCheckReport(report, 'ConnectorPort compliance');
}
