import { describe, expect, it } from 'vitest';
import { parseImapConfig } from './config.js';

describe('imap config', () => {
  it('fills defaults: implicit TLS on 993, password sign-in, no trusted authserv-id', () => {
    expect(parseImapConfig({ host: 'imap.example.com' })).toMatchObject({ host: 'imap.example.com', port: 993, tls: 'implicit', auth: 'password', authservId: undefined, allowExpunge: false, ownAddresses: [] });
    expect(parseImapConfig({ host: 'imap.example.com', tls: 'starttls' }).port).toBe(143);
  });

  it('refuses what a schema cannot, naming the field', () => {
    const field = (raw: Record<string, unknown>): unknown => {
      try {
        parseImapConfig(raw);
        return undefined;
      } catch (error) {
        return (error as { code: string; details: { fields: string[] } }).details.fields[0];
      }
    };
    expect(field({ host: 'imaps://imap.example.com' })).toBe('host');
    expect(field({ host: 'imap.example.com', ca: 'not pem' })).toBe('ca');
    expect(field({ host: 'imap.example.com', auth: 'xoauth2' })).toBe('oauthAuthorizationUrl');
    expect(field({ host: 'imap.example.com', oauthTokenUrl: 'https://x' })).toBe('oauthTokenUrl');
    expect(field({ host: 'imap.example.com', ownAddresses: ['not an address'] })).toBe('ownAddresses');
    expect(field({ host: 'imap.example.com', port: 70000 })).toBe('port');
  });
});
