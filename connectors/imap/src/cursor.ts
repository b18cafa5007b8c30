/**
 * List cursors: the position in UID terms, so a cursor from any earlier run resumes right after
 * the page it ended (the host keeps no state). Forward listings go mailbox by mailbox in name
 * order, each by ascending UID; a newest-first listing keeps, per mailbox, the UID below which it
 * has not listed yet. A UIDVALIDITY that changed since the cursor was made restarts that mailbox:
 * every path in it changed.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';

export interface ForwardCursor {
  readonly k: 'f';
  /** Mailbox name, its UIDVALIDITY, and the last UID listed in it. */
  readonly m: string;
  readonly v: string;
  readonly u: number;
}

export interface NewestCursor {
  readonly k: 'n';
  /** Per mailbox: [UIDVALIDITY, the UID below which nothing has been listed yet; 0 when done]. */
  readonly h: Readonly<Record<string, readonly [string, number]>>;
}

export type ListCursor = ForwardCursor | NewestCursor;

const MAX_CURSOR = 4096;

export function encodeCursor(cursor: ListCursor): string {
  const text = Buffer.from(JSON.stringify(cursor)).toString('base64url');
  if (text.length > MAX_CURSOR) throw new InvalidArgumentError('Too many mailboxes for one newest-first cursor; list without order or narrow the host\'s mailboxes.', { details: { argument: 'order' } });
  return text;
}

export function decodeCursor(text: string, order: 'newest' | undefined): ListCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const v = value as { k?: unknown; m?: unknown; v?: unknown; u?: unknown; h?: unknown } | undefined;
  if (order === undefined && v?.k === 'f' && typeof v.m === 'string' && typeof v.v === 'string' && Number.isSafeInteger(v.u)) return v as ForwardCursor;
  if (order === 'newest' && v?.k === 'n' && typeof v.h === 'object' && v.h !== null) return v as NewestCursor;
  throw new InvalidArgumentError('The cursor is not one this imap host issued for this listing; start the listing again without it.', { details: { argument: 'cursor' } });
}
