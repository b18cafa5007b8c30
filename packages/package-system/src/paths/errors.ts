/**
 * The closed set of error codes the containment primitives throw, and the translation of system
 * errors into them. Messages never name a path — not the root, not the relative path, not what it
 * resolved to — because a message travels to people and agents who must not learn the host's
 * layout. Machine-readable facts go in `details` as fixed strings (`reason`, and `errno` for a
 * system error), never a path. A system error is never attached as `cause`: Node's messages embed
 * the path.
 */
import {
  AlreadyExistsError,
  ContainmentViolationError,
  InvalidPathError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  PermissionDeniedError,
  UnavailableError,
  UnsupportedFileTypeError,
} from '../contracts/errors.js';
import type { ConnectorError, ErrorCode } from '../contracts/errors.js';

/**
 * Every code `resolveContained`, `openContainedHandle` and `listContained` can throw. Fixed: a
 * new code here is a breaking change.
 *
 * - `invalid_path` — the relative path is malformed (not a string, NUL byte, backslash, absolute),
 *   the root is not an absolute path, a name is too long, or symbolic links loop.
 * - `containment_violation` — the path leaves the root, lexically (`..`) or through a symlink; a
 *   dangling symlink on the way is refused the same way (it is never followed).
 * - `not_found` — the root or the target does not exist.
 * - `not_a_directory` — the root, an intermediate component, or a target expected to be a
 *   directory is not one.
 * - `is_a_directory` — a target expected to be a file is a directory.
 * - `already_exists` — a create-only open found an entry (a symlink, even a dangling one, counts).
 * - `permission_denied` — the host filesystem refused access (also a read-only filesystem).
 * - `unsupported_file_type` — a FIFO, socket or device; never read or written.
 * - `unavailable` — the host failed in a way the caller cannot fix by changing the path: out of
 *   descriptors, I/O error, `/proc` not mounted (openContainedHandle), not Linux, or the tree kept
 *   changing while it was being resolved.
 */
export const CONTAINMENT_ERROR_CODES = [
  'invalid_path',
  'containment_violation',
  'not_found',
  'not_a_directory',
  'is_a_directory',
  'already_exists',
  'permission_denied',
  'unsupported_file_type',
  'unavailable',
] as const satisfies readonly ErrorCode[];

export type ContainmentErrorCode = (typeof CONTAINMENT_ERROR_CODES)[number];

/** Which side failed: the configured root (a setup problem) or the path under it (a caller problem). */
export type FailureSite = 'root' | 'target';

export function invalidPath(reason: string, message: string): InvalidPathError {
  return new InvalidPathError(message, { details: { reason } });
}

export function escapesLexically(): ContainmentViolationError {
  return new ContainmentViolationError("The path leaves the source root through '..'.", { details: { reason: 'dot_dot' } });
}

export function escapesThroughSymlink(): ContainmentViolationError {
  return new ContainmentViolationError('The path resolves outside the source root through a symbolic link.', {
    details: { reason: 'symlink' },
  });
}

export function danglingSymlink(): ContainmentViolationError {
  return new ContainmentViolationError(
    'The path passes through a symbolic link whose target does not exist; such a link is never followed.',
    { details: { reason: 'dangling_symlink' } },
  );
}

export function unexpectedType(expected: 'file' | 'directory'): ConnectorError {
  return expected === 'file'
    ? new IsADirectoryError('The path names a directory where a file was expected.', { details: { reason: 'directory' } })
    : new NotADirectoryError('The path names a file where a directory was expected.', { details: { reason: 'file' } });
}

export function specialFile(): UnsupportedFileTypeError {
  return new UnsupportedFileTypeError(undefined, { details: { reason: 'special_file' } });
}

export function unavailable(reason: string, message: string): UnavailableError {
  return new UnavailableError(message, { details: { reason } });
}

export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Translates a Node system error into one of CONTAINMENT_ERROR_CODES, dropping its path-bearing message. */
export function fromSystemError(error: unknown, site: FailureSite): ConnectorError {
  const errno = errnoOf(error) ?? 'unknown';
  const details = { reason: site === 'root' ? 'root' : 'target', errno };
  const options = { details };
  switch (errno) {
    case 'ENOENT':
      return new NotFoundError(
        site === 'root' ? 'The source root does not exist.' : 'Nothing exists at that path inside the source root.',
        options,
      );
    case 'ENOTDIR':
      return new NotADirectoryError(
        site === 'root' ? 'The source root is not a directory.' : 'A component of the path is not a directory.',
        options,
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new PermissionDeniedError(
        site === 'root'
          ? 'The host filesystem denied access to the source root.'
          : 'The host filesystem denied access to that path.',
        options,
      );
    case 'ELOOP':
      return new InvalidPathError('The path passes through too many symbolic links (a link loop?).', options);
    case 'ENAMETOOLONG':
      return new InvalidPathError('The path, or one of its names, is longer than the host filesystem allows.', options);
    case 'EEXIST':
      return new AlreadyExistsError(
        'An entry already exists at that path (a symbolic link, even a dangling one, counts); nothing was created.',
        options,
      );
    case 'EISDIR':
      return new IsADirectoryError('The path names a directory where a file was expected.', options);
    case 'ENXIO':
    case 'ENODEV':
    case 'EOPNOTSUPP':
      return new UnsupportedFileTypeError(undefined, options);
    case 'EMFILE':
    case 'ENFILE':
      return new UnavailableError('The process has run out of file descriptors; retry when fewer files are open.', options);
    default:
      return new UnavailableError(`The host filesystem failed (${errno}); retry later.`, options);
  }
}
