/**
 * Detached runs, kept on disk so they outlive the platform process. Each run has a folder under
 * the state directory:
 *
 *   run.json    runId, pid, the process's start time in clock ticks (to tell a recycled pid
 *               from ours), startedAt
 *   output.log  stdout and stderr, appended as written (both streams share one O_APPEND file)
 *   exit        the exit code, written by the wrapper shell when the command ends
 *   killed      written by kill(): when, and the informational actor
 *
 * The wrapper is `/bin/sh -c '<sh -c command>; echo $? > exit'` in its own session and process
 * group. It traps SIGTERM (with a handler, so the command itself still gets the default action),
 * so a kill records the command's status; SIGKILL after the grace period ends it outright, and a
 * run whose process is gone without an `exit` file is reported as `killed` (if kill() was called)
 * or `failed`. Because everything is on disk, a new connector instance over the same state
 * directory — after a restart — answers status, output, kill and release for earlier runs.
 *
 * `timeout` does not apply to detached runs: they run until they end or are killed.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, NotFoundError, UnavailableError } from '@neuralis/package-system/contracts';
import type {
  DetachedRunHandle,
  DetachedRunOutput,
  DetachedRunState,
  DetachedRunStatus,
  ExecRequest,
} from '@neuralis/package-system/contracts';
import type { Address } from './address.js';
import type { ExecSettings } from './config.js';
import { checkCommand, withContainedCwd } from './cwd.js';
import { KILL_GRACE_MS, signalGroup } from './exec.js';
import { commandEnvironment } from './exec-env.js';
import { completeUtf8Length } from './mime.js';
import { errnoOf, fsFailure } from './system-errors.js';

/** The longest status long poll, whatever the caller asks for. */
export const MAX_STATUS_WAIT_MS = 30_000;
/** Most output bytes one output() call returns. */
export const OUTPUT_PAGE_BYTES = 256 * 1024;
const POLL_INTERVAL_MS = 100;
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// $0 is the shell, $1 the command, $2 the exit file. The TERM trap only delays the wrapper until
// the command has ended; the rename makes the exit file appear whole.
const WRAPPER = `trap ':' TERM; "$0" -c "$1"; code=$?; printf '%s\\n' "$code" > "$2.tmp"; mv -f "$2.tmp" "$2"`;

interface RunRecord {
  readonly runId: string;
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat, or null where /proc is missing. */
  readonly startTicks: number | null;
  readonly startedAt: string;
}

export class DetachedRuns {
  constructor(private readonly stateDir: string) {}

