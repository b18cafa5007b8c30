/**
 * What a fetched message becomes: one Entry for the message (its raw bytes, `message/rfc822`)
 * and one per attachment, each with the envelope as the headers state it.
 *
 * The envelope is read from the raw header fields, not from the server's ENVELOPE structure:
 * IMAP fills an absent Sender or Reply-To from From (RFC 3501 §7.4.2), which would invent a party.
 */
import { createHash } from 'node:crypto';
import type { FetchMessageObject, FetchQueryObject, MessageStructureObject } from 'imapflow';
import type { Entry, Envelope } from '@inseam/connector';
import { decodeEncodedWords, headerFields, headerValues, statedEnvelope } from '@inseam/connector/envelope';
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

/** The Message-ID as written, angle brackets included; null without one. */
function messageIdOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const bracketed = /<[^<>\s]+>/u.exec(value);
  return bracketed?.[0] ?? (value === '' ? null : value);
}

/**
 * The facts of one fetched message; never throws on malformed headers (they yield no party). The
 * envelope is `statedEnvelope`'s — the function the trial holds every mail connector's envelopes
 * to — with the mailbox's special use deciding `inSentMailbox`.
 */
export function messageFacts(message: FetchMessageObject, mailbox: MailboxInfo, uidValidity: string, config: ImapConfig): MessageFacts {
  const header = message.headers ?? new Uint8Array(0);
  const fields = headerFields(header);
  const inSentMailbox = mailbox.specialUse === 'sent' || mailbox.specialUse === 'drafts';
  const envelope = statedEnvelope(header, { ownAddresses: config.ownAddresses, ...(config.authservId === undefined ? {} : { authservId: config.authservId }), inSentMailbox });
  const addressesOf = (role: string): string | null => {
    const found = envelope.parties.filter((party) => party.role === role).map((party) => party.identity.slice('mailto:'.length).toLowerCase());
    return found.length === 0 ? null : found.join(', ');
  };
  const subject = headerValues(fields, 'subject')[0];
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
    subject: subject === undefined ? null : decodeEncodedWords(subject),
    messageId: messageIdOf(headerValues(fields, 'message-id')[0]),
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

/** An attachment's etag: the message's state (MODSEQ and flags) under the part's own name. */
export function attachmentEtag(facts: Pick<MessageFacts, 'ref' | 'modseq' | 'flags'>, index: number): string {
  return `"${facts.ref.uidValidity}.${facts.ref.uid}.${index}.${messageEtag(facts).slice(1, -1).split('.').slice(2).join('.')}"`;
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
    // The attachment's entry carries the message's flags (extra), so its etag moves with them as
    // the message's does; its bytes are named by nativeHash, so a flag change reads nothing again.
    etag: attachmentEtag(facts, part.index),
    nativeHash: `imap:${facts.ref.uidValidity}.${facts.ref.uid}.${part.index}.${createHash('sha256').update(facts.ref.mailbox).digest('hex').slice(0, 16)}`,
    mime: part.type,
    ...(facts.emailId === null ? {} : { nativeId: `emailid:${facts.emailId}/${part.index}` }),
    envelope: facts.envelope,
    // The envelope is the message's, so its raw form is the message: the trial reads that header,
    // not the attachment's own bytes (a forwarded .eml has headers of its own).
    extra: { ...mailboxFields(facts, mailbox), kind: 'attachment', size: null, part: part.part, filename: part.filename, rawMessage: messagePath(facts.ref, mailbox.delimiter) },
  }));
}
