/**
 * A bucket host's config: which provider, where the objects live, and the read caps. The kind's
 * configSchema (manifest.ts) checks field types; this module checks what a schema cannot (which
 * fields a provider needs, URL shapes) and fills defaults. Every refusal is `invalid_config` and
 * names the field.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';

export type BucketProvider = 'pad' | 's3' | 'r2';

export const BUCKET_PROVIDERS = ['pad', 's3', 'r2'] as const satisfies readonly BucketProvider[];

/** Per-class caps on what a read returns inline, in bytes. */
export interface ReadCaps {
  readonly image: number;
  readonly video: number;
  readonly pdf: number;
  /** A text read without a range larger than this is refused with `too_large`. */
  readonly text: number;
}

export const DEFAULT_READ_CAPS: ReadCaps = Object.freeze({
  image: 5 * 1024 * 1024,
  video: 20 * 1024 * 1024,
  pdf: 10 * 1024 * 1024,
  text: 4 * 1024 * 1024,
});

export interface PadConfig {
  readonly provider: 'pad';
  /** Absolute directory the pad's objects live in (filled by the platform). */
  readonly path: string;
  readonly caps: ReadCaps;
}

export interface RemoteBucketConfig {
  readonly provider: 's3' | 'r2';
  readonly bucket: string;
  /** The SigV4 signing region (`auto` for R2). */
  readonly region: string;
  /** Key prefix every path lives under: '' or ending in '/'. */
  readonly prefix: string;
  /** The origin requests go to (scheme://host[:port]). */
  readonly origin: string;
  /** Path before the bucket or key, '' or starting with '/' and not ending in one. */
  readonly basePath: string;
  /** True when the bucket is the first path segment rather than part of the host name. */
  readonly pathStyle: boolean;
  readonly caps: ReadCaps;
}

export type BucketConfig = PadConfig | RemoteBucketConfig;

const REMOTE_ONLY_FIELDS = ['endpoint', 'accountId', 'bucket', 'region', 'prefix', 'forcePathStyle'] as const;
const CAP_FIELDS = {
  inlineImageBytes: 'image',
  inlineVideoBytes: 'video',
  inlinePdfBytes: 'pdf',
  maxTextBytes: 'text',
} as const satisfies Record<string, keyof ReadCaps>;

/** S3's rule for a key: at most 1024 bytes of UTF-8, prefix included. */
export const MAX_KEY_BYTES = 1024;

/**
 * Checks a raw config and returns it typed, with defaults filled.
 * Throws `invalid_config` naming the field: unknown provider, a field that does not apply to the
 * provider, a missing bucket/path, a malformed endpoint, an R2 region other than `auto`.
 */
export function parseBucketConfig(raw: Readonly<Record<string, unknown>>): BucketConfig {
  const provider = raw['provider'];
  if (typeof provider !== 'string' || !(BUCKET_PROVIDERS as readonly string[]).includes(provider)) {
    throw configError('provider', 'Config field "provider" must be one of "pad", "s3" or "r2".');
  }
  const caps = parseCaps(raw);
  if (provider === 'pad') return parsePad(raw, caps);
  return parseRemote(provider as 's3' | 'r2', raw, caps);
}

function parsePad(raw: Readonly<Record<string, unknown>>, caps: ReadCaps): PadConfig {
  for (const field of REMOTE_ONLY_FIELDS) {
    if (raw[field] !== undefined) {
      throw configError(field, `Config field "${field}" applies to the s3 and r2 providers only; the pad has no ${field}.`);
    }
  }
  const path = raw['path'];
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) {
    throw configError('path', 'Config field "path" must be the absolute directory the pad stores its objects in.');
  }
  return { provider: 'pad', path, caps };
}

function parseRemote(provider: 's3' | 'r2', raw: Readonly<Record<string, unknown>>, caps: ReadCaps): RemoteBucketConfig {
  if (raw['path'] !== undefined) {
    throw configError('path', 'Config field "path" applies to the pad only; an S3 or R2 bucket is named by "bucket" and "endpoint".');
  }
  const bucket = optionalString(raw, 'bucket');
  if (bucket === undefined || !/^[A-Za-z0-9._-]{1,255}$/.test(bucket)) {
    throw configError('bucket', 'Config field "bucket" must name the bucket (letters, digits, ".", "_" and "-").');
  }
  const region = resolveRegion(provider, optionalString(raw, 'region'));
  const endpoint = resolveEndpoint(provider, optionalString(raw, 'endpoint'), optionalString(raw, 'accountId'), region);
  const forcePathStyle = raw['forcePathStyle'];
  if (forcePathStyle !== undefined && typeof forcePathStyle !== 'boolean') {
    throw configError('forcePathStyle', 'Config field "forcePathStyle" must be true or false.');
  }
  const pathStyle = forcePathStyle === true || !canUseVirtualHost(endpoint, bucket);
  const origin = pathStyle ? endpoint.origin : `${endpoint.protocol}//${bucket}.${endpoint.host}`;
  return {
    provider,
    bucket,
    region,
    prefix: parsePrefix(optionalString(raw, 'prefix')),
    origin,
    basePath: endpoint.pathname.replace(/\/+$/, ''),
    pathStyle,
    caps,
  };
}

