/** The trial report in its two forms: JSON (DESIGN.md's fixed shape) and text for people. */
import { formatCheckReport } from '@neuralis/package-system/testing';
import type { TrialReport, TrialReportJson } from './types.js';

/**
 * The JSON form: `{ kind, passed, checks: [{ id, name, status, detail }], origins }` as fixed in
 * DESIGN.md, plus the POSTs declared as reads, what the trial left on the host, the phase and the
 * time taken.
 */
export function trialReportJson(report: TrialReport): TrialReportJson {
  return {
    kind: report.kind,
    passed: report.passed,
    checks: report.checks.map(({ id, name, status, detail }) => ({ id, name, status, detail })),
    origins: [...report.origins],
    readEndpoints: [...report.readEndpoints],
    leftovers: [...report.leftovers],
    phase: report.phase,
    durationMs: report.durationMs,
  };
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/**
 * The readable form: a verdict line, one line per check (1–11) with its detail indented —
 * expected / actual / fix for a failure, the reason for a skip — then the origins used, any
 * POSTs declared as reads, any refusals, scratch objects left on the host, and the time taken.
 */
export function formatTrialReport(report: TrialReport): string {
  const lines = [formatCheckReport(report, `inseam trial (${report.phase} phase)`)];
  lines.push(`origins used: ${report.origins.length === 0 ? 'none' : report.origins.join(', ')}`);
  if (report.readEndpoints.length > 0) lines.push(`POST as reads (declared): ${report.readEndpoints.join(', ')}`);
  if (report.refusals.length > 0) {
    lines.push(`refused by the gate: ${report.refusals.map((refusal) => `${refusal.method} ${refusal.origin || '(unparseable URL)'} (${refusal.reason}${refusal.part === undefined ? '' : `, ${refusal.part}`})`).join(', ')}`);
  }
  if (report.leftovers.length > 0) lines.push(`left on the host (remove by hand): ${report.leftovers.join(', ')}`);
  lines.push(`time: ${seconds(report.durationMs)}`);
  return `${lines.join('\n')}\n`;
}
