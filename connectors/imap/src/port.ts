/**
 * The imap kind as a ConnectorPort v4 (what the filesystem surface — CLI, /v1, MCP, the web
 * page — uses), over the same session as the host Connector.
 *
 * - A mailbox is a directory: its child mailboxes first, then its messages newest first (by
 *   descending UID), each `{uidvalidity}-{uid}.eml`, then a `{uidvalidity}-{uid}.parts`
 *   directory for each message with attachments.
 * - read: a message is its raw `message/rfc822` text (ranges allowed; over `maxTextBytes`
 *   without a range is `too_large`); an attachment is its decoded bytes — images, video and PDF
 *   inline as base64 within their cap, text decoded, other binaries a marker.
 * - write: a new `*.eml` in Drafts is APPENDed; a JSON change document written to an existing
 *   message (`{"flags":{"add":["\\Seen"],"remove":[]}}` or `{"move":"Archive"}`) sets flags or
 *   moves it — a message's bytes never change, and RFC 5322 text never starts with `{`, so the
 *   two cannot be confused. `ifMatch` makes either conditional on the message's etag.
 * - delete: to Trash, or expunged where the host allows it (writes.ts).
 */
import {
  AlreadyExistsError,
  InvalidArgumentError,
  IsADirectoryError,
  NotADirectoryError,
  OsUriUnresolvableError,
  TooLargeError,
  UnsupportedOperationError,
  DEFAULT_INLINE_MIME_CAPS,
  formatByteSize,
  inlineCapFor,
  mimeReadClass,
  encodeSegment,
  parseSourceUri,
} from '@neuralis/package-system/contracts';
import type {
  ConnectorCapability,
  ConnectorEntry,
  ConnectorListPage,
  ConnectorPort,
  ConnectorReadResult,
  DeleteOptions,
  ListOptions,
  ProbeResult,
  ReadOptions,
  WalkOptions,
  WriteOptions,
} from '@neuralis/package-system/contracts';
import type { Entry } from '@inseam/connector';
import { attachmentEntries, messageEntry } from './entries.js';
import type { ImapHost } from './host.js';
import { fetchFacts, searchUids } from './messages.js';
import { notFound } from './not-found.js';
import { mailboxSegments, parseImapSegments, partsPath, shadowedMailboxSegment } from './paths.js';
import type { MailboxInfo } from './session.js';

export const IMAP_PORT_CAPABILITIES = ['list', 'read', 'stat', 'walk', 'write', 'delete'] as const satisfies readonly ConnectorCapability[];

const DEFAULT_LIMIT = 1000;

interface PortCursor {
  /** Child mailboxes listed already (all of them), else `c` of them. */
  readonly b: boolean;
  readonly c?: number;
  /** UIDVALIDITY and the last UID listed (messages go by descending UID). */
  readonly v?: string;
  readonly u?: number;
  /** A message listed last whose .parts folder is still to come. */
  readonly p?: number;
}

function encode(cursor: PortCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decode(text: string): PortCursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as PortCursor;
    if (typeof value.b === 'boolean' && (value.u === undefined || Number.isSafeInteger(value.u)) && (value.c === undefined || Number.isSafeInteger(value.c))) return value;
  } catch {
    // fall through
  }
  throw new InvalidArgumentError('The cursor is not one this imap host issued; list again without it.', { details: { argument: 'cursor' } });
}

export class ImapPort implements ConnectorPort {
  readonly kind = 'imap';
  readonly source: string;
  readonly portVersion = 4 as const;
  readonly #host: ImapHost;

  constructor(source: string, host: ImapHost) {
    this.source = source;
    this.#host = host;
  }

  capabilities(): ReadonlySet<ConnectorCapability> {
    return new Set(IMAP_PORT_CAPABILITIES);
  }

