/**
 * Paged listings with opaque cursors over the tree walker.
 *
 * A cursor names a position — the path of the last entry returned, and whether the walk was about
 * to descend into it — so any cursor can be resumed by any connector instance, even after a
 * restart, by seeking there again (one sorted directory read per level). To keep large listings
 * linear, the walker behind the most recent page of a listing is also kept in memory for a while
 * (5 minutes; at most 32 walkers holding a million names between them, the newest always kept),
 * keyed by the cursor it produced; the next page continues it directly when the cursor matches
 * exactly, and falls back to seeking otherwise (an old cursor replayed, the session evicted).
 *
 * A cursor is bound to its listing (the call and its arguments): handing it to another listing is
 * `invalid_argument`, as is a cursor that does not decode.
 */
import { createHash, randomBytes } from 'node:crypto';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { TreeWalker } from './walker.js';
import type { WalkEntryType, WalkPosition, WalkStats, WalkerOptions } from './walker.js';

export interface PageRequest {
  /** Identifies the listing (call and arguments); cursors only resume the listing they came from. */
  readonly listing: string;
  readonly cursor?: string;
  readonly limit: number;
  readonly walker: WalkerOptions;
  /** Entries offered per page at most, so a selective filter cannot stall the event loop. */
  readonly budget?: number;
}

/** Builds the caller's entry, or returns undefined to leave the entry out (a filter). */
export type EntryMaker<T> = (path: string, name: string, type: WalkEntryType, stats: WalkStats) => T | undefined;

export interface Page<T> {
  readonly entries: T[];
  readonly cursor?: string;
}

export interface CursorState {
  readonly listing: string;
  readonly session: string;
  readonly position: WalkPosition;
}

interface Session {
  readonly walker: TreeWalker;
  readonly cursor: string;
  readonly expires: number;
}

const CURSOR_VERSION = 1;
const MAX_SESSIONS = 32;
/** Names all kept walkers may hold together; the newest is kept even alone over it. */
const MAX_HELD_NAMES = 1_000_000;
const SESSION_TTL_MS = 5 * 60_000;

export class ListingSessions {
  private readonly sessions = new Map<string, Session>();

  async page<T>(request: PageRequest, make: EntryMaker<T>): Promise<Page<T>> {
    const listing = fingerprint(request.listing);
    let walker: TreeWalker;
    let sessionId: string;
    if (request.cursor === undefined) {
      walker = await TreeWalker.open(request.walker);
      sessionId = randomBytes(9).toString('base64url');
    } else {
      const state = decodeCursor(request.cursor, listing);
      sessionId = state.session;
      // Taken out while in use, so two concurrent calls with one cursor never share a walker.
      const live = this.take(sessionId, request.cursor);
      walker = live ?? (await TreeWalker.open(request.walker, state.position));
    }

    const entries: T[] = [];
    await walker.fill(
      request.limit,
      (path, name, type, stats) => {
        const entry = make(path, name, type, stats);
        if (entry === undefined) return false;
        entries.push(entry);
        return true;
      },
      request.budget,
    );
    const position = walker.position;
    if (walker.done || position === undefined) return { entries };
    const cursor = encodeCursor({ listing, session: sessionId, position });
    this.keep(sessionId, { walker, cursor, expires: Date.now() + SESSION_TTL_MS });
    return { entries, cursor };
  }

  private take(sessionId: string, cursor: string): TreeWalker | undefined {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return undefined;
    this.sessions.delete(sessionId);
    return session.cursor === cursor && session.expires > Date.now() ? session.walker : undefined;
  }

  /** Keeps the newest walker; evicts expired ones, then the oldest while over the count or name budget. */
  private keep(sessionId: string, session: Session): void {
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, session);
    const now = Date.now();
    let held = 0;
    for (const kept of this.sessions.values()) held += kept.walker.heldNames;
    for (const [id, old] of this.sessions) {
      if (id === sessionId) break;
      if (old.expires > now && this.sessions.size <= MAX_SESSIONS && held <= MAX_HELD_NAMES) continue;
      this.sessions.delete(id);
      held -= old.walker.heldNames;
    }
  }
}

/** A short, stable tag for a listing's identity; it binds a cursor to the listing it came from. */
export function fingerprint(listing: string): string {
  return createHash('sha256').update(listing).digest('base64url').slice(0, 16);
}

export function encodeCursor(state: CursorState): string {
  const payload = { v: CURSOR_VERSION, l: state.listing, s: state.session, n: state.position.names, d: state.position.descend ? 1 : 0 };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/** Decodes a cursor for `listing`; throws `invalid_argument` for anything else. */
export function decodeCursor(cursor: string, listing: string): CursorState {
  const invalid = (): never => {
    throw new InvalidArgumentError('The cursor is not one this listing returned; start the listing again without a cursor.', {
      details: { argument: 'cursor' },
    });
  };
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 65_536) return invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return invalid();
  }
  const { v, l, s, n, d } = (payload ?? {}) as Record<string, unknown>;
  const namesValid =
    Array.isArray(n) &&
    n.length > 0 &&
    n.every((name) => typeof name === 'string' && name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0'));
  if (v !== CURSOR_VERSION || l !== listing || typeof s !== 'string' || !namesValid || (d !== 0 && d !== 1)) return invalid();
  return { listing, session: s, position: { names: n as string[], descend: d === 1 } };
}
