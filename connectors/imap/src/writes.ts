/**
 * What an imap host changes, each only as the caller's permissions allow (the platform checks
 * them before any of this runs; a new host is read only), and each conditional when `ifMatch` is
 * given: the message's current etag — its MODSEQ and flags — must be that one, or nothing is done
 * and `precondition_failed` is thrown.
 *
 * - write: APPENDs a new message (`message/rfc822` bytes) to the Drafts mailbox, flagged \Draft;
 *   the path written names the mailbox and any `*.eml` name, and the entry returned has the
 *   message's real path. A message's bytes never change in IMAP, so replacing one is refused.
 * - setFlags: STORE with UNCHANGEDSINCE (CONDSTORE), so a change made meanwhile by another
 *   client wins and ours is refused. Only \Seen, \Flagged, \Answered, \Draft and keywords.
 * - move: UID MOVE (or COPY + expunge where MOVE is missing); the new UID comes from COPYUID, and a
 *   `move` event says so, so the catalog keeps the entry as moved rather than deleted and added.
 * - delete: moves the message to Trash; expunges it outright only when the host allows it
 *   (`allowExpunge`) or it is in Trash already.
 */
import type { ImapFlow, MailboxObject } from 'imapflow';
import type { ChangeEvent, Entry } from '@inseam/connector';
import { InvalidArgumentError, PreconditionFailedError, TooLargeError, UnsupportedOperationError } from '@neuralis/package-system/contracts';
import { attachmentEntries, messageEntry, messageEtag } from './entries.js';
import type { MessageFacts } from './entries.js';
import { notFound } from './not-found.js';
import { factsOf } from './messages.js';
import { messagePath, parseHostPath } from './paths.js';
import type { MessageRef } from './paths.js';
import type { ImapSession, MailboxInfo } from './session.js';

export interface FlagChange {
  readonly add?: readonly string[];
  readonly remove?: readonly string[];
}

/** What the writes need of the host: the entry at a path as it is now. */
export interface EntryLookup {
  stat(path: string): Promise<Entry | null>;
}

export const MAX_APPEND_BYTES = 25 * 1024 * 1024;
const FLAG = /^(?:\\(?:Seen|Flagged|Answered|Draft)|\$?[A-Za-z0-9_.-]{1,64})$/u;

function checkFlags(flags: readonly string[] | undefined, field: string): string[] {
  if (flags === undefined) return [];
  if (!Array.isArray(flags)) throw new InvalidArgumentError(`${field} must be a list of flags.`, { details: { argument: field } });
  for (const flag of flags) {
    if (typeof flag !== 'string' || !FLAG.test(flag)) {
      throw new InvalidArgumentError(`${field} holds a flag that is not \\Seen, \\Flagged, \\Answered, \\Draft or a keyword of letters, digits, "$", "_", "." and "-".`, { details: { argument: field } });
    }
  }
  return [...flags];
}

