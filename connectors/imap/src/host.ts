/**
 * The imap kind as the skill document's host `Connector` (what the crawler and the trial drive).
 *
 * - list: mailbox by mailbox in name order, each by ascending UID, a page at a time; the cursor
 *   is a UID position (cursor.ts). `since` keeps messages whose INTERNALDATE is at or after it
 *   (a day-granular SEARCH SINCE, then each candidate's INTERNALDATE). `order: "newest"`
 *   merges the mailboxes by arrival date, each taken by descending UID.
 * - Each message is followed by its attachments on the same page.
 * - names: every path with its etag, asking the server only what changed since the last call,
 *   of this process or, through the crawler's memo, an earlier one (CHANGEDSINCE MODSEQ,
 *   VANISHED; names.ts), so an incremental sync diffs those
 *   against the catalog instead of rescanning.
 * - stat/read answer for messages and attachments; a mailbox is a folder, not an object.
 * - watch, write, delete, setFlags and move: watch.ts and writes.ts.
 */
import { Readable } from 'node:stream';
import { simpleParser } from 'mailparser';
import type { ChangeEvent, Connector, Description, Entry, HostListOptions, HostListPage, HostReadOptions } from '@inseam/connector';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { ImapConfig } from './config.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { ListCursor, NewestCursor } from './cursor.js';
import { describeImap } from './describe.js';
import { attachmentEntries, messageEntry } from './entries.js';
import type { AttachmentPart, MessageFacts } from './entries.js';
import { entriesOf, factsOf, fetchFacts, searchUids } from './messages.js';
import { mailboxPath, mailboxSegments, parseHostPath, shadowedMailboxSegment } from './paths.js';
import type { ImapPath, MessageRef } from './paths.js';
import { notFound } from './not-found.js';
import type { ImapSession, MailboxInfo } from './session.js';
import { NamesListing, type NamesMemo } from './names.js';
import { ImapWatch } from './watch.js';
import { ImapWrites } from './writes.js';
import type { FlagChange } from './writes.js';

export const DEFAULT_PAGE_SIZE = 500;

export interface ImapHostOptions {
  /** Messages per list page (attachments come on top). Default 500. */
  readonly pageSize?: number;
  /** How long watch idles before it checks every mailbox. Default 30 s. */
  readonly pollMs?: number;
}

export class ImapHost implements Connector {
  readonly session: ImapSession;
  readonly #config: ImapConfig;
  readonly #description: Description;
  readonly #pageSize: number;
  readonly #writes: ImapWrites;
  readonly #watch: ImapWatch;
  /** The names listing's per-mailbox MODSEQ state (names.ts); its counters say what it asked. */
  readonly namesListing: NamesListing;

  constructor(session: ImapSession, options: ImapHostOptions = {}) {
    this.session = session;
    this.#config = session.config;
    this.#description = describeImap(session.config);
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.#watch = new ImapWatch(session, { pollMs: options.pollMs ?? 30_000 });
    this.#writes = new ImapWrites(session, this.#watch);
    this.namesListing = new NamesListing(session);
  }

  describe(): Description {
    return this.#description;
  }

