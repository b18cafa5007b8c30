/**
 * How a bucket binding is made.
 *
 * The loader imports this package's main module once and calls `init(ctx)` before any factory
 * call; the module keeps `ctx.credentials` (the CredentialResolver). `createBucketConnector` —
 * the manifest's factory — then builds, for an S3 or R2 host, the interim gate side
 * (`SigningEgress`) over that resolver: it resolves the credential declared under the provider's
 * name (`s3` or `r2`) when it signs, caching it for a minute so a rotated key takes effect soon.
 * The port itself only ever holds the EgressPort.
 *
 * When the egress gate exists, the platform passes its EgressPort instead, through
 * `createBucketPort(ctx, { egress })` (or `createBucketHost(config, { egress })`), and `init` is
 * not needed. The pad needs neither: it is local disk.
 */
import { UnavailableError } from '@neuralis/package-system/contracts';
import type { ConnectorFactoryContext, ConnectorInitContext, ConnectorPort } from '@neuralis/package-system/contracts';
import type { EgressPort } from '@inseam/connector';
import { parseBucketConfig } from './config.js';
import type { BucketConfig, RemoteBucketConfig } from './config.js';
import { BucketHost } from './host.js';
import { PadStore } from './pad-store.js';
import { BucketPort } from './port.js';
import { S3Store } from './s3-store.js';
import { SigningEgress } from './signing-egress.js';
import type { AwsCredentials } from './signing-egress.js';
import type { ObjectStore } from './store.js';

export interface BucketBindingOptions {
  /** The egress for S3/R2 hosts. Default: a SigningEgress over the resolver `init` received. */
  readonly egress?: EgressPort;
  /** Where S3 uploads of unknown length are staged when over 8 MiB. Default: the OS temp dir. */
  readonly spoolDir?: string;
  /** Entries per host `list` page, 1–1000. Default 1000. */
  readonly hostPageSize?: number;
}

const CREDENTIAL_CACHE_MS = 60_000;

let initContext: ConnectorInitContext | undefined;

/** Called once by the loader before any factory call; keeps the credential resolver. */
export function init(context: ConnectorInitContext): void {
  initContext = context;
}

/** The manifest's factory (`./dist/index.js#createBucketConnector`). */
export function createBucketConnector(context: ConnectorFactoryContext): Promise<ConnectorPort> {
  return createBucketPort(context);
}

/**
 * A ConnectorPort for one source. Throws `invalid_config` (naming the field) for a bad config and
 * `unavailable` when an S3/R2 host has neither an egress nor an initialised resolver.
 */
export async function createBucketPort(context: ConnectorFactoryContext, options: BucketBindingOptions = {}): Promise<BucketPort> {
  const config = parseBucketConfig(context.config);
  const store = await openBucketStore(config, options);
  return new BucketPort(context.source, store, config.caps, config.provider === 'pad' ? '' : config.prefix);
}

/**
 * The host `Connector` for one bucket config. For S3/R2 it probes once whether the endpoint
 * enforces conditional writes (see BucketHost.open). Throws as createBucketPort.
 */
export async function createBucketHost(rawConfig: Readonly<Record<string, unknown>>, options: BucketBindingOptions = {}): Promise<BucketHost> {
  const config = parseBucketConfig(rawConfig);
  return BucketHost.open(await openBucketStore(config, options), config, options.hostPageSize);
}

async function openBucketStore(config: BucketConfig, options: BucketBindingOptions): Promise<ObjectStore> {
  if (config.provider === 'pad') return PadStore.open(config);
  return new S3Store(config, {
    egress: options.egress ?? egressFromInit(config),
    ...(options.spoolDir === undefined ? {} : { spoolDir: options.spoolDir }),
  });
}

function egressFromInit(config: RemoteBucketConfig): EgressPort {
  const context = initContext;
  if (context === undefined) {
    throw new UnavailableError('The bucket package was not initialised (init was not called), so it has no credential resolver for S3/R2 hosts.');
  }
  const credentialId = config.provider;
  let cached: { readonly value: AwsCredentials; readonly at: number } | undefined;
  return new SigningEgress({
    origins: [config.origin],
    region: config.region,
    service: 's3',
    credentials: async () => {
      if (cached !== undefined && Date.now() - cached.at < CREDENTIAL_CACHE_MS) return cached.value;
      const fields = await context.credentials.resolveCredential(credentialId, context.projectId === undefined ? {} : { projectId: context.projectId });
      const value = credentialsOf(fields);
      // A missing credential is not cached: once a person stores it, the next request uses it.
      cached = value === null ? undefined : { value, at: Date.now() };
      return value;
    },
  });
}

function credentialsOf(fields: Readonly<Record<string, string>> | null): AwsCredentials | null {
  const accessKeyId = fields?.['accessKeyId'];
  const secretAccessKey = fields?.['secretAccessKey'];
  if (accessKeyId === undefined || secretAccessKey === undefined) return null;
  return { accessKeyId, secretAccessKey };
}
