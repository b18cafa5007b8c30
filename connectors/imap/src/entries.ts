/**
 * What a fetched message becomes: one Entry for the message (its raw bytes, `message/rfc822`)
 * and one per attachment, each with the envelope as the headers state it.
 *
 * The envelope is read from the raw header fields, not from the server's ENVELOPE structure:
 * IMAP fills an absent Sender or Reply-To from From (RFC 3501 §7.4.2), which would invent a party.
 */
import { createHash } from 'node:crypto';
import type { FetchMessageObject, FetchQueryObject, MessageStructureObject } from 'imapflow';
import { simpleParser } from 'mailparser';
import type { AddressObject, EmailAddress } from 'mailparser';
import type { Entry, Envelope } from '@inseam/connector';
import { authenticationResults, listId, mailDirection, mailParties } from '@inseam/connector/envelope';
import type { MailAddress, MailParties } from '@inseam/connector/envelope';
import type { ImapConfig } from './config.js';
import { attachmentPath, messagePath, safeFilename } from './paths.js';
import type { MessageRef } from './paths.js';
import type { MailboxInfo } from './mailbox.js';

export const ENVELOPE_HEADERS = ['from', 'sender', 'reply-to', 'to', 'cc', 'bcc', 'subject', 'date', 'message-id', 'list-id', 'authentication-results'] as const;

/** What list/stat fetch for each message. */
export const ENTRY_QUERY: FetchQueryObject = {
  uid: true,
  flags: true,
  size: true,
  internalDate: true,
  bodyStructure: true,
  emailId: true,
  threadId: true,
  headers: [...ENVELOPE_HEADERS],
};

export interface AttachmentPart {
  /** 1-based, in MIME order. */
  readonly index: number;
  /** The IMAP body part number (`2`, `1.3`). */
  readonly part: string;
  readonly filename: string;
  readonly type: string;
}

export interface MessageFacts {
  readonly ref: MessageRef;
  readonly uid: number;
  readonly flags: readonly string[];
  readonly modseq: string | null;
  readonly size: number;
  readonly internalDate: string;
  readonly emailId: string | null;
  readonly threadId: string | null;
  readonly attachments: readonly AttachmentPart[];
  readonly envelope: Envelope;
  readonly subject: string | null;
  readonly messageId: string | null;
  readonly from: string | null;
  readonly to: string | null;
}

/** RFC 3339 UTC with whole seconds (INTERNALDATE has no fraction). */
export function utc(date: Date | string | undefined): string {
  const value = date instanceof Date ? date : new Date(date ?? 0);
  return Number.isNaN(value.getTime()) ? '1970-01-01T00:00:00Z' : value.toISOString().replace(/\.\d{3}Z$/u, 'Z');
}

function flatten(addresses: readonly EmailAddress[]): MailAddress[] {
  const out: MailAddress[] = [];
  for (const item of addresses) {
    if (item.group !== undefined) out.push(...flatten(item.group));
    else out.push({ ...(item.address === undefined ? {} : { address: item.address }), ...(item.name === undefined ? {} : { name: item.name }) });
  }
  return out;
}

function addressList(value: unknown): MailAddress[] | undefined {
  if (value === undefined || value === null) return undefined;
  const objects = (Array.isArray(value) ? value : [value]) as AddressObject[];
  return objects.flatMap((object) => (Array.isArray(object?.value) ? flatten(object.value) : []));
}

/** Attachments in MIME order: parts marked `attachment`, or named parts that are not the message's text. */
export function attachmentsOf(structure: MessageStructureObject | undefined): AttachmentPart[] {
  const out: AttachmentPart[] = [];
  const walk = (node: MessageStructureObject, root: boolean): void => {
    const type = (node.type ?? '').toLowerCase();
    if (type.startsWith('multipart/')) {
      for (const child of node.childNodes ?? []) walk(child, false);
      return;
    }
    const name = node.dispositionParameters?.['filename'] ?? node.parameters?.['name'];
    const disposition = (node.disposition ?? '').toLowerCase();
    const bodyText = (type === 'text/plain' || type === 'text/html') && disposition !== 'attachment';
    if (root || bodyText) return;
    if (disposition === 'attachment' || name !== undefined || type === 'message/rfc822') {
      const index = out.length + 1;
      const fallback = type === 'message/rfc822' ? `message-${index}.eml` : `attachment-${index}`;
      out.push({ index, part: node.part ?? '1', filename: safeFilename(name, fallback), type: type === '' ? 'application/octet-stream' : type });
    }
  };
  if (structure !== undefined) walk(structure, !(structure.type ?? '').toLowerCase().startsWith('multipart/') && structure.disposition !== 'attachment');
  return out;
}

/** Raw values of one header field, topmost first, unfolded. */
export function rawHeaderValues(headers: string, name: string): string[] {
  const unfolded = headers.replace(/\r?\n[ \t]+/gu, ' ');
  const out: string[] = [];
  const prefix = `${name.toLowerCase()}:`;
  for (const line of unfolded.split(/\r?\n/u)) {
    if (line.toLowerCase().startsWith(prefix)) out.push(line.slice(prefix.length).trim());
  }
  return out;
}

