/**
 * The imap kind's manifest: its `connectors[]` entry and the credentials it declares. The
 * `neuralis` block of this package's package.json holds the same values (manifest.test.ts keeps
 * the two in sync). New hosts are read only (defaultPermissions); a person turns writes on.
 */
import type { CredentialDeclaration, PackageManifest, SourceConnectorEntry } from '@neuralis/package-system/contracts';
import { IMAP_PORT_CAPABILITIES } from './port.js';

export const IMAP_PACKAGE_ID = '@inseam/connector-imap';

export const IMAP_CONNECTOR_ENTRY: SourceConnectorEntry = {
  id: 'imap',
  type: 'source',
  kind: 'imap',
  transport: 'in-process',
  name: 'Mailbox (IMAP)',
  icon: 'Mail',
  category: 'mail',
  description: 'A mailbox on an IMAP server: its mailboxes, messages and attachments, with the envelope each message states.',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      host: { type: 'string', minLength: 1, maxLength: 253, description: 'The IMAP server\'s host name, e.g. imap.example.com.' },
      port: { type: 'integer', minimum: 1, maximum: 65535, description: 'The port (default 993 for implicit TLS, 143 for STARTTLS).' },
      tls: { type: 'string', enum: ['implicit', 'starttls'], description: 'implicit: TLS from the start (IMAPS); starttls: upgrade a plain connection, refusing one that cannot be.' },
      ca: { type: 'string', minLength: 1, maxLength: 65536, description: 'PEM of the CA the server\'s certificate must chain to (default: the system\'s trusted roots).' },
      servername: { type: 'string', minLength: 1, maxLength: 253, description: 'The name the server\'s certificate must carry, when it is not the host.' },
      auth: { type: 'string', enum: ['password', 'xoauth2'], description: 'password: username and password (or app password); xoauth2: an OAuth 2 token from the provider.' },
      oauthAuthorizationUrl: { type: 'string', minLength: 1, pattern: '^https?://', description: 'xoauth2 only: the provider\'s authorization endpoint.' },
      oauthTokenUrl: { type: 'string', minLength: 1, pattern: '^https?://', description: 'xoauth2 only: the provider\'s token endpoint.' },
      oauthScopes: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'xoauth2 only: the scopes to ask for (e.g. https://mail.google.com/).' },
      ownAddresses: { type: 'array', items: { type: 'string', minLength: 3, maxLength: 320 }, description: 'The owner\'s own addresses: mail from them counts as sent.' },
      authservId: { type: 'string', minLength: 1, maxLength: 253, description: 'The authserv-id of the owner\'s receiving server: only its Authentication-Results headers are trusted.' },
      mailboxes: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'The mailboxes to show, by full name (default: all).' },
      allowExpunge: { type: 'boolean', description: 'Deleting expunges at once instead of moving to Trash (default false).' },
      maxTextBytes: { type: 'integer', minimum: 0, description: 'Largest message a read returns without a range (default 4 MiB).' },
      connectTimeoutMs: { type: 'integer', minimum: 100, description: 'How long to wait for the server to connect and greet (default 15000).' },
    },
    required: ['host'],
  },
  capabilities: [...IMAP_PORT_CAPABILITIES],
  defaultPermissions: { default: { read: true, write: false, exec: false } },
  defaultScope: 'project',
  scopeSelectable: true,
  allowedScopes: ['project', 'user', 'agent'],
  connectorFactory: './dist/index.js#createImapConnector',
};

/** `password` for auth "password", `xoauth2` for a token supplied as a package credential. */
export const IMAP_CREDENTIALS: readonly CredentialDeclaration[] = [
  {
    id: 'password',
    label: 'IMAP username and password',
    description: 'The account an IMAP host signs in with (an app password where the provider asks for one).',
    fields: [
      { name: 'username', label: 'Username', secret: false },
      { name: 'password', label: 'Password', secret: true },
    ],
  },
  {
    id: 'xoauth2',
    label: 'IMAP OAuth 2 access token',
    description: 'The username and an OAuth 2 access token an IMAP host signs in with (XOAUTH2).',
    fields: [
      { name: 'username', label: 'Username', secret: false },
      { name: 'accessToken', label: 'Access token', secret: true },
    ],
  },
];

export const IMAP_MANIFEST: PackageManifest = {
  id: IMAP_PACKAGE_ID,
  main: './dist/index.js',
  connectors: [IMAP_CONNECTOR_ENTRY],
  credentials: IMAP_CREDENTIALS,
};
