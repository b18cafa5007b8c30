/**
 * Part of check 5: an envelope agrees with the message it describes. Where an entry's raw bytes
 * are a message (its mime is `message/rfc822`, or `extra.rawMessage` names the path of its raw
 * form), the trial reads the message's header and holds the envelope to it
 * (authoring.md#envelopes-messages): every party is an address the header of its role carries,
 * `auth` is what the owner's receiving host wrote in its own `Authentication-Results`, `list` is
 * the `List-Id`, and the direction follows from the owner's addresses and the Sent or Drafts
 * mailbox the connector declares (authoring.md#envelopes-sent-and-drafts-mailboxes). The header
 * is read by `statedEnvelope`, which the `imap` kind builds its envelopes with. Only the format of an
 * envelope is checked elsewhere (check 3), so without this an invented recipient, a blanket
 * `dkim: pass` or every message marked `sent` would pass.
 */
import type { Entry, Envelope } from '@inseam/connector';
import { authenticationResults, headerFields, headerValues, MAIL_ROLES, parseAuthenticationResults, statedEnvelope, type EnvelopeOwner } from '@inseam/connector/envelope';
import { describeValue, listProblems } from '@neuralis/package-system/testing';
import { call, mimeEssence, readStream, requireConnector, sampleEntries, type TrialContext } from '../context.js';
import { DOC_SECTIONS, ensureAt } from '../docs.js';
import type { TrialEnvelopeOwner } from '../types.js';

/** The most messages whose envelopes are compared, spread over the listing. */
const MESSAGE_SAMPLE = 12;
/** How much of a message is read looking for the end of its header. */
const HEADER_CAP = 256 * 1024;

/** Where an entry's raw message is: its own bytes, or the path `extra.rawMessage` names. */
export function rawMessagePath(entry: Entry): string | undefined {
  const named = entry.extra?.['rawMessage'];
  if (typeof named === 'string' && named !== '') return named;
  return entry.mime !== undefined && mimeEssence(entry.mime) === 'message/rfc822' ? entry.path : undefined;
}

/**
 * The owner the trial compares directions and auth results with: TrialOptions.envelope, else the
 * connector config's `ownAddresses` and `authservId` (the names authoring.md recommends).
 */
export function envelopeOwner(context: TrialContext): { ownAddresses?: readonly string[]; authservId?: string } {
  const given: TrialEnvelopeOwner = context.options.envelope ?? {};
  const config = context.options.config ?? {};
  const configured = config['ownAddresses'];
  const ownAddresses = given.ownAddresses ?? (Array.isArray(configured) && configured.every((item) => typeof item === 'string') ? configured : undefined);
  const authservId = given.authservId ?? (typeof config['authservId'] === 'string' ? config['authservId'] : undefined);
  return {
    ...(ownAddresses === undefined ? {} : { ownAddresses: ownAddresses.map((address) => address.trim().toLowerCase()) }),
    ...(authservId === undefined || authservId.trim() === '' ? {} : { authservId: authservId.trim() }),
  };
}

/** The header block the trial read, as the envelope it states and its raw Authentication-Results. */
interface StatedHeader {
  readonly envelope: Envelope;
  readonly authResults: readonly string[];
}

/**
 * What the header states, by the very function the `imap` kind builds its envelopes with
 * (`statedEnvelope`, @inseam/connector/envelope), so the trial and the built-in kind cannot read
 * one header two ways.
 */
function statedHeader(bytes: Uint8Array, owner: EnvelopeOwner): StatedHeader {
  const fields = headerFields(bytes);
  return { envelope: statedEnvelope(bytes, owner), authResults: headerValues(fields, 'authentication-results') };
}

const HEADER_NAMES: Readonly<Record<string, string>> = { from: 'From', sender: 'Sender', 'reply-to': 'Reply-To', to: 'To', cc: 'Cc', bcc: 'Bcc' };

