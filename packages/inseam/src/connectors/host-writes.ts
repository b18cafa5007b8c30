/**
 * What making a host of a writes-declaring sandboxed connector writable came to. The platform
 * runs the install-phase trial itself, against the host's own config and stored credentials, on
 * the scratch prefix a person named (lifecycle.ts); the host is writable only when that trial
 * passed with check 10 (writes) passing, not skipping. Otherwise it stays read only and the
 * outcome carries the failing check's detail, which names the fix.
 */
import type { PermissionTree } from '@neuralis/package-system/contracts';
import { allowsChanges } from '../fs/permissions.js';
import type { TrialReportJson } from '../trial/index.js';

/** The check that exercises writes on the scratch prefix. */
const WRITES_CHECK = 10;

export interface WritesOutcome {
  /** The host is writable now: its install-phase trial passed and check 10 passed. */
  readonly writable: boolean;
  /** Where the trial wrote (canonical); null when no prefix was known. */
  readonly scratchPrefix: string | null;
  /** The install-phase trial the platform ran and recorded; null when none could run. */
  readonly trial: string | null;
  /** The check that kept the host read only (the first that failed, or 10 when it skipped); null when none did. */
  readonly check: number | null;
  /** What passed, or why the host stays read only: the check's detail, naming the fix. */
  readonly message: string;
}

/** A new host or a change that lets callers write (or run): `writable: true`, or a tree granting it. */
export function makesWritable(change: { readonly writable?: boolean; readonly permissions?: PermissionTree | null }): boolean {
  if (change.writable !== undefined) return change.writable === true;
  return change.permissions !== undefined && change.permissions !== null && allowsChanges(change.permissions);
}

/** The outcome of an install-phase trial the platform ran for a host. */
export function writesOutcome(report: Pick<TrialReportJson, 'passed' | 'checks'>, trial: string, scratchPrefix: string): WritesOutcome {
  const failed = report.checks.find((check) => check.status === 'fail');
  if (failed !== undefined) {
    return { writable: false, scratchPrefix, trial, check: failed.id, message: `The host stays read only: check ${failed.id} (${failed.name}) failed on scratch prefix "${scratchPrefix}".\n${failed.detail}` };
  }
  const writes = report.checks.find((check) => check.id === WRITES_CHECK);
  if (writes === undefined || writes.status !== 'pass') {
    const why = writes === undefined ? 'did not run' : `skipped: ${writes.detail}`;
    return { writable: false, scratchPrefix, trial, check: WRITES_CHECK, message: `The host stays read only: check 10 (writes) ${why}. A host is writable only once its writes were exercised on the scratch prefix.` };
  }
  return { writable: true, scratchPrefix, trial, check: null, message: `The install-phase trial passed on scratch prefix "${scratchPrefix}", its writes (check 10) included; the host is writable.` };
}

/** The host stays read only without a trial having run (no prefix known, or the trial could not start). */
export function notRunOutcome(scratchPrefix: string | null, message: string): WritesOutcome {
  return { writable: false, scratchPrefix, trial: null, check: null, message: `The host stays read only: ${message}` };
}
