/**
 * The platform's egress recorder: the most recent attempts (bounded, so a long-running platform
 * keeps flat memory) and, per host, every origin it was allowed to reach since the platform
 * started — what "every origin it used is recorded" needs to answer.
 */
import type { EgressRecord, EgressRecorder } from '../gate/index.js';

export const DEFAULT_EGRESS_LOG_SIZE = 1000;

export class EgressLog implements EgressRecorder {
  readonly #size: number;
  readonly #recent: EgressRecord[] = [];
  readonly #origins = new Map<string, Set<string>>();

  constructor(size = DEFAULT_EGRESS_LOG_SIZE) {
    this.#size = Math.max(1, Math.trunc(size));
  }

  record(entry: EgressRecord): void {
    this.#recent.push(Object.freeze({ ...entry }));
    if (this.#recent.length > this.#size) this.#recent.splice(0, this.#recent.length - this.#size);
    if (entry.decision !== 'allow') return;
    let origins = this.#origins.get(entry.hostId);
    if (origins === undefined) {
      origins = new Set();
      this.#origins.set(entry.hostId, origins);
    }
    origins.add(entry.origin);
  }

  /** The latest attempts, oldest first; only those of `hostId` when given. */
  recent(hostId?: string): EgressRecord[] {
    return hostId === undefined ? [...this.#recent] : this.#recent.filter((entry) => entry.hostId === hostId);
  }

  /** Origins `hostId` (`network/host`) was allowed to reach, in first-use order. */
  originsUsed(hostId: string): string[] {
    return [...(this.#origins.get(hostId) ?? [])];
  }
}