/** Addresses compare case-insensitively: hosts differ on the local part's case. */
function addressKey(identity: string): string {
  return identity.toLowerCase();
}

function partyProblems(envelope: Envelope, stated: StatedHeader): string[] {
  const byRole = new Map<string, Set<string>>();
  const anywhere = new Set<string>();
  for (const party of stated.envelope.parties) {
    const key = addressKey(party.identity);
    byRole.set(party.role, (byRole.get(party.role) ?? new Set()).add(key));
    anywhere.add(key);
  }
  const problems: string[] = [];
  for (const party of envelope.parties) {
    const key = addressKey(party.identity);
    const mailRole = (MAIL_ROLES as readonly string[]).includes(party.role);
    if (mailRole && !(byRole.get(party.role)?.has(key) ?? false)) {
      const carried = [...(byRole.get(party.role) ?? [])];
      problems.push(`${party.identity} as ${party.role}, which the ${HEADER_NAMES[party.role]} header does not carry (it has ${carried.length === 0 ? 'no address' : carried.join(', ')})`);
    } else if (!mailRole && !anywhere.has(key)) {
      problems.push(`${party.identity} as ${party.role}, which no From, Sender, Reply-To, To, Cc or Bcc header carries`);
    }
  }
  return problems;
}

function shownAuth(auth: Envelope['auth']): string {
  return auth === undefined ? 'no auth' : describeValue(auth);
}

function sameAuth(a: Envelope['auth'], b: Envelope['auth']): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (['dkim', 'spf', 'dmarc'] as const).every((method) => a[method] === b[method]);
}

/**
 * Without a configured authserv-id the trial cannot tell the owner's host's results from any
 * other; it still requires each stated method to be stated by some Authentication-Results header,
 * and `true` only where one says pass.
 */
function unanchoredAuthProblem(auth: Envelope['auth'], values: readonly string[]): string | undefined {
  if (auth === undefined) return undefined;
  const results = values.flatMap((value) => {
    const parsed = parseAuthenticationResults(value);
    const result = parsed === null ? undefined : authenticationResults([value], parsed.authservId);
    return result === undefined ? [] : [result];
  });
  for (const method of ['dkim', 'spf', 'dmarc'] as const) {
    const claimed = auth[method];
    if (claimed === undefined) continue;
    const stated = results.filter((result) => result[method] !== undefined);
    if (stated.length === 0) return `auth.${method} ${claimed} where no Authentication-Results header states ${method}`;
    if (claimed && !stated.some((result) => result[method] === true)) return `auth.${method} true where no Authentication-Results header says ${method}=pass`;
  }
  return undefined;
}

/** The special uses (RFC 6154) under which a message counts as the owner's own. */
const SENT_USES = ['sent', 'drafts'] as const;

/** The mailbox an entry says it is in, and that mailbox's special use, from `extra.mailbox` and `extra.specialUse`. */
function mailboxOf(entry: Entry): { mailbox: string; specialUse: unknown } | undefined {
  const mailbox = entry.extra?.['mailbox'];
  return typeof mailbox === 'string' && mailbox !== '' ? { mailbox, specialUse: entry.extra?.['specialUse'] } : undefined;
}

/**
 * The mailboxes the connector declares as the owner's Sent or Drafts, by name, with their use.
 * A declaration counts only when it cannot be made for some messages alone: every listed entry
 * naming the mailbox must state the same special use, and INBOX — where mail arrives
 * (RFC 3501 §5.1) — is never one. Either broken is a failure, so a connector cannot call every
 * message sent by calling every mailbox Sent. The mailboxes are named in check 5's detail, for
 * the person approving.
 */
