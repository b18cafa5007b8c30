/**
 * The typed error taxonomy. Every error the package system, a connector or the platform throws
 * on purpose is a `ConnectorError` whose `code` is one of `ERROR_CODES`. Callers match on `code`,
 * never on the message or the class name, so codes are stable across releases; messages are for
 * people and must never contain a secret or a host path outside a source's root.
 *
 * `docs/errors.md` lists every code; `errors.test.ts` fails when that page and this list drift.
 */

export const ERROR_CODES = [
  'not_found',
  'already_exists',
  'permission_denied',
  'not_a_directory',
  'is_a_directory',
  'precondition_failed',
  'unsupported',
  'invalid_uri',
  'invalid_path',
  'invalid_argument',
  'invalid_config',
  'containment_violation',
  'unsupported_file_type',
  'unavailable',
  'rate_limited',
  'timeout',
  'too_large',
  'capability_mismatch',
  'os_uri_unresolvable',
  'manifest_invalid',
  'trust_violation',
  'port_version_unsupported',
  'binding_conflict',
  'kind_not_registered',
  'orphan_source',
  'connector_failed',
  'egress_refused',
  'sandbox_limit',
  'description_invalid',
  'scope_invalid',
  'store_damaged',
  'document_unreadable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Structured, secret-free facts about an error, safe to serialise into an API reply. */
export type ErrorDetails = Readonly<Record<string, string | number | boolean | null | readonly string[]>>;

export interface ConnectorErrorOptions {
  readonly cause?: unknown;
  readonly details?: ErrorDetails;
}

/** The one base class. Subclasses fix the code; `details` carries the machine-readable facts. */
export class ConnectorError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: ConnectorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = Object.freeze({ ...(options.details ?? {}) });
  }

  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

export function isConnectorError(value: unknown): value is ConnectorError {
  return value instanceof ConnectorError;
}

/** True when `value` is a ConnectorError carrying `code` — the way callers should match errors. */
export function hasErrorCode(value: unknown, code: ErrorCode): value is ConnectorError {
  return isConnectorError(value) && value.code === code;
}

export class NotFoundError extends ConnectorError {
  constructor(message = 'No object exists at that address.', options?: ConnectorErrorOptions) {
    super('not_found', message, options);
  }
}

export class AlreadyExistsError extends ConnectorError {
  constructor(message = 'An object already exists at that address.', options?: ConnectorErrorOptions) {
    super('already_exists', message, options);
  }
}

export class PermissionDeniedError extends ConnectorError {
  constructor(message = 'Permission denied.', options?: ConnectorErrorOptions) {
    super('permission_denied', message, options);
  }
}

export class NotADirectoryError extends ConnectorError {
  constructor(message = 'That address is not a directory.', options?: ConnectorErrorOptions) {
    super('not_a_directory', message, options);
  }
}

export class IsADirectoryError extends ConnectorError {
  constructor(message = 'That address is a directory.', options?: ConnectorErrorOptions) {
    super('is_a_directory', message, options);
  }
}

/** An ifMatch/If-None-Match condition did not hold; nothing was changed. */
export class PreconditionFailedError extends ConnectorError {
  constructor(message = 'The object changed since it was read (etag mismatch); nothing was written.', options?: ConnectorErrorOptions) {
    super('precondition_failed', message, options);
  }
}

/** An operation, or one argument of it, that this kind does not support. Names all three. */
export class UnsupportedOperationError extends ConnectorError {
  readonly kind: string;
  readonly operation: string;
  readonly argument: string | undefined;

  constructor(kind: string, operation: string, argument?: string, options: ConnectorErrorOptions = {}) {
    const what = argument === undefined ? `operation "${operation}"` : `argument "${argument}" of operation "${operation}"`;
    super('unsupported', `Connector kind "${kind}" does not support ${what}.`, {
      ...options,
      details: { ...options.details, kind, operation, ...(argument === undefined ? {} : { argument }) },
    });
    this.kind = kind;
    this.operation = operation;
    this.argument = argument;
  }
}

