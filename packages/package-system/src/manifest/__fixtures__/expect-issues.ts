import { expect } from 'vitest';
import { ManifestValidationError, type ManifestIssue } from '../../contracts/errors.js';

/** Runs `validate`, asserts it throws ManifestValidationError, and returns the issues. */
export function issuesOf(validate: () => unknown): readonly ManifestIssue[] {
  try {
    validate();
  } catch (error) {
    expect(error).toBeInstanceOf(ManifestValidationError);
    expect((error as ManifestValidationError).code).toBe('manifest_invalid');
    return (error as ManifestValidationError).issues;
  }
  throw new Error('expected a ManifestValidationError, but validation passed');
}

/**
 * Asserts exactly one issue sits at `path` and that its `expected` names what is accepted
 * (`accepted` is a fragment of it); returns that issue.
 */
export function expectIssueAt(issues: readonly ManifestIssue[], path: string, accepted: string | RegExp): ManifestIssue {
  const atPath = issues.filter((issue) => issue.path === path);
  expect(atPath, `issues at ${path}; all: ${JSON.stringify(issues, null, 1)}`).toHaveLength(1);
  const issue = atPath[0]!;
  if (typeof accepted === 'string') expect(issue.expected).toContain(accepted);
  else expect(issue.expected).toMatch(accepted);
  expect(issue.message.length).toBeGreaterThan(0);
  return issue;
}

/** Asserts the issue list is exactly these paths, in any order. */
export function expectPaths(issues: readonly ManifestIssue[], paths: readonly string[]): void {
  expect(issues.map((issue) => issue.path).sort()).toEqual([...paths].sort());
}
