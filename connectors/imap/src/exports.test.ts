import { describe, expect, it } from 'vitest';
import * as imap from './index.js';

describe('the package surface', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(imap).sort()).toEqual(
      [
        'IMAP_AUTH_METHODS',
        'IMAP_CONNECTOR_ENTRY',
        'IMAP_CREDENTIALS',
        'IMAP_DEFAULT_SCOPE',
        'IMAP_DIMENSIONS',
        'IMAP_MANIFEST',
        'IMAP_PACKAGE_ID',
        'IMAP_PORT_CAPABILITIES',
        'IMAP_TLS_MODES',
        'ImapHost',
        'ImapPort',
        'ImapSession',
        'SPECIAL_USES',
        'createImapConnector',
        'createImapHost',
        'createImapPort',
        'describeImap',
        'imapAuth',
        'init',
        'parseImapConfig',
      ].sort(),
    );
  });
});
