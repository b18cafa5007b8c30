import { NotFoundError } from '@neuralis/package-system/contracts';

/** The one not_found answer for a path of an imap host. */
export function notFound(path: string): NotFoundError {
  return new NotFoundError(`There is no message or attachment at "${path}" (it may have been moved, expunged, or its mailbox's UIDVALIDITY changed).`, { details: { path } });
}