async function bytesOf(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_APPEND_BYTES) {
      await reader.cancel();
      throw new TooLargeError(`A message to append may be at most ${MAX_APPEND_BYTES} bytes.`, { details: { limit: MAX_APPEND_BYTES } });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Where a write announces its change (watch.ts's ImapWatch). */
export interface ChangeAnnouncer {
  local(event: ChangeEvent): void;
  /** Holds back what polls find of `paths` until the returned function is called. */
  hold(paths: readonly string[]): () => void;
}

export class ImapWrites {
  readonly #session: ImapSession;
  readonly #announcer: ChangeAnnouncer;

  constructor(session: ImapSession, announcer: ChangeAnnouncer) {
    this.#session = session;
    this.#announcer = announcer;
  }

  #emit(event: ChangeEvent): void {
    this.#announcer.local(event);
  }

  /** Runs a change to the message at `path` with polls' view of it held until the change is announced. */
  async #changing<T>(path: string, change: () => Promise<T>): Promise<T> {
    const release = this.#announcer.hold([path]);
    try {
      return await change();
    } finally {
      release();
    }
  }

  async #special(use: 'drafts' | 'trash'): Promise<MailboxInfo | undefined> {
    return (await this.#session.mailboxes()).find((box) => box.specialUse === use);
  }

  async #message(path: string): Promise<{ ref: MessageRef; box: MailboxInfo }> {
    const parsed = parseHostPath(path, await this.#session.delimiter());
    if (parsed.type === 'attachment' || parsed.type === 'parts') throw new UnsupportedOperationError('imap', 'write', 'path', { details: { reason: 'An attachment is part of its message; change the message instead.' } });
    if (parsed.type !== 'message') throw notFound(path);
    const box = await this.#session.mailbox(parsed.message.mailbox);
    if (box === undefined) throw notFound(path);
    return { ref: parsed.message, box };
  }

  /** Runs `work` on the message with `name` selected read-write, after checking ifMatch. */
  async #onMessage<T>(path: string, ifMatch: string | undefined, what: string, work: (client: ImapFlow, mailbox: MailboxObject, facts: MessageFacts, box: MailboxInfo) => Promise<T>): Promise<T> {
    const { ref, box } = await this.#message(path);
    return this.#session.withMailbox(
      box.name,
      async (client, mailbox) => {
        const facts = await factsOf(client, mailbox, box, ref, this.#session.config);
        if (facts === null) throw notFound(path);
        if (ifMatch !== undefined && ifMatch !== messageEtag(facts)) {
          throw new PreconditionFailedError(`The message changed since it was read (its flags or MODSEQ differ from ifMatch); read it again.`, { details: { path } });
        }
        return work(client, mailbox, facts, box);
      },
      { readOnly: false, what },
    );
  }

  async append(host: EntryLookup, path: string, body: ReadableStream<Uint8Array>, opts: { readonly ifMatch?: string }): Promise<Entry> {
    const delimiter = await this.#session.delimiter();
    const segments = path.split('/');
    const name = decodeURIComponent(segments[segments.length - 1] ?? '');
    const parent = parseHostPath(segments.slice(0, -1).join('/'), delimiter);
    const existing = parseHostPath(path, delimiter);
    if (existing.type === 'message' || opts.ifMatch !== undefined) {
      throw new UnsupportedOperationError('imap', 'write', 'ifMatch', { details: { reason: 'A message\'s bytes never change on an IMAP server; write a new draft instead of replacing one.' } });
    }
    const drafts = await this.#special('drafts');
    if (parent.type !== 'mailbox' || !name.endsWith('.eml') || drafts === undefined || parent.mailbox !== drafts.name) {
      throw new InvalidArgumentError(`New messages are written to the Drafts mailbox, as "${drafts === undefined ? 'Drafts' : drafts.name}/<name>.eml".`, { details: { argument: 'path' } });
    }
    const bytes = await bytesOf(body);
    if (bytes.byteLength === 0 || !/^[\x21-\x39\x3b-\x7e]+:/u.test(bytes.subarray(0, 200).toString('latin1'))) {
      throw new InvalidArgumentError('The body is not an RFC 5322 message (it must start with a header field).', { details: { argument: 'body' } });
    }
    const client = await this.#session.client();
    const appended = await client.append(drafts.name, bytes, ['\\Draft', '\\Seen']);
    if (appended === false || appended.uid === undefined) throw new UnsupportedOperationError('imap', 'write', undefined, { details: { reason: 'The server did not say which UID the draft got (it lacks UIDPLUS).' } });
    const uidValidity = appended.uidValidity?.toString() ?? (await this.#session.withMailbox(drafts.name, async (_client, mailbox) => mailbox.uidValidity.toString(), { what: 'appending a draft' }));
    const entry = await host.stat(messagePath({ mailbox: drafts.name, uidValidity, uid: appended.uid }, drafts.delimiter));
    if (entry === null) throw notFound(path);
    this.#emit({ type: 'put', path: entry.path, entry });
    return entry;
  }

  async flags(host: EntryLookup, path: string, change: FlagChange, opts: { readonly ifMatch?: string }): Promise<Entry> {
    const add = checkFlags(change.add, 'add');
    const remove = checkFlags(change.remove, 'remove');
    if (add.length === 0 && remove.length === 0) throw new InvalidArgumentError('Give flags to add or remove.', { details: { argument: 'add' } });
    return this.#changing(path, () => this.#setFlags(path, add, remove, opts));
  }

  async #setFlags(path: string, add: string[], remove: string[], opts: { readonly ifMatch?: string }): Promise<Entry> {
    const entry = await this.#onMessage(path, opts.ifMatch, 'setting flags', async (client, mailbox, facts, box) => {
      const unchanged = facts.modseq === null ? {} : { unchangedSince: BigInt(facts.modseq) };
      if (add.length > 0) await client.messageFlagsAdd(String(facts.uid), add, { uid: true, ...unchanged });
      if (remove.length > 0) await client.messageFlagsRemove(String(facts.uid), remove, { uid: true, ...(add.length > 0 ? {} : unchanged) });
      const after = await factsOf(client, mailbox, box, facts.ref, this.#session.config);
      if (after === null) throw notFound(path);
      if (!add.every((flag) => after.flags.includes(flag)) || remove.some((flag) => after.flags.includes(flag))) {
        throw new PreconditionFailedError('Another client changed the message\'s flags first; read it again.', { details: { path } });
      }
      return messageEntry(after, box);
    });
    this.#emit({ type: 'put', path: entry.path, entry });
    return entry;
  }

  async move(host: EntryLookup, path: string, target: string, opts: { readonly ifMatch?: string }): Promise<Entry> {
    return this.#changing(path, () => this.#move(host, path, target, opts));
  }

  async #move(host: EntryLookup, path: string, target: string, opts: { readonly ifMatch?: string }): Promise<Entry> {
    const to = await this.#session.mailbox(target);
    if (to === undefined) throw new InvalidArgumentError(`There is no mailbox "${target}" to move to.`, { details: { argument: 'mailbox' } });
    const moved = await this.#onMessage(path, opts.ifMatch, 'moving a message', async (client, _mailbox, facts, box) => {
      if (box.name === to.name) throw new InvalidArgumentError('The message is in that mailbox already.', { details: { argument: 'mailbox' } });
      const result = await client.messageMove(String(facts.uid), to.name, { uid: true });
      const uid = result === false ? undefined : result.uidMap?.get(facts.uid);
      if (result === false || uid === undefined || result.uidValidity === undefined) {
        throw new UnsupportedOperationError('imap', 'move', undefined, { details: { reason: 'The server did not say which UID the moved message got (it lacks UIDPLUS).' } });
      }
      return { ref: { mailbox: to.name, uidValidity: result.uidValidity.toString(), uid }, parts: attachmentEntries(facts, box).map((part) => part.path) };
    });
    const entry = await host.stat(messagePath(moved.ref, to.delimiter));
    if (entry === null) throw notFound(path);
    this.#emit({ type: 'move', from: path, path: entry.path, entry });
    const found = await this.#session.withMailbox(to.name, (client, mailbox) => factsOf(client, mailbox, to, moved.ref, this.#session.config), { what: 'moving a message' });
    const parts = found === null ? [] : attachmentEntries(found, to);
    moved.parts.forEach((from, index) => {
      const part = parts[index];
      if (part !== undefined) this.#emit({ type: 'move', from, path: part.path, entry: part });
    });
    return entry;
  }

  async remove(host: EntryLookup, path: string, opts: { readonly ifMatch?: string }): Promise<void> {
    const { box } = await this.#message(path);
    const trash = await this.#special('trash');
    if (this.#session.config.allowExpunge || box.specialUse === 'trash') {
      await this.#changing(path, async () => {
        const parts = await this.#onMessage(path, opts.ifMatch, 'deleting a message', async (client, _mailbox, facts, found) => {
          await client.messageDelete(String(facts.uid), { uid: true });
          return attachmentEntries(facts, found).map((part) => part.path);
        });
        this.#emit({ type: 'delete', path });
        for (const part of parts) this.#emit({ type: 'delete', path: part });
      });
      return;
    }
    if (trash === undefined) {
      throw new UnsupportedOperationError('imap', 'delete', undefined, { details: { reason: 'This server has no Trash mailbox, and the host does not allow expunging (allowExpunge).' } });
    }
    await this.move(host, path, trash.name, opts);
  }
}
