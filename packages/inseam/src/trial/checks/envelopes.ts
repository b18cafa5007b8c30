/**
 * Part of check 5: an envelope agrees with the message it describes. Where an entry's raw bytes
 * are a message (its mime is `message/rfc822`, or `extra.rawMessage` names the path of its raw
 * form), the trial reads the message's header and holds the envelope to it
 * (authoring.md#envelopes-messages): every party is an address the header of its role carries,
 * `auth` is what the owner's receiving host wrote in its own `Authentication-Results`, `list` is
 * the `List-Id`, and the direction follows from the owner's addresses. Only the format of an
 * envelope is checked elsewhere (check 3), so without this an invented recipient, a blanket
 * `dkim: pass` or every message marked `sent` would pass.
 */
import type { Entry, Envelope } from '@inseam/connector';
import { authenticationResults, listId, mailDirection, mailParties, MAIL_ROLES, parseAuthenticationResults, type MailAddress, type MailParties } from '@inseam/connector/envelope';
import { describeValue, listProblems } from '@neuralis/package-system/testing';
import type { AddressObject, EmailAddress } from 'mailparser';
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

/** The header block of a message: up to its first empty line (all of it when there is none). */
function headerBlock(bytes: Uint8Array): Buffer {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  const ends = [crlf === -1 ? -1 : crlf + 2, lf === -1 ? -1 : lf + 1].filter((end) => end >= 0);
  return ends.length === 0 ? buffer : buffer.subarray(0, Math.min(...ends));
}

/** Raw values of one header field, topmost first, unfolded. */
function headerValues(header: string, name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return header
    .replace(/\r?\n[ \t]+/gu, ' ')
    .split(/\r?\n/u)
    .filter((line) => line.toLowerCase().startsWith(prefix))
    .map((line) => line.slice(prefix.length).trim());
}

function flatten(addresses: readonly EmailAddress[]): MailAddress[] {
  return addresses.flatMap((item) => (item.group !== undefined ? flatten(item.group) : item.address === undefined ? [] : [{ address: item.address }]));
}

function addressList(value: unknown): MailAddress[] | undefined {
  if (value === undefined || value === null) return undefined;
  const objects = (Array.isArray(value) ? value : [value]) as AddressObject[];
  return objects.flatMap((object) => (Array.isArray(object?.value) ? flatten(object.value) : []));
}

/** What the header states: the parties by role, the raw auth results, the List-Id. */
interface StatedHeader {
  readonly parties: Envelope['parties'];
  readonly authResults: readonly string[];
  readonly listId: string | undefined;
}

async function statedHeader(bytes: Uint8Array): Promise<StatedHeader> {
  const block = headerBlock(bytes);
  // Parsed as imap's envelope code parses it (connectors/imap/src/entries.ts): encoded words,
  // quoted names, comments and groups are mailparser's to get right. Loaded only for a listing
  // with messages, so a trial of any other host does not pay for it.
  const { simpleParser } = await import('mailparser');
  const parsed = await simpleParser(Buffer.concat([block, Buffer.from('\r\n')]), { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true }).catch(() => undefined);
  const parties: MailParties = {
    from: addressList(parsed?.from),
    sender: addressList(parsed?.headers.get('sender')),
    'reply-to': addressList(parsed?.replyTo),
    to: addressList(parsed?.to),
    cc: addressList(parsed?.cc),
    bcc: addressList(parsed?.bcc),
  };
  const text = block.toString('latin1');
  return { parties: mailParties(parties), authResults: headerValues(text, 'authentication-results'), listId: listId(headerValues(text, 'list-id')[0]) };
}

const HEADER_NAMES: Readonly<Record<string, string>> = { from: 'From', sender: 'Sender', 'reply-to': 'Reply-To', to: 'To', cc: 'Cc', bcc: 'Bcc' };

/** Addresses compare case-insensitively: hosts differ on the local part's case. */
function addressKey(identity: string): string {
  return identity.toLowerCase();
}

function partyProblems(envelope: Envelope, stated: StatedHeader): string[] {
  const byRole = new Map<string, Set<string>>();
  const anywhere = new Set<string>();
  for (const party of stated.parties) {
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
  let compared = 0;
  for (const entry of sampleEntries(messages, MESSAGE_SAMPLE)) {
    const envelope = entry.envelope!;
    const raw = rawMessagePath(entry)!;
    const doing = `read(${JSON.stringify(raw)})`;
    const where = raw === entry.path ? JSON.stringify(entry.path) : `${JSON.stringify(entry.path)} (its raw message ${JSON.stringify(raw)})`;
    const bytes = (await readStream(await call(doing, () => connector.read(raw)), HEADER_CAP, doing)).bytes;
    const stated = await statedHeader(bytes);
    const parties = partyProblems(envelope, stated);
    ensureAt(DOC_SECTIONS.envelopeMessages, parties.length === 0, {
      expected: `the envelope of ${where} names only parties its header states, each under the role of the header that carries it`,
      actual: `it names ${listProblems(parties, 3)}`,
      fix: 'take the parties from the message\'s From, Sender, Reply-To, To, Cc and Bcc headers only, one per address (mailto: and the address), the role the header\'s name; never add the owner, a default recipient or a display name',
    });
    if (owner.authservId !== undefined) {
      const expected = authenticationResults(stated.authResults, owner.authservId);
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
    ensureAt(DOC_SECTIONS.envelopeMessages, envelope.list === stated.listId, {
      expected: `the envelope of ${where} has ${stated.listId === undefined ? 'no list (the message has no List-Id header)' : `list ${JSON.stringify(stated.listId)} (its List-Id)`}`,
      actual: `it has ${envelope.list === undefined ? 'no list' : `list ${describeValue(envelope.list)}`}`,
      fix: 'set list to the identifier inside the angle brackets of the List-Id header, lowercased ("Team" <team.lists.example.org> → "team.lists.example.org"), and leave it out when the message has none',
    });
    if (owner.ownAddresses !== undefined) {
      const expected = mailDirection(stated.parties, owner.ownAddresses, false);
      ensureAt(DOC_SECTIONS.envelopeMessages, envelope.direction === expected, {
        expected: `the envelope of ${where} is ${expected}: its From or Sender ${expected === 'sent' ? 'is' : 'is not'} one of the owner's addresses (${owner.ownAddresses.join(', ') || 'none configured'})`,
        actual: `it is ${describeValue(envelope.direction)}`,
        fix: 'answer sent only when the From or Sender header is one of the owner\'s addresses (ask the host who the credential belongs to, or take config ownAddresses), received otherwise',
      });
    }
    compared += 1;
  }
  const unchecked = [owner.authservId === undefined ? 'auth only against any Authentication-Results (no authserv-id configured)' : undefined, owner.ownAddresses === undefined ? 'direction not compared (no own addresses configured)' : undefined].filter((note) => note !== undefined);
  return `envelopes of ${compared} of ${messages.length} message${messages.length === 1 ? '' : 's'} agree with their headers (parties, auth, list${owner.ownAddresses === undefined ? '' : ', direction'})${unchecked.length === 0 ? '' : `; ${unchecked.join('; ')}`}`;
}