function sentMailboxes(entries: readonly Entry[]): Map<string, (typeof SENT_USES)[number]> {
  const uses = new Map<string, Set<string>>();
  for (const entry of entries) {
    const found = mailboxOf(entry);
    if (found === undefined) continue;
    const use = typeof found.specialUse === 'string' ? found.specialUse : describeValue(found.specialUse);
    uses.set(found.mailbox, (uses.get(found.mailbox) ?? new Set()).add(use));
  }
  const out = new Map<string, (typeof SENT_USES)[number]>();
  for (const [mailbox, stated] of uses) {
    const sentLike = [...stated].filter((use) => (SENT_USES as readonly string[]).includes(use));
    if (sentLike.length === 0) continue;
    ensureAt(DOC_SECTIONS.envelopeSentMailboxes, stated.size === 1, {
      expected: `every listed entry in mailbox ${JSON.stringify(mailbox)} states the same extra.specialUse (the mailbox's, as the server marks it)`,
      actual: `its entries state ${[...stated].map((use) => JSON.stringify(use)).join(' and ')}`,
      fix: 'set extra.specialUse from the server\'s mark on the mailbox (RFC 6154 \\Sent, \\Drafts, …; "none" without one), the same on every message and attachment of the mailbox, never per message',
    });
    ensureAt(DOC_SECTIONS.envelopeSentMailboxes, mailbox.toLowerCase() !== 'inbox', {
      expected: 'INBOX, where mail arrives, is not declared the owner\'s Sent or Drafts mailbox',
      actual: `its entries state extra.specialUse ${JSON.stringify(sentLike[0])}`,
      fix: 'take extra.specialUse from the server\'s special-use mark of the mailbox (LIST RETURN (SPECIAL-USE)); INBOX has "inbox"',
    });
    out.set(mailbox, sentLike[0] as (typeof SENT_USES)[number]);
  }
  return out;
}

/**
 * Compares the envelopes of up to MESSAGE_SAMPLE message entries with their headers. Resolves to
 * what was compared (for check 5's detail), or undefined when no listed entry is a message with
 * an envelope.
 */
