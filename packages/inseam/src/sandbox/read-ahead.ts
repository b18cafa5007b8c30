/**
 * Reading a listing one page ahead, in the sandbox process. The sandbox process and the platform
 * run on different cores; while the platform receives and checks a page, the module can already
 * be building the next one. `ModuleInstance` (runtime.ts) runs the calls; this file decides which
 * call to run ahead and which platform call it answers.
 *
 * Rules. A list() call *continues* a listing when its cursor is the one the listing's previous
 * page returned (a listing is a prefix, since and order). When a continuing call's page comes back
 * with a cursor, list() for that cursor runs at once, as a call of the sandbox process's own (a
 * negative id the platform never sees). The next list() the platform sends for that listing takes
 * it: with exactly that cursor, the page is answered from the read-ahead (or, still running, when
 * it ends); with any other cursor the read-ahead is dropped. A read-ahead that failed, or that
 * finished more than READ_AHEAD_MAX_AGE_MS ago, is dropped and the call runs afresh. So a module
 * runs at most one list() nobody asked for per listing, and only once the caller has shown it is
 * paging through; a first page never reads ahead.
 */

/** A read-ahead page older than this when asked for is dropped and the call runs afresh. */
export const READ_AHEAD_MAX_AGE_MS = 10_000;
/** Listings read ahead at once; starting one more drops the oldest. */
const MAX_READ_AHEADS = 4;
/** Listings whose last cursor is remembered. */
const MAX_REMEMBERED = 16;
const LIST_OPTIONS: ReadonlySet<string> = new Set(['prefix', 'cursor', 'since', 'order']);

/** A list() call the platform made, as far as reading ahead is concerned. */
export interface ListCall {
  /** The listing: prefix, since and order. */
  readonly key: string;
  readonly cursor: string | undefined;
  /** The call spec as sent (method, args, timeoutMs). */
  readonly spec: Readonly<Record<string, unknown>>;
  readonly options: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** One page read ahead. */
export interface ReadAhead {
  /** The sandbox process's own call id (negative). */
  readonly id: number;
  readonly key: string;
  readonly cursor: string;
  /** The platform call waiting for it, once one asked while it ran. */
  claimedBy: number | undefined;
  /** Its successful outcome once it finished: the outcome text, or the page in binary form. */
  outcome: string | Uint8Array | undefined;
  /** The finished page's next cursor when known (null: none; undefined: read it from the text). */
  next: string | null | undefined;
  /** Whether the finished page's list() waited on something (see ModuleInstance #pageOut). */
  waited: boolean;
  settledAt: number;
}

/**
 * The list() call a parsed call spec stands for: method `list` with one argument of string
 * `prefix`, `cursor`, `since` and `order` only (as SandboxedConnector sends). Undefined for any
 * other call.
 */
export function listCallOf(spec: unknown, timeoutMs: number): ListCall | undefined {
  if (typeof spec !== 'object' || spec === null) return undefined;
  const { method, args } = spec as Record<string, unknown>;
  if (method !== 'list' || !Array.isArray(args) || args.length > 1) return undefined;
  const options = args[0] ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return undefined;
  const strings: Record<string, string> = {};
  for (const [name, value] of Object.entries(options as Record<string, unknown>)) {
    if (!LIST_OPTIONS.has(name) || typeof value !== 'string') return undefined;
    strings[name] = value;
  }
  return {
    key: JSON.stringify([strings['prefix'] ?? null, strings['since'] ?? null, strings['order'] ?? null]),
    cursor: strings['cursor'],
    spec: spec as Record<string, unknown>,
    options: strings,
    timeoutMs,
  };
}

/** The call spec text of the page after `call`'s, at `cursor`. */
export function nextPageSpec(call: ListCall, cursor: string): string {
  return JSON.stringify({ ...call.spec, args: [{ ...call.options, cursor }] });
}

/** The `cursor` of a successful outcome's page, read from its text (the JSON.stringify path). */
export function cursorInOutcome(outcome: string): string | undefined {
  try {
    const parsed = JSON.parse(outcome) as { value?: { cursor?: unknown } };
    const cursor = parsed.value?.cursor;
    return typeof cursor === 'string' ? cursor : undefined;
  } catch {
    return undefined;
  }
}

export class ReadAheads {
  /** Listing key → the cursor its last page (sent to the platform) returned. */
  readonly #returned = new Map<string, string>();
  /** Listing key → its read-ahead. */
  readonly #ahead = new Map<string, ReadAhead>();

  /**
   * Records the page the platform is sent for `call` (its next cursor, if any). Returns whether
   * the page after it should be read ahead now: `call` continued its listing and there is a next page.
   */
  pageSent(call: ListCall, next: string | undefined): boolean {
    const continues = call.cursor !== undefined && this.#returned.get(call.key) === call.cursor;
    this.#returned.delete(call.key);
    if (next === undefined || next === '') return false;
    this.#returned.set(call.key, next);
    if (this.#returned.size > MAX_REMEMBERED) this.#returned.delete(this.#returned.keys().next().value as string);
    return continues;
  }

  /** Starts keeping a read-ahead of `call`'s listing at `cursor` under `id`. */
  start(id: number, call: ListCall, cursor: string): ReadAhead {
    const ahead: ReadAhead = { id, key: call.key, cursor, claimedBy: undefined, outcome: undefined, next: undefined, waited: false, settledAt: 0 };
    this.#ahead.delete(call.key);
    this.#ahead.set(call.key, ahead);
    if (this.#ahead.size > MAX_READ_AHEADS) this.#ahead.delete(this.#ahead.keys().next().value as string);
    return ahead;
  }

  /** Whether `ahead` is still kept (not dropped or taken). */
  holds(ahead: ReadAhead): boolean {
    return this.#ahead.get(ahead.key) === ahead;
  }

  /**
   * The read-ahead that answers `call`, if any: finished (and then no longer kept) or still running
   * and not yet claimed. A read-ahead of the same listing at another cursor, or a stale one, is dropped.
   */
  take(call: ListCall, now: number): ReadAhead | undefined {
    const ahead = this.#ahead.get(call.key);
    if (ahead === undefined) return undefined;
    if (ahead.cursor !== call.cursor) {
      this.#ahead.delete(call.key);
      return undefined;
    }
    if (ahead.outcome === undefined) return ahead.claimedBy === undefined ? ahead : undefined;
    this.#ahead.delete(call.key);
    return now - ahead.settledAt <= READ_AHEAD_MAX_AGE_MS ? ahead : undefined;
  }

  /** The kept read-ahead running under `id`. */
  byId(id: number): ReadAhead | undefined {
    for (const ahead of this.#ahead.values()) if (ahead.id === id) return ahead;
    return undefined;
  }

  drop(ahead: ReadAhead): void {
    if (this.holds(ahead)) this.#ahead.delete(ahead.key);
  }

  clear(): void {
    this.#ahead.clear();
    this.#returned.clear();
  }
}
