/**
 * The machine kind's manifest: its `connectors[]` entry and the credentials it declares. The
 * `neuralis` block of package.json holds the same values; manifest.test.ts keeps them equal.
 */
import type { ConnectorCapability, CredentialDeclaration, PackageManifest, SourceConnectorEntry } from '@neuralis/package-system/contracts';
import { ENV_NAME_PATTERN, HOST_KEY_PATTERN } from './config.js';

export const MACHINE_PACKAGE_ID = '@inseam/connector-machine';

/** Every capability a machine source has; capabilities() returns exactly this set. */
export const MACHINE_CAPABILITIES = ['list', 'read', 'write', 'walk', 'scanContent', 'stat', 'delete', 'exec', 'execDetached'] as const satisfies readonly ConnectorCapability[];

/** The feature a caller needs to open a shell on a machine. */
export const MACHINE_EXEC_REQUIRES = ['exec.machine'] as const;

const BYTES = (max: number, description: string) => ({ type: 'integer', minimum: 0, maximum: max, description }) as const;

export const MACHINE_CONNECTOR_ENTRY = {
  id: 'machine',
  type: 'source',
  kind: 'machine',
  transport: 'in-process',
  name: 'Machine',
  icon: 'Server',
  category: 'machine',
  description: 'A folder on another machine, reached over SSH: files over SFTP, commands and detached runs over SSH channels.',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      host: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:_-]+$', description: 'Host name or IP address of the machine.' },
      port: { type: 'integer', minimum: 1, maximum: 65535, description: 'SSH port. Default 22.' },
      username: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._][A-Za-z0-9._-]*$', description: 'The login on the machine.' },
      root: { type: 'string', minLength: 1, pattern: '^/', description: 'Absolute path of the folder on the machine, e.g. /srv/shared.' },
      auth: { type: 'string', enum: ['key', 'password'], description: 'How to log in: the stored private key (credential ssh-key) or password (ssh-password). Default key.' },
      hostKey: { type: 'string', pattern: HOST_KEY_PATTERN, description: "The approved host key's SHA256 fingerprint; set by approving the key (inseam host trust-key), never trusted on first use." },
      textCapBytes: { type: 'integer', minimum: 1, maximum: 67108864, description: 'Largest text file read whole, in bytes. Default 1 MiB.' },
      inlineCaps: {
        type: 'object',
        additionalProperties: false,
        description: 'Per-MIME caps, in bytes, for returning binary files inline (base64) on read.',
        properties: {
          image: BYTES(268435456, 'image/*. Default 5 MiB.'),
          video: BYTES(268435456, 'video/*. Default 20 MiB.'),
          pdf: BYTES(268435456, 'application/pdf. Default 10 MiB.'),
          binary: BYTES(268435456, 'Any other binary type. Default 1 MiB.'),
        },
      },
      execTimeoutMs: { type: 'integer', minimum: 1, maximum: 86400000, description: 'Timeout for a command that names none, in milliseconds. Default 60000.' },
      execMaxTimeoutMs: { type: 'integer', minimum: 1, maximum: 86400000, description: 'Ceiling for any command timeout, in milliseconds. Default 600000.' },
      execOutputCapBytes: { type: 'integer', minimum: 1, maximum: 67108864, description: 'Bytes kept per output stream of a command; the rest is cut. Default 1 MiB.' },
      execEnvAllowlist: {
        type: 'array',
        items: { type: 'string', pattern: ENV_NAME_PATTERN },
        uniqueItems: true,
        maxItems: 256,
        description: "Environment variable names a command may be given, on top of the login's PATH, HOME, LANG and the other defaults.",
      },
      stateDir: { type: 'string', minLength: 1, description: "Folder on the machine for detached-run state, outside the root; relative to the login's home. Default .inseam/runs." },
      connectTimeoutMs: { type: 'integer', minimum: 100, maximum: 120000, description: 'How long one connection attempt may take. Default 10000.' },
      reconnectMs: { type: 'integer', minimum: 50, maximum: 600000, description: 'Delay before reconnecting after a lost connection (doubling to 16 times this, at most 60 s). Default 2000.' },
    },
    required: ['host', 'username', 'root'],
  },
  capabilities: MACHINE_CAPABILITIES,
  execRequires: MACHINE_EXEC_REQUIRES,
  defaultPermissions: { default: { read: true, write: false, exec: false } },
  defaultScope: 'project',
  scopeSelectable: true,
  allowedScopes: ['project', 'user', 'agent'],
  runtimeGated: true,
  connectorFactory: './dist/index.js#createMachineConnector',
} as const satisfies SourceConnectorEntry;

export const MACHINE_CREDENTIALS: readonly CredentialDeclaration[] = [
  {
    id: 'ssh-key',
    label: 'SSH private key',
    description: "The private key machine hosts log in with (OpenSSH or PEM format), and its passphrase when it has one.",
    fields: [
      { name: 'privateKey', label: 'Private key', secret: true },
    ],
  },
  { id: 'ssh-password', label: 'SSH password', description: 'The password machine hosts with auth "password" log in with.', fields: [{ name: 'password', label: 'Password', secret: true }] },
];

export const MACHINE_MANIFEST = {
  id: MACHINE_PACKAGE_ID,
  main: './dist/index.js',
  connectors: [MACHINE_CONNECTOR_ENTRY],
  credentials: MACHINE_CREDENTIALS,
} as const satisfies PackageManifest;
