/**
 * An imap host's config: where the server is, how TLS is checked, how the person signs in, and
 * what the envelope needs to know about its owner. The configSchema (manifest.ts) checks types;
 * this module checks what a schema cannot and fills defaults. Every refusal is `invalid_config`
 * naming the field. No credential ever lives here: the username and password (or the OAuth
 * grant) are credentials (manifest.ts `credentials[]`, or the host's AuthSpec fields).
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';

export type ImapTls = 'implicit' | 'starttls';
export type ImapAuthMethod = 'password' | 'xoauth2';

export const IMAP_TLS_MODES = ['implicit', 'starttls'] as const satisfies readonly ImapTls[];
export const IMAP_AUTH_METHODS = ['password', 'xoauth2'] as const satisfies readonly ImapAuthMethod[];

export interface ImapOAuthConfig {
  readonly authorizationUrl: string;
  readonly tokenUrl: string;
  readonly scopes: readonly string[];
}

export interface ImapConfig {
  readonly host: string;
  readonly port: number;
  readonly tls: ImapTls;
  /** PEM of the CA(s) the server's certificate must chain to; undefined: the system's roots. */
  readonly ca: string | undefined;
  /** The name the certificate must carry, when it is not `host`. */
  readonly servername: string | undefined;
  readonly auth: ImapAuthMethod;
  readonly oauth: ImapOAuthConfig | undefined;
  /** The owner's own addresses, lowercased: mail from them is `sent`. */
  readonly ownAddresses: readonly string[];
  /** The authserv-id of the owner's receiving host; undefined: no results are trusted. */
  readonly authservId: string | undefined;
  /** Mailboxes to show, by full name; empty: every selectable mailbox. */
  readonly mailboxes: readonly string[];
  /** delete() expunges outright instead of moving to Trash (and in Trash itself). */
  readonly allowExpunge: boolean;
  /** Largest message a port read returns without a range. */
  readonly maxTextBytes: number;
  readonly connectTimeoutMs: number;
}

const DEFAULT_MAX_TEXT_BYTES = 4 * 1024 * 1024;
const HOSTNAME = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/u;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/u;
const ADDRESS = /^[^\s@]+@[^\s@]+$/u;

function configError(field: string, message: string): InvalidConfigError {
  return new InvalidConfigError(`Invalid source config: ${message}`, { details: { fields: [field] } });
}

function optionalString(raw: Readonly<Record<string, unknown>>, field: string): string | undefined {
  const value = raw[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw configError(field, `field "${field}" must be a non-empty string.`);
  return value.trim();
}

function httpsUrl(raw: Readonly<Record<string, unknown>>, field: string): string {
  const value = optionalString(raw, field);
  if (value === undefined) throw configError(field, `field "${field}" is required when auth is "xoauth2".`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw configError(field, `field "${field}" is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw configError(field, `field "${field}" must be an https URL.`);
  return url.href;
}

/** Checks a raw config and returns it typed, with defaults filled. Throws `invalid_config` naming the field. */
export function parseImapConfig(raw: Readonly<Record<string, unknown>>): ImapConfig {
  const host = optionalString(raw, 'host');
  if (host === undefined) throw configError('host', 'field "host" (the IMAP server\'s name, e.g. imap.example.com) is required.');
  if (!HOSTNAME.test(host) && !IPV4.test(host)) throw configError('host', 'field "host" must be a host name or an IPv4 address, without scheme or port.');
  const tls = raw['tls'] ?? 'implicit';
  if (typeof tls !== 'string' || !(IMAP_TLS_MODES as readonly string[]).includes(tls)) throw configError('tls', 'field "tls" must be "implicit" (port 993) or "starttls" (port 143).');
  const port = raw['port'] ?? (tls === 'implicit' ? 993 : 143);
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) throw configError('port', 'field "port" must be a whole number from 1 to 65535.');
  const ca = optionalString(raw, 'ca');
  if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----')) throw configError('ca', 'field "ca" must be PEM text (-----BEGIN CERTIFICATE-----…).');
  const auth = raw['auth'] ?? 'password';
  if (typeof auth !== 'string' || !(IMAP_AUTH_METHODS as readonly string[]).includes(auth)) throw configError('auth', 'field "auth" must be "password" or "xoauth2".');
  let oauth: ImapOAuthConfig | undefined;
  if (auth === 'xoauth2') {
    const scopes = raw['oauthScopes'] ?? [];
    if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string' || scope === '')) throw configError('oauthScopes', 'field "oauthScopes" must be a list of scope names.');
    oauth = { authorizationUrl: httpsUrl(raw, 'oauthAuthorizationUrl'), tokenUrl: httpsUrl(raw, 'oauthTokenUrl'), scopes: scopes as string[] };
  } else {
    for (const field of ['oauthAuthorizationUrl', 'oauthTokenUrl', 'oauthScopes']) {
      if (raw[field] !== undefined) throw configError(field, `field "${field}" applies only when auth is "xoauth2".`);
    }
  }
  const own = raw['ownAddresses'] ?? [];
  if (!Array.isArray(own) || own.some((item) => typeof item !== 'string' || !ADDRESS.test(item.trim()))) throw configError('ownAddresses', 'field "ownAddresses" must be a list of email addresses.');
  const mailboxes = raw['mailboxes'] ?? [];
  if (!Array.isArray(mailboxes) || mailboxes.some((item) => typeof item !== 'string' || item === '')) throw configError('mailboxes', 'field "mailboxes" must be a list of mailbox names.');
  const allowExpunge = raw['allowExpunge'] ?? false;
  if (typeof allowExpunge !== 'boolean') throw configError('allowExpunge', 'field "allowExpunge" must be true or false.');
  const maxTextBytes = raw['maxTextBytes'] ?? DEFAULT_MAX_TEXT_BYTES;
  if (typeof maxTextBytes !== 'number' || !Number.isInteger(maxTextBytes) || maxTextBytes < 0) throw configError('maxTextBytes', 'field "maxTextBytes" must be a whole number of bytes.');
  const connectTimeoutMs = raw['connectTimeoutMs'] ?? 15_000;
  if (typeof connectTimeoutMs !== 'number' || !Number.isInteger(connectTimeoutMs) || connectTimeoutMs < 100) throw configError('connectTimeoutMs', 'field "connectTimeoutMs" must be at least 100.');
  return {
    host,
    port,
    tls: tls as ImapTls,
    ca,
    servername: optionalString(raw, 'servername'),
    auth: auth as ImapAuthMethod,
    oauth,
    ownAddresses: (own as string[]).map((item) => item.trim().toLowerCase()),
    authservId: optionalString(raw, 'authservId'),
    mailboxes: mailboxes as string[],
    allowExpunge,
    maxTextBytes,
    connectTimeoutMs,
  };
}
