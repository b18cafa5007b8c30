/**
 * A cached reachability flag, shared by the built-in kinds (bucket, imap) as
 * `@inseam/connector/reachability`, so probeConnection stays cheap: every real request reports its
 * outcome here, and a probe answers from the last outcome. A stale answer is returned at once and
 * refreshed in the background; only the very first probe waits for a check, and never longer than
 * `firstCheckTimeoutMs`.
 */
import { isConnectorError } from '@neuralis/package-system/contracts';
import type { ErrorCode, ProbeReason, ProbeResult } from '@neuralis/package-system/contracts';

export interface ReachabilityOptions {
  /** How long an outcome counts as current. */
  readonly freshMs: number;
  readonly firstCheckTimeoutMs: number;
  /** The reason a store-level failure is reported with. */
  readonly reason: ProbeReason;
  readonly now?: () => number;
}

export class Reachability {
  private state: { readonly result: ProbeResult; readonly at: number } | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly now: () => number;

  /** `check` throws a ConnectorError when the store cannot be used (and resolves when it can). */
  constructor(
    private readonly check: () => Promise<void>,
    private readonly options: ReachabilityOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Records that the store answered. */
  reachable(): void {
    this.state = { result: { connected: true }, at: this.now() };
  }

  /** Records a store-level failure: the store as a whole cannot be used now. */
  unreachable(code: ErrorCode): void {
    this.state = { result: { connected: false, reason: this.options.reason, code }, at: this.now() };
  }

  async probe(): Promise<ProbeResult> {
    const state = this.state;
    if (state !== undefined) {
      if (this.now() - state.at >= this.options.freshMs) void this.refresh();
      return state.result;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<ProbeResult>((resolve) => {
      timer = setTimeout(() => resolve({ connected: false, reason: this.options.reason, code: 'timeout' }), this.options.firstCheckTimeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([this.refresh().then(() => this.state?.result ?? { connected: false, reason: this.options.reason }), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private refresh(): Promise<void> {
    this.inFlight ??= this.check()
      .then(
        () => this.reachable(),
        (error: unknown) => this.unreachable(isConnectorError(error) ? error.code : 'unavailable'),
      )
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }
}