/** The facts of one fetched message; never throws on malformed headers (they yield no party). */
export async function messageFacts(message: FetchMessageObject, mailbox: MailboxInfo, uidValidity: string, config: ImapConfig): Promise<MessageFacts> {
  const headerText = message.headers === undefined ? '' : message.headers.toString('latin1');
  let parsed: Awaited<ReturnType<typeof simpleParser>> | undefined;
  try {
    parsed = await simpleParser(Buffer.concat([message.headers ?? Buffer.alloc(0), Buffer.from('\r\n')]), { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  } catch {
    parsed = undefined;
  }
  const parties: MailParties = {
    from: addressList(parsed?.from),
    sender: addressList(parsed?.headers.get('sender')),
    'reply-to': addressList(parsed?.replyTo),
    to: addressList(parsed?.to),
    cc: addressList(parsed?.cc),
    bcc: addressList(parsed?.bcc),
  };
  const stated = mailParties(parties);
  const inSent = mailbox.specialUse === 'sent' || mailbox.specialUse === 'drafts';
  const auth = config.authservId === undefined ? undefined : authenticationResults(rawHeaderValues(headerText, 'authentication-results'), config.authservId);
  const list = listId(rawHeaderValues(headerText, 'list-id')[0]);
  const envelope: Envelope = {
    direction: mailDirection(stated, config.ownAddresses, inSent),
    parties: stated,
    ...(auth === undefined ? {} : { auth }),
    ...(list === undefined ? {} : { list }),
  };
  const addressesOf = (role: string): string | null => {
    const found = stated.filter((party) => party.role === role).map((party) => party.identity.slice('mailto:'.length).toLowerCase());
    return found.length === 0 ? null : found.join(', ');
  };
  const subject = typeof parsed?.subject === 'string' ? parsed.subject : null;
  // \Recent belongs to one session (RFC 3501 §2.3.2): each connection sees it differently, so it is no state of the message.
  const flags = [...(message.flags ?? [])].filter((flag) => flag !== '\\Recent').sort();
  return {
    ref: { mailbox: mailbox.name, uidValidity, uid: message.uid },
    uid: message.uid,
    flags,
    modseq: message.modseq === undefined ? null : message.modseq.toString(),
    size: message.size ?? 0,
    internalDate: utc(message.internalDate),
    emailId: message.emailId ?? null,
    threadId: message.threadId ?? null,
    attachments: attachmentsOf(message.bodyStructure),
    envelope,
    subject,
    messageId: typeof parsed?.messageId === 'string' ? parsed.messageId : null,
    from: addressesOf('from'),
    to: addressesOf('to'),
  };
}

/**
 * The version tag of a message's state: its MODSEQ (where the server keeps one) and its flags.
 * A message's bytes never change, so this changes exactly when its flags do.
 */
export function messageEtag(facts: Pick<MessageFacts, 'ref' | 'modseq' | 'flags'>): string {
  const flags = createHash('sha256').update(facts.flags.join(' ')).digest('hex').slice(0, 12);
  return `"${facts.ref.uidValidity}.${facts.ref.uid}.${facts.modseq ?? '0'}.${flags}"`;
}

/**
 * The server's id for the message where it promises never to reuse one (OBJECTID's EMAILID,
 * Gmail's X-GM-MSGID, which survive a move), else UIDVALIDITY:UID within its mailbox.
 */
export function messageNativeId(facts: Pick<MessageFacts, 'ref' | 'emailId'>): string {
  return facts.emailId !== null ? `emailid:${facts.emailId}` : `uid:${facts.ref.mailbox}:${facts.ref.uidValidity}:${facts.ref.uid}`;
}

function mailboxFields(facts: MessageFacts, mailbox: MailboxInfo): Record<string, unknown> {
  const flag = (name: string): boolean => facts.flags.includes(name);
  return {
    kind: 'message',
    mailbox: mailbox.name,
    specialUse: mailbox.specialUse,
    uidValidity: facts.ref.uidValidity,
    uid: facts.uid,
    modseq: facts.modseq,
    flags: [...facts.flags],
    seen: flag('\\Seen'),
    flagged: flag('\\Flagged'),
    answered: flag('\\Answered'),
    draft: flag('\\Draft'),
    from: facts.from,
    to: facts.to,
    subject: facts.subject,
    messageId: facts.messageId,
    size: facts.size,
    hasAttachments: facts.attachments.length > 0,
    attachments: facts.attachments.map((part) => part.filename),
    threadId: facts.threadId,
  };
}

/** The message's Entry. */
export function messageEntry(facts: MessageFacts, mailbox: MailboxInfo): Entry {
  return {
    path: messagePath(facts.ref, mailbox.delimiter),
    size: facts.size,
    mtime: facts.internalDate,
    etag: messageEtag(facts),
    mime: 'message/rfc822',
    // The bytes of UID n under one UIDVALIDITY never change, so this names them exactly: flag
    // changes (a new etag) do not make the crawler read the message again.
    nativeHash: `imap:${facts.ref.uidValidity}.${facts.ref.uid}.${createHash('sha256').update(facts.ref.mailbox).digest('hex').slice(0, 16)}`,
    nativeId: messageNativeId(facts),
    envelope: facts.envelope,
    extra: mailboxFields(facts, mailbox),
  };
}

/** One Entry per attachment; its size is known only once it is decoded, so it carries none. */
export function attachmentEntries(facts: MessageFacts, mailbox: MailboxInfo): Entry[] {
  return facts.attachments.map((part) => ({
    path: attachmentPath(facts.ref, mailbox.delimiter, part.index, part.filename),
    mtime: facts.internalDate,
    etag: `"${facts.ref.uidValidity}.${facts.ref.uid}.${part.index}"`,
    mime: part.type,
    ...(facts.emailId === null ? {} : { nativeId: `emailid:${facts.emailId}/${part.index}` }),
    envelope: facts.envelope,
    extra: { ...mailboxFields(facts, mailbox), kind: 'attachment', size: null, part: part.part, filename: part.filename },
  }));
}
