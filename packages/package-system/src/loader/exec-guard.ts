/**
 * The exec entry guard. `exec` and `detached.start` open a shell, so before connector code runs
 * the loader checks, in this order:
 *   1. every execRequires feature id is in `context.session.features` — a session missing any of
 *      them is refused with `permission_denied` naming all the missing ids;
 *   2. the request is well formed and `cwd` is a URI on the bound source (`invalid_argument`,
 *      `invalid_uri`);
 *   3. the source's path policy allows the cwd — an injected ExecPathPolicy must answer exactly
 *      `true`; anything else, or no policy at all, is `permission_denied` (deny by default).
 * The connector then receives a frozen copy of the request it was checked with, so a caller cannot
 * change `cwd` between the check and the call. The other detached verbs are not guarded: they
 * are identity-free transport keyed on a run id the platform already owns.
 */
import type { ExecContext, ExecRequest, SessionContext } from '../contracts/index.js';
import { InvalidArgumentError, PermissionDeniedError, parseSourceUri } from '../contracts/index.js';

/**
 * Decides whether `session` may run a command with working directory `cwdUri` (an exact URI on
 * `source`). Return `true` to allow; any other answer denies. A throw refuses the call with that
 * error.
 */
export type ExecPathPolicy = (session: SessionContext, cwdUri: string, source: string) => boolean | Promise<boolean>;

export interface ExecGuardOptions {
  readonly kind: string;
  readonly source: string;
  /** Frozen, non-empty feature ids from the binding provenance. */
  readonly execRequires: readonly string[];
  readonly pathPolicy: ExecPathPolicy | undefined;
}

export type ExecEntryOperation = 'exec' | 'detached.start';

/** Wraps one exec entry (`call` is already bound to the instance) with the checks above. */
export function guardExecEntry<T>(
  operation: ExecEntryOperation,
  call: (request: ExecRequest, context: ExecContext) => Promise<T>,
  options: ExecGuardOptions,
): (request: ExecRequest, context: ExecContext) => Promise<T> {
  return async (request, context) => {
    const session = requireSession(context, operation, options);
    const missing = options.execRequires.filter((feature) => session.features.has(feature) !== true);
    if (missing.length > 0 || options.execRequires.length === 0) {
      throw new PermissionDeniedError(
        options.execRequires.length === 0
          ? `Kind "${options.kind}" declares no entry features, so ${operation} is never allowed.`
          : `${operation} on source "${options.source}" needs the feature${missing.length > 1 ? 's' : ''} ${missing.map((id) => `"${id}"`).join(', ')}, which this session lacks.`,
        { details: { kind: options.kind, source: options.source, operation, missingFeatures: missing } },
      );
    }
    const checked = snapshotRequest(request, operation, options.source);
    const policy = options.pathPolicy;
    const allowed = policy === undefined ? false : await policy(session, checked.cwd, options.source);
    if (allowed !== true) {
      throw new PermissionDeniedError(
        policy === undefined
          ? `No exec path policy is configured, so ${operation} on source "${options.source}" is refused.`
          : `The path policy of source "${options.source}" does not allow ${operation} in "${checked.cwd}".`,
        { details: { kind: options.kind, source: options.source, operation, cwd: checked.cwd } },
      );
    }
    return call(checked, context);
  };
}

function requireSession(context: unknown, operation: ExecEntryOperation, options: ExecGuardOptions): SessionContext {
  const session: unknown = typeof context === 'object' && context !== null ? Reflect.get(context, 'session') : undefined;
  const features: unknown = typeof session === 'object' && session !== null ? Reflect.get(session, 'features') : undefined;
  if (typeof features !== 'object' || features === null || typeof Reflect.get(features, 'has') !== 'function') {
    throw new PermissionDeniedError(`${operation} on source "${options.source}" needs a caller session; none was given.`, {
      details: { kind: options.kind, source: options.source, operation },
    });
  }
  return session as SessionContext;
}

/** Reads each field once into a frozen copy; the connector gets exactly what was checked. */
function snapshotRequest(request: unknown, operation: ExecEntryOperation, source: string): ExecRequest {
  if (typeof request !== 'object' || request === null) {
    throw new InvalidArgumentError(`${operation} takes a request object { command, cwd, timeout?, env?, background? }.`);
  }
  const command: unknown = Reflect.get(request, 'command');
  const cwd: unknown = Reflect.get(request, 'cwd');
  const timeout: unknown = Reflect.get(request, 'timeout');
  const env: unknown = Reflect.get(request, 'env');
  const background: unknown = Reflect.get(request, 'background');
  if (typeof command !== 'string' || command === '') throw new InvalidArgumentError(`${operation} needs a non-empty command string.`);
  if (typeof cwd !== 'string') throw new InvalidArgumentError(`${operation} needs cwd, the exact source URI to run in.`);
  parseSourceUri(cwd, source);
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    throw new InvalidArgumentError(`${operation} timeout must be a positive number of milliseconds.`);
  }
  if (background !== undefined && typeof background !== 'boolean') throw new InvalidArgumentError(`${operation} background must be a boolean.`);
  return Object.freeze({
    command,
    cwd,
    ...(timeout === undefined ? {} : { timeout }),
    ...(env === undefined ? {} : { env: copyEnv(env, operation) }),
    ...(background === undefined ? {} : { background }),
  });
}

function copyEnv(env: unknown, operation: ExecEntryOperation): Readonly<Record<string, string>> {
  if (typeof env !== 'object' || env === null || Array.isArray(env)) {
    throw new InvalidArgumentError(`${operation} env must be an object of string values.`);
  }
  const copy: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string') throw new InvalidArgumentError(`${operation} env value "${name}" must be a string.`);
    copy[name] = value;
  }
  return Object.freeze(copy);
}
