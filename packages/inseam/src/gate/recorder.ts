/**
 * The egress record: one entry per attempt — each redirect hop and each retry is its own attempt,
 * and so is a refusal. Records name the origin only (never a path, query, header value or body;
 * a refusal may name which part of the request it was about: `url`, `body`, a header name) and
 * are written before the connector sees the outcome, so "every origin it used is recorded" holds
 * even when the connector ignores the answer.
 */
import type { EgressFailure } from '@inseam/connector';
import type { AddressClass } from './addresses.js';

/** Why the gate refused an attempt. */
export type EgressRefusalReason =
  /** The origin is not in the host's `auth.origins`. */
  | 'origin_not_declared'
  /** The name resolved to (or the URL names) a loopback, private, link-local, metadata… address. */
  | 'address_forbidden'
  /** Audit mode: only read methods pass. */
  | 'write_in_audit_mode'
  /** TRACE, TRACK and CONNECT are never sent. */
  | 'method_forbidden'
  /** A redirect chain longer than the gate's limit. */
  | 'too_many_redirects'
  /** A credential value would have gone to a hop that gets no credential (a redirect echoing it). */
  | 'secret_in_url'
  /** The connector's request carries a spelling of a secret in its URL, a header or its body (`part` says where). */
  | 'secret_in_request'
  /** Audit mode: a read carrying a method override (`X-HTTP-Method-Override`…, `_method`), which turns it into a write on many servers. */
  | 'method_override_in_audit_mode'
  /** The answer came in a content coding the gate did not ask for (it cannot be redacted). */
  | 'unrequested_content_encoding'
  /** A coded answer decoded to more than the gate's ratio limit allows (a decompression bomb). */
  | 'decompression_limit';

export const EGRESS_REFUSAL_REASONS = [
  'origin_not_declared',
  'address_forbidden',
  'write_in_audit_mode',
  'method_forbidden',
  'too_many_redirects',
  'secret_in_url',
  'secret_in_request',
  'method_override_in_audit_mode',
  'unrequested_content_encoding',
  'decompression_limit',
] as const satisfies readonly EgressRefusalReason[];

export interface EgressRecord {
  /** When the attempt started (ISO 8601, UTC). */
  readonly at: string;
  /** The host the request was made for (`HostEgressPolicy.hostId`). */
  readonly hostId: string;
  /** Scheme, host and port of the attempt; '' when the URL did not parse. */
  readonly origin: string;
  /** The method as sent (upper case). */
  readonly method: string;
  readonly decision: 'allow' | 'refuse';
  /** Set when `decision` is `refuse`. */
  readonly reason?: EgressRefusalReason;
  /** Set when the reason is `address_forbidden`: the class of the offending address. */
  readonly addressClass?: AddressClass;
  /** The answer's status, when one came. */
  readonly status?: number;
  /** Set when an allowed attempt got no answer. */
  readonly failure?: EgressFailure;
  /** Milliseconds from the start of the attempt to its answer's headers (or its failure). */
  readonly durationMs: number;
  /** 0 for the connector's own request, n for the n-th redirect hop. */
  readonly hop: number;
  /** 0 for the first try, n for the n-th retry after a 429 or 503. */
  readonly attempt: number;
  /** Whether the host's credential was attached to this attempt. */
  readonly credentialed: boolean;
  /**
   * Set when the reason is `secret_in_request` or `method_override_in_audit_mode`: which part of
   * the request — `url`, `body`, or `header <name>` (a name that is itself secret is redacted).
   */
  readonly part?: string;
}

/** Receives every attempt. `record` must not throw; the gate does not wait on it. */
export interface EgressRecorder {
  record(entry: EgressRecord): void;
}

/** Keeps records in memory: for the conformance trial, tests and short-lived hosts. */
export class InMemoryEgressRecorder implements EgressRecorder {
  private readonly entries: EgressRecord[] = [];

  record(entry: EgressRecord): void {
    this.entries.push(Object.freeze({ ...entry }));
  }

  get records(): readonly EgressRecord[] {
    return [...this.entries];
  }

  /** Distinct origins the host(s) actually reached (allowed attempts), in first-use order. */
  originsUsed(): string[] {
    return [...new Set(this.entries.filter((entry) => entry.decision === 'allow').map((entry) => entry.origin))];
  }

  refusals(): EgressRecord[] {
    return this.entries.filter((entry) => entry.decision === 'refuse');
  }

  clear(): void {
    this.entries.length = 0;
  }
}
