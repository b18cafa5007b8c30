/**
 * Check-running machinery shared by the compliance harness (ConnectorPort) and the conformance
 * trial (the skill document's eleven checks): a check is an id, a name that states the rule it
 * enforces, an optional capability, and a body. Running it yields a `CheckRecord` with a status,
 * a detail a person can act on, and its duration.
 *
 * - A body passes by returning (its string, if any, becomes the detail: what was exercised).
 * - It fails by throwing `CheckFailure` (see `fail`/`ensure`); the detail then reads
 *   `expected: …` / `actual: …` / `fix: …`, one per line.
 * - It skips by throwing `CheckSkipped` (see `skip`); skips are data and always carry a reason.
 * - Any other exception fails the check and is described (class, code, message) — never rethrown,
 *   so one broken check never hides the others.
 * - A body still running after `timeoutMs` fails as timed out; the runner moves on.
 *
 * This module is framework-agnostic: it imports no test runner and no connector contract.
 */

export type CheckStatus = 'pass' | 'fail' | 'skip';

export type CheckId = string | number;

export interface CheckDefinition<Id extends CheckId = string> {
  /** Stable identifier; reports and callers match on it. */
  readonly id: Id;
  /** The rule the check enforces, in words a person recognises from the spec. */
  readonly name: string;
  /** The capability the check exercises, when it exercises one. */
  readonly capability?: string;
}

export interface CheckRecord<Id extends CheckId = string> extends CheckDefinition<Id> {
  readonly status: CheckStatus;
  /** Pass: what was exercised. Fail: expected / actual / fix. Skip: the reason. */
  readonly detail: string;
  readonly durationMs: number;
}

export interface CheckReport<Id extends CheckId = string> {
  readonly kind: string;
  readonly checks: readonly CheckRecord<Id>[];
  /** True when no check failed (skips do not fail a report). */
  readonly passed: boolean;
}

/** What a failed check says: the rule's expectation, what came back, and how to fix it. */
export interface FailureDetail {
  readonly expected: string;
  readonly actual: string;
  readonly fix?: string;
}

/** Thrown inside a check body to fail it with an expected/actual/fix detail. */
export class CheckFailure extends Error {
  readonly failure: FailureDetail;

  constructor(failure: FailureDetail) {
    super(formatFailureDetail(failure));
    this.name = 'CheckFailure';
    this.failure = failure;
  }
}

/** Thrown inside a check body to skip it; the reason is reported. */
export class CheckSkipped extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.name = 'CheckSkipped';
    this.reason = reason;
  }
}

export function formatFailureDetail(failure: FailureDetail): string {
  const lines = [`expected: ${failure.expected}`, `actual: ${failure.actual}`];
  if (failure.fix !== undefined) lines.push(`fix: ${failure.fix}`);
  return lines.join('\n');
}

/** Fails the running check. */
export function fail(expected: string, actual: string, fix?: string): never {
  throw new CheckFailure(fix === undefined ? { expected, actual } : { expected, actual, fix });
}

/** Skips the running check with a reason, e.g. "exec: not declared". */
export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

/**
 * Fails the running check unless `condition` holds. Pass a function to build the detail only on
 * failure (when describing `actual` is costly or would throw on good values).
 */
export function ensure(condition: unknown, failure: FailureDetail | (() => FailureDetail)): asserts condition {
  if (!condition) throw new CheckFailure(typeof failure === 'function' ? failure() : failure);
}

const DESCRIBE_LIMIT = 200;

