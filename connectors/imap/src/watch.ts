/**
 * watch(): one extra connection per host that IDLEs on INBOX and, whenever the server reports
 * something or `pollMs` passes, checks every shown mailbox's STATUS (UIDNEXT, UIDVALIDITY,
 * HIGHESTMODSEQ, MESSAGES) and fetches only what changed:
 *
 * - new messages: UIDs from the last UIDNEXT seen → `put` events (with their entries);
 * - flag changes: CHANGEDSINCE the last HIGHESTMODSEQ (CONDSTORE) → `put` events;
 * - expunges: VANISHED (EARLIER) in that same fetch where QRESYNC is on, else the difference
 *   between the UIDs known and those the server has now (a UID SEARCH) → `delete` events;
 * - a new UIDVALIDITY: every path in the mailbox changed → a `rescan` of the mailbox.
 *
 * The connection drops and comes back with exponential backoff (1 s doubling to 60 s); what
 * changed meanwhile is found by the same comparison, since the state is kept across reconnects.
 * Writes this host makes (writes.ts) are announced at once through `local`, so its own move is a
 * `move` event, not a delete and an add. The poll that later sees the same change stays quiet
 * about it: each announced path is kept with the etag it was announced at (or as gone) until a
 * poll finds exactly that, so a subscriber hears of every change once. A poll can also see the
 * change before it is announced (the server has moved the message; this host is still reading it
 * back): what a poll finds of a path this host is changing is held (`hold`) until the change is
 * announced or has failed, then let through unless it is the announcement's echo.
 */
import type { ImapFlow } from 'imapflow';
import type { ChangeEvent } from '@inseam/connector';
import { ENTRY_QUERY, messageFacts } from './entries.js';
import { entriesOf, searchUids } from './messages.js';
import { mailboxPath, messagePath } from './paths.js';
import type { ImapSession, MailboxInfo } from './session.js';

interface BoxState {
  uidValidity: string;
  uidNext: number;
  highestModseq: bigint | null;
  messages: number;
  /** Known UIDs, for the UID-set difference where there is no QRESYNC. */
  uids: Set<number> | null;
}

interface Subscriber {
  readonly emit: (event: ChangeEvent) => void;
  readonly shown: (box: MailboxInfo) => Promise<boolean>;
}

const MIN_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/** Announced changes a poll has not yet seen; the oldest are forgotten first (a late echo is harmless). */
const MAX_ANNOUNCED = 1_024;
const GONE = '';

export class ImapWatch {
  readonly #session: ImapSession;
  readonly #pollMs: number;
  readonly #subscribers = new Set<Subscriber>();
  readonly #state = new Map<string, BoxState>();
  #client: ImapFlow | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;
  /** Resolves once the first full check has run (the baseline later changes are found against). */
  #ready: Promise<void> | undefined;
  #markReady: (() => void) | undefined;
  /** path → the etag this host announced it at, or GONE for a path it announced as deleted or moved away. */
  readonly #announced = new Map<string, string>();
  /** path → how many of this host's changes to it are under way, and what polls found of it meanwhile. */
  readonly #held = new Map<string, { changes: number; found: ChangeEvent[] }>();

  constructor(session: ImapSession, options: { readonly pollMs: number }) {
    this.#session = session;
    this.#pollMs = options.pollMs;
  }

  /** Announces a change this host made itself. */
  local(event: ChangeEvent): void {
    if (event.type === 'delete') this.#remember(event.path, GONE);
    if (event.type === 'move' && event.from !== undefined) this.#remember(event.from, GONE);
    if ((event.type === 'put' || event.type === 'move') && event.entry?.etag !== undefined) this.#remember(event.path, event.entry.etag);
    for (const subscriber of this.#subscribers) subscriber.emit(event);
  }

  #remember(path: string, etag: string): void {
    this.#announced.delete(path);
    this.#announced.set(path, etag);
    if (this.#announced.size > MAX_ANNOUNCED) this.#announced.delete(this.#announced.keys().next().value!);
  }

  /**
   * Holds back what polls find of `paths` while this host changes them; the function it returns
   * lets them through (call it once the change is announced, or has failed).
   */
  hold(paths: readonly string[]): () => void {
    for (const path of paths) {
      const held = this.#held.get(path);
      if (held === undefined) this.#held.set(path, { changes: 1, found: [] });
      else held.changes += 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const path of paths) {
        const held = this.#held.get(path)!;
        held.changes -= 1;
        if (held.changes > 0) continue;
        this.#held.delete(path);
        for (const event of held.found) this.#found(event);
      }
    };
  }

