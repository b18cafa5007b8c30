/**
 * The canonical paths of an imap host.
 *
 *   INBOX                                   a mailbox (a folder), hierarchy split on the server's delimiter
 *   Work/Projects                           a child mailbox
 *   INBOX/1796197771-42.eml                 message UID 42 of INBOX while its UIDVALIDITY is 1796197771
 *   INBOX/1796197771-42.parts/1-report.pdf  its first attachment, as its decoded bytes
 *
 * A message path never names another message: a UID is never given twice within one UIDVALIDITY
 * (RFC 3501 §2.3.1.1), and a mailbox whose UIDVALIDITY changed has new paths for every message.
 * Segments are percent-encoded per segment (encodeSegment) and built from the decoded mailbox name
 * exactly. A mailbox whose own name has the form of a message or parts segment would be shadowed
 * by one, so it is not shown.
 */
import { InvalidUriError, encodeSegment } from '@neuralis/package-system/contracts';

export const MESSAGE_SEGMENT = /^([1-9][0-9]{0,19})-([1-9][0-9]{0,9})\.eml$/u;
export const PARTS_SEGMENT = /^([1-9][0-9]{0,19})-([1-9][0-9]{0,9})\.parts$/u;
const ATTACHMENT_SEGMENT = /^([1-9][0-9]{0,3})-(.+)$/su;

export interface MessageRef {
  readonly mailbox: string;
  readonly uidValidity: string;
  readonly uid: number;
}

export type ImapPath =
  | { readonly type: 'root' }
  | { readonly type: 'mailbox'; readonly mailbox: string }
  | { readonly type: 'message'; readonly message: MessageRef }
  | { readonly type: 'parts'; readonly message: MessageRef }
  | { readonly type: 'attachment'; readonly message: MessageRef; readonly index: number; readonly filename: string };

/** True when a mailbox name segment would be taken for a message or its parts folder. */
export function shadowedMailboxSegment(segment: string): boolean {
  return MESSAGE_SEGMENT.test(segment) || PARTS_SEGMENT.test(segment);
}

export function mailboxSegments(mailbox: string, delimiter: string): string[] {
  return delimiter === '' ? [mailbox] : mailbox.split(delimiter);
}

export function mailboxPath(mailbox: string, delimiter: string): string {
  return mailboxSegments(mailbox, delimiter).map(encodeSegment).join('/');
}

export function messageName(ref: Pick<MessageRef, 'uidValidity' | 'uid'>): string {
  return `${ref.uidValidity}-${ref.uid}.eml`;
}

export function messagePath(ref: MessageRef, delimiter: string): string {
  return `${mailboxPath(ref.mailbox, delimiter)}/${messageName(ref)}`;
}

export function partsPath(ref: MessageRef, delimiter: string): string {
  return `${mailboxPath(ref.mailbox, delimiter)}/${ref.uidValidity}-${ref.uid}.parts`;
}

/** `n-name`: n counts attachments from 1 in the message's MIME order; the name is the one the part gives. */
export function attachmentName(index: number, filename: string): string {
  return `${index}-${filename}`;
}

export function attachmentPath(ref: MessageRef, delimiter: string, index: number, filename: string): string {
  return `${partsPath(ref, delimiter)}/${encodeSegment(attachmentName(index, filename))}`;
}

/** A file name fit for one path segment: no separators or control characters, never empty or a dot segment. */
export function safeFilename(name: string | undefined, fallback: string): string {
  const cleaned = (name ?? '').replace(/[\u0000-\u001f\u007f/\\]/gu, '_').trim().slice(0, 200);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? fallback : cleaned;
}

/** Reads decoded path segments. `delimiter` joins mailbox segments into the server's name. */
export function parseImapSegments(segments: readonly string[], delimiter: string): ImapPath {
  if (segments.length === 0) return { type: 'root' };
  const join = (parts: readonly string[]): string => parts.join(delimiter === '' ? '/' : delimiter);
  const last = segments[segments.length - 1]!;
  const message = MESSAGE_SEGMENT.exec(last);
  if (message !== null && segments.length >= 2) {
    return { type: 'message', message: { mailbox: join(segments.slice(0, -1)), uidValidity: message[1]!, uid: Number(message[2]) } };
  }
  const parts = PARTS_SEGMENT.exec(last);
  if (parts !== null && segments.length >= 2) {
    return { type: 'parts', message: { mailbox: join(segments.slice(0, -1)), uidValidity: parts[1]!, uid: Number(parts[2]) } };
  }
  if (segments.length >= 3) {
    const owner = PARTS_SEGMENT.exec(segments[segments.length - 2]!);
    const attachment = ATTACHMENT_SEGMENT.exec(last);
    if (owner !== null) {
      if (attachment === null) throw new InvalidUriError('An attachment is named "{n}-{file name}" inside its message\'s .parts folder.');
      return {
        type: 'attachment',
        message: { mailbox: join(segments.slice(0, -2)), uidValidity: owner[1]!, uid: Number(owner[2]) },
        index: Number(attachment[1]),
        filename: attachment[2]!,
      };
    }
  }
  return { type: 'mailbox', mailbox: join(segments) };
}

/** Decodes a canonical host path ('' is the root). Throws `invalid_uri`. */
export function parseHostPath(path: string, delimiter: string): ImapPath {
  if (typeof path !== 'string') throw new InvalidUriError('A path must be a string.');
  if (path === '') return { type: 'root' };
  const segments = path.split('/').map((raw, index) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      throw new InvalidUriError(`Segment ${index + 1} of the path has a malformed percent-escape.`);
    }
    if (raw === '' || decoded === '.' || decoded === '..' || decoded.includes('\0')) throw new InvalidUriError(`Segment ${index + 1} of the path is empty, a dot segment or holds a NUL.`);
    if (encodeSegment(decoded) !== raw) throw new InvalidUriError(`Segment ${index + 1} of the path is not in canonical form (percent-encode all but A-Z a-z 0-9 - . _ ~).`);
    return decoded;
  });
  return parseImapSegments(segments, delimiter);
}