export class InvalidUriError extends ConnectorError {
  constructor(message: string, options?: ConnectorErrorOptions) {
    super('invalid_uri', message, options);
  }
}

/** A relative path that can never be valid (NUL byte, empty segment where one is required). */
export class InvalidPathError extends ConnectorError {
  constructor(message = 'The path is not valid (it contains a NUL byte or a malformed segment).', options?: ConnectorErrorOptions) {
    super('invalid_path', message, options);
  }
}

export class InvalidArgumentError extends ConnectorError {
  constructor(message: string, options?: ConnectorErrorOptions) {
    super('invalid_argument', message, options);
  }
}

export class InvalidConfigError extends ConnectorError {
  constructor(message: string, options?: ConnectorErrorOptions) {
    super('invalid_config', message, options);
  }
}

/** A path resolved outside its root (lexically, or through a symlink). Never names the path. */
export class ContainmentViolationError extends ConnectorError {
  constructor(message = 'The path resolves outside the source root.', options?: ConnectorErrorOptions) {
    super('containment_violation', message, options);
  }
}

/** A FIFO, socket or device where a regular file or directory was expected. */
export class UnsupportedFileTypeError extends ConnectorError {
  constructor(message = 'The path names a special file (FIFO, socket or device), which is never opened.', options?: ConnectorErrorOptions) {
    super('unsupported_file_type', message, options);
  }
}

/** The backing store cannot be reached now (offline host, stopped runtime, refused connection). */
export class UnavailableError extends ConnectorError {
  constructor(message = 'The source is unavailable right now.', options?: ConnectorErrorOptions) {
    super('unavailable', message, options);
  }
}

export class RateLimitedError extends ConnectorError {
  readonly retryAfterMs: number | undefined;

  constructor(message = 'The source is rate limiting requests; try again later.', retryAfterMs?: number, options: ConnectorErrorOptions = {}) {
    super('rate_limited', message, {
      ...options,
      details: { ...options.details, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
    });
    this.retryAfterMs = retryAfterMs;
  }
}

export class TimeoutError extends ConnectorError {
  constructor(message = 'The operation timed out.', options?: ConnectorErrorOptions) {
    super('timeout', message, options);
  }
}

export class TooLargeError extends ConnectorError {
  constructor(message = 'The object is larger than the limit for this operation.', options?: ConnectorErrorOptions) {
    super('too_large', message, options);
  }
}

/** capabilities() and the manifest's capabilities[] (or the detached facet) disagree. */
export class ConnectorCapabilityMismatch extends ConnectorError {
  constructor(message: string, options?: ConnectorErrorOptions) {
    super('capability_mismatch', message, options);
  }
}

/** The connector has no honest host path for this address; it never invents one. */
export class OsUriUnresolvableError extends ConnectorError {
  constructor(message = 'This source has no host filesystem path for that address.', options?: ConnectorErrorOptions) {
    super('os_uri_unresolvable', message, options);
  }
}

export interface ManifestIssue {
  /** JSON-pointer-like path of the offending field, e.g. `connectors[0].capabilities[2]`. */
  readonly path: string;
  /** What is wrong, for a person. */
  readonly message: string;
  /** What would be accepted instead. */
  readonly expected: string;
}

/** A manifest failed validation. `issues` names every bad field and what would be accepted. */
export class ManifestValidationError extends ConnectorError {
  readonly issues: readonly ManifestIssue[];