  /** A change a poll found: held while this host is changing the path, else dropped as an echo or emitted. */
  #found(event: ChangeEvent): void {
    const held = this.#held.get(event.path);
    if (held !== undefined) held.found.push(event);
    else if (!this.#echo(event.path, event.type === 'delete' ? GONE : (event.entry?.etag ?? GONE))) this.#emit(event);
  }

  /** True, once, for the poll's echo of a change this host already announced. */
  #echo(path: string, etag: string): boolean {
    if (this.#announced.get(path) !== etag) return false;
    this.#announced.delete(path);
    return true;
  }

  /** Subscribes; resolves once the baseline is taken, to the function that stops the subscription. */
  async subscribe(emit: (event: ChangeEvent) => void, shown: (box: MailboxInfo) => Promise<boolean>): Promise<() => void> {
    const subscriber: Subscriber = { emit, shown };
    this.#subscribers.add(subscriber);
    if (this.#running === undefined) {
      this.#stopped = false;
      this.#ready = new Promise((resolve) => (this.#markReady = resolve));
      this.#running = this.#loop();
    }
    await this.#ready;
    return () => {
      this.#subscribers.delete(subscriber);
      if (this.#subscribers.size === 0) this.stopAll();
    };
  }

  stopAll(): void {
    this.#stopped = true;
    this.#subscribers.clear();
    this.#wake?.();
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) void client.logout().catch(() => client.close());
    this.#running = undefined;
    this.#markReady?.();
  }

  #emit(event: ChangeEvent): void {
    for (const subscriber of this.#subscribers) subscriber.emit(event);
  }

