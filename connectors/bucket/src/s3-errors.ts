/**
 * S3 answers and egress failures → typed errors. Messages say what to fix and name config fields,
 * never a credential; only the service's error Code is kept (as `details.s3Code`), not its
 * Message or other elements, some of which echo request headers.
 */
import {
  ConnectorFailedError,
  InvalidConfigError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  RateLimitedError,
  TimeoutError,
  TooLargeError,
  UnavailableError,
} from '@neuralis/package-system/contracts';
import type { ConnectorError } from '@neuralis/package-system/contracts';
import { isEgressError } from '@inseam/connector';
import type { EgressResponse } from '@inseam/connector';
import { readTextPrefix } from './body.js';
import { childText, parseXml } from './s3-xml.js';

/** What the request was about, for the message. */
export interface S3ErrorContext {
  readonly operation: string;
  readonly bucket: string;
  readonly key?: string;
}

/** Error codes that mean the credentials themselves were refused. */
const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'TokenRefreshRequired', 'InvalidSecurity']);
const REGION_CODES = new Set(['AuthorizationHeaderMalformed', 'PermanentRedirect', 'IllegalLocationConstraintException', 'Redirect']);

/** A typed error plus whether it says the store as a whole is unusable (for reachability). */
export interface MappedError {
  readonly error: ConnectorError;
  readonly storeLevel: boolean;
}

/** Reads (a bounded prefix of) an error answer and maps it. */
export async function errorFromResponse(response: EgressResponse, context: S3ErrorContext): Promise<MappedError> {
  const body = await readTextPrefix(response.body, 64 * 1024);
  return mapS3Error(response.status, s3CodeOf(body), response.headers, context);
}

function s3CodeOf(body: string): string | undefined {
  if (!body.includes('<Error')) return undefined;
  try {
    const root = parseXml(body);
    return root.name === 'Error' ? childText(root, 'Code')?.trim() : undefined;
  } catch {
    return undefined;
  }
}

export function mapS3Error(status: number, code: string | undefined, headers: Readonly<Record<string, string>>, context: S3ErrorContext): MappedError {
  const details = { s3Code: code ?? null, status };
  if (code === 'NoSuchBucket') return { error: missingBucket(context.bucket, details), storeLevel: true };
  if (code === 'NoSuchKey') {
    return { error: new NotFoundError(`No object exists at "${context.key ?? ''}".`, { details }), storeLevel: false };
  }
  if (status === 403 && code === undefined) {
    // A HEAD answer has no body, so a refused key and a refusing policy look the same.
    return {
      error: new PermissionDeniedError(
        `The endpoint refused to let these credentials ${context.operation} in bucket "${context.bucket}"; check accessKeyId/secretAccessKey and the key's policy.`,
        { details: { ...details, reason: 'forbidden' } },
      ),
      storeLevel: false,
    };
  }
  if (code !== undefined && CREDENTIAL_CODES.has(code)) {
    return {
      error: new PermissionDeniedError('The endpoint refused the credentials; check accessKeyId/secretAccessKey.', {
        details: { ...details, reason: 'credentials_rejected' },
      }),
      storeLevel: true,
    };
  }
  if (code === 'AccessDenied' || code === 'AllAccessDisabled' || code === 'AccountProblem') {
    return {
      error: new PermissionDeniedError(
        `The credentials were accepted but may not ${context.operation} in bucket "${context.bucket}"; check the access key's policy.`,
        { details: { ...details, reason: 'access_denied' } },
      ),
      storeLevel: false,
    };
  }
  if ((code !== undefined && REGION_CODES.has(code)) || status === 301 || (status === 400 && code === undefined)) {
    const region = headers['x-amz-bucket-region'];
    const hint = region === undefined ? '' : ` (the endpoint says "${region}")`;
    return {
      error: new InvalidConfigError(`The bucket is in another region or behind another endpoint${hint}; check config fields "region" and "endpoint".`, {
        details: { ...details, field: 'region' },
      }),
      storeLevel: true,
    };
  }
  if (code === 'PreconditionFailed' || status === 412) {
    return { error: new PreconditionFailedError(undefined, { details }), storeLevel: false };
  }
  if (code === 'ConditionalRequestConflict') {
    return {
      error: new PreconditionFailedError('Another write to this object was in progress; read it again and retry.', { details }),
      storeLevel: false,
    };
  }
  if (code === 'EntityTooLarge') {
    return { error: new TooLargeError('The object is larger than the endpoint accepts in one upload.', { details }), storeLevel: false };
  }
  if (code === 'SlowDown' || code === 'TooManyRequests' || status === 429 || (status === 503 && code !== 'ServiceUnavailable')) {
    return { error: new RateLimitedError(undefined, retryAfterMs(headers), { details }), storeLevel: false };
  }
  if (code === 'RequestTimeTooSkewed') {
    return {
      error: new UnavailableError("The endpoint says this machine's clock is more than 15 minutes off; correct the clock.", { details }),
      storeLevel: true,
    };
  }
  if (status >= 500) {
    return { error: new UnavailableError(`The endpoint failed (${status}${code === undefined ? '' : ` ${code}`}); try again later.`, { details }), storeLevel: false };
  }
  return {
    error: new ConnectorFailedError(`The endpoint refused the ${context.operation} request (${status}${code === undefined ? '' : ` ${code}`}).`, { details }),
    storeLevel: false,
  };
}

export function missingBucket(bucket: string, extra: Readonly<Record<string, string | number | null>> = {}): NotFoundError {
  return new NotFoundError(`Bucket "${bucket}" does not exist at the endpoint; check config field "bucket" (and "endpoint").`, {
    details: { ...extra, field: 'bucket', reason: 'no_such_bucket' },
  });
}

/** Maps an EgressError (no answer at all) to a typed error; anything else is a connector bug. */
export function errorFromEgressFailure(error: unknown): MappedError {
  if (!isEgressError(error)) {
    return { error: new ConnectorFailedError('The request could not be sent.', { details: { reason: 'egress_failed' } }), storeLevel: false };
  }
  const details = { failure: error.failure };
  switch (error.failure) {
    case 'unreachable':
      return {
        error: new UnavailableError(`Cannot reach the endpoint ${error.origin}; check config field "endpoint" and that the service is up.`, { details }),
        storeLevel: true,
      };
    case 'timeout':
      return { error: new TimeoutError(`The endpoint ${error.origin} did not answer in time.`, { details }), storeLevel: true };
    case 'origin_refused':
      return { error: new PermissionDeniedError(`The egress gate refused origin ${error.origin}; it is not declared for this host.`, { details }), storeLevel: true };
    case 'credential_missing':
      return {
        error: new PermissionDeniedError('No credential is stored for this host; add its accessKeyId/secretAccessKey.', {
          details: { ...details, reason: 'credentials_missing' },
        }),
        storeLevel: true,
      };
    case 'aborted':
      return { error: new UnavailableError('The request was aborted.', { details }), storeLevel: false };
    case 'invalid_request':
      return { error: new ConnectorFailedError('The connector built a malformed request.', { details }), storeLevel: false };
  }
}

function retryAfterMs(headers: Readonly<Record<string, string>>): number | undefined {
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : undefined;
}
