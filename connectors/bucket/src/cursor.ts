/**
 * Opaque listing cursors. A cursor wraps the store's own position (an S3 continuation token, or
 * the pad's last key) together with the listing it belongs to, so a cursor from one listing is
 * refused by another instead of silently resuming somewhere else.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';

const VERSION = 'c1.';

export function wrapCursor(listing: string, position: string): string {
  return VERSION + Buffer.from(JSON.stringify({ l: listing, p: position }), 'utf8').toString('base64url');
}

/** The store position inside `cursor`. Throws `invalid_argument` for a malformed or foreign cursor. */
export function unwrapCursor(cursor: unknown, listing: string): string {
  if (typeof cursor !== 'string' || !cursor.startsWith(VERSION)) throw badCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor.slice(VERSION.length), 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const fields = parsed as { l?: unknown; p?: unknown } | null;
  if (fields === null || typeof fields !== 'object' || typeof fields.p !== 'string' || fields.l !== listing) throw badCursor();
  return fields.p;
}

function badCursor(): InvalidArgumentError {
  return new InvalidArgumentError('The cursor does not belong to this listing (it is malformed, or from another prefix); start the listing again without one.', {
    details: { argument: 'cursor' },
  });
}
