/**
 * Retry rules for 429 and 503. A request is retried only when it can be sent again exactly: its
 * body is absent or buffered (a streamed body was consumed by the first try). The wait is the
 * answer's Retry-After (delta-seconds or an HTTP date) when it has one, else exponential backoff
 * with jitter; a Retry-After longer than `maxDelayMs` is not waited for — the 429/503 goes back
 * to the connector as the answer.
 */

export interface RetryPolicy {
  /** Retries after the first try (default 3). 0 disables retrying. */
  readonly maxRetries: number;
  /** First backoff step when there is no Retry-After (default 250 ms); doubles per retry. */
  readonly baseDelayMs: number;
  /** The longest wait the gate will sit through (default 30 s). */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 30_000 };

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Milliseconds a Retry-After value asks for, or undefined when it is absent or malformed. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates always end in GMT; anything else (a signed number, a bare year) is malformed.
  if (!/ GMT$/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (1-based), or undefined when the gate should not
 * retry and must hand the answer back.
 */
export function retryDelay(policy: RetryPolicy, retry: number, retryAfter: string | undefined, now: number, random: () => number = Math.random): number | undefined {
  if (retry > policy.maxRetries) return undefined;
  const asked = parseRetryAfter(retryAfter, now);
  if (asked !== undefined) return asked > policy.maxDelayMs ? undefined : asked;
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return step / 2 + random() * (step / 2);
}
