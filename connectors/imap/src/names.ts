/**
 * The host's names listing (the crawler's `HostNames`, with etags): every message and attachment
 * path of the shown mailboxes with its current etag, so an incremental sync diffs them against
 * the catalog and stats only what is new, gone or changed (packages/inseam/src/crawl/diff.ts).
 *
 * What it asks the server scales with change, not with the mailbox: per mailbox it keeps the
 * UIDVALIDITY, a MODSEQ watermark and each message's names (names-state.ts), in memory and, when
 * the crawler hands it a memo, in the store, so a new process continues where the last one ended.
 * The next call asks only `UID FETCH 1:* (UID FLAGS …) (CHANGEDSINCE <modseq> VANISHED)`
 * (CONDSTORE/QRESYNC, RFC 7162): the rows are the messages added or changed since, and VANISHED
 * names the expunged ones. Where the message count still disagrees afterwards (a server without
 * QRESYNC, or one that reported less), a `UID SEARCH ALL` diff finds the expunges. A mailbox
 * whose UIDVALIDITY changed, a server without CONDSTORE, a HIGHESTMODSEQ below the watermark (a
 * server restored from a backup), or a mailbox with neither state in memory nor a usable memo is
 * fetched in full (its state, and headers and structure of messages the facts cache lacks).
 *
 * The watermark is the highest MODSEQ seen in a complete answer (or the mailbox's HIGHESTMODSEQ
 * when larger): a change made while the FETCH ran gets a MODSEQ above every row already
 * answered, so it is in this answer or the next.
 */
import type { ImapFlow, MailboxObject } from 'imapflow';
import { fetchFacts, compactUids } from './messages.js';
import type { ImapSession, MailboxInfo } from './session.js';
import { FactsCache } from './facts-cache.js';
import { MEMO_PREFIX, decodeState, encodeState, memoKey, nameFacts, nameRows, type MailboxState, type NameFacts } from './names-state.js';

/** The crawler's memo of this host (packages/inseam/src/crawl/target.ts, `NamesMemo`). */
export interface NamesMemo {
  get(key: string): Promise<string | null>;
  put(key: string, value: string | null): Promise<void>;
  keys(): Promise<string[]>;
}

/** What the names listing asked the server, by kind (for tests and the benchmark's report). */
export interface NamesCounters {
  /** Mailboxes fetched in full. */
  full: number;
  /** Mailboxes whose state came from the memo (a new process). */
  fromMemo: number;
  /** Mailboxes asked only CHANGEDSINCE their watermark. */
  changedSince: number;
  /** Message rows those CHANGEDSINCE fetches answered. */
  changedRows: number;
  /** UIDs reported VANISHED. */
  vanished: number;
  /** Mailboxes whose expunges took a UID SEARCH ALL diff. */
  uidDiffs: number;
}

export class NamesListing {
  readonly #session: ImapSession;
  readonly #states = new Map<string, MailboxState>();
  readonly counters: NamesCounters = { full: 0, fromMemo: 0, changedSince: 0, changedRows: 0, vanished: 0, uidDiffs: 0 };

  constructor(session: ImapSession) {
    this.#session = session;
  }