  constructor(issues: readonly ManifestIssue[], options: ConnectorErrorOptions = {}) {
    const first = issues[0];
    const summary = first === undefined ? 'The manifest is invalid.' : `${first.path}: ${first.message} Expected ${first.expected}.`;
    const more = issues.length > 1 ? ` (${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
    super('manifest_invalid', summary + more, {
      ...options,
      details: { ...options.details, paths: issues.map((issue) => issue.path) },
    });
    this.issues = Object.freeze(issues.map((issue) => Object.freeze({ ...issue })));
  }
}

/** A package's trust level does not allow what it tried to contribute or register. */
export class TrustViolationError extends ConnectorError {
  constructor(message: string, options?: ConnectorErrorOptions) {
    super('trust_violation', message, options);
  }
}

export class UnsupportedPortVersionError extends ConnectorError {
  constructor(message: string, options?: ConnectorErrorOptions) {
    super('port_version_unsupported', message, options);
  }
}

/** One connector instance offered for a second binding, or one source bound twice. */
export class BindingConflictError extends ConnectorError {
  constructor(message: string, options?: ConnectorErrorOptions) {
    super('binding_conflict', message, options);
  }
}

export class KindNotRegisteredError extends ConnectorError {
  constructor(kind: string, options: ConnectorErrorOptions = {}) {
    super('kind_not_registered', `No connector kind "${kind}" is registered.`, {
      ...options,
      details: { ...options.details, kind },
    });
  }
}

/** A source whose kind's metadata is gone (package removed) while its config remains. */
export class OrphanSourceError extends ConnectorError {
  constructor(source: string, kind: string, options: ConnectorErrorOptions = {}) {
    super('orphan_source', `Source "${source}" uses kind "${kind}", which is no longer installed.`, {
      ...options,
      details: { ...options.details, source, kind },
    });
  }
}

/** Connector code failed in a way it did not type (a bug, a crash); the cause is kept, not shown. */
export class ConnectorFailedError extends ConnectorError {
  constructor(message = 'The connector failed unexpectedly.', options?: ConnectorErrorOptions) {
    super('connector_failed', message, options);
  }
}

/**
 * The egress gate refused a request: an undeclared origin, a forbidden address class, a write in
 * audit mode, too many redirects, or a redirect URL carrying the credential. Names the origin only
 * (scheme, host and port) — never a path, query string or credential. `details.origin` and
 * `details.reason` carry the same facts for programs; `reason` is one of the gate's documented
 * refusal reasons (docs/egress.md).
 */
export class EgressRefusedError extends ConnectorError {
  readonly origin: string;
  readonly reason: string;

  constructor(origin: string, reason = 'refused', options: ConnectorErrorOptions = {}) {
    super('egress_refused', `The egress gate refused a request to ${origin} (${reason}).`, {
      ...options,
      details: { ...options.details, origin, reason },
    });
    this.origin = origin;
    this.reason = reason;
  }
}

/**
 * Sandboxed connector code broke a limit of its runtime: its time (a call, awaited promises
 * included, ran past its deadline), memory, or stack, or the runtime crashed. `details.limit` is
 * `time`, `memory`, `stack` or `crash`. The runtime was discarded; the next call gets a fresh one.
 */
export class SandboxLimitError extends ConnectorError {
  constructor(message = 'The sandboxed connector broke a limit of its runtime.', options?: ConnectorErrorOptions) {
    super('sandbox_limit', message, options);
  }
}

/**
 * A connector's describe() result broke the host Connector contract. `issues` names every problem
 * with its JSON path (e.g. `dimensions.date.type`) and what would be accepted;
 * `details.paths` lists the paths.
 */
export class DescriptionValidationError extends ConnectorError {
  readonly issues: readonly ManifestIssue[];

  constructor(message: string, issues: readonly ManifestIssue[] = [], options: ConnectorErrorOptions = {}) {
    super('description_invalid', message, {
      ...options,
      details: { ...options.details, paths: issues.map((issue) => issue.path) },
    });
    this.issues = Object.freeze(issues.map((issue) => Object.freeze({ ...issue })));
  }

  /** Builds the error with a message that lists every issue. */
  static fromIssues(issues: readonly ManifestIssue[], options?: ConnectorErrorOptions): DescriptionValidationError {
    const lines = issues.map((issue) => `${issue.path}: ${issue.message} Expected ${issue.expected}.`);
    const message = `describe() returned an invalid description (${issues.length} problem${issues.length === 1 ? '' : 's'}): ${lines.join(' ')}`;
    return new DescriptionValidationError(message, issues, options);
  }
}

/**
 * A scope (a host's, or a connector's `defaultScope`) broke the scope grammar of docs/scope.md or
 * named something the connector did not declare. `issues` names every problem with its JSON path
 * (e.g. `rules[1].exclude.value`) and what is accepted; `details.paths` lists the paths.
 */
export class ScopeValidationError extends ConnectorError {
  readonly issues: readonly ManifestIssue[];

  constructor(message: string, issues: readonly ManifestIssue[] = [], options: ConnectorErrorOptions = {}) {
    super('scope_invalid', message, {
      ...options,
      details: { ...options.details, paths: issues.map((issue) => issue.path) },
    });
    this.issues = Object.freeze(issues.map((issue) => Object.freeze({ ...issue })));
  }

  /** Builds the error with a message that lists every issue. */
  static fromIssues(issues: readonly ManifestIssue[], options?: ConnectorErrorOptions): ScopeValidationError {
    const lines = issues.map((issue) => `${issue.path}: ${issue.message} Expected ${issue.expected}.`);
    const message = `The scope is invalid (${issues.length} problem${issues.length === 1 ? '' : 's'}): ${lines.join(' ')}`;
    return new ScopeValidationError(message, issues, options);
  }
}

/**
 * The platform's own store cannot be trusted: the file is empty, is not a database, or fails its
 * integrity check. Nothing was created over it or written into it. `details.reason` is
 * `store_empty`, `store_not_a_database` or `store_corrupt`; the message names the file and what to do.
 */
export class StoreDamagedError extends ConnectorError {
  constructor(message = 'The store is damaged; restore it from a backup.', options?: ConnectorErrorOptions) {
    super('store_damaged', message, options);
  }
}

/**
 * A document's text could not be extracted: it is not the type it claims (`details.reason`
 * `wrong_type`), it is damaged or truncated (`malformed`), encrypted (`encrypted`), or the
 * extractor broke down on it (`crashed`). Only that document is affected; its bytes stay readable.
 */
export class DocumentUnreadableError extends ConnectorError {
  constructor(message = 'The document could not be read as text.', options?: ConnectorErrorOptions) {
    super('document_unreadable', message, options);
  }
}

/** Every concrete class with the code it carries, so docs and tests can enumerate them. */
export const ERROR_CLASSES = {
  not_found: NotFoundError,
  already_exists: AlreadyExistsError,
  permission_denied: PermissionDeniedError,
  not_a_directory: NotADirectoryError,
  is_a_directory: IsADirectoryError,
  precondition_failed: PreconditionFailedError,
  unsupported: UnsupportedOperationError,
  invalid_uri: InvalidUriError,
  invalid_path: InvalidPathError,
  invalid_argument: InvalidArgumentError,
  invalid_config: InvalidConfigError,
  containment_violation: ContainmentViolationError,
  unsupported_file_type: UnsupportedFileTypeError,
  unavailable: UnavailableError,
  rate_limited: RateLimitedError,
  timeout: TimeoutError,
  too_large: TooLargeError,
  capability_mismatch: ConnectorCapabilityMismatch,
  os_uri_unresolvable: OsUriUnresolvableError,
  manifest_invalid: ManifestValidationError,
  trust_violation: TrustViolationError,
  port_version_unsupported: UnsupportedPortVersionError,
  binding_conflict: BindingConflictError,
  kind_not_registered: KindNotRegisteredError,
  orphan_source: OrphanSourceError,
  connector_failed: ConnectorFailedError,
  egress_refused: EgressRefusedError,
  sandbox_limit: SandboxLimitError,
  description_invalid: DescriptionValidationError,
  scope_invalid: ScopeValidationError,
  store_damaged: StoreDamagedError,
  document_unreadable: DocumentUnreadableError,
} as const satisfies Record<ErrorCode, abstract new (...args: never[]) => ConnectorError>;
