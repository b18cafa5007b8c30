/**
 * A sandbox host several trials can share (starting a sandbox process costs far more than a
 * trial's calls). Each trial's module records (a dropped watch event among them) reach that trial
 * by the module's label, so trials sharing one must run one at a time or use different labels.
 */
import { SandboxHost, type SandboxLimits, type SandboxLogRecord } from '../sandbox/index.js';

export interface TrialSandboxOptions {
  readonly limits?: Partial<SandboxLimits>;
  /** Receives every record, after the trial it belongs to. */
  readonly log?: (record: SandboxLogRecord) => void;
}

export class TrialSandbox {
  readonly host: SandboxHost;
  readonly #listeners = new Map<string, Set<(record: SandboxLogRecord) => void>>();

  constructor(options: TrialSandboxOptions = {}) {
    this.host = new SandboxHost({
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      // The trial judges exactly the calls and requests it makes; a speculative next page would add one.
      listReadAhead: false,
      log: (record) => {
        for (const listener of this.#listeners.get(record.module) ?? []) listener(record);
        options.log?.(record);
      },
    });
  }

  /** Sends the records about the module `label` to `listener` until the returned function is called. */
  listen(label: string, listener: (record: SandboxLogRecord) => void): () => void {
    const set = this.#listeners.get(label) ?? new Set();
    set.add(listener);
    this.#listeners.set(label, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(label);
    };
  }

  /** Stops the sandbox process; trials still running on it fail their calls with `unavailable`. */
  close(): Promise<void> {
    return this.host.close();
  }
}