export async function checkEnvelopes(context: TrialContext): Promise<string | undefined> {
  const { connector } = requireConnector(context);
  const messages = (context.entries ?? []).filter((entry) => entry.envelope !== undefined && rawMessagePath(entry) !== undefined);
  if (messages.length === 0) return undefined;
  const owner = envelopeOwner(context);
  const sent = sentMailboxes(context.entries ?? []);
  let compared = 0;
  for (const entry of sampleEntries(messages, MESSAGE_SAMPLE)) {
    const envelope = entry.envelope!;
    const raw = rawMessagePath(entry)!;
    const doing = `read(${JSON.stringify(raw)})`;
    const where = raw === entry.path ? JSON.stringify(entry.path) : `${JSON.stringify(entry.path)} (its raw message ${JSON.stringify(raw)})`;
    const bytes = (await readStream(await call(doing, () => connector.read(raw)), HEADER_CAP, doing)).bytes;
    const box = mailboxOf(entry);
    const inSent = box === undefined ? undefined : sent.get(box.mailbox);
    const stated = statedHeader(bytes, { ...owner, inSentMailbox: inSent !== undefined });
    const parties = partyProblems(envelope, stated);
    ensureAt(DOC_SECTIONS.envelopeMessages, parties.length === 0, {
      expected: `the envelope of ${where} names only parties its header states, each under the role of the header that carries it`,
      actual: `it names ${listProblems(parties, 3)}`,
      fix: 'take the parties from the message\'s From, Sender, Reply-To, To, Cc and Bcc headers only, one per address (mailto: and the address), the role the header\'s name; never add the owner, a default recipient or a display name',
    });
    if (owner.authservId !== undefined) {
      const expected = stated.envelope.auth;
      ensureAt(DOC_SECTIONS.envelopeMessages, sameAuth(envelope.auth, expected), {
        expected: `the envelope of ${where} has the results of the topmost Authentication-Results header of the owner's host (authserv-id ${JSON.stringify(owner.authservId)}): ${shownAuth(expected)}`,
        actual: `it has ${shownAuth(envelope.auth)}`,
        fix: 'take dkim, spf and dmarc only from the topmost Authentication-Results header whose authserv-id is the owner\'s receiving host (config authservId): pass is true, any other result (fail, softfail, neutral, none, temperror, permerror, policy) false, a method it does not name absent; leave auth out when there is no such header',
      });
    } else {
      const problem = unanchoredAuthProblem(envelope.auth, stated.authResults);
      ensureAt(DOC_SECTIONS.envelopeMessages, problem === undefined, {
        expected: `the envelope of ${where} states only authentication results its Authentication-Results headers state`,
        actual: `it has ${problem}`,
        fix: 'take dkim, spf and dmarc only from the Authentication-Results header of the owner\'s receiving host (config authservId): pass is true, any other result false, a method it does not name absent; leave auth out when there is no such header',
      });
    }
    ensureAt(DOC_SECTIONS.envelopeMessages, envelope.list === stated.envelope.list, {
      expected: `the envelope of ${where} has ${stated.envelope.list === undefined ? 'no list (the message has no List-Id header)' : `list ${JSON.stringify(stated.envelope.list)} (its List-Id)`}`,
      actual: `it has ${envelope.list === undefined ? 'no list' : `list ${describeValue(envelope.list)}`}`,
      fix: 'set list to the identifier inside the angle brackets of the List-Id header, lowercased ("Team" <team.lists.example.org> → "team.lists.example.org"), and leave it out when the message has none',
    });
    if (owner.ownAddresses !== undefined) {
      const expected = stated.envelope.direction;
      ensureAt(inSent === undefined ? DOC_SECTIONS.envelopeMessages : DOC_SECTIONS.envelopeSentMailboxes, envelope.direction === expected, {
        expected: `the envelope of ${where} is ${expected}: ${directionReason(stated.envelope, owner, inSent === undefined ? undefined : box!.mailbox)}`,
        actual: `it is ${describeValue(envelope.direction)}`,
        fix: inSent === undefined
          ? 'answer sent only when the From or Sender header is one of the owner\'s addresses (ask the host who the credential belongs to, or take config ownAddresses), or the message is in the mailbox the server marks as Sent or Drafts (extra.mailbox and extra.specialUse); received otherwise'
          : 'in the Sent or Drafts mailbox answer sent, except for a message the owner\'s receiving host stamped (an Authentication-Results header of config authservId) that no own address wrote: it arrived from outside and is received',
      });
    }
    compared += 1;
  }
  const unchecked = [owner.authservId === undefined ? 'auth only against any Authentication-Results (no authserv-id configured)' : undefined, owner.ownAddresses === undefined ? 'direction not compared (no own addresses configured)' : undefined].filter((note) => note !== undefined);
  const sentNote = sent.size === 0 ? [] : [`messages in ${[...sent].map(([mailbox, use]) => `${JSON.stringify(mailbox)} (${use})`).join(', ')} count as the owner's own`];
  const notes = [...unchecked, ...sentNote];
  return `envelopes of ${compared} of ${messages.length} message${messages.length === 1 ? '' : 's'} agree with their headers (parties, auth, list${owner.ownAddresses === undefined ? '' : ', direction'})${notes.length === 0 ? '' : `; ${notes.join('; ')}`}`;
}

/** Why the trial expects the direction it does, in a failure's expected line. */
function directionReason(stated: Envelope, owner: EnvelopeOwner, sentMailbox: string | undefined): string {
  const own = `(${(owner.ownAddresses ?? []).join(', ') || 'none configured'})`;
  if (sentMailbox === undefined) return `its From or Sender ${stated.direction === 'sent' ? 'is' : 'is not'} one of the owner's addresses ${own}`;
  return stated.direction === 'sent'
    ? `it is in ${JSON.stringify(sentMailbox)}, the owner's Sent or Drafts mailbox, or an own address ${own} wrote it`
    : `it is in ${JSON.stringify(sentMailbox)}, but the owner's receiving host stamped it (Authentication-Results of ${JSON.stringify(owner.authservId)}) and no own address ${own} wrote it`;
}
