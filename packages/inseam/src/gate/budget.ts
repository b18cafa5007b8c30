/**
 * Per-origin concurrency budget. One gate holds one budget, so every host that reaches the same
 * origin shares its slots: two hosts on one API cannot together exceed what one would be allowed.
 * A slot is held from the moment a request is sent until its response body is read to the end,
 * cancelled or fails; waiters are served first come, first served.
 */

export type ReleaseSlot = () => void;

interface OriginSlots {
  active: number;
  readonly waiters: Array<() => void>;
}

export class OriginBudget {
  private readonly origins = new Map<string, OriginSlots>();

  constructor(readonly perOrigin: number) {
    if (!Number.isInteger(perOrigin) || perOrigin < 1) throw new RangeError('perOrigin must be a positive integer.');
  }

  /** Requests currently holding a slot for `origin` (for tests and diagnostics). */
  active(origin: string): number {
    return this.origins.get(origin)?.active ?? 0;
  }

  /**
   * Resolves with a release function once a slot is free. Rejects with the signal's reason when
   * `signal` aborts first, leaving the queue as it was. Releasing twice is harmless.
   */
  acquire(origin: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    let slots = this.origins.get(origin);
    if (slots === undefined) {
      slots = { active: 0, waiters: [] };
      this.origins.set(origin, slots);
    }
    const entry = slots;
    const grant = (): ReleaseSlot => {
      entry.active += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        entry.active -= 1;
        const next = entry.waiters.shift();
        if (next !== undefined) next();
        else if (entry.active === 0) this.origins.delete(origin);
      };
    };
    if (entry.active < this.perOrigin) return Promise.resolve(grant());
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const onAbort = (): void => {
        const index = entry.waiters.indexOf(wake);
        if (index !== -1) entry.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(grant());
      };
      entry.waiters.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