  async #loop(): Promise<void> {
    let backoff = MIN_BACKOFF_MS;
    while (!this.#stopped) {
      try {
        const client = await this.#session.open();
        if (this.#stopped) {
          await client.logout().catch(() => client.close());
          return;
        }
        this.#client = client;
        const changed = (): void => this.#wake?.();
        client.on('exists', changed);
        client.on('expunge', changed);
        client.on('flags', changed);
        const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
        backoff = MIN_BACKOFF_MS;
        while (!this.#stopped && client.usable) {
          await this.#checkAll(client);
          this.#markReady?.();
          await this.#idle(client, closed);
        }
      } catch {
        // The baseline is given up on only by stopping; a failed first check is retried like a drop.
      }
      if (this.#stopped) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /** IDLEs on INBOX until the server says something, `pollMs` passes, or the connection closes. */
  async #idle(client: ImapFlow, closed: Promise<void>): Promise<void> {
    await client.mailboxOpen('INBOX', { readOnly: true }).catch(() => undefined);
    const woken = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#pollMs);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    const idling = client.idle().catch(() => undefined);
    await Promise.race([woken, closed]);
    // Any command ends IDLE; a NOOP is the cheapest.
    if (client.usable) await client.noop().catch(() => undefined);
    await idling;
  }

  async #checkAll(client: ImapFlow): Promise<void> {
    const boxes = await this.#session.mailboxes(true);
    const shown: MailboxInfo[] = [];
    for (const box of boxes) {
      const [first] = [...this.#subscribers];
      if (first === undefined || (await first.shown(box))) shown.push(box);
    }
    for (const name of [...this.#state.keys()]) {
      if (!shown.some((box) => box.name === name)) {
        this.#state.delete(name);
        const gone = boxes.find((box) => box.name === name);
        this.#emit({ type: 'rescan', path: gone === undefined ? '' : mailboxPath(gone.name, gone.delimiter) });
      }
    }
    for (const box of shown) await this.#check(client, box);
  }

  async #check(client: ImapFlow, box: MailboxInfo): Promise<void> {
    const status = await client.status(box.name, { uidNext: true, uidValidity: true, highestModseq: true, messages: true });
    if (status === false) return;
    const uidValidity = status.uidValidity?.toString() ?? '0';
    const uidNext = status.uidNext ?? 1;
    const highestModseq = status.highestModseq ?? null;
    const messages = status.messages ?? 0;
    const known = this.#state.get(box.name);
    const qresync = client.enabled.has('QRESYNC');
    if (known === undefined) {
      const uids = qresync ? null : await this.#uidsOf(client, box);
      this.#state.set(box.name, { uidValidity, uidNext, highestModseq, messages, uids });
      return;
    }
    if (known.uidValidity !== uidValidity) {
      this.#state.set(box.name, { uidValidity, uidNext, highestModseq, messages, uids: qresync ? null : await this.#uidsOf(client, box) });
      this.#emit({ type: 'rescan', path: mailboxPath(box.name, box.delimiter) });
      return;
    }
    const unchanged = known.uidNext === uidNext && known.messages === messages && (highestModseq === null ? true : known.highestModseq === highestModseq);
    if (unchanged) return;
    const vanished = new Set<number>();
    const onExpunge = (event: { path?: string; uid?: number; vanished?: boolean }): void => {
      if (event.path === box.name && event.vanished === true && typeof event.uid === 'number') vanished.add(event.uid);
    };
    client.on('expunge', onExpunge);
    const puts: ChangeEvent[] = [];
    try {
      const lock = await client.getMailboxLock(box.name, { readOnly: true });
      try {
        const mailbox = client.mailbox;
        if (mailbox === false) return;
        const seen = new Set<number>();
        const collect = async (range: string, changedSince: bigint | undefined): Promise<void> => {
          for await (const message of client.fetch(range, ENTRY_QUERY, { uid: true, ...(changedSince === undefined ? {} : { changedSince }) })) {
            if (seen.has(message.uid)) continue;
            seen.add(message.uid);
            const facts = messageFacts(message, box, uidValidity, this.#session.config);
            const [entry, ...parts] = entriesOf(facts, box);
            puts.push({ type: 'put', path: entry!.path, entry: entry! });
            for (const part of parts) puts.push({ type: 'put', path: part.path, entry: part });
          }
        };
        if (known.highestModseq !== null && highestModseq !== null && client.enabled.has('CONDSTORE')) {
          // New messages have a MODSEQ above the old HIGHESTMODSEQ too, so one fetch finds both.
          await collect('1:*', known.highestModseq);
        } else if (uidNext > known.uidNext) {
          await collect(`${known.uidNext}:*`, undefined);
        }
        if (!qresync) {
          const now = await searchUids(client, '1:*', undefined);
          const present = new Set(now);
          for (const uid of known.uids ?? []) if (!present.has(uid)) vanished.add(uid);
          known.uids = present;
        }
      } finally {
        lock.release();
      }
    } finally {
      client.off('expunge', onExpunge);
    }
    Object.assign(known, { uidNext, highestModseq, messages });
    for (const uid of vanished) {
      const ref = { mailbox: box.name, uidValidity, uid };
      // Its attachments' names are gone with it; the next full sync drops their entries.
      this.#found({ type: 'delete', path: messagePath(ref, box.delimiter) });
    }
    for (const event of puts) this.#found(event);
  }

  async #uidsOf(client: ImapFlow, box: MailboxInfo): Promise<Set<number>> {
    const lock = await client.getMailboxLock(box.name, { readOnly: true });
    try {
      return new Set(await searchUids(client, '1:*', undefined));
    } finally {
      lock.release();
    }
  }
}