  #uri(path: string): string {
    return `${this.source}://${path}`;
  }

  #segments(uri: string): readonly string[] {
    return parseSourceUri(uri, this.source).segments;
  }

  async #parse(uri: string) {
    return parseImapSegments(this.#segments(uri), await this.#host.session.delimiter());
  }

  #toPortEntry(entry: Entry): ConnectorEntry {
    const name = decodeURIComponent(entry.path.slice(entry.path.lastIndexOf('/') + 1));
    return {
      uri: this.#uri(entry.path),
      name,
      type: 'file',
      ...(entry.size === undefined ? {} : { size: entry.size }),
      ...(entry.mtime === undefined ? {} : { mtime: entry.mtime }),
      ...(entry.etag === undefined ? {} : { etag: entry.etag }),
      ...(entry.mime === undefined ? {} : { mime: entry.mime }),
    };
  }

  #directory(path: string): ConnectorEntry {
    return { uri: this.#uri(path), name: decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)), type: 'directory' };
  }

  async #shown(): Promise<MailboxInfo[]> {
    return (await this.#host.session.mailboxes()).filter((box) => !mailboxSegments(box.name, box.delimiter).some(shadowedMailboxSegment));
  }

  /** Child mailbox directories of `parent` (segments), including parents that are only implied. */
  async #childMailboxes(parent: readonly string[]): Promise<ConnectorEntry[]> {
    const names = new Map<string, string>();
    for (const box of await this.#shown()) {
      const segments = mailboxSegments(box.name, box.delimiter);
      if (segments.length <= parent.length || parent.some((segment, index) => segments[index] !== segment)) continue;
      names.set(segments[parent.length]!, segments.slice(0, parent.length + 1).map(encodeSegment).join('/'));
    }
    return [...names.keys()].sort().map((name) => this.#directory(names.get(name)!));
  }

  async list(uri: string, options: ListOptions = {}): Promise<ConnectorListPage> {
    const parsed = await this.#parse(uri);
    const limit = Math.max(1, Math.min(options.limit ?? DEFAULT_LIMIT, DEFAULT_LIMIT));
    if (parsed.type === 'message' || parsed.type === 'attachment') throw new NotADirectoryError(`"${uri}" is a message or attachment, not a folder.`);
    if (parsed.type === 'parts') {
      const found = await this.#host.facts(parsed.message);
      if (found === null) throw notFound(uri);
      return { entries: attachmentEntries(found.facts, found.box).map((entry) => this.#toPortEntry(entry)) };
    }
    const segments = this.#segments(uri);
    const cursor = options.cursor === undefined ? undefined : decode(options.cursor);
    const allChildren = cursor?.b === true ? [] : await this.#childMailboxes(segments);
    const start = cursor?.c ?? 0;
    const children = allChildren.slice(start, start + limit);
    if (start + children.length < allChildren.length) return { entries: children, cursor: encode({ b: false, c: start + children.length }) };
    const box = parsed.type === 'mailbox' ? await this.#host.session.mailbox(parsed.mailbox) : undefined;
    if (parsed.type === 'mailbox' && box === undefined && allChildren.length === 0 && cursor === undefined) throw notFound(uri);
    if (box === undefined) return { entries: children };
    return this.#host.session.withMailbox(
      box.name,
      async (client, mailbox) => {
        const uidValidity = mailbox.uidValidity.toString();
        const below = cursor?.u !== undefined && cursor.v === uidValidity ? cursor.u : undefined;
        const all = await searchUids(client, below === undefined ? '1:*' : below <= 1 ? '0' : `1:${below - 1}`, undefined).catch(() => [] as number[]);
        const uids = all.filter((uid) => below === undefined || uid < below).reverse();
        // A message's .parts folder follows it, on the next page when the limit falls between them.
        const pending = cursor?.p !== undefined && cursor.v === uidValidity ? cursor.p : undefined;
        const room = Math.max(0, limit - children.length - (pending === undefined ? 0 : 1));
        const taken = uids.slice(0, room);
        const facts = await fetchFacts(client, mailbox, box, taken, this.#host.session.config, this.#host.session.facts);
        const byUid = new Map(facts.map((item) => [item.uid, item]));
        const entries = [...children];
        if (pending !== undefined) entries.push(this.#directory(partsPath({ mailbox: box.name, uidValidity, uid: pending }, box.delimiter)));
        let last: number | undefined;
        let parts: number | undefined;
        let consumed = 0;
        for (const uid of taken) {
          if (entries.length >= limit) break;
          const item = byUid.get(uid);
          last = uid;
          consumed += 1;
          if (item === undefined) continue;
          entries.push(this.#toPortEntry(messageEntry(item, box)));
          if (item.attachments.length === 0) continue;
          if (entries.length < limit) entries.push(this.#directory(partsPath(item.ref, box.delimiter)));
          else parts = uid;
        }
        const more = uids.length > consumed || parts !== undefined;
        const at = last ?? cursor?.u;
        return more ? { entries, cursor: encode({ b: true, v: uidValidity, ...(at === undefined ? {} : { u: at }), ...(parts === undefined ? {} : { p: parts }) }) } : { entries };
      },
      { what: 'listing a mailbox' },
    );
  }

  async stat(uri: string): Promise<ConnectorEntry> {
    const parsed = await this.#parse(uri);
    if (parsed.type === 'root') return { uri: `${this.source}://`, name: '', type: 'directory' };
    if (parsed.type === 'mailbox') {
      const segments = this.#segments(uri);
      if ((await this.#host.session.mailbox(parsed.mailbox)) !== undefined || (await this.#childMailboxes(segments)).length > 0) return this.#directory(segments.map(encodeSegment).join('/'));
      throw notFound(uri);
    }
    if (parsed.type === 'parts') {
      const found = await this.#host.facts(parsed.message);
      if (found === null || found.facts.attachments.length === 0) throw notFound(uri);
      return this.#directory(partsPath(found.facts.ref, found.box.delimiter));
    }
    const entry = await this.#host.stat(uri.slice(this.source.length + 3).replace(/\/+$/u, ''));
    if (entry === null) throw notFound(uri);
    return this.#toPortEntry(entry);
  }

  async read(uri: string, options: ReadOptions = {}): Promise<ConnectorReadResult> {
    const parsed = await this.#parse(uri);
    if (parsed.type === 'root' || parsed.type === 'mailbox' || parsed.type === 'parts') {
      await this.stat(uri);
      throw new IsADirectoryError(`"${uri}" is a folder; read one of its messages.`);
    }
    const range = options.range;
    if (range !== undefined && (!Number.isSafeInteger(range.offset) || range.offset < 0 || (range.length !== undefined && (!Number.isSafeInteger(range.length) || range.length < 0)))) {
      throw new InvalidArgumentError('A range has a non-negative offset and length.', { details: { argument: 'range' } });
    }
    const path = uri.slice(this.source.length + 3);
    const entry = await this.#host.stat(path);
    if (entry === null) throw notFound(uri);
    const mime = entry.mime ?? 'application/octet-stream';
    const cap = this.#host.session.config.maxTextBytes;
    const readClass = parsed.type === 'message' ? 'text' : mimeReadClass(mime);
    const inline = readClass === 'image' || readClass === 'video' || readClass === 'pdf';
    const limit = inline ? inlineCapFor(mime, DEFAULT_INLINE_MIME_CAPS) : cap;
    const size = entry.size;
    const wanted = range === undefined ? undefined : ([range.offset, range.length === undefined ? Number.MAX_SAFE_INTEGER : range.offset + range.length] as const);
    if (parsed.type === 'message' && range === undefined && size !== undefined && size > cap) {
      throw new TooLargeError(`The message is ${formatByteSize(size)}, over the ${formatByteSize(cap)} text cap; read it in ranges.`, { details: { cap, size } });
    }
    const stream = await this.#host.read(path, wanted === undefined ? {} : { range: wanted });
    const { bytes, total, over } = await collect(stream, limit + 1);
    const base = { mime, size: size ?? total, ...(entry.etag === undefined ? {} : { etag: entry.etag }), ...(range === undefined ? {} : { range: { offset: range.offset, length: bytes.byteLength } }) };
    if (inline) {
      if (over) return { ...base, size: size ?? total, text: `[${mime}, over the ${formatByteSize(limit)} inline cap; not included]`, omitted: { reason: 'over_inline_cap', cap: limit } };
      return { ...base, text: '', bytes: Buffer.from(bytes).toString('base64') };
    }
    if (over) throw new TooLargeError(`The object is over the ${formatByteSize(cap)} text cap; read it in ranges.`, { details: { cap } });
    if (readClass === 'text' || parsed.type === 'message') return { ...base, text: new TextDecoder('utf-8').decode(bytes) };
    if (!bytes.includes(0)) {
      try {
        return { ...base, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
      } catch {
        // binary
      }
    }
    return { ...base, text: `[${mime}, ${formatByteSize(total)}: binary content; not included as text]` };
  }

  async *walk(uri: string, options: WalkOptions = {}): AsyncIterable<ConnectorEntry> {
    const depth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    const visit = async function* (this: ImapPort, at: string, level: number): AsyncIterable<ConnectorEntry> {
      let cursor: string | undefined;
      do {
        options.signal?.throwIfAborted();
        const page = await this.list(at, cursor === undefined ? {} : { cursor });
        for (const entry of page.entries) {
          yield entry;
          if (entry.type === 'directory' && level < depth) yield* visit.call(this, entry.uri, level + 1);
        }
        cursor = page.cursor;
      } while (cursor !== undefined);
    };
    yield* visit.call(this, uri, 1);
  }

  async write(uri: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<ConnectorEntry> {
    const parsed = await this.#parse(uri);
    const path = uri.slice(this.source.length + 3);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    if (parsed.type === 'message') {
      if (options.createOnly === true) throw new AlreadyExistsError(`A message exists at "${uri}".`);
      const change = changeDocument(bytes);
      const entry = change.move !== undefined ? await this.#host.move(path, change.move, options) : await this.#host.setFlags(path, change.flags ?? {}, options);
      return this.#toPortEntry(entry);
    }
    if (parsed.type !== 'mailbox') throw new UnsupportedOperationError('imap', 'write', 'uri', { details: { reason: 'Attachments are part of their message and are not written on their own.' } });
    const entry = await this.#host.write(path, new Blob([bytes]).stream(), options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
    return this.#toPortEntry(entry);
  }

  async delete(uri: string, options: DeleteOptions = {}): Promise<void> {
    const parsed = await this.#parse(uri);
    if (parsed.type !== 'message') throw new UnsupportedOperationError('imap', 'delete', 'uri', { details: { reason: 'Only messages are deleted; mailboxes and attachments are not.' } });
    await this.#host.delete(uri.slice(this.source.length + 3), options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
  }

  probeConnection(): Promise<ProbeResult> {
    return this.#host.session.reachability.probe();
  }

  async resolveOsUri(uri: string): Promise<string> {
    parseSourceUri(uri, this.source);
    throw new OsUriUnresolvableError(`"${uri}" is mail on an IMAP server; it has no path on this machine.`);
  }
}

/** A change document: `{ "flags": { "add"?: [...], "remove"?: [...] } }` or `{ "move": "<mailbox>" }`. */
function changeDocument(bytes: Uint8Array): { flags?: { add?: string[]; remove?: string[] }; move?: string } {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    value = undefined;
  }
  const doc = value as { flags?: { add?: string[]; remove?: string[] }; move?: unknown } | undefined;
  const keys = doc !== null && typeof doc === 'object' ? Object.keys(doc) : [];
  const valid =
    keys.length === 1 &&
    ((keys[0] === 'move' && typeof doc!.move === 'string') || (keys[0] === 'flags' && typeof doc!.flags === 'object' && doc!.flags !== null && Object.keys(doc!.flags).every((key) => key === 'add' || key === 'remove')));
  if (!valid) {
    throw new InvalidArgumentError('A message\'s bytes never change; write {"flags":{"add":[…],"remove":[…]}} or {"move":"<mailbox>"} to it, or write a new draft to Drafts/<name>.eml.', {
      details: { argument: 'content' },
    });
  }
  return doc as { flags?: { add?: string[]; remove?: string[] }; move?: string };
}

async function collect(stream: ReadableStream<Uint8Array>, limit: number): Promise<{ bytes: Uint8Array; total: number; over: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total >= limit) {
      await reader.cancel();
      return { bytes: new Uint8Array(0), total, over: true };
    }
    chunks.push(value);
  }
  return { bytes: Buffer.concat(chunks), total, over: false };
}
