/**
 * Node's system errors carry the path in their message, so they never leave this package as
 * they are: each is translated into a typed ConnectorError with a fixed message and the errno in
 * `details`, and is not attached as `cause`.
 */
import {
  AlreadyExistsError,
  ConnectorError,
  InvalidPathError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  PermissionDeniedError,
  UnavailableError,
  UnsupportedFileTypeError,
  isConnectorError,
} from '@neuralis/package-system/contracts';

export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A typed error for `error`; ConnectorErrors pass through unchanged. */
export function fsFailure(error: unknown): ConnectorError {
  if (isConnectorError(error)) return error;
  const errno = errnoOf(error) ?? 'unknown';
  const options = { details: { errno } };
  switch (errno) {
    case 'ENOENT':
      return new NotFoundError('Nothing exists at that path inside the source root.', options);
    case 'EEXIST':
    case 'ENOTEMPTY':
      return new AlreadyExistsError('An entry already exists at that path; nothing was changed.', options);
    case 'ENOTDIR':
      return new NotADirectoryError('A component of the path is not a folder.', options);
    case 'EISDIR':
      return new IsADirectoryError('The path names a folder where a file was expected.', options);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new PermissionDeniedError('The host filesystem denied access to that path.', options);
    case 'ENAMETOOLONG':
      return new InvalidPathError('The path, or one of its names, is longer than the host filesystem allows.', options);
    case 'ELOOP':
      return new InvalidPathError('The path passes through too many symbolic links (a link loop?).', options);
    case 'ENXIO':
    case 'ENODEV':
      return new UnsupportedFileTypeError(undefined, options);
    case 'ENOSPC':
    case 'EDQUOT':
      return new UnavailableError('The disk holding the source is full (or over quota); nothing was written.', options);
    case 'EMFILE':
    case 'ENFILE':
      return new UnavailableError('The process has run out of file descriptors; retry when fewer files are open.', options);
    default:
      return new UnavailableError(`The host filesystem failed (${errno}); retry later.`, options);
  }
}
