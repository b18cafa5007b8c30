/**
 * A host's effective scope is its own scope merged over its kind's `defaultScope`:
 *
 * - rules: the host's rules first, then the default's. First match wins, so a host `include`
 *   can take back what a default `exclude` leaves out (`{ include: { dim: "path", op: "glob",
 *   value: "node_modules/**" } }`), and `{ include: { all: [] } }` as the host's last rule turns
 *   every default exclude off;
 * - window bounds (`from`, `to`, `last`) as one group: the host's if it sets any of them, else the
 *   default's (so a host `last` never meets a default `from`); `outside` on its own, host first;
 * - limits key by key, host first.
 */
import { ScopeValidationError } from '@neuralis/package-system/contracts';
import type { Description, Scope } from '@inseam/connector';
import { compileScope, type CompileScopeOptions, type CompiledScope } from './compile.js';
import { scopeIssues } from './validate.js';

type Window = NonNullable<Scope['window']>;

/** Merges two scopes by the rule above. Neither is validated here; compileScope validates the result. */
export function mergeScopes(defaultScope: Scope | undefined, hostScope: Scope | undefined): Scope {
  const base = defaultScope ?? {};
  const host = hostScope ?? {};
  const window = mergeWindow(base.window, host.window);
  const rules = [...(host.rules ?? []), ...(base.rules ?? [])];
  const limits = { ...base.limits, ...host.limits };
  return {
    ...(window === undefined ? {} : { window }),
    ...(rules.length === 0 ? {} : { rules }),
    ...(Object.keys(limits).length === 0 ? {} : { limits }),
  };
}

function mergeWindow(base: Window | undefined, host: Window | undefined): Window | undefined {
  if (base === undefined && host === undefined) return undefined;
  const hostBounds = host !== undefined && (host.from !== undefined || host.to !== undefined || host.last !== undefined);
  const bounds = hostBounds ? host : base;
  const outside = host?.outside ?? base?.outside;
  const window: Window = {
    ...(bounds?.from === undefined ? {} : { from: bounds.from }),
    ...(bounds?.to === undefined ? {} : { to: bounds.to }),
    ...(bounds?.last === undefined ? {} : { last: bounds.last }),
    ...(outside === undefined ? {} : { outside }),
  };
  return Object.keys(window).length === 0 ? undefined : window;
}

/**
 * The crawler's entry point: validates the kind's `defaultScope` (issue paths `defaultScope.…`)
 * and the host's scope (paths as written) — every problem of both in one `ScopeValidationError`
 * (`scope_invalid`) — then merges and compiles them.
 */
export function compileHostScope(description: Description, hostScope: unknown, options: CompileScopeOptions = {}): CompiledScope {
  const issues = [
    ...(description.defaultScope === undefined ? [] : scopeIssues(description.defaultScope, description, 'defaultScope')),
    ...(hostScope === undefined ? [] : scopeIssues(hostScope, description, '')),
  ];
  if (issues.length > 0) throw ScopeValidationError.fromIssues(issues);
  return compileScope(mergeScopes(description.defaultScope, hostScope as Scope | undefined), description, options);
}
