/**
 * The scope's per-crawl counting — `limits.maxEntries`, `limits.maxBytes` and a `window.last`
 * count — by the same rules as the scope's own `tally()` (scope/compile.ts), but restorable: a run
 * resumed from its checkpoint goes on counting from what was committed there, so limits hold
 * across a kill. Per-entry rules, bounds and `maxEntryBytes` stay the compiled scope's `decide`.
 */
import type { Entry } from '@inseam/connector';
import type { CompiledScope, ScopeDecision } from '../scope/index.js';
import type { ScopeTallySnapshot } from '../store/index.js';

export class ResumableTally {
  readonly #scope: CompiledScope;
  #entries: number;
  #bytes: number;
  #counted: number;

  constructor(scope: CompiledScope, from: ScopeTallySnapshot | null) {
    this.#scope = scope;
    this.#entries = from?.entries ?? 0;
    this.#bytes = from?.bytes ?? 0;
    this.#counted = from?.counted ?? 0;
  }

  /** The decision for the next entry in listing order (newest first when a count window is set). */
  decide(entry: Entry): ScopeDecision {
    const { limits, window } = this.#scope;
    if (limits.maxEntries !== undefined && this.#entries >= limits.maxEntries) return 'skip';
    let decision = this.#scope.decide(entry);
    if (decision === 'skip') return 'skip';
    // A count window has no bounds, so here the entry is inside it (include) or too large (index).
    if (window.count !== undefined && ++this.#counted > window.count) decision = window.outside;
    if (decision === 'skip') return 'skip';
    if (decision === 'include' && limits.maxBytes !== undefined) {
      const size = typeof entry.size === 'number' && Number.isFinite(entry.size) && entry.size > 0 ? entry.size : 0;
      if (this.#bytes + size > limits.maxBytes) decision = 'index';
      else this.#bytes += size;
    }
    this.#entries += 1;
    return decision;
  }

  /** True when every later entry will be skipped, so listing can stop. */
  get exhausted(): boolean {
    const { limits, window } = this.#scope;
    if (limits.maxEntries !== undefined && this.#entries >= limits.maxEntries) return true;
    return window.count !== undefined && window.outside === 'skip' && this.#counted >= window.count;
  }

  /** True when the scope can end the listing before its last page (see `exhausted`). */
  get canExhaust(): boolean {
    const { limits, window } = this.#scope;
    return limits.maxEntries !== undefined || (window.count !== undefined && window.outside === 'skip');
  }

  snapshot(): ScopeTallySnapshot {
    return { entries: this.#entries, bytes: this.#bytes, counted: this.#counted };
  }
}