function resolveRegion(provider: 's3' | 'r2', region: string | undefined): string {
  if (provider === 'r2') {
    if (region !== undefined && region !== 'auto') {
      throw configError('region', 'Config field "region" must be "auto" (or left out) for R2; R2 signs every request for region "auto".');
    }
    return 'auto';
  }
  if (region === undefined) return 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region)) {
    throw configError('region', 'Config field "region" must be a region name such as "us-east-1".');
  }
  return region;
}

function resolveEndpoint(provider: 's3' | 'r2', endpoint: string | undefined, accountId: string | undefined, region: string): URL {
  if (accountId !== undefined && provider !== 'r2') {
    throw configError('accountId', 'Config field "accountId" applies to R2 only; for S3 set "endpoint" (or leave it out for AWS).');
  }
  if (endpoint === undefined) {
    if (provider === 's3') return new URL(`https://s3.${region}.amazonaws.com`);
    if (accountId === undefined || !/^[0-9a-f]{32}$/.test(accountId)) {
      throw configError('accountId', 'An R2 bucket needs config field "accountId" (the 32-character Cloudflare account id) or "endpoint".');
    }
    return new URL(`https://${accountId}.r2.cloudflarestorage.com`);
  }
  if (accountId !== undefined) {
    throw configError('accountId', 'Set either "endpoint" or "accountId" for R2, not both.');
  }
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw configError('endpoint', 'Config field "endpoint" must be an absolute http(s) URL such as "https://s3.example.com".');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw configError('endpoint', 'Config field "endpoint" must use http or https.');
  }
  if (url.username !== '' || url.password !== '') {
    throw configError('endpoint', 'Config field "endpoint" must not carry credentials; store the access key as the host credential instead.');
  }
  if (url.search !== '' || url.hash !== '') {
    throw configError('endpoint', 'Config field "endpoint" must not have a query or a fragment.');
  }
  return url;
}

/** Virtual-hosted style needs a DNS-safe bucket name and a named host (not an IP literal). */
function canUseVirtualHost(endpoint: URL, bucket: string): boolean {
  if (endpoint.pathname !== '/' && endpoint.pathname !== '') return false;
  const host = endpoint.hostname;
  if (host === 'localhost' || /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[')) return false;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..')) return false;
  // A dotted bucket name breaks the wildcard TLS certificate of virtual-hosted endpoints.
  return !(bucket.includes('.') && endpoint.protocol === 'https:');
}

function parsePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '' || prefix === '/') return '';
  const trimmed = prefix.replace(/^\/+/, '').replace(/\/+$/, '');
  const segments = trimmed.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..') || trimmed.includes('\0')) {
    throw configError('prefix', 'Config field "prefix" must be a folder such as "team/docs" (no empty, "." or ".." segments).');
  }
  const normalised = `${trimmed}/`;
  if (Buffer.byteLength(normalised) >= MAX_KEY_BYTES) {
    throw configError('prefix', `Config field "prefix" must be shorter than ${MAX_KEY_BYTES} bytes.`);
  }
  return normalised;
}

function parseCaps(raw: Readonly<Record<string, unknown>>): ReadCaps {
  const caps: { -readonly [K in keyof ReadCaps]: number } = { ...DEFAULT_READ_CAPS };
  for (const [field, cap] of Object.entries(CAP_FIELDS)) {
    const value = raw[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw configError(field, `Config field "${field}" must be a whole number of bytes (0 or more).`);
    }
    caps[cap] = value;
  }
  return caps;
}

function optionalString(raw: Readonly<Record<string, unknown>>, field: string): string | undefined {
  const value = raw[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw configError(field, `Config field "${field}" must be a non-empty string.`);
  return value;
}

function configError(field: string, message: string): InvalidConfigError {
  return new InvalidConfigError(message, { details: { field } });
}
