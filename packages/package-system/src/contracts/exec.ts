/**
 * Exec and detached-run contracts. `exec` and `detached.start` are ENTRY points: they run under the
 * caller's session and the loader checks the kind's execRequires features before connector code
 * runs. The other detached verbs are identity-free transport keyed on the run id — a caller who
 * has lost the entry feature must still be able to read and stop a run it owns; ownership is the
 * platform's stored record, not a feature.
 */
import type { SessionContext } from './session.js';

export interface ExecRequest {
  readonly command: string;
  /** The exact source URI to run in; it must name a directory inside the source root. */
  readonly cwd: string;
  /** Milliseconds before the process is killed. The connector applies its own ceiling. */
  readonly timeout?: number;
  /** Extra environment; the connector passes only names on its allowlist and drops the rest. */
  readonly env?: Readonly<Record<string, string>>;
  /** Ask for a detached run; connectors without `execDetached` refuse it with `unsupported`. */
  readonly background?: boolean;
}

export interface ExecContext {
  readonly session: SessionContext;
  readonly signal?: AbortSignal;
  /**
   * What the command may see of the source root, decided by the platform for this call. A
   * connector that confines commands applies it; without one, the whole root is read-write.
   */
  readonly confinement?: ExecConfinement;
}

/**
 * The confinement plan of one exec entry: the caller's rights at the root and at every path the
 * host's permission tree names, and host paths that must not exist inside the command's view.
 * Paths nobody names inherit from their nearest named ancestor, as in the tree.
 */
export interface ExecConfinement {
  /** The root's entry (`path: ""`) is required; the others are source-relative decoded names joined by `/`. */
  readonly paths: readonly ExecPathRights[];
  /** Absolute host paths (the platform's data directory) hidden wherever they lie inside the root. */
  readonly conceal?: readonly string[];
}

/** Rights at one path: no `read` hides it (writes included), `read` without `write` is read-only. */
export interface ExecPathRights {
  readonly path: string;
  readonly read: boolean;
  readonly write: boolean;
}

export interface ExecResult {
  /** The exit code, or null when the process was ended by a signal or the timeout. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when stdout or stderr hit the output cap and was cut. */
  readonly truncated: boolean;
  readonly durationMs: number;
  readonly timedOut?: boolean;
  /** Optional bounded text for display (e.g. the last lines). */
  readonly display?: string;
}

export type DetachedRunState = 'running' | 'exited' | 'killed' | 'failed';

export interface DetachedRunHandle {
  readonly runId: string;
}

export interface DetachedRunStatus {
  readonly runId: string;
  readonly state: DetachedRunState;
  readonly exitCode: number | null;
  readonly startedAt: string;
  readonly endedAt?: string;
  /** Bytes of output recorded so far; `output(runId, since)` reads from any offset below it. */
  readonly outputBytes: number;
}

export interface DetachedRunOutput {
  /** Output from `since` onward (stdout and stderr interleaved as written), bounded per call. */
  readonly data: string;
  /** Offset to pass as `since` next time. */
  readonly next: number;
  /** True when the run has ended and every byte has been returned. */
  readonly done: boolean;
}

/**
 * The `detached` facet, present exactly when `execDetached` is declared.
 * - start: an exec entry (features checked by the loader first). Throws as exec.
 * - status: a bounded long poll; returns as soon as the state changes or `waitMs` (capped by the
 *   connector) passes. Unknown run id: `not_found`.
 * - output: bytes from `since`; `since` past the end returns empty data. Unknown run: `not_found`.
 * - kill: an acknowledgement only; the real end is reported through status. `actor` is for the
 *   connector's own audit row, never a gate. Killing an ended run is acknowledged too.
 * - release: forgets the run and its stored output; afterwards every verb answers `not_found`.
 */
export interface DetachedExecFacet {
  start(request: ExecRequest, context: ExecContext): Promise<DetachedRunHandle>;
  status(runId: string, waitMs?: number): Promise<DetachedRunStatus>;
  output(runId: string, since: number): Promise<DetachedRunOutput>;
  kill(runId: string, actor?: string): Promise<{ readonly acknowledged: true }>;
  release(runId: string): Promise<void>;
}