  async start(rootPath: string, cwd: Address, request: ExecRequest, settings: ExecSettings): Promise<DetachedRunHandle> {
    const command = checkCommand(request.command);
    const env = commandEnvironment(settings.envAllowlist, request.env);
    const runId = randomUUID();
    const folder = this.folder(runId);
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new UnavailableError('The detached-run state folder cannot be created; check the source\'s stateDir.', {
        details: { errno: errnoOf(error) ?? 'unknown' },
      });
    }
    const log = await open(`${folder}/output.log`, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600);
    let pid: number | undefined;
    try {
      pid = await withContainedCwd(rootPath, cwd, (directory) => {
        const child = spawn('/bin/sh', ['-c', WRAPPER, '/bin/sh', command, `${folder}/exit`], {
          cwd: directory,
          env,
          detached: true,
          stdio: ['ignore', log.fd, log.fd],
        });
        // A failed spawn emits 'error' on the next tick; unheard, it would crash the process.
        child.on('error', () => undefined);
        child.unref();
        return child.pid;
      });
    } finally {
      await log.close();
    }
    if (pid === undefined) {
      await rm(folder, { recursive: true, force: true });
      throw new UnavailableError('The command could not be started (the shell is missing or the process limit was reached).');
    }
    const record: RunRecord = { runId, pid, startTicks: await startTicksOf(pid), startedAt: new Date().toISOString() };
    await writeFile(`${folder}/run.json`, JSON.stringify(record), { mode: 0o600 });
    return { runId };
  }

  /** A bounded long poll: returns when the run is no longer running or `waitMs` (≤ 30 s) has passed. */
  async status(runId: string, waitMs = 0): Promise<DetachedRunStatus> {
    if (typeof waitMs !== 'number' || !Number.isFinite(waitMs) || waitMs < 0) {
      throw new InvalidArgumentError('waitMs must be a non-negative number of milliseconds.', { details: { argument: 'waitMs' } });
    }
    const record = await this.record(runId);
    const deadline = Date.now() + Math.min(waitMs, MAX_STATUS_WAIT_MS);
    for (;;) {
      const status = await this.statusOf(record);
      const left = deadline - Date.now();
      if (status.state !== 'running' || left <= 0) return status;
      await sleep(Math.min(POLL_INTERVAL_MS, left));
    }
  }

  async output(runId: string, since: number): Promise<DetachedRunOutput> {
    if (!Number.isSafeInteger(since) || since < 0) {
      throw new InvalidArgumentError('since must be a non-negative integer byte offset.', { details: { argument: 'since' } });
    }
    const record = await this.record(runId);
    // State first: if the run has ended, the size read after it is final.
    const ended = (await this.statusOf(record)).state !== 'running';
    const log = await open(`${this.folder(runId)}/output.log`, 'r').catch((error: unknown) => {
      throw errnoOf(error) === 'ENOENT' ? unknownRun() : fsFailure(error);
    });
    try {
      const size = (await log.stat()).size;
      if (since >= size) return { data: '', next: since, done: ended };
      const length = Math.min(OUTPUT_PAGE_BYTES, size - since);
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await log.read(buffer, 0, length, since);
      const atEnd = since + bytesRead >= size;
      // Never split a UTF-8 character: the rest of it comes with the next call.
      const usable = ended && atEnd ? bytesRead : completeUtf8Length(buffer.subarray(0, bytesRead));
      const next = since + usable;
      return { data: buffer.toString('utf8', 0, usable), next, done: ended && next >= size };
    } finally {
      await log.close();
    }
  }

  /** An acknowledgement: SIGTERM to the run's process group now, SIGKILL after the grace period. */
  async kill(runId: string, actor?: string): Promise<{ readonly acknowledged: true }> {
    const record = await this.record(runId);
    const marker = { at: new Date().toISOString(), ...(typeof actor === 'string' ? { actor: actor.slice(0, 256) } : {}) };
    await writeFile(`${this.folder(runId)}/killed`, JSON.stringify(marker), { mode: 0o600 });
    if (await isAlive(record)) {
      signalGroup(record.pid, 'SIGTERM');
      setTimeout(() => {
        void isAlive(record).then((alive) => {
          if (alive) signalGroup(record.pid, 'SIGKILL');
        });
      }, KILL_GRACE_MS).unref();
    }
    return { acknowledged: true };
  }

  /** Forgets the run: ends it if it is still running, then deletes its state and output. */
  async release(runId: string): Promise<void> {
    const record = await this.record(runId);
    if (await isAlive(record)) signalGroup(record.pid, 'SIGKILL');
    await rm(this.folder(runId), { recursive: true, force: true });
  }

  private folder(runId: string): string {
    return `${this.stateDir}/${runId}`;
  }

  private async record(runId: string): Promise<RunRecord> {
    if (typeof runId !== 'string' || !RUN_ID.test(runId)) throw unknownRun();
    let text: string;
    try {
      text = await readFile(`${this.folder(runId)}/run.json`, 'utf8');
    } catch (error) {
      throw errnoOf(error) === 'ENOENT' ? unknownRun() : fsFailure(error);
    }
    const record = JSON.parse(text) as RunRecord;
    if (record.runId !== runId || !Number.isSafeInteger(record.pid)) throw unknownRun();
    return record;
  }

  private async statusOf(record: RunRecord): Promise<DetachedRunStatus> {
    const folder = this.folder(record.runId);
    const [exit, killed, log] = await Promise.all([
      readExit(`${folder}/exit`),
      stat(`${folder}/killed`).then(() => true, () => false),
      stat(`${folder}/output.log`).catch(() => undefined),
    ]);
    const base = { runId: record.runId, startedAt: record.startedAt, outputBytes: log?.size ?? 0 };
    let ended = exit;
    if (ended === undefined) {
      if (await isAlive(record)) return { ...base, state: 'running', exitCode: null };
      // It may have finished between the two checks.
      ended = await readExit(`${folder}/exit`);
    }
    if (ended !== undefined) {
      const state: DetachedRunState = killed ? 'killed' : 'exited';
      return { ...base, state, exitCode: ended.code, endedAt: ended.at };
    }
    const endedAt = log?.mtime.toISOString() ?? record.startedAt;
    return { ...base, state: killed ? 'killed' : 'failed', exitCode: null, endedAt };
  }
}

function unknownRun(): NotFoundError {
  return new NotFoundError('No detached run with that id exists on this source (it may have been released).');
}

async function readExit(path: string): Promise<{ code: number; at: string } | undefined> {
  try {
    const [text, stats] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    const code = Number.parseInt(text.trim(), 10);
    return Number.isNaN(code) ? undefined : { code, at: stats.mtime.toISOString() };
  } catch {
    return undefined;
  }
}

/** Field 22 (starttime) of /proc/<pid>/stat; the command name (field 2) may contain spaces and ")". */
async function startTicksOf(pid: number): Promise<number | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state), so field 22 is fields[19].
    const ticks = Number(fields[19]);
    return Number.isSafeInteger(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** True while the run's own process (not a recycled pid) exists and is not a zombie. */
async function isAlive(record: RunRecord): Promise<boolean> {
  try {
    const text = await readFile(`/proc/${record.pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return false;
    return record.startTicks === null || Number(fields[19]) === record.startTicks;
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false;
    // No /proc: fall back to signal 0, which cannot tell a recycled pid apart.
    try {
      process.kill(record.pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}
