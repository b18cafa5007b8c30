/**
 * The host's names listing (the crawler's `HostNames`, with etags): every message and attachment
 * path of the shown mailboxes with its current etag, so an incremental sync diffs them against
 * the catalog and stats only what is new, gone or changed (packages/inseam/src/crawl/diff.ts).
 *
 * What it asks the server scales with change, not with the mailbox, after the first call of a
 * process: per mailbox it keeps the UIDVALIDITY, a MODSEQ watermark and each message's facts.
 * The next call asks only `UID FETCH 1:* (UID FLAGS …) (CHANGEDSINCE <modseq> VANISHED)`
 * (CONDSTORE/QRESYNC, RFC 7162): the rows are the messages added or changed since, and VANISHED
 * names the expunged ones. Where the message count still disagrees afterwards (a server without
 * QRESYNC, or one that reported less), a `UID SEARCH ALL` diff finds the expunges. A mailbox
 * whose UIDVALIDITY changed, a server without CONDSTORE, or a mailbox this process has not seen
 * is fetched in full (its state, and headers and structure of messages the facts cache lacks).
 *
 * The watermark is the highest MODSEQ seen in a complete answer (or the mailbox's HIGHESTMODSEQ
 * when larger): a change made while the FETCH ran gets a MODSEQ above every row already
 * answered, so it is in this answer or the next.
 */
import type { ImapFlow, MailboxObject } from 'imapflow';
import type { MessageFacts } from './entries.js';
import { entriesOf, fetchFacts, compactUids } from './messages.js';
import type { ImapSession, MailboxInfo } from './session.js';
import { FactsCache } from './facts-cache.js';

interface MailboxState {
  readonly uidValidity: string;
  readonly modseq: bigint;
  readonly messages: ReadonlyMap<number, MessageFacts>;
}

/** What the names listing asked the server, by kind (for tests and the benchmark's report). */
export interface NamesCounters {
  /** Mailboxes fetched in full. */
  full: number;
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
  readonly counters: NamesCounters = { full: 0, changedSince: 0, changedRows: 0, vanished: 0, uidDiffs: 0 };

  constructor(session: ImapSession) {
    this.#session = session;
  }

  /** Paths in ascending UTF-16 code-unit order (the catalog's), each with its entry's etag. */
  async names(boxes: readonly MailboxInfo[]): Promise<{ paths: string[]; etags: (string | null)[] }> {
    const rows: (readonly [string, string | null])[] = [];
    const shown = new Set(boxes.map((box) => box.name));
    for (const name of [...this.#states.keys()]) if (!shown.has(name)) this.#states.delete(name);
    for (const box of boxes) {
      const messages = await this.#session.withMailbox(box.name, (client, mailbox) => this.#refresh(client, mailbox, box), { what: 'listing message names' });
      for (const facts of messages.values()) for (const entry of entriesOf(facts, box)) rows.push([entry.path, entry.etag ?? null]);
    }
    rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { paths: rows.map((row) => row[0]), etags: rows.map((row) => row[1]) };
  }

  async #refresh(client: ImapFlow, mailbox: MailboxObject, box: MailboxInfo): Promise<ReadonlyMap<number, MessageFacts>> {
    const config = this.#session.config;
    const cache = this.#session.facts;
    const uidValidity = mailbox.uidValidity.toString();
    const state = this.#states.get(box.name);
    const condstore = client.enabled.has('CONDSTORE') && mailbox.noModseq !== true;
    if (state === undefined || state.uidValidity !== uidValidity || !condstore) {
      this.counters.full += 1;
      const all = mailbox.exists === 0 ? [] : await fetchFacts(client, mailbox, box, '1:*', config, cache);
      const messages = new Map(all.map((facts) => [facts.uid, facts]));
      if (condstore) this.#states.set(box.name, { uidValidity, modseq: watermark(mailbox.highestModseq ?? 0n, all), messages });
      else this.#states.delete(box.name);
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
      const known = messages.get(uid) ?? cache.get(FactsCache.key(box.name, uidValidity, uid));
      if (known === undefined) changed.push(uid);
      else messages.set(uid, { ...known, flags: row.flags, modseq: row.modseq === undefined ? known.modseq : row.modseq.toString() });
    }
    // New messages: headers and structure (fetchFacts also refreshes their state).
    if (changed.length > 0) for (const facts of await fetchFacts(client, mailbox, box, compactUids(changed), config, cache)) messages.set(facts.uid, facts);
    const current = client.mailbox === false ? mailbox : client.mailbox;
    if (current.exists !== messages.size) {
      // Expunges VANISHED did not report (no QRESYNC): the UIDs the server has decide.
      this.counters.uidDiffs += 1;
      const found = current.exists === 0 ? [] : await client.search({ all: true }, { uid: true });
      const present = new Set(Array.isArray(found) ? found : []);
      for (const uid of [...messages.keys()]) if (!present.has(uid)) messages.delete(uid);
      const missing = [...present].filter((uid) => !messages.has(uid));
      if (missing.length > 0) for (const facts of await fetchFacts(client, mailbox, box, compactUids(missing), config, cache)) messages.set(facts.uid, facts);
    }
    const seen = [...rows.values()].reduce<bigint>((max, row) => (row.modseq !== undefined && row.modseq > max ? row.modseq : max), state.modseq);
    this.#states.set(box.name, { uidValidity, modseq: watermark(seen, []), messages });
    return messages;
  }

  /** Forgets every mailbox's state (a reconnect to another server, a test). */
  clear(): void {
    this.#states.clear();
  }
}

function watermark(start: bigint, facts: readonly MessageFacts[]): bigint {
  let max = start;
  for (const item of facts) {
    if (item.modseq === null) continue;
    const value = BigInt(item.modseq);
    if (value > max) max = value;
  }
  return max;
}
