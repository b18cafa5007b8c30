/**
 * The trial's envelope comparison (check 5) over the built-in imap kind on a real Dovecot: the
 * kind's envelopes agree with the headers by the one function both use (`statedEnvelope`), for
 * forwarded messages as attachments, the Sent and Drafts mailboxes, forged and folded headers —
 * and variants of the kind that fake an envelope fail check 5 alone, naming the fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, Entry } from '@inseam/connector';
import type { ImapHost } from '@inseam/connector-imap';
import { mail, startMailServer, type MailServer } from '../../../../connectors/imap/src/__fixtures__/mail.js';
import { formatTrialReport, runTrial, type TrialReport } from './index.js';

const OWNER = { ownAddresses: ['alice@example.com'], authservId: 'mx.example.com' } as const;
/** What the owner's receiving host writes above a message it accepted. */
const STAMP = 'Authentication-Results: mx.example.com; dkim=pass header.d=example.org; spf=softfail smtp.mailfrom=example.org; dmarc=none';

/** A message forwarded as an attachment: multipart/mixed with a message/rfc822 part, the inner message's own headers unencoded. */
function forward(inner: string, as: { type: string; name: string }): string {
  const boundary = 'fwd-b0undary';
  return [
    STAMP,
    'From: Bob <bob@example.org>',
    'To: alice@example.com',
    'Subject: Fwd: look at this',
    'Date: Tue, 01 Dec 2026 11:00:00 +0000',
    `Message-ID: <fwd-${as.name}@example.org>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'See below.',
    `--${boundary}`,
    `Content-Type: ${as.type}; name="${as.name}"`,
    `Content-Disposition: attachment; filename="${as.name}"`,
    '',
    inner,
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

/** A forwarded message whose headers differ from its carrier's in every envelope field. */
const INNER = [
  'Authentication-Results: mx.example.com; dkim=fail; spf=fail; dmarc=fail',
  'From: Mallory <mallory@attacker.test>',
  'To: someone@elsewhere.example',
  'Cc: alice@example.com',
  'List-Id: <inner.lists.example>',
  'Subject: the original',
  '',
  'Original text.',
].join('\r\n');

let server: MailServer;
let host: ImapHost;

beforeAll(async () => {
  server = await startMailServer();
  await server.append(
    'INBOX',
    mail({
      subject: 'Stamped, with forgeries below',
      cc: 'Team: dave@example.net,\r\n "Eve, of Team" <eve@example.net>;',
      headers: [STAMP, 'Authentication-Results: mx.attacker.test; dkim=pass; spf=pass; dmarc=pass', 'Authentication-Results: mx.example.com; dkim=pass; spf=pass; dmarc=pass'],
    }),
    mail({
      from: '=?utf-8?Q?J=C3=BCrgen_=3Cforged=40attacker.test=3E?= <juergen@example.net>',
      subject: '=?utf-8?Q?Gr=C3=BC=C3=9Fe?=',
      headers: ['List-Id: "Team talk"\r\n <Team.Lists.Example.org>', 'Reply-To: list@lists.example.org', STAMP],
    }),
    forward(INNER, { type: 'message/rfc822', name: 'original.eml' }),
    forward(INNER, { type: 'application/octet-stream', name: 'saved.eml' }),
    mail({ from: 'Alice <alice@example.com>', to: 'bob@example.org', subject: 'A note to Bob, copied to me', headers: [STAMP] }),
  );
  // Sent from an alias the owner did not list; and a message someone else wrote, moved into Sent.
  await server.append('Sent', mail({ from: 'Alice <alice@alias.example.com>', to: 'bob@example.org', subject: 'From my alias' }), mail({ from: 'carol@example.net', subject: 'Moved here', headers: [STAMP] }));
  await server.append('Drafts', ['To: bob@example.org', 'Subject: unfinished', '', 'draft'].join('\r\n'));
  await server.append('Trash', mail({ subject: 'Binned', headers: [STAMP] }));
  host = server.host(OWNER);
});

afterAll(async () => {
  await server?.stop();
});

/**
 * The imap host as the trial drives it, each listed and statted entry through `patch` (a broken
 * variant). Its origin is `imaps://`, which the trial's HTTP origin form has no place for; the
 * connection does not go through the egress gate, so it is declared as none here.
 */
function trialled(patch: (entry: Entry) => Entry = (entry) => entry): Connector {
  return {
    describe: () => ({ ...host.describe(), auth: { ...host.describe().auth, origins: [] } }),
    list: async (options) => {
      const page = await host.list(options);
      return { ...page, entries: page.entries.map(patch) };
    },
    stat: async (path) => {
      const entry = await host.stat(path);
      return entry === null ? null : patch(entry);
    },
    read: (path, options) => host.read(path, options),
    watch: (emit) => host.watch((event) => emit(event.entry === undefined ? event : { ...event, entry: patch(event.entry) })),
  };
}

const trial = (connector: Connector, label: string): Promise<TrialReport> => runTrial({ subject: { connector, label }, envelope: OWNER, seed: 1 });

function failed(report: TrialReport): number[] {
  return report.checks.filter((check) => check.status === 'fail').map((check) => check.id);
}

describe('the trial holds the imap kind\'s envelopes to their headers (Dovecot)', () => {
  it('the kind passes check 5 over every message and attachment, the Sent and Drafts mailboxes named', async () => {
    const report = await trial(trialled(), 'imap');
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[4]?.detail).toContain(
      'envelopes of 11 of 11 messages agree with their headers (parties, auth, list, direction); messages in "Drafts" (drafts), "Sent" (sent) count as the owner\'s own',
    );
  });

  it('states what the headers state: a forwarded message\'s envelope is its carrier\'s, Sent mail sent unless it arrived', async () => {
    const entries: Entry[] = [];
    let cursor: string | undefined;
    do {
      const page = await host.list(cursor === undefined ? {} : { cursor });
      entries.push(...page.entries);
      cursor = page.cursor;
    } while (cursor !== undefined);
    const bySubject = (subject: string) => entries.find((entry) => entry.extra?.['kind'] === 'message' && entry.extra?.['subject'] === subject)!;
    const stamped = bySubject('Stamped, with forgeries below');
    expect(stamped.envelope).toEqual({
      direction: 'received',
      parties: [
        { identity: 'mailto:bob@example.org', role: 'from' },
        { identity: 'mailto:alice@example.com', role: 'to' },
        { identity: 'mailto:dave@example.net', role: 'cc' },
        { identity: 'mailto:eve@example.net', role: 'cc' },
      ],
      auth: { dkim: true, spf: false, dmarc: false },
    });
    const listMail = bySubject('Grüße');
    expect(listMail.envelope?.parties.map((party) => party.identity)).toEqual(['mailto:juergen@example.net', 'mailto:list@lists.example.org', 'mailto:alice@example.com']);
    expect(listMail.envelope?.list).toBe('team.lists.example.org');
    const carrier = bySubject('Fwd: look at this');
    const attachments = entries.filter((entry) => entry.extra?.['kind'] === 'attachment');
    expect(attachments.map((entry) => [entry.mime, entry.extra?.['filename']])).toEqual([
      ['message/rfc822', 'original.eml'],
      ['application/octet-stream', 'saved.eml'],
    ]);
    for (const attachment of attachments) {
      expect(attachment.envelope?.parties[0]).toEqual({ identity: 'mailto:bob@example.org', role: 'from' });
      expect(attachment.extra?.['rawMessage']).toMatch(/^INBOX\/[0-9]+-[34]\.eml$/);
    }
    expect(attachments[0]!.extra?.['rawMessage']).toBe(carrier.path);
    expect(bySubject('A note to Bob, copied to me').envelope?.direction).toBe('sent');
    expect(bySubject('From my alias').envelope?.direction).toBe('sent');
    expect(bySubject('Moved here').envelope?.direction).toBe('received');
    expect(bySubject('unfinished').envelope).toEqual({ direction: 'sent', parties: [{ identity: 'mailto:bob@example.org', role: 'to' }] });
  });

  it('an attachment that is a message, held to its own header instead of its carrier\'s, fails check 5', async () => {
    // The kind before it named the carrier in extra.rawMessage: the trial read the forwarded message's own header.
    const withoutRaw = (entry: Entry): Entry => (entry.extra?.['kind'] === 'attachment' ? { ...entry, extra: Object.fromEntries(Object.entries(entry.extra).filter(([key]) => key !== 'rawMessage')) } : entry);
    const report = await trial(trialled(withoutRaw), 'imap-no-raw');
    expect(failed(report), formatTrialReport(report)).toEqual([5]);
    expect(report.checks[4]?.detail).toMatch(/^expected: the envelope of "INBOX\/[0-9]+-3\.parts\/1-original\.eml" names only parties its header states/);
    expect(report.checks[4]?.detail).toContain('mailto:bob@example.org as from, which the From header does not carry (it has mailto:mallory@attacker.test)');
  });

  it('calling every mailbox Sent fails check 5: INBOX is never Sent', async () => {
    const report = await trial(trialled((entry) => ({ ...entry, envelope: { ...entry.envelope!, direction: 'sent' }, extra: { ...entry.extra, specialUse: 'sent' } })), 'imap-all-sent');
    expect(failed(report), formatTrialReport(report)).toEqual([5]);
    expect(report.checks[4]?.detail).toMatch(/^expected: INBOX, where mail arrives, is not declared the owner's Sent or Drafts mailbox\nactual: its entries state extra.specialUse "sent"\nfix: .*\nsee: docs\/connectors\/authoring.md#envelopes-sent-and-drafts-mailboxes$/);
  });

  it('calling every other mailbox Sent fails check 5 on a message the owner\'s host received', async () => {
    const allSent = (entry: Entry): Entry => (entry.extra?.['mailbox'] === 'INBOX' ? entry : { ...entry, envelope: { ...entry.envelope!, direction: 'sent' }, extra: { ...entry.extra, specialUse: 'sent' } });
    const report = await trial(trialled(allSent), 'imap-others-sent');
    expect(failed(report), formatTrialReport(report)).toEqual([5]);
    expect(report.checks[4]?.detail).toMatch(/^expected: the envelope of "(Sent|Trash)\/[0-9]+-[0-9]+\.eml" is received: it is in "(Sent|Trash)", but the owner's receiving host stamped it \(Authentication-Results of "mx.example.com"\) and no own address \(alice@example.com\) wrote it\nactual: it is "sent"/);
  });

  it('marking single messages as in Sent fails check 5: a special use belongs to the mailbox', async () => {
    const one = (entry: Entry): Entry => (entry.extra?.['subject'] === 'Stamped, with forgeries below' ? { ...entry, envelope: { ...entry.envelope!, direction: 'sent' }, extra: { ...entry.extra, specialUse: 'sent' } } : entry);
    const faked = await trial(trialled(one), 'imap-one-sent');
    expect(failed(faked), formatTrialReport(faked)).toEqual([5]);
    expect(faked.checks[4]?.detail).toMatch(/^expected: every listed entry in mailbox "INBOX" states the same extra.specialUse \(the mailbox's, as the server marks it\)\nactual: its entries state "(inbox" and "sent|sent" and "inbox)"/);
  });

  it('results trusted from any authserv-id fail check 5', async () => {
    const anyHost = (entry: Entry): Entry => (entry.extra?.['subject'] === 'Stamped, with forgeries below' ? { ...entry, envelope: { ...entry.envelope!, auth: { dkim: true, spf: true, dmarc: true } } } : entry);
    const report = await trial(trialled(anyHost), 'imap-any-authserv');
    expect(failed(report), formatTrialReport(report)).toEqual([5]);
    expect(report.checks[4]?.detail).toContain('(authserv-id "mx.example.com"): {"dkim":true,"spf":false,"dmarc":false}\nactual: it has {"dkim":true,"spf":true,"dmarc":true}');
  });
});
