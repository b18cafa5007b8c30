/** Checks 1 (describe()) and 7 (defaultScope): what the connector says about itself. */
import { orderingDimension } from '@inseam/connector';
import { ScopeValidationError } from '@neuralis/package-system/contracts';
import { listProblems, skip } from '@neuralis/package-system/testing';
import { validateDefaultScope } from '../../scope/index.js';
import { requireConnector, type TrialContext } from '../context.js';
import { DOC_SECTIONS, SectionFailure, failAt } from '../docs.js';

/** Check 1. The description was validated when the subject loaded; this reports the outcome. */
export function checkDescription(context: TrialContext): string {
  if (context.loadFailure !== undefined) throw new SectionFailure(context.loadFailure, context.loadSection ?? DOC_SECTIONS.describe);
  const { description } = requireConnector(context);
  const ordering = orderingDimension(description);
  const dimensions = Object.keys(description.dimensions);
  const origins = description.auth.origins.length === 0 ? 'none (an in-process connector that reaches no network)' : description.auth.origins.join(', ');
  return [
    `kind "${description.kind}"; capabilities ${description.capabilities.join(', ')}`,
    `auth: ${description.auth.acquire.type}, origins ${origins}`,
    `${dimensions.length} dimension${dimensions.length === 1 ? '' : 's'} (${dimensions.join(', ')}); ordering: ${ordering} (${description.dimensions[ordering]!.type})`,
    description.writes === undefined ? 'read-only' : `writes ${description.writes.mimes === '*' ? '*' : description.writes.mimes.join(', ')}`,
  ].join('; ');
}

/** Check 7. */
export function checkDefaultScope(context: TrialContext): string {
  const { description } = requireConnector(context);
  if (description.defaultScope === undefined) skip('describe() declares no defaultScope');
  try {
    validateDefaultScope(description);
  } catch (error) {
    if (!(error instanceof ScopeValidationError)) throw error;
    failAt(
      DOC_SECTIONS.defaultScope,
      'defaultScope follows the scope grammar and names only declared dimensions with values of their type (docs/scope.md)',
      listProblems(error.issues.map((issue) => `${issue.path}: ${issue.message}`)),
      listProblems(error.issues.map((issue) => `${issue.path} should be ${issue.expected}`)),
    );
  }
  const rules = description.defaultScope.rules?.length ?? 0;
  return `defaultScope validates (${rules} rule${rules === 1 ? '' : 's'}${description.defaultScope.window === undefined ? '' : ', a window'}${description.defaultScope.limits === undefined ? '' : ', limits'})`;
}
