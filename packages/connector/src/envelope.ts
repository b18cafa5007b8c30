/**
 * Reading a mail envelope faithfully (authoring.md#envelopes-messages): the parties as the headers
 * state them, the receiving host's own authentication results, the list a message came through,
 * and whether the owner wrote it. `statedEnvelope` is the one place this is decided: the built-in
 * `imap` kind builds its envelopes with it and the trial's check 5 holds every connector's
 * envelopes to it, so the two cannot disagree about the same header.
 *
 * Nothing here invents a participant: a role is reported only for an address a header carries,
 * and a header that cannot be parsed yields no party rather than a guess. No mail library is
 * used: the header block is parsed here (header-block.ts, address-list.ts).
 */
import { parseAddressList } from './address-list.js';
import type { MailAddress } from './address-list.js';
import { headerFields, headerValues } from './header-block.js';
import type { Envelope } from './types.js';

/** The address roles of RFC 5322 §3.6.2–3, in header order. */
export const MAIL_ROLES = ['from', 'sender', 'reply-to', 'to', 'cc', 'bcc'] as const;
export type MailRole = (typeof MAIL_ROLES)[number];

type MailParties = Partial<Record<MailRole, readonly MailAddress[] | undefined>>;

const ADDRESS = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+$/u;

/**
 * `mailto:` identity of an address: the local part as written (it may be case-sensitive), the
 * domain lowercased. Null for anything that is not `local@domain` (a group name, an empty or
 * garbled address).
 */
