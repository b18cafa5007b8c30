import { describe, expect, it } from 'vitest';
import * as envelope from './envelope-index.js';
import { authenticationResults, decodeEncodedWords, headerFields, headerValues, listId, mailIdentity, parseAuthenticationResults, statedEnvelope } from './envelope-index.js';
import { parseAddressList } from './address-list.js';

const OWNER = { ownAddresses: ['alice@example.com'], authservId: 'mx.example.com' } as const;

/** A header block with CRLF line ends, then a body that must never be read as header. */
function message(...lines: string[]): string {
  return [...lines, '', 'From: body@attacker.test', 'Authentication-Results: mx.example.com; dkim=pass', ''].join('\r\n');
}

describe('mail envelopes', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(envelope).sort()).toEqual(
      ['MAIL_ROLES', 'authenticationResults', 'decodeEncodedWords', 'headerFields', 'headerValues', 'listId', 'mailIdentity', 'parseAuthenticationResults', 'statedEnvelope'].sort(),
    );
  });

  it('states each party under the role its header gives, never a display name, each once per role', () => {
    const stated = statedEnvelope(
      message('From: Alice <Alice@Example.COM>', 'To: bob@example.org, Bob <bob@example.org>, Undisclosed recipients:;', 'Cc: not an address', 'Reply-To: list@example.net', 'Subject: hi'),
    );
    expect(stated.parties).toEqual([
      { identity: 'mailto:Alice@example.com', role: 'from' },
      { identity: 'mailto:list@example.net', role: 'reply-to' },
      { identity: 'mailto:bob@example.org', role: 'to' },
    ]);
    expect(mailIdentity('a@b@c')).toBeNull();
    expect(mailIdentity(' x@Y.org ')).toBe('mailto:x@y.org');
  });

  it('reads folded headers, group members, quoted names with commas and brackets, comments and routes', () => {
    const stated = statedEnvelope(
      message(
        'From: "Doe, John <boss@attacker.test>" <john@example.org>',
        'To: Team: a@x.org,\r\n  "b, c" <b@y.org>;, d@z.org (Dee <e@attacker.test>)',
        'Cc:\r\n\t(comment@attacker.test) carol@example.net',
        'Bcc: undisclosed-recipients:;',
        'Sender: <@relay.example,@other.example:sec@example.org>',
      ),
    );
    expect(stated.parties).toEqual([
      { identity: 'mailto:john@example.org', role: 'from' },
      { identity: 'mailto:sec@example.org', role: 'sender' },
      { identity: 'mailto:a@x.org', role: 'to' },
      { identity: 'mailto:b@y.org', role: 'to' },
      { identity: 'mailto:d@z.org', role: 'to' },
      { identity: 'mailto:carol@example.net', role: 'cc' },
    ]);
  });

  it('decodes encoded words only in display names: one that decodes to an address adds no party', () => {
    const forged = Buffer.from('"x" <forged@attacker.test>').toString('base64');
    const stated = statedEnvelope(message('From: =?utf-8?Q?evil=40attacker.test?=', `To: =?utf-8?B?${forged}?= <real@example.org>`));
    expect(stated.parties).toEqual([{ identity: 'mailto:real@example.org', role: 'to' }]);
    expect(parseAddressList(`=?utf-8?B?${forged}?= <real@example.org>`)).toEqual([{ address: 'real@example.org', name: '"x" <forged@attacker.test>' }]);
    expect(parseAddressList('=?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>')).toEqual([{ address: 'PIRARD@vm1.ulg.ac.be', name: 'André Pirard' }]);
  });

  it('gives no party for addresses run together or garbled, and carries on at the next comma', () => {
    expect(parseAddressList('a@x.org bob, c@y.org').map((item) => item.address)).toEqual([undefined, 'c@y.org']);
    expect(parseAddressList('<a@x.org> trailing, <b@y.org').map((item) => item.address)).toEqual([undefined, undefined]);
    expect(parseAddressList('a @ x . org')).toEqual([{ address: 'a@x.org' }]);
    expect(parseAddressList('')).toEqual([]);
    expect(statedEnvelope(message('From: ', 'To: ;;;,,,<>', 'Cc: @', 'Subject: none')).parties).toEqual([]);
  });

  it('states nothing for missing headers, and nothing from the body', () => {
    expect(statedEnvelope(message('Subject: only a subject'), OWNER)).toEqual({ direction: 'received', parties: [] });
    expect(statedEnvelope('', OWNER)).toEqual({ direction: 'received', parties: [] });
    // A message that starts with its body has no header at all.
    expect(statedEnvelope('\r\nFrom: alice@example.com\r\n', OWNER)).toEqual({ direction: 'received', parties: [] });
  });

  it('reads results only from the configured authserv-id, and only its topmost header', () => {
    const ours = 'Authentication-Results: mx.example.com; dkim=pass header.d=example.org; spf=fail smtp.mailfrom=example.org; dmarc=none';
    const forged = 'Authentication-Results: mx.attacker.test; dkim=pass; spf=pass; dmarc=pass';
    const lookalike = 'Authentication-Results: mx.example.com.attacker.test; dkim=pass; spf=pass; dmarc=pass';
    const x = 'X-Authentication-Results: mx.example.com; dkim=pass; spf=pass; dmarc=pass';
    expect(statedEnvelope(message(forged, lookalike, x, ours, 'From: bob@example.org'), OWNER).auth).toEqual({ dkim: true, spf: false, dmarc: false });
    expect(statedEnvelope(message(forged, 'From: bob@example.org'), OWNER).auth).toBeUndefined();
    // A header with our id below ours came with the message; without a configured id nothing is trusted.
    expect(statedEnvelope(message('Authentication-Results: MX.example.com; dkim=fail', 'Authentication-Results: mx.example.com; dkim=pass; spf=pass'), OWNER).auth).toEqual({ dkim: false });
    expect(statedEnvelope(message(ours), { ownAddresses: [] }).auth).toBeUndefined();
    // Folded, with comments and a quoted property holding a forged result.
    expect(statedEnvelope(message('Authentication-Results: mx.example.com (our mx);\r\n  dkim=fail (dkim=pass) header.b="x; dkim=pass";\r\n\tspf=pass'), OWNER).auth).toEqual({ dkim: false, spf: true });
  });

  it('maps every result but pass to false, a method twice to true when any passes, a header naming none to no auth', () => {
    for (const result of ['fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy']) {
      expect(authenticationResults([`mx.example.com; dkim=${result}; spf=${result}; dmarc=${result}`], 'mx.example.com')).toEqual({ dkim: false, spf: false, dmarc: false });
    }
    expect(authenticationResults(['mx.example.com 1; dkim=fail (bad sig); dkim=pass header.i=@x'], 'mx.example.com')).toEqual({ dkim: true });
    expect(authenticationResults(['mx.example.com; none'], 'mx.example.com')).toBeUndefined();
    expect(authenticationResults(['mx.example.com; dkim=pass'], '')).toBeUndefined();
    expect(parseAuthenticationResults('(comment) ; dkim=pass')).toBeNull();
    expect(parseAuthenticationResults('mx.example.com (a; b) ;\r\n\tspf=pass (x=y; z)')).toEqual({ authservId: 'mx.example.com', results: [{ method: 'spf', result: 'pass' }] });
  });

  it('names the list by its first List-Id identifier', () => {
    expect(statedEnvelope(message('List-Id: "Team list"\r\n <Team.Lists.Example.org>', 'List-Id: <other.example.net>')).list).toBe('team.lists.example.org');
    expect(listId('dev.example.net')).toBe('dev.example.net');
    expect(listId('No identifier here')).toBeUndefined();
    expect(listId(undefined)).toBeUndefined();
  });

  it('calls a message sent when an own address wrote it or it sits in Sent/Drafts and did not arrive through the owner\'s host', () => {
    const mine = message('From: Alice <ALICE@example.com>', 'To: you@example.org');
    const theirs = message('From: you@example.org', 'To: alice@example.com');
    expect(statedEnvelope(mine, OWNER).direction).toBe('sent');
    expect(statedEnvelope(message('From: list@example.org', 'Sender: alice@example.com'), OWNER).direction).toBe('sent');
    expect(statedEnvelope(theirs, OWNER).direction).toBe('received');
    // Reply-To and To do not make the owner the author.
    expect(statedEnvelope(message('From: you@example.org', 'Reply-To: alice@example.com', 'To: alice@example.com'), OWNER).direction).toBe('received');
    // In Sent or Drafts, from an alias not listed, or with no From at all (a draft):
    expect(statedEnvelope(theirs, { ...OWNER, inSentMailbox: true }).direction).toBe('sent');
    expect(statedEnvelope(message('Subject: draft'), { inSentMailbox: true }).direction).toBe('sent');
    // A message the owner's receiving host stamped reached the owner: moved into Sent, it is still received.
    const arrived = message('Authentication-Results: mx.example.com; spf=pass', 'From: you@example.org');
    expect(statedEnvelope(arrived, { ...OWNER, inSentMailbox: true }).direction).toBe('received');
    expect(statedEnvelope(message('Authentication-Results: mx.example.com; spf=pass', 'From: alice@example.com'), { ...OWNER, inSentMailbox: true }).direction).toBe('sent');
  });

  it('decodes each header value on its own: UTF-8 where valid, Latin-1 bytes otherwise', () => {
    const bytes = Buffer.concat([Buffer.from('X-Junk: \xff\xfe\r\nFrom: ', 'latin1'), Buffer.from('Jürgen <jürgen@exämple.org>\r\nSubject: =?utf-8?q?Gr=C3=BC?= =?utf-8?q?=C3=9Fe?= und =?x-unknown?q?x?=\r\n\r\n', 'utf8')]);
    expect(statedEnvelope(bytes).parties).toEqual([{ identity: 'mailto:jürgen@exämple.org', role: 'from' }]);
    const fields = headerFields(bytes);
    expect(headerValues(fields, 'x-junk')).toEqual(['\xff\xfe']);
    expect(decodeEncodedWords(headerValues(fields, 'SUBJECT')[0]!)).toBe('Grüße und =?x-unknown?q?x?=');
    // A character split across two words of one charset survives; an mbox From line is no field.
    expect(decodeEncodedWords('=?utf-8?B?R3LD?= =?utf-8?B?vMOfZQ==?=')).toBe('Grüße');
    expect(headerFields('From bob@example.org Tue Dec  1 10:00:00 2026\nFrom : a@b.org\n  (folded)\n\nX: body')).toEqual([{ name: 'from', value: 'a@b.org  (folded)' }]);
  });
});
