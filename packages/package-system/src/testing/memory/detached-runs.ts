/**
 * Detached runs of the memory connector's fake shell: the `detached` facet. Runs live in memory,
 * keyed by an unguessable run id; output is kept as bytes so offsets are byte offsets.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, NotFoundError } from '../../contracts/index.js';
import type {
  DetachedExecFacet,
  DetachedRunOutput,
  DetachedRunState,
  DetachedRunStatus,
  ExecRequest,
} from '../../contracts/index.js';
import { runFakeShell } from './fake-shell.js';

export interface DetachedRunsOptions {
  /** Validates the request (cwd, command, timeout) and returns the timeout to apply, in ms. */
  readonly admit: (request: ExecRequest) => number;
  /** Upper bound on bytes one `output` call returns. */
  readonly outputChunkBytes: number;
  /** Upper bound on one `status` long poll, in ms. */
  readonly longPollCeilingMs: number;
}

interface Run {
  readonly runId: string;
  state: DetachedRunState;
  exitCode: number | null;
  readonly startedAt: string;
  endedAt?: string;
  readonly chunks: Buffer[];
  outputBytes: number;
  readonly controller: AbortController;
  /** Settles when the run ends, for status long polls. */
  readonly ended: Promise<void>;
}

function requireOffset(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(`${name} must be a non-negative integer.`);
  }
  return value;
}

function unknownRun(): NotFoundError {
  return new NotFoundError('No detached run with that id exists (it was never started here, or it was released).');
}

/** Builds the facet. Killing is an acknowledgement: the end shows in status as `killed`. */
export function createDetachedRuns(options: DetachedRunsOptions): DetachedExecFacet {
  const runs = new Map<string, Run>();

  const find = (runId: string): Run => {
    const run = runs.get(runId);
    if (run === undefined) throw unknownRun();
    return run;
  };

  const snapshot = (run: Run): DetachedRunStatus => ({
    runId: run.runId,
    state: run.state,
    exitCode: run.exitCode,
    startedAt: run.startedAt,
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
    outputBytes: run.outputBytes,
  });

  return {
    async start(request) {
      const timeoutMs = options.admit(request);
      const controller = new AbortController();
      let markEnded!: () => void;
      const run: Run = {
        runId: `run-${randomUUID()}`,
        state: 'running',
        exitCode: null,
        startedAt: new Date().toISOString(),
        chunks: [],
        outputBytes: 0,
        controller,
        ended: new Promise<void>((resolve) => (markEnded = resolve)),
      };
      const record = (text: string): void => {
        const chunk = Buffer.from(text, 'utf8');
        run.chunks.push(chunk);
        run.outputBytes += chunk.byteLength;
      };
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      runs.set(run.runId, run);
      void runFakeShell(request.command, { stdout: record, stderr: record, signal: controller.signal }).then((exitCode) => {
        clearTimeout(timer);
        run.exitCode = exitCode;
        run.state = exitCode !== null ? 'exited' : timedOut ? 'failed' : 'killed';
        run.endedAt = new Date().toISOString();
        markEnded();
      });
      return { runId: run.runId };
    },

    async status(runId, waitMs = 0) {
      const run = find(runId);
      const wait = Math.min(requireOffset(waitMs, 'waitMs'), options.longPollCeilingMs);
      if (run.state === 'running' && wait > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([run.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
        clearTimeout(timer);
      }
      return snapshot(run);
    },

    async output(runId, since): Promise<DetachedRunOutput> {
      const run = find(runId);
      const from = requireOffset(since, 'since');
      const all = Buffer.concat(run.chunks);
      const slice = all.subarray(Math.min(from, all.byteLength), from + options.outputChunkBytes);
      const next = Math.max(from, Math.min(from + slice.byteLength, all.byteLength));
      return { data: slice.toString('utf8'), next, done: run.state !== 'running' && next >= all.byteLength };
    },

    async kill(runId) {
      // The actor argument is informational; this double keeps no audit row, so it is unused.
      find(runId).controller.abort();
      return { acknowledged: true };
    },

    async release(runId) {
      find(runId).controller.abort();
      runs.delete(runId);
    },
  };
}