/** A short, single-line rendering of any value for a detail (bytes and long text are cut). */
export function describeValue(value: unknown): string {
  let text: string;
  if (value === undefined) text = 'undefined';
  else if (typeof value === 'string') text = JSON.stringify(value);
  else if (typeof value === 'function') text = 'a function';
  else if (value instanceof Uint8Array) text = `${value.byteLength} bytes`;
  else if (value instanceof Set) text = `{${[...value].map((item) => describeValue(item)).join(', ')}}`;
  else if (value instanceof Error) text = describeError(value);
  else {
    // String() is the last resort for a value JSON cannot render (a cycle, a BigInt); any text will do.
    /* eslint-disable @typescript-eslint/no-base-to-string */
    try {
      text = JSON.stringify(value, (_key, item: unknown) => (item instanceof Uint8Array ? `<${item.byteLength} bytes>` : item)) ?? String(value);
    } catch {
      text = String(value);
    }
    /* eslint-enable @typescript-eslint/no-base-to-string */
  }
  return text.length > DESCRIBE_LIMIT ? `${text.slice(0, DESCRIBE_LIMIT)}…` : text;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error).code;
  return typeof code === 'string' ? code : undefined;
}

/** Names an error the way a report should: its class, its code (or that it has none), its message. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown non-Error value ${describeValue(error)}`;
  const code = errorCode(error);
  const message = error.message.length > DESCRIBE_LIMIT ? `${error.message.slice(0, DESCRIBE_LIMIT)}…` : error.message;
  return code === undefined ? `a plain ${error.name} with no code ("${message}")` : `${error.name} with code "${code}" ("${message}")`;
}

/** Problems joined for a detail: the first `max` (default 5), then how many more there were. */
export function listProblems(problems: readonly string[], max = 5): string {
  const shown = problems.slice(0, max).join('; ');
  return problems.length > max ? `${shown}; and ${problems.length - max} more` : shown;
}

/**
 * The fields `other` reports differently from `reference`, each as `field <other's value> where
 * <referenceLabel> has <reference's value>`; [] when they agree. A field `reference` leaves
 * undefined is not compared; a missing `other` differs on every field `reference` has. `same`
 * decides equality (default `===`), e.g. to compare timestamps as instants.
 */
export function fieldMismatches<T extends object>(
  reference: T,
  other: T | null | undefined,
  fields: readonly (keyof T & string)[],
  referenceLabel: string,
  same: (field: keyof T & string, a: unknown, b: unknown) => boolean = (_field, a, b) => a === b,
): string[] {
  const mismatches: string[] = [];
  for (const field of fields) {
    const expected = reference[field];
    if (expected === undefined) continue;
    const actual = other?.[field];
    if (!same(field, expected, actual)) mismatches.push(`${field} ${describeValue(actual)} where ${referenceLabel} has ${describeValue(expected)}`);
  }
  return mismatches;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, index) => byte === b[index]);
}

/**
 * Where `actual` departs from `expected`, for a detail: the lengths and the first differing
 * offset with both bytes, e.g. `31 bytes where 30 were expected; first difference at byte 12
 * (0x0a where 0x20 was expected)`. '' when they are the same bytes.
 */
export function describeBytesDifference(expected: Uint8Array, actual: Uint8Array): string {
  if (sameBytes(expected, actual)) return '';
  const hex = (byte: number | undefined): string => (byte === undefined ? 'the end' : `0x${byte.toString(16).padStart(2, '0')}`);
  let index = 0;
  while (index < expected.byteLength && index < actual.byteLength && expected[index] === actual[index]) index += 1;
  const lengths = expected.byteLength === actual.byteLength ? `${actual.byteLength} bytes` : `${actual.byteLength} bytes where ${expected.byteLength} were expected`;
  return `${lengths}; first difference at byte ${index} (${hex(actual[index])} where ${hex(expected[index])} was expected)`;
}

/** What `expectErrorCode` is checking, for the failure detail. */
export interface ExpectedError {
  /** What the call did, e.g. `read of a missing object`. */
  readonly doing: string;
  readonly fix?: string;
}

/**
 * Runs `action` and requires it to throw (or reject with) an error whose string `code` equals
 * `code`; returns that error. Errors are matched by code, never by class or message. A call that
 * succeeds, or fails with another code or none, fails the running check.
 */
