/**
 * The gate's rejections. Every one is an `EgressError` (the port's one rejection type) whose
 * `failure` is from the port's closed set; `EgressGateError` adds the refusal `reason` when the
 * gate refused rather than failed to get an answer. Messages name the origin only — never a
 * path, query, header value or body — and pass through the request's redactor.
 */
import { EgressError } from '@inseam/connector';
import type { EgressFailure } from '@inseam/connector';
import {
  ConnectorError,
  EgressRefusedError,
  InvalidArgumentError,
  InvalidConfigError,
  TimeoutError,
  UnavailableError,
} from '@neuralis/package-system/contracts';
import type { EgressRefusalReason } from './recorder.js';

export class EgressGateError extends EgressError {
  /** Why the gate refused; undefined when the request was sent and got no answer. */
  readonly reason: EgressRefusalReason | undefined;

  constructor(failure: EgressFailure, origin: string, message: string, reason?: EgressRefusalReason) {
    super(failure, origin, message);
    this.name = 'EgressGateError';
    this.reason = reason;
  }
}

/**
 * The platform-side typed error for a port rejection, for code that must throw `ConnectorError`s
 * (a ConnectorPort adapter, the fs service): `origin_refused` → `egress_refused`,
 * `unreachable` → `unavailable`, `timeout` → `timeout`, `credential_missing` → `invalid_config`,
 * `invalid_request` → `invalid_argument`, `aborted` → `timeout` (the caller's deadline ended it).
 * The message carries over; it is already secret-free.
 */
export function egressErrorToConnectorError(error: EgressError): ConnectorError {
  const options = { details: { origin: error.origin, failure: error.failure } };
  switch (error.failure) {
    case 'origin_refused':
      return new EgressRefusedError(error.origin, error instanceof EgressGateError && error.reason !== undefined ? error.reason : 'origin_refused');
    case 'unreachable':
      return new UnavailableError(error.message, options);
    case 'timeout':
    case 'aborted':
      return new TimeoutError(error.message, options);
    case 'credential_missing':
      return new InvalidConfigError(error.message, options);
    case 'invalid_request':
      return new InvalidArgumentError(error.message, options);
  }
}