export function mailIdentity(address: string | undefined): string | null {
  if (address === undefined) return null;
  const trimmed = address.trim();
  if (!ADDRESS.test(trimmed)) return null;
  const at = trimmed.lastIndexOf('@');
  return `mailto:${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}

/** The parties of a message, role by role in header order, each identity once per role. */
function mailParties(parties: MailParties): Envelope['parties'] {
  const out: { identity: string; role: string }[] = [];
  const seen = new Set<string>();
  for (const role of MAIL_ROLES) {
    for (const item of parties[role] ?? []) {
      const identity = mailIdentity(item.address);
      if (identity === null || seen.has(`${role} ${identity}`)) continue;
      seen.add(`${role} ${identity}`);
      out.push({ identity, role });
    }
  }
  return out;
}

/** The addresses a party list names, lowercased, whatever the role. */
function partyAddresses(parties: Envelope['parties'], role?: string): string[] {
  return parties.filter((party) => role === undefined || party.role === role).map((party) => party.identity.slice('mailto:'.length).toLowerCase());
}

export type AuthResults = NonNullable<Envelope['auth']>;

const AUTH_METHODS = ['dkim', 'spf', 'dmarc'] as const;

/**
 * The authentication results (RFC 8601) the receiving host stated, from the raw
 * `Authentication-Results` header values in the order they appear in the message (topmost
 * first). Only headers whose authserv-id equals `authservId` (case-insensitively) count: any
 * other was written by someone else — typically the sender — and says nothing the owner's host
 * checked. Of those, only the topmost counts: the receiving host adds its header above what
 * arrived, so one further down bearing the same id came with the message. Per method: `true`
 * when the result is `pass`, `false` for any other stated result (`fail`, `softfail`, `none`,
 * `neutral`, `temperror`, `permerror`, `policy`), absent when the header does not mention it; a
 * method stated more than once (two DKIM signatures) is `true` when any says `pass`. Undefined
 * when no header of that id exists, or it mentions none of the three.
 */
export function authenticationResults(values: readonly string[], authservId: string): AuthResults | undefined {
  const wanted = authservId.trim().toLowerCase();
  if (wanted === '') return undefined;
  for (const value of values) {
    const parsed = parseAuthenticationResults(value);
    if (parsed === null || parsed.authservId.toLowerCase() !== wanted) continue;
    const out: { dkim?: boolean; spf?: boolean; dmarc?: boolean } = {};
    for (const { method, result } of parsed.results) {
      if (!(AUTH_METHODS as readonly string[]).includes(method)) continue;
      const key = method as (typeof AUTH_METHODS)[number];
      out[key] = out[key] === true || result === 'pass';
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return undefined;
}

/** An `Authentication-Results` value split into its authserv-id and `method=result` pairs; null when malformed. */
export function parseAuthenticationResults(value: string): { authservId: string; results: { method: string; result: string }[] } | null {
  const text = stripComments(value.replace(/\r?\n[ \t]+/gu, ' ')).trim();
  const parts = splitOutsideQuotes(text, ';').map((part) => part.trim());
  const head = parts[0];
  if (head === undefined) return null;
  // authserv-id [ CFWS authres-version ]
  const authservId = head.split(/\s+/u)[0] ?? '';
  if (!/^[A-Za-z0-9.\-_:[\]]+$/u.test(authservId)) return null;
  const results: { method: string; result: string }[] = [];
  for (const part of parts.slice(1)) {
    const match = /^([A-Za-z0-9_-]+)(?:\/[0-9]+)?\s*=\s*([A-Za-z0-9_-]+)/u.exec(part);
    if (match === null) continue;
    results.push({ method: match[1]!.toLowerCase(), result: match[2]!.toLowerCase() });
  }
  return { authservId, results };
}

/**
 * The list identifier of a `List-Id` value (RFC 2919): the `list-label.list-domain` inside the
 * angle brackets, lowercased (`"Team" <team.lists.example.org>` → `team.lists.example.org`);
 * a bare identifier is accepted too. Undefined when there is none.
 */
export function listId(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = stripComments(value.replace(/\r?\n[ \t]+/gu, ' ')).trim();
  const bracketed = /<([^<>\s]+)>/u.exec(text);
  const id = (bracketed?.[1] ?? text).trim().toLowerCase();
  return /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)+$/u.test(id) ? id : undefined;
}

/**
 * Who the message's direction is decided by: the owner's addresses, the authserv-id of the
 * owner's receiving host, and whether the message sits in a mailbox the server marks as the
 * owner's sent or drafts mail (RFC 6154 `\Sent`, `\Drafts`).
 */
export interface EnvelopeOwner {
  readonly ownAddresses?: readonly string[];
  readonly authservId?: string;
  readonly inSentMailbox?: boolean;
}

/**
 * `sent` when the owner wrote the message: the From (or Sender) is one of the owner's addresses,
 * or the message sits in the owner's Sent or Drafts mailbox — unless the owner's receiving host
 * stamped it (an `Authentication-Results` header of its authserv-id), which means it arrived
 * from outside: a message someone else wrote that was moved into Sent is still `received`.
 * `received` otherwise.
 */
function mailDirection(parties: Envelope['parties'], owner: EnvelopeOwner, stampedByOwnHost: boolean): Envelope['direction'] {
  const own = new Set((owner.ownAddresses ?? []).map((address) => address.trim().toLowerCase()));
  const authors = [...partyAddresses(parties, 'from'), ...partyAddresses(parties, 'sender')];
  if (authors.some((address) => own.has(address))) return 'sent';
  return owner.inSentMailbox === true && !stampedByOwnHost ? 'sent' : 'received';
}

/**
 * The envelope a message's header states (authoring.md#envelopes-messages), from its header block
 * or the whole message (read to its first empty line; bytes or text). Parties from From, Sender,
 * Reply-To, To, Cc and Bcc (every such field, groups included); `auth` from the topmost
 * `Authentication-Results` of `owner.authservId` only (none without one); `list` from the first
 * `List-Id`; the direction as mailDirection above.
 */
export function statedEnvelope(header: string | Uint8Array, owner: EnvelopeOwner = {}): Envelope {
  const fields = headerFields(header);
  const parties: MailParties = Object.fromEntries(MAIL_ROLES.map((role) => [role, headerValues(fields, role).flatMap(parseAddressList)]));
  const stated = mailParties(parties);
  const results = headerValues(fields, 'authentication-results');
  const authservId = owner.authservId?.trim().toLowerCase() ?? '';
  const auth = authservId === '' ? undefined : authenticationResults(results, authservId);
  const stamped = authservId !== '' && results.some((value) => parseAuthenticationResults(value)?.authservId.toLowerCase() === authservId);
  const list = listId(headerValues(fields, 'list-id')[0]);
  return {
    direction: mailDirection(stated, owner, stamped),
    parties: stated,
    ...(auth === undefined ? {} : { auth }),
    ...(list === undefined ? {} : { list }),
  };
}

function stripComments(text: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === '\\' && i + 1 < text.length) {
      if (depth === 0) out += char + text[i + 1];
      i += 1;
      continue;
    }
    if (depth === 0 && char === '"') quoted = !quoted;
    if (!quoted && char === '(') {
      depth += 1;
      continue;
    }
    if (!quoted && char === ')' && depth > 0) {
      depth -= 1;
      continue;
    }
    if (depth === 0) out += char;
  }
  return out;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}