export async function expectErrorCode(action: () => unknown, code: string, expected: ExpectedError): Promise<Error> {
  let result: unknown;
  try {
    result = await action();
  } catch (error) {
    if (error instanceof CheckFailure || error instanceof CheckSkipped) throw error;
    if (error instanceof Error && errorCode(error) === code) return error;
    fail(`${expected.doing} fails with code "${code}"`, `it threw ${describeError(error)}`, expected.fix);
  }
  return fail(`${expected.doing} fails with code "${code}"`, `it succeeded with ${describeValue(result)}`, expected.fix);
}

export interface RunCheckOptions {
  /** A body still running after this many milliseconds fails as timed out. Default 20,000. */
  readonly timeoutMs?: number;
}

/** A check body: returns an optional pass detail; throws to fail or skip. */
export type CheckBody = () => Promise<string | void> | string | void;

const DEFAULT_TIMEOUT_MS = 20_000;

class CheckTimedOut extends Error {}

/** Runs one check and records its outcome; never throws. */
export async function runCheck<Id extends CheckId>(
  definition: CheckDefinition<Id>,
  body: CheckBody,
  options: RunCheckOptions = {},
): Promise<CheckRecord<Id>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimedOut()), timeoutMs);
  });
  let status: CheckStatus;
  let detail: string;
  try {
    const outcome = await Promise.race([Promise.resolve().then(body), timeout]);
    status = 'pass';
    detail = typeof outcome === 'string' && outcome !== '' ? outcome : 'passed';
  } catch (error) {
    if (error instanceof CheckSkipped) {
      status = 'skip';
      detail = error.reason;
    } else if (error instanceof CheckFailure) {
      status = 'fail';
      detail = error.message;
    } else if (error instanceof CheckTimedOut) {
      status = 'fail';
      detail = formatFailureDetail({
        expected: `the check finishes within ${timeoutMs} ms`,
        actual: 'it was still waiting on the connector',
        fix: 'a call never settled: make every method resolve or reject, and bound long polls',
      });
    } else {
      status = 'fail';
      detail = formatFailureDetail({ expected: 'no unexpected error', actual: `the check threw ${describeError(error)}` });
    }
  } finally {
    clearTimeout(timer);
  }
  return { ...definition, status, detail, durationMs: Math.round((performance.now() - started) * 10) / 10 };
}

/** Records a check as skipped without running anything. */
export function skippedCheck<Id extends CheckId>(definition: CheckDefinition<Id>, reason: string): CheckRecord<Id> {
  return { ...definition, status: 'skip', detail: reason, durationMs: 0 };
}

/** Builds a report: `passed` is true when no check failed. */
export function summarizeChecks<Id extends CheckId>(kind: string, checks: readonly CheckRecord<Id>[]): CheckReport<Id> {
  return { kind, checks, passed: checks.every((check) => check.status !== 'fail') };
}

/** The failed checks of a report, in report order; `[]` when the report passed. */
export function failedChecks<Id extends CheckId>(report: CheckReport<Id>): CheckRecord<Id>[] {
  return report.checks.filter((check) => check.status === 'fail');
}

const STATUS_LABEL: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' };

/** A plain-text report for people: a summary line, then one line per check, details indented. */
export function formatCheckReport<Id extends CheckId>(report: CheckReport<Id>, title: string): string {
  const count = (status: CheckStatus): number => report.checks.filter((check) => check.status === status).length;
  const lines = [
    `${title} — ${report.kind}: ${report.passed ? 'PASSED' : 'FAILED'} ` +
      `(${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped)`,
  ];
  for (const check of report.checks) {
    const capability = check.capability === undefined ? '' : ` [${check.capability}]`;
    lines.push(`${STATUS_LABEL[check.status]} ${check.id}${capability} — ${check.name} (${check.durationMs} ms)`);
    for (const line of check.detail.split('\n')) lines.push(`     ${line}`);
  }
  return lines.join('\n');
}
