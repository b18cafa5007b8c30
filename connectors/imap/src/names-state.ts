/**
 * What the names listing keeps of a mailbox (names.ts): its UIDVALIDITY, MODSEQ watermark and,
 * per message, only what its names and etags are made of — flags, MODSEQ and the attachments'
 * index and file name — and the text form it is kept in between processes (the crawler's
 * `NamesMemo`). A memo that does not parse exactly as written here, or names another mailbox, is
 * not used: the mailbox is fetched in full, so a damaged or foreign memo costs time, never names.
 */
import { createHash } from 'node:crypto';
import { attachmentEtag, messageEtag, type MessageFacts } from './entries.js';
import { attachmentPath, messagePath } from './paths.js';
import type { MailboxInfo } from './mailbox.js';

/** A message as far as its names go. */
export interface NameFacts {
  readonly ref: MessageFacts['ref'];
  readonly uid: number;
  readonly flags: readonly string[];
  readonly modseq: string | null;
  readonly attachments: readonly { readonly index: number; readonly filename: string }[];
}

export interface MailboxState {
  readonly uidValidity: string;
  readonly modseq: bigint;
  readonly messages: ReadonlyMap<number, NameFacts>;
}

/** The part of a message's facts its names need. */
export function nameFacts(facts: NameFacts): NameFacts {
  return { ref: facts.ref, uid: facts.uid, flags: facts.flags, modseq: facts.modseq, attachments: facts.attachments.map(({ index, filename }) => ({ index, filename })) };
}

/** The message's path and etag, then each attachment's: exactly what its entries carry (entriesOf). */
export function nameRows(facts: NameFacts, box: MailboxInfo): [string, string][] {
  const rows: [string, string][] = [[messagePath(facts.ref, box.delimiter), messageEtag(facts)]];
  for (const part of facts.attachments) rows.push([attachmentPath(facts.ref, box.delimiter, part.index, part.filename), attachmentEtag(facts, part.index)]);
  return rows;
}

const VERSION = 1;
const DIGITS = /^(0|[1-9][0-9]{0,19})$/u;
const MAX_UID = 4_294_967_295;

/** The memo key of a mailbox: a digest, so any mailbox name fits the store's key limit. */
export function memoKey(mailbox: string): string {
  return `names:${createHash('sha256').update(mailbox).digest('hex').slice(0, 32)}`;
}

export const MEMO_PREFIX = 'names:';

type MessageRow = [uid: number, modseq: string | null, flags: string[], attachments?: [index: number, filename: string][]];

export function encodeState(mailbox: string, state: MailboxState): string {
  const messages: MessageRow[] = [];
  for (const facts of state.messages.values()) {
    const row: MessageRow = [facts.uid, facts.modseq, [...facts.flags]];
    if (facts.attachments.length > 0) row.push(facts.attachments.map((part): [number, string] => [part.index, part.filename]));
    messages.push(row);
  }
  return JSON.stringify({ v: VERSION, mailbox, uidValidity: state.uidValidity, modseq: state.modseq.toString(), messages });
}

/** The state a memo holds for `mailbox`, or null when it is not one this module wrote for it. */
export function decodeState(mailbox: string, text: string): MailboxState | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const memo = value as { v?: unknown; mailbox?: unknown; uidValidity?: unknown; modseq?: unknown; messages?: unknown };
  if (memo.v !== VERSION || memo.mailbox !== mailbox || !isDigits(memo.uidValidity) || !isDigits(memo.modseq) || !Array.isArray(memo.messages)) return null;
  const uidValidity = memo.uidValidity;
  const messages = new Map<number, NameFacts>();
  for (const row of memo.messages as unknown[]) {
    const facts = decodeRow(mailbox, uidValidity, row);
    if (facts === null || messages.has(facts.uid)) return null;
    messages.set(facts.uid, facts);
  }
  return { uidValidity, modseq: BigInt(memo.modseq), messages };
}

function decodeRow(mailbox: string, uidValidity: string, row: unknown): NameFacts | null {
  if (!Array.isArray(row) || row.length < 3 || row.length > 4) return null;
  const [uid, modseq, flags, attachments = []] = row as unknown[];
  if (typeof uid !== 'number' || !Number.isInteger(uid) || uid < 1 || uid > MAX_UID) return null;
  if (modseq !== null && !isDigits(modseq)) return null;
  if (!Array.isArray(flags) || !flags.every((flag) => typeof flag === 'string')) return null;
  if (!Array.isArray(attachments)) return null;
  const parts: { index: number; filename: string }[] = [];
  for (const part of attachments as unknown[]) {
    if (!Array.isArray(part) || part.length !== 2) return null;
    const [index, filename] = part as unknown[];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 1 || typeof filename !== 'string' || filename === '') return null;
    parts.push({ index, filename });
  }
  return { ref: { mailbox, uidValidity, uid }, uid, flags, modseq, attachments: parts };
}

function isDigits(value: unknown): value is string {
  return typeof value === 'string' && DIGITS.test(value);
}
