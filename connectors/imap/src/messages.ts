/**
 * Fetching messages of the selected mailbox as facts and entries, and finding one by path.
 */
import type { ImapFlow, MailboxObject } from 'imapflow';
import type { Entry } from '@inseam/connector';
import type { ImapConfig } from './config.js';
import { ENTRY_QUERY, attachmentEntries, messageEntry, messageFacts } from './entries.js';
import type { MessageFacts } from './entries.js';
import type { MessageRef } from './paths.js';
import { FactsCache } from './facts-cache.js';
import type { MailboxInfo } from './session.js';

/** What is fetched of a message whose immutable facts are known already: its state alone. */
const STATE_QUERY = { uid: true, flags: true, size: true, internalDate: true } as const;
/**
 * Fetches `uids` (a UID set string or list) of the selected mailbox, in the order the server
 * answers. With a cache, first only each message's state (UID, FLAGS, MODSEQ, size, date), then
 * headers and structure only of the messages the cache does not know.
 */
export async function fetchFacts(client: ImapFlow, mailbox: MailboxObject, box: MailboxInfo, uids: readonly number[] | string, config: ImapConfig, cache?: FactsCache<MessageFacts>): Promise<MessageFacts[]> {
  if (Array.isArray(uids) && uids.length === 0) return [];
  const range = typeof uids === 'string' ? uids : compactUids(uids);
  const uidValidity = mailbox.uidValidity.toString();
  const out: MessageFacts[] = [];
  if (cache === undefined) {
    for await (const message of client.fetch(range, ENTRY_QUERY, { uid: true })) out.push(messageFacts(message, box, uidValidity, config));
    return out;
  }
  const unknown: number[] = [];
  for await (const message of client.fetch(range, STATE_QUERY, { uid: true })) {
    const known = cache.get(FactsCache.key(box.name, uidValidity, message.uid));
    if (known === undefined) {
      unknown.push(message.uid);
      continue;
    }
    const flags = [...(message.flags ?? [])].filter((flag) => flag !== '\\Recent').sort();
    out.push({ ...known, flags, modseq: message.modseq === undefined ? null : message.modseq.toString() });
  }
  if (unknown.length > 0) {
    for await (const message of client.fetch(compactUids(unknown), ENTRY_QUERY, { uid: true })) {
      const facts = messageFacts(message, box, uidValidity, config);
      cache.set(FactsCache.key(box.name, uidValidity, facts.uid), facts);
      out.push(facts);
    }
  }
  return out;
}

/** A message's entry followed by its attachments'. */
export function entriesOf(facts: MessageFacts, box: MailboxInfo): Entry[] {
  return [messageEntry(facts, box), ...attachmentEntries(facts, box)];
}

/** The facts of one message, or null when the mailbox has no such UID under that UIDVALIDITY. */
export async function factsOf(client: ImapFlow, mailbox: MailboxObject, box: MailboxInfo, ref: MessageRef, config: ImapConfig, cache?: FactsCache<MessageFacts>): Promise<MessageFacts | null> {
  if (mailbox.uidValidity.toString() !== ref.uidValidity) return null;
  const found = await fetchFacts(client, mailbox, box, String(ref.uid), config, cache);
  return found.find((facts) => facts.uid === ref.uid) ?? null;
}

/** `1:3,7,9:10` for sorted-or-not UIDs. */
export function compactUids(uids: readonly number[]): string {
  const sorted = [...uids].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0]!;
  let previous = start;
  for (const uid of sorted.slice(1)) {
    if (uid === previous + 1) {
      previous = uid;
      continue;
    }
    parts.push(start === previous ? `${start}` : `${start}:${previous}`);
    start = uid;
    previous = uid;
  }
  parts.push(start === previous ? `${start}` : `${start}:${previous}`);
  return parts.join(',');
}

const DAY_MS = 86_400_000;

/**
 * UIDs of the selected mailbox in `range` (ascending), optionally only those whose INTERNALDATE
 * is at or after `since`, to the second (INTERNALDATE has no finer grain). SEARCH SINCE compares
 * days in the server's time zone, so the search starts a day early and each candidate's
 * INTERNALDATE decides.
 */
export async function searchUids(client: ImapFlow, range: string, since: Date | undefined): Promise<number[]> {
  const found = await client.search({ uid: range, ...(since === undefined ? {} : { since: new Date(since.getTime() - DAY_MS) }) }, { uid: true });
  const uids = (Array.isArray(found) ? found : []).sort((a, b) => a - b);
  if (since === undefined || uids.length === 0) return uids;
  const from = Math.floor(since.getTime() / 1000) * 1000;
  const kept: number[] = [];
  for await (const message of client.fetch(compactUids(uids), { uid: true, internalDate: true }, { uid: true })) {
    if (message.internalDate !== undefined && new Date(message.internalDate).getTime() >= from) kept.push(message.uid);
  }
  return kept.sort((a, b) => a - b);
}
