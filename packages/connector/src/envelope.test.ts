import { describe, expect, it } from 'vitest';
import * as envelope from './envelope-index.js';
import { authenticationResults, listId, mailDirection, mailIdentity, mailParties, parseAuthenticationResults } from './envelope-index.js';

describe('mail envelopes', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(envelope).sort()).toEqual(
      ['MAIL_ROLES', 'authenticationResults', 'listId', 'mailDirection', 'mailIdentity', 'mailParties', 'parseAuthenticationResults', 'partyAddresses'].sort(),
    );
  });

  it('states each party under the role its header gives, never a display name, each once', () => {
    const parties = mailParties({
      from: [{ name: 'Alice', address: 'Alice@Example.COM' }],
      to: [{ address: 'bob@example.org' }, { address: 'bob@example.org' }, { name: 'Undisclosed recipients' }],
      cc: [{ address: 'not an address' }],
      'reply-to': [{ address: 'list@example.net' }],
    });
    expect(parties).toEqual([
      { identity: 'mailto:Alice@example.com', role: 'from' },
      { identity: 'mailto:list@example.net', role: 'reply-to' },
      { identity: 'mailto:bob@example.org', role: 'to' },
    ]);
    expect(mailIdentity('a@b@c')).toBeNull();
    expect(mailIdentity(' x@Y.org ')).toBe('mailto:x@y.org');
  });

  it('reads results only from the configured authserv-id, and only its topmost header', () => {
    const ours = 'mx.example.com; dkim=pass header.d=example.org; spf=fail smtp.mailfrom=example.org; dmarc=none';
    const forged = 'mx.attacker.test; dkim=pass; spf=pass; dmarc=pass';
    expect(authenticationResults([forged, ours], 'mx.example.com')).toEqual({ dkim: true, spf: false, dmarc: false });
    expect(authenticationResults([forged], 'mx.example.com')).toBeUndefined();
    // A header with our id below ours came with the message.
    expect(authenticationResults(['mx.example.com; dkim=fail', 'mx.example.com; dkim=pass; spf=pass'], 'MX.example.com')).toEqual({ dkim: false });
    expect(authenticationResults(['mx.example.com 1; dkim=fail (bad sig); dkim=pass header.i=@x'], 'mx.example.com')).toEqual({ dkim: true });
    expect(authenticationResults(['mx.example.com; none'], 'mx.example.com')).toBeUndefined();
    expect(authenticationResults([ours], '')).toBeUndefined();
    expect(parseAuthenticationResults('(comment) ; dkim=pass')).toBeNull();
    expect(parseAuthenticationResults('mx.example.com (a; b) ;\r\n\tspf=pass (x=y; z)')).toEqual({ authservId: 'mx.example.com', results: [{ method: 'spf', result: 'pass' }] });
  });

  it('names the list by its List-Id identifier', () => {
    expect(listId('"Team list" <Team.Lists.Example.org>')).toBe('team.lists.example.org');
    expect(listId('dev.example.net')).toBe('dev.example.net');
    expect(listId('No identifier here')).toBeUndefined();
    expect(listId(undefined)).toBeUndefined();
  });

  it('calls a message sent when an own address wrote it or it sits in Sent/Drafts', () => {
    const parties = mailParties({ from: [{ address: 'me@example.com' }], to: [{ address: 'you@example.org' }] });
    expect(mailDirection(parties, ['ME@example.com'], false)).toBe('sent');
    expect(mailDirection(parties, ['other@example.com'], false)).toBe('received');
    expect(mailDirection(parties, [], true)).toBe('sent');
  });
});
