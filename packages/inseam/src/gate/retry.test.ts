import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay } from './retry.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('ignores absent and malformed values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

describe('retry delay', () => {
  const policy = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000 };

  it('waits what Retry-After asks when it is within the cap', () => {
    expect(retryDelay(policy, 1, '1', now)).toBe(1000);
  });

  it('does not wait for a Retry-After beyond the cap: the answer goes back', () => {
    expect(retryDelay(policy, 1, '2', now)).toBeUndefined();
  });

  it('backs off exponentially with jitter in [step/2, step] when there is no Retry-After', () => {
    expect(retryDelay(policy, 1, undefined, now, () => 0)).toBe(50);
    expect(retryDelay(policy, 1, undefined, now, () => 1)).toBe(100);
    expect(retryDelay(policy, 2, undefined, now, () => 1)).toBe(200);
  });

  it('caps the backoff step and stops after maxRetries', () => {
    expect(retryDelay({ ...policy, maxRetries: 10 }, 8, undefined, now, () => 1)).toBe(1000);
    expect(retryDelay(policy, 3, '0', now)).toBeUndefined();
    expect(retryDelay({ ...DEFAULT_RETRY_POLICY, maxRetries: 0 }, 1, '0', now)).toBeUndefined();
  });
});
