/**
 * What an imap host declares: its dimensions (the ordering one is the arrival date), the default
 * scope that leaves Trash and Junk out, its AuthSpec for the config's sign-in method, and the
 * writes it accepts. The IMAP connection does not go through the HTTP egress gate (it is not
 * HTTP); `origins` names the server so the host's reach is still stated.
 */
import type { AuthSpec, Description, Dimension, Scope } from '@inseam/connector';
import type { ImapConfig } from './config.js';
import { SPECIAL_USES } from './session.js';

export const IMAP_DIMENSIONS: Readonly<Record<string, Dimension>> = {
  date: { type: 'datetime', from: 'mtime', ordering: true, description: 'When the message arrived in its mailbox (INTERNALDATE).' },
  from: { type: 'string', from: 'extra.from', description: 'The From addresses, lowercased, comma-separated; null when the header has none.' },
  to: { type: 'string', from: 'extra.to', description: 'The To addresses, lowercased, comma-separated; null when the header has none.' },
  subject: { type: 'string', from: 'extra.subject', description: 'The decoded Subject; null when there is none.' },
  mailbox: { type: 'string', from: 'extra.mailbox', description: 'The full name of the mailbox the message is in.' },
  specialUse: { type: 'enum', from: 'extra.specialUse', values: [...SPECIAL_USES], description: 'The mailbox\'s special use (RFC 6154), or none.' },
  size: { type: 'bytes', from: 'extra.size', description: 'The message\'s size in bytes (RFC822.SIZE); null for an attachment.' },
  seen: { type: 'boolean', from: 'extra.seen', description: 'The \\Seen flag.' },
  flagged: { type: 'boolean', from: 'extra.flagged', description: 'The \\Flagged flag.' },
  hasAttachments: { type: 'boolean', from: 'extra.hasAttachments', description: 'The message has at least one attachment.' },
  kind: { type: 'enum', from: 'extra.kind', values: ['message', 'attachment'], description: 'A whole message or one of its attachments.' },
};

export const IMAP_DEFAULT_SCOPE: Scope = {
  rules: [{ exclude: { dim: 'specialUse', op: 'in', value: ['trash', 'junk'] } }],
};

export function imapAuth(config: ImapConfig): AuthSpec {
  const origins = [`imaps://${config.host}:${config.port}`];
  if (config.auth === 'xoauth2' && config.oauth !== undefined) {
    return {
      fields: [{ name: 'username', label: 'Email address or username', secret: false }],
      instructions: 'Enter the account\'s username, then connect the account: the server is signed in to with XOAUTH2 and the token the provider grants.',
      acquire: { type: 'oauth2', grant: 'authorization_code', authorizationUrl: config.oauth.authorizationUrl, tokenUrl: config.oauth.tokenUrl, scopes: [...config.oauth.scopes], pkce: true, clientSources: ['inseam', 'dcr', 'network'] },
      present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{access_token}}' }],
      origins,
    };
  }
  return {
    fields: [
      { name: 'username', label: 'Username', secret: false },
      { name: 'password', label: 'Password (or app password)', secret: true },
    ],
    acquire: { type: 'static' },
    present: [{ in: 'basic', username: '{{username}}', password: '{{password}}' }],
    origins,
  };
}

/** Writes are declared always; whether a caller may use them is the host's permission tree (read only until a person allows more). */
export function describeImap(config: ImapConfig): Description {
  return {
    kind: 'imap',
    capabilities: ['list', 'stat', 'read', 'watch', 'write', 'delete'],
    auth: imapAuth(config),
    dimensions: IMAP_DIMENSIONS,
    listing: 'free',
    defaultScope: IMAP_DEFAULT_SCOPE,
    writes: { mimes: ['message/rfc822'], create: true, replace: false, delete: true },
  };
}
