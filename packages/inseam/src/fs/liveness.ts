/**
 * Host liveness: probe results cached per host with a TTL and refreshed in the background, so
 * asking is cheap and a slow or hanging probe never holds up a caller for longer than it agreed
 * to wait. Live calls report what they learn (`note`): an `unavailable` marks the host offline at
 * once, a success marks it online.
 */
import { ERROR_CODES, PROBE_REASONS, type ErrorCode, type ProbeReason } from '@neuralis/package-system/contracts';
import type { HostStatus } from './types.js';

export interface LivenessOptions {
  /** How long a status counts as fresh. */
  readonly ttlMs: number;
  /** How long one probe may take before it counts as failed. */
  readonly timeoutMs: number;
  readonly now: () => number;
}

interface Slot {
  status: HostStatus | undefined;
  refreshing: Promise<HostStatus> | undefined;
}

export const UNKNOWN: HostStatus = Object.freeze({ state: 'unknown' });

export class HostLiveness {
  readonly #o: LivenessOptions;
  readonly #slots = new Map<string, Slot>();

  constructor(options: LivenessOptions) {
    this.#o = options;
  }

  /** The cached status, fresh or stale, or undefined; never probes. */
  peek(key: string): HostStatus | undefined {
    return this.#slots.get(key)?.status;
  }

  isFresh(status: HostStatus): boolean {
    return status.checkedAt !== undefined && this.#o.now() - status.checkedAt < this.#o.ttlMs;
  }

  /**
   * The host's status. Fresh: answered from the cache. Stale: answered from the cache while a
   * refresh runs in the background. Never probed: waits for the first probe at most `waitMs`,
   * then answers `unknown` and lets the probe finish in the background.
   */
  async check(key: string, probe: () => Promise<HostStatus>, waitMs: number): Promise<HostStatus> {
    const slot = this.#slot(key);
    if (slot.status !== undefined && this.isFresh(slot.status)) return slot.status;
    const refreshing = this.refresh(key, probe);
    if (slot.status !== undefined) return slot.status;
    return within(refreshing, waitMs, UNKNOWN);
  }

  /** Starts a refresh unless one is running; resolves with its result. Never rejects. */
  refresh(key: string, probe: () => Promise<HostStatus>): Promise<HostStatus> {
    const slot = this.#slot(key);
    if (slot.refreshing !== undefined) return slot.refreshing;
    const timedOut: HostStatus = { state: 'offline', reason: 'store_unreachable', code: 'timeout', probed: true };
    const running = within(
      probe().catch((): HostStatus => ({ state: 'offline', reason: 'store_unreachable', probed: true })),
      this.#o.timeoutMs,
      timedOut,
    ).then((status) => {
      const stamped = { ...status, checkedAt: this.#o.now() };
      slot.status = stamped;
      slot.refreshing = undefined;
      return stamped;
    });
    slot.refreshing = running;
    return running;
  }

  /** Records what a live call or probe learnt. */
  note(key: string, status: HostStatus): HostStatus {
    const stamped = { ...status, checkedAt: this.#o.now() };
    this.#slot(key).status = stamped;
    return stamped;
  }

  /** Forgets a host (removed, or its record changed). */
  forget(key: string): void {
    this.#slots.delete(key);
  }

  #slot(key: string): Slot {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = { status: undefined, refreshing: undefined };
      this.#slots.set(key, slot);
    }
    return slot;
  }
}

/** An error code from a probe's `code`, when it is one of the taxonomy's. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

/** A probe reason from an error's `details.reason`, when it is one. */
export function probeReasonOf(value: unknown): ProbeReason | undefined {
  return typeof value === 'string' && (PROBE_REASONS as readonly string[]).includes(value) ? (value as ProbeReason) : undefined;
}

/** `promise`, or `fallback` when it takes longer than `ms`. The timer never keeps the process alive. */
export function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