  /** Paths in ascending UTF-16 code-unit order (the catalog's), each with its entry's etag. */
  async names(boxes: readonly MailboxInfo[], memo?: NamesMemo): Promise<{ paths: string[]; etags: (string | null)[] }> {
    const rows: (readonly [string, string | null])[] = [];
    const shown = new Set(boxes.map((box) => box.name));
    for (const name of [...this.#states.keys()]) if (!shown.has(name)) this.#states.delete(name);
    if (memo !== undefined) await forgetOthers(memo, boxes);
    for (const box of boxes) {
      const messages = await this.#session.withMailbox(box.name, (client, mailbox) => this.#refresh(client, mailbox, box, memo), { what: 'listing message names' });
      for (const facts of messages.values()) rows.push(...nameRows(facts, box));
    }
    rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { paths: rows.map((row) => row[0]), etags: rows.map((row) => row[1]) };
  }

  async #refresh(client: ImapFlow, mailbox: MailboxObject, box: MailboxInfo, memo: NamesMemo | undefined): Promise<ReadonlyMap<number, NameFacts>> {
    const config = this.#session.config;
    const cache = this.#session.facts;
    const uidValidity = mailbox.uidValidity.toString();
    const state = this.#states.get(box.name) ?? (await this.#remembered(box, memo));
    const condstore = client.enabled.has('CONDSTORE') && mailbox.noModseq !== true;
    const highest = mailbox.highestModseq;
    if (state === undefined || state.uidValidity !== uidValidity || !condstore || (highest !== undefined && highest < state.modseq)) {
      this.counters.full += 1;
      const all = mailbox.exists === 0 ? [] : await fetchFacts(client, mailbox, box, '1:*', config, cache);
      const messages = new Map(all.map((facts) => [facts.uid, nameFacts(facts)]));
      if (condstore) await this.#keep(box, { uidValidity, modseq: watermark(highest ?? 0n, all), messages }, memo);
      else await this.#forget(box, memo);
      return messages;
    }
    this.counters.changedSince += 1;
    const messages = new Map(state.messages);
    const vanished: number[] = [];
    const onExpunge = (event: { path?: string; uid?: number; vanished?: boolean }): void => {
      if (event.path === box.name && event.vanished === true && typeof event.uid === 'number') vanished.push(event.uid);
    };
    client.on('expunge', onExpunge);
    const changed: number[] = [];
    const rows = new Map<number, { flags: string[]; modseq: bigint | undefined }>();
    try {
      for await (const message of client.fetch('1:*', { uid: true, flags: true }, { uid: true, changedSince: state.modseq })) {
        rows.set(message.uid, { flags: [...(message.flags ?? [])].filter((flag) => flag !== '\\Recent').sort(), modseq: message.modseq });
      }
    } finally {
      client.off('expunge', onExpunge);
    }
    this.counters.changedRows += rows.size;
    this.counters.vanished += vanished.length;
    for (const uid of vanished) messages.delete(uid);
    for (const [uid, row] of rows) {
      const cached = cache.get(FactsCache.key(box.name, uidValidity, uid));
      const known = messages.get(uid) ?? (cached === undefined ? undefined : nameFacts(cached));
      if (known === undefined) changed.push(uid);
      else messages.set(uid, { ...known, flags: row.flags, modseq: row.modseq === undefined ? known.modseq : row.modseq.toString() });
    }
    // New messages: headers and structure (fetchFacts also refreshes their state).
    if (changed.length > 0) for (const facts of await fetchFacts(client, mailbox, box, compactUids(changed), config, cache)) messages.set(facts.uid, nameFacts(facts));
    const current = client.mailbox === false ? mailbox : client.mailbox;
    if (current.exists !== messages.size) {
      // Expunges VANISHED did not report (no QRESYNC): the UIDs the server has decide.
      this.counters.uidDiffs += 1;
      const found = current.exists === 0 ? [] : await client.search({ all: true }, { uid: true });
      const present = new Set(Array.isArray(found) ? found : []);
      for (const uid of [...messages.keys()]) if (!present.has(uid)) messages.delete(uid);
      const missing = [...present].filter((uid) => !messages.has(uid));
      if (missing.length > 0) for (const facts of await fetchFacts(client, mailbox, box, compactUids(missing), config, cache)) messages.set(facts.uid, nameFacts(facts));
    }
    const seen = [...rows.values()].reduce<bigint>((max, row) => (row.modseq !== undefined && row.modseq > max ? row.modseq : max), state.modseq);
    const next = { uidValidity, modseq: seen, messages };
    const same = seen === state.modseq && rows.size === 0 && vanished.length === 0 && messages.size === state.messages.size;
    // Unchanged: the memo, if any, holds this state already.
    if (same) this.#states.set(box.name, next);
    else await this.#keep(box, next, memo);
    return messages;
  }

  /** The mailbox's state as the memo keeps it, or undefined (no memo, none kept, or unusable). */
  async #remembered(box: MailboxInfo, memo: NamesMemo | undefined): Promise<MailboxState | undefined> {
    if (memo === undefined) return undefined;
    let text: string | null;
    try {
      text = await memo.get(memoKey(box.name));
    } catch {
      // An unreadable memo costs a full fetch of the mailbox, nothing more.
      return undefined;
    }
    const state = text === null ? null : decodeState(box.name, text);
    if (state === null) return undefined;
    this.counters.fromMemo += 1;
    return state;
  }

  async #keep(box: MailboxInfo, state: MailboxState, memo: NamesMemo | undefined): Promise<void> {
    this.#states.set(box.name, state);
    if (memo === undefined) return;
    try {
      await memo.put(memoKey(box.name), encodeState(box.name, state));
    } catch {
      // Kept in memory; the next process fetches this mailbox in full (a refused or failed write
      // must not fail a listing that is complete).
    }
  }

  async #forget(box: MailboxInfo, memo: NamesMemo | undefined): Promise<void> {
    this.#states.delete(box.name);
    if (memo !== undefined) await memo.put(memoKey(box.name), null).catch(() => undefined);
  }

  /** Forgets every mailbox's state (a reconnect to another server, a test). */
  clear(): void {
    this.#states.clear();
  }
}

/** Removes the memos of mailboxes no longer shown (deleted, renamed, or now shadowed). */
async function forgetOthers(memo: NamesMemo, boxes: readonly MailboxInfo[]): Promise<void> {
  const kept = new Set(boxes.map((box) => memoKey(box.name)));
  let keys: string[];
  try {
    keys = await memo.keys();
  } catch {
    return;
  }
  for (const key of keys) if (key.startsWith(MEMO_PREFIX) && !kept.has(key)) await memo.put(key, null).catch(() => undefined);
}

function watermark(start: bigint, facts: readonly { readonly modseq: string | null }[]): bigint {
  let max = start;
  for (const item of facts) {
    if (item.modseq === null) continue;
    const value = BigInt(item.modseq);
    if (value > max) max = value;
  }
  return max;
}