  /** Mailboxes shown on this host: selectable, not shadowed by a message name, within `prefix` when given. */
  async #boxes(prefix: string | undefined): Promise<MailboxInfo[]> {
    const boxes = (await this.session.mailboxes()).filter((box) => !mailboxSegments(box.name, box.delimiter).some(shadowedMailboxSegment));
    if (prefix === undefined || prefix === '') return [...boxes];
    return boxes.filter((box) => {
      const path = `${mailboxPath(box.name, box.delimiter)}/`;
      return path.startsWith(prefix) || prefix.startsWith(path);
    });
  }

  async list(opts: HostListOptions = {}): Promise<HostListPage> {
    const since = opts.since === undefined ? undefined : sinceDate(opts.since);
    const boxes = await this.#boxes(opts.prefix);
    const cursor = opts.cursor === undefined ? undefined : decodeCursor(opts.cursor, opts.order);
    const page = opts.order === 'newest' ? await this.#listNewest(boxes, cursor as NewestCursor | undefined, since) : await this.#listForward(boxes, cursor, since);
    const prefix = opts.prefix;
    return { entries: prefix === undefined ? page.entries : page.entries.filter((entry) => entry.path.startsWith(prefix)), ...(page.cursor === undefined ? {} : { cursor: page.cursor }) };
  }

  /** Every path list() returns, in ascending order, with its etag, in one page (the crawler's names diff). */
  async names(options: { readonly cursor?: string; readonly memo?: NamesMemo } = {}): Promise<{ paths: string[]; etags: (string | null)[] }> {
    return this.namesListing.names(await this.#boxes(undefined), options.memo);
  }

  async #listForward(boxes: readonly MailboxInfo[], cursor: ListCursor | undefined, since: Date | undefined): Promise<HostListPage> {
    const at = cursor?.k === 'f' ? cursor : undefined;
    const entries: Entry[] = [];
    let remaining = this.#pageSize;
    for (const box of boxes) {
      if (at !== undefined && box.name < at.m) continue;
      const result = await this.session.withMailbox(
        box.name,
        async (client, mailbox) => {
          const uidValidity = mailbox.uidValidity.toString();
          const after = at !== undefined && at.m === box.name && at.v === uidValidity ? at.u : 0;
          const uids = (await searchUids(client, `${after + 1}:*`, since)).filter((uid) => uid > after);
          const taken = uids.slice(0, remaining);
          for (const facts of sortByUid(await fetchFacts(client, mailbox, box, taken, this.#config, this.session.facts))) entries.push(...entriesOf(facts, box));
          return { uidValidity, taken, more: uids.length > taken.length };
        },
        { what: 'listing messages' },
      );
      remaining -= result.taken.length;
      if (result.more || remaining === 0) {
        const last = result.taken[result.taken.length - 1] ?? (at?.m === box.name ? at.u : 0);
        return { entries, cursor: encodeCursor({ k: 'f', m: box.name, v: result.uidValidity, u: last }) };
      }
    }
    return { entries };
  }

  /** A k-way merge of the mailboxes (each by descending UID) on arrival date. */
  async #listNewest(boxes: readonly MailboxInfo[], cursor: NewestCursor | undefined, since: Date | undefined): Promise<HostListPage> {
    const bounds: Record<string, readonly [string, number]> = { ...(cursor?.h ?? {}) };
    type Head = { box: MailboxInfo; uidValidity: string; candidates: { uid: number; date: number }[]; exhaustive: boolean };
    const heads: Head[] = [];
    for (const box of boxes) {
      const bound = bounds[box.name];
      const head = await this.session.withMailbox(
        box.name,
        async (client, mailbox) => {
          const uidValidity = mailbox.uidValidity.toString();
          const below = bound !== undefined && bound[0] === uidValidity ? bound[1] : Number.POSITIVE_INFINITY;
          if (below === 0) return { box, uidValidity, candidates: [], exhaustive: true };
          const uids = Number.isFinite(below) ? (below <= 1 ? [] : await searchUids(client, `1:${below - 1}`, since)).filter((uid) => uid < below) : await searchUids(client, '1:*', since);
          const top = uids.slice(-this.#pageSize).reverse();
          const dates = new Map<number, number>();
          if (top.length > 0) {
            for await (const message of client.fetch(top.join(','), { uid: true, internalDate: true }, { uid: true })) dates.set(message.uid, new Date(message.internalDate ?? 0).getTime());
          }
          return { box, uidValidity, candidates: top.map((uid) => ({ uid, date: dates.get(uid) ?? 0 })), exhaustive: uids.length <= this.#pageSize };
        },
        { what: 'listing messages' },
      );
      heads.push(head);
    }
    const chosen = new Map<Head, number[]>();
    for (let count = 0; count < this.#pageSize; count += 1) {
      let best: Head | undefined;
      for (const head of heads) {
        const next = head.candidates[chosen.get(head)?.length ?? 0];
        if (next === undefined) continue;
        const bestNext = best === undefined ? undefined : best.candidates[chosen.get(best)?.length ?? 0]!;
        if (bestNext === undefined || next.date > bestNext.date) best = head;
      }
      if (best === undefined) break;
      const list = chosen.get(best) ?? [];
      list.push(best.candidates[list.length]!.uid);
      chosen.set(best, list);
    }
    const entries: Entry[] = [];
    let more = false;
    for (const head of heads) {
      const uids = chosen.get(head) ?? [];
      const done = head.exhaustive && uids.length === head.candidates.length;
      if (uids.length > 0) {
        const facts = await this.session.withMailbox(head.box.name, (client, mailbox) => fetchFacts(client, mailbox, head.box, uids, this.#config, this.session.facts), { what: 'listing messages' });
        const byUid = new Map(facts.map((item) => [item.uid, item]));
        for (const uid of uids) {
          const item = byUid.get(uid);
          if (item !== undefined) entries.push(...entriesOf(item, head.box));
        }
        bounds[head.box.name] = [head.uidValidity, done ? 0 : uids[uids.length - 1]!];
      } else if (head.candidates.length === 0) bounds[head.box.name] = [head.uidValidity, 0];
      if (!done) more = true;
    }
    // Entries of one page come out newest first across mailboxes too.
    entries.sort((a, b) => (a.mtime! < b.mtime! ? 1 : a.mtime! > b.mtime! ? -1 : 0));
    return more ? { entries, cursor: encodeCursor({ k: 'n', h: bounds }) } : { entries };
  }

  async #located(path: string): Promise<{ parsed: ImapPath; box: MailboxInfo | undefined }> {
    const parsed = parseHostPath(path, await this.session.delimiter());
    const name = parsed.type === 'root' ? undefined : parsed.type === 'mailbox' ? parsed.mailbox : parsed.message.mailbox;
    const box = name === undefined ? undefined : await this.session.mailbox(name);
    return { parsed, box };
  }

  /** The message's facts, or null when there is no such message. */
  async facts(ref: MessageRef): Promise<{ facts: MessageFacts; box: MailboxInfo } | null> {
    const box = await this.session.mailbox(ref.mailbox);
    if (box === undefined) return null;
    const facts = await this.session.withMailbox(box.name, (client, mailbox) => factsOf(client, mailbox, box, ref, this.#config, this.session.facts), { what: 'reading a message' });
    return facts === null ? null : { facts, box };
  }

  async stat(path: string): Promise<Entry | null> {
    const { parsed } = await this.#located(path);
    if (parsed.type !== 'message' && parsed.type !== 'attachment') return null;
    const found = await this.facts(parsed.message);
    if (found === null) return null;
    if (parsed.type === 'message') return messageEntry(found.facts, found.box);
    return attachmentEntries(found.facts, found.box).find((entry) => entry.path === path) ?? null;
  }

  /** The attachment a path names, or null. */
  attachmentOf(facts: MessageFacts, parsed: Extract<ImapPath, { type: 'attachment' }>): AttachmentPart | null {
    return facts.attachments.find((part) => part.index === parsed.index && part.filename === parsed.filename) ?? null;
  }

  async read(path: string, opts: HostReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const range = checkRange(opts.range);
    const { parsed, box } = await this.#located(path);
    if ((parsed.type !== 'message' && parsed.type !== 'attachment') || box === undefined) throw notFound(path);
    const ref = parsed.message;
    if (parsed.type === 'message' && range !== undefined) {
      const bytes = await this.session.withMailbox(
        box.name,
        async (client, mailbox) => {
          if (mailbox.uidValidity.toString() !== ref.uidValidity) return null;
          if (range[1] <= range[0]) {
            const exists = await client.fetchOne(String(ref.uid), { uid: true }, { uid: true });
            return exists === false ? null : Buffer.alloc(0);
          }
          const message = await client.fetchOne(String(ref.uid), { uid: true, source: { start: range[0], maxLength: range[1] - range[0] } }, { uid: true });
          return message === false ? null : (message.source ?? Buffer.alloc(0));
        },
        { what: 'reading a message' },
      );
      if (bytes === null) throw notFound(path);
      return bufferStream(bytes);
    }
    const held = await this.session.holdMailbox(
      box.name,
      async (client, mailbox) => {
        const facts = await factsOf(client, mailbox, box, ref, this.#config, this.session.facts);
        if (facts === null) return null;
        let part: string | undefined;
        if (parsed.type === 'attachment') {
          const attachment = this.attachmentOf(facts, parsed);
          if (attachment === null) return null;
          part = attachment.part;
        }
        const download = await client.download(String(ref.uid), part, { uid: true, decodeText: false });
        return 'content' in download && download.content !== undefined ? download.content : null;
      },
      'reading a message',
    );
    if (held.value === null) {
      held.release();
      throw notFound(path);
    }
    return nodeToWeb(held.value, held.release, range);
  }

  /** Subject, parties, the text (or HTML as text) of the body and attachment names: what a search of mail matches. */
  async searchText(path: string, maxBytes = 4 * 1024 * 1024): Promise<string | null> {
    const { parsed } = await this.#located(path);
    if (parsed.type !== 'message') return null;
    const found = await this.facts(parsed.message);
    if (found === null || found.facts.size > maxBytes) return null;
    const stream = await this.read(path);
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    let mail;
    try {
      mail = await simpleParser(Buffer.concat(chunks), { skipImageLinks: true, skipTextLinks: true });
    } catch {
      return null;
    }
    const parties = found.facts.envelope.parties.map((party) => `${party.role}: ${party.identity.slice('mailto:'.length)}`);
    const body = typeof mail.text === 'string' && mail.text.trim() !== '' ? mail.text : typeof mail.html === 'string' ? htmlText(mail.html) : '';
    return [found.facts.subject ?? '', ...parties, body, ...found.facts.attachments.map((part) => part.filename)].join('\n');
  }

  watch(emit: (event: ChangeEvent) => void): Promise<() => void> {
    return this.#watch.subscribe(emit, (box) => this.#boxes(undefined).then((boxes) => boxes.includes(box)));
  }

  write(path: string, body: ReadableStream<Uint8Array>, opts: { readonly ifMatch?: string } = {}): Promise<Entry> {
    return this.#writes.append(this, path, body, opts);
  }

  delete(path: string, opts: { readonly ifMatch?: string } = {}): Promise<void> {
    return this.#writes.remove(this, path, opts);
  }

  /** Sets and clears flags on a message, only while its etag is `ifMatch` (when given). */
  setFlags(path: string, change: FlagChange, opts: { readonly ifMatch?: string } = {}): Promise<Entry> {
    return this.#writes.flags(this, path, change, opts);
  }

  /** Moves a message to another mailbox (a move event, not a delete and an add). */
  move(path: string, mailbox: string, opts: { readonly ifMatch?: string } = {}): Promise<Entry> {
    return this.#writes.move(this, path, mailbox, opts);
  }

  async dispose(): Promise<void> {
    this.#watch.stopAll();
    await this.session.close();
  }
}

function sortByUid(facts: MessageFacts[]): MessageFacts[] {
  return facts.sort((a, b) => a.uid - b.uid);
}

function sinceDate(since: string): Date {
  const at = Date.parse(since);
  if (Number.isNaN(at)) throw new InvalidArgumentError('since must be an RFC 3339 date-time (the date dimension).', { details: { argument: 'since' } });
  return new Date(at);
}

function checkRange(range: readonly [number, number] | undefined): readonly [number, number] | undefined {
  if (range === undefined) return undefined;
  const [start, end] = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < 0) throw new InvalidArgumentError('A range is [start, end) of non-negative whole numbers.', { details: { argument: 'range' } });
  return [start, Math.max(start, end)];
}


function bufferStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(new Uint8Array(bytes));
      controller.close();
    },
  });
}

/** A web stream over a Node one, cut to `range`, calling `release` exactly once when it ends or is cancelled. */
function nodeToWeb(source: Readable, release: () => void, range: readonly [number, number] | undefined): ReadableStream<Uint8Array> {
  let released = false;
  const done = (): void => {
    if (!released) {
      released = true;
      release();
    }
  };
  let offset = 0;
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { done: end, value } = await iterator.next();
          if (end) {
            done();
            controller.close();
            return;
          }
          const chunk = new Uint8Array(value);
          const start = offset;
          offset += chunk.byteLength;
          if (range === undefined) {
            controller.enqueue(chunk);
            return;
          }
          const from = Math.max(range[0] - start, 0);
          const to = Math.min(range[1] - start, chunk.byteLength);
          if (to > from) controller.enqueue(chunk.subarray(from, to));
          if (offset >= range[1]) {
            source.destroy();
            done();
            controller.close();
            return;
          }
          if (to > from) return;
        }
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel() {
      source.destroy();
      done();
    },
  });
}

function htmlText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/giu, ' ')
    .replace(/<[^>]+>/gu, ' ')
    .replace(/&nbsp;/gu, ' ')
    .replace(/&amp;/gu, '&')
    .replace(/&lt;/gu, '<')
    .replace(/&gt;/gu, '>')
    .replace(/\s+/gu, ' ')
    .trim();
}
