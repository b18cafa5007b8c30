/**
 * The bucket kind's manifest: its `connectors[]` entry and the credentials it declares. The
 * `neuralis` block of this package's package.json holds the same values (manifest.test.ts keeps
 * the two in sync).
 */
import type { CredentialDeclaration, PackageManifest, SourceConnectorEntry } from '@neuralis/package-system/contracts';
import { BUCKET_PORT_CAPABILITIES } from './port.js';

export const BUCKET_PACKAGE_ID = '@inseam/connector-bucket';

const BYTES = { type: 'integer', minimum: 0 } as const;

export const BUCKET_CONNECTOR_ENTRY: SourceConnectorEntry = {
  id: 'bucket',
  type: 'source',
  kind: 'bucket',
  transport: 'in-process',
  name: 'Bucket',
  icon: 'Database',
  category: 'disk',
  description: "An object bucket: the network's own pad on local disk, an S3 bucket, or a Cloudflare R2 bucket.",
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      provider: { type: 'string', enum: ['pad', 's3', 'r2'], description: 'pad: the network\'s own bucket; s3: any S3 API endpoint; r2: Cloudflare R2.' },
      path: { type: 'string', minLength: 1, pattern: '^/', description: 'pad only: the absolute directory the pad lives in (filled by the platform).' },
      endpoint: { type: 'string', minLength: 1, pattern: '^https?://', description: 's3/r2: the endpoint URL; leave out for AWS (derived from region) or for R2 with accountId.' },
      accountId: { type: 'string', pattern: '^[0-9a-f]{32}$', description: 'r2 only: the Cloudflare account id, when endpoint is left out.' },
      bucket: { type: 'string', minLength: 1, maxLength: 255, description: 's3/r2: the bucket name.' },
      region: { type: 'string', minLength: 1, maxLength: 64, description: 's3: the signing region (default us-east-1); r2: always auto.' },
      prefix: { type: 'string', maxLength: 1000, description: 's3/r2: the folder inside the bucket this host shows (default: the whole bucket).' },
      forcePathStyle: { type: 'boolean', description: 's3/r2: address the bucket as the first path segment rather than a host name (MinIO and most self-hosted endpoints).' },
      inlineImageBytes: { ...BYTES, description: 'Largest image a read returns inline (default 5 MiB).' },
      inlineVideoBytes: { ...BYTES, description: 'Largest video a read returns inline (default 20 MiB).' },
      inlinePdfBytes: { ...BYTES, description: 'Largest PDF a read returns inline (default 10 MiB).' },
      maxTextBytes: { ...BYTES, description: 'Largest text a read returns without a range (default 4 MiB).' },
    },
    required: ['provider'],
  },
  capabilities: [...BUCKET_PORT_CAPABILITIES],
  defaultPermissions: { default: { read: true, write: false, exec: false } },
  defaultScope: 'project',
  scopeSelectable: true,
  allowedScopes: ['project', 'user', 'agent'],
  connectorFactory: './dist/index.js#createBucketConnector',
};

const ACCESS_KEY_FIELDS = [
  { name: 'accessKeyId', label: 'Access key ID', secret: false },
  { name: 'secretAccessKey', label: 'Secret access key', secret: true },
] as const;

/** One credential per remote provider; the factory resolves the one named like the provider. */
export const BUCKET_CREDENTIALS: readonly CredentialDeclaration[] = [
  { id: 's3', label: 'S3 access key', description: 'The access key S3 buckets are signed with.', fields: ACCESS_KEY_FIELDS },
  { id: 'r2', label: 'R2 API token', description: 'The R2 API token (S3 credentials) R2 buckets are signed with.', fields: ACCESS_KEY_FIELDS },
];

export const BUCKET_MANIFEST: PackageManifest = {
  id: BUCKET_PACKAGE_ID,
  main: './dist/index.js',
  connectors: [BUCKET_CONNECTOR_ENTRY],
  credentials: BUCKET_CREDENTIALS,
};
