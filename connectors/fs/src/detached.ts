/**
 * Detached runs, kept on disk so they outlive the platform process. Each run has a folder under
 * the state directory:
 *
 *   run.json     runId, pid (the wrapper's) and the sandbox's pid 1, each with its start time in
 *                clock ticks (to tell a recycled pid from ours), startedAt
 *   status.json  bwrap's JSON status: the sandbox's pid, then the command's exit code
 *   output.log   stdout and stderr, appended as written (both streams share one O_APPEND file)
 *   exit         bwrap's exit code (the command's), written by the wrapper shell when it ends
 *   killed       written by kill(): when, and the informational actor
 *
 * The wrapper is `/bin/sh -c '{ bwrap … sh -c command; echo $? > exit; } 2>&1 | cat'` in its own
 * session and process group, outside the command sandbox (sandbox.ts): none of these files exists
 * inside it, and the command's stdout and stderr are a pipe to `cat`, not a file it could reopen
 * or name. kill() sends SIGTERM to the sandbox's process group, so the command ends with its
 * status recorded; SIGKILL to bwrap and the sandbox's pid 1 after the grace period ends the whole
 * pid namespace, and a run whose process is gone without an `exit` file is reported as `killed`
 * (if kill() was called) or `failed`. Because everything is on disk, a new connector instance
 * over the same state directory — after a restart — answers status, output, kill and release for
 * earlier runs.
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
  ExecContext,
  ExecRequest,
} from '@neuralis/package-system/contracts';
import type { Address } from './address.js';
import type { ExecSettings } from './config.js';
import { KILL_GRACE_MS, checkCommand, signalGroup } from './exec.js';
import { sandboxEnvironment } from './exec-env.js';
import { completeUtf8Length } from './mime.js';
import { SandboxStatus, prepareSandbox, sandboxArgs } from './sandbox.js';
import { requireSandbox } from './sandbox-probe.js';
import { errnoOf, fsFailure } from './system-errors.js';

/** The longest status long poll, whatever the caller asks for. */
export const MAX_STATUS_WAIT_MS = 30_000;
/** Most output bytes one output() call returns. */
export const OUTPUT_PAGE_BYTES = 256 * 1024;
const POLL_INTERVAL_MS = 100;
/** How long start() waits for bwrap to report the sandbox (it does so right after creating it). */
const SANDBOX_START_MS = 5000;
const SANDBOX_POLL_MS = 5;
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// $0 is bwrap, $1 the exit file, the rest bwrap's arguments. The rename makes the exit file
// appear whole.
const WRAPPER = `exit_file=$1; shift; { "$0" "$@"; code=$?; printf '%s\\n' "$code" > "$exit_file.tmp"; mv -f "$exit_file.tmp" "$exit_file"; } 2>&1 | cat`;
/** The wrapper's own environment (the command's is set inside the sandbox). */
const WRAPPER_ENV = { PATH: '/usr/bin:/bin' };

interface RunRecord {
  readonly runId: string;
  /** The wrapper shell, leader of its process group. */
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat, or null where /proc is missing. */
  readonly startTicks: number | null;
  /** The sandbox's pid 1, leader of the command's process group; absent in runs from before the sandbox. */
  readonly sandboxPid?: number | null;
  readonly sandboxTicks?: number | null;
  readonly startedAt: string;
}

export class DetachedRuns {
  constructor(private readonly stateDir: string) {}

  /**
   * The state folder, made if missing: a sandbox can only hide a folder that exists, and one made
   * after a command started would be visible to it if it lies inside the root.
   */
  async prepare(): Promise<void> {
    try {
      await mkdir(this.stateDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new UnavailableError("The detached-run state folder cannot be created; check the source's stateDir.", {
        details: { errno: errnoOf(error) ?? 'unknown' },
      });
    }
  }

  async start(rootPath: string, cwd: Address, request: ExecRequest, context: ExecContext, settings: ExecSettings): Promise<DetachedRunHandle> {
    const command = checkCommand(request.command);
    const bwrap = await requireSandbox();
    const env = sandboxEnvironment(settings.envAllowlist, request.env);
    await this.prepare();
    const sandbox = await prepareSandbox(rootPath, cwd, context.confinement, [this.stateDir]);
    const runId = randomUUID();
    const folder = this.folder(runId);
    let pid: number | undefined;
    try {
      await mkdir(folder, { mode: 0o700 }).catch((error: unknown) => {
        throw fsFailure(error);
      });
      const log = await open(`${folder}/output.log`, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600);
      const status = await open(`${folder}/status.json`, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600).catch(async (error: unknown) => {
        await log.close();
        throw fsFailure(error);
      });
      try {
        const args = sandboxArgs(sandbox, { command, env, network: settings.network, maxProcesses: settings.maxProcesses });
        const child = spawn('/bin/sh', ['-c', WRAPPER, bwrap, `${folder}/exit`, ...args], {
          cwd: '/',
          env: WRAPPER_ENV,
          detached: true,
          stdio: sandbox.stdio(['ignore', log.fd, log.fd, status.fd]),
        });
        // A failed spawn emits 'error' on the next tick; unheard, it would crash the process.
        child.on('error', () => undefined);
        child.unref();
        pid = child.pid;
      } finally {
        await Promise.all([log.close(), status.close()]);
      }
    } finally {
      await sandbox.close();
    }
    const startTicks = pid === undefined ? null : await startTicksOf(pid);
    const sandboxPid = pid === undefined ? undefined : await this.sandboxOf(runId, pid, startTicks);
    if (pid === undefined || sandboxPid === undefined) {
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      await rm(folder, { recursive: true, force: true });
      throw new UnavailableError('The command could not be started in its sandbox (bubblewrap failed, or the process limit was reached).', {
        details: { reason: 'exec_sandbox_failed' },
      });
    }
    const record: RunRecord = {
      runId,
      pid,
      startTicks,
      sandboxPid,
      sandboxTicks: sandboxPid === null ? null : await startTicksOf(sandboxPid),
      startedAt: new Date().toISOString(),
    };
    await writeFile(`${folder}/run.json`, JSON.stringify(record), { mode: 0o600 });
    return { runId };
  }

  /**
   * The sandbox's pid once bwrap has reported it; null when it is still silent after
   * SANDBOX_START_MS (kill() then falls back to the wrapper's group); undefined when the wrapper
   * ended without a sandbox.
   */
  private async sandboxOf(runId: string, pid: number, startTicks: number | null): Promise<number | null | undefined> {
    const deadline = Date.now() + SANDBOX_START_MS;
    for (;;) {
      const reported = (await readSandboxStatus(this.folder(runId))).sandboxPid;
      if (reported !== undefined) return reported;
      if (!(await isAlive(pid, startTicks))) return undefined;
      if (Date.now() >= deadline) return null;
      await sleep(SANDBOX_POLL_MS);
    }
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

  /**
   * An acknowledgement: SIGTERM to the command's process group now; SIGKILL to the wrapper's
   * group and the sandbox's pid 1 (ending its whole pid namespace) after the grace period.
   */
  async kill(runId: string, actor?: string): Promise<{ readonly acknowledged: true }> {
    const record = await this.record(runId);
    const marker = { at: new Date().toISOString(), ...(typeof actor === 'string' ? { actor: actor.slice(0, 256) } : {}) };
    await writeFile(`${this.folder(runId)}/killed`, JSON.stringify(marker), { mode: 0o600 });
    if (await isAlive(record.pid, record.startTicks)) {
      const sandbox = await liveSandbox(record);
      signalGroup(sandbox ?? record.pid, 'SIGTERM');
      setTimeout(() => {
        void isAlive(record.pid, record.startTicks).then((alive) => {
          if (alive) killAll(record, sandbox);
        });
      }, KILL_GRACE_MS).unref();
    }
    return { acknowledged: true };
  }

  /** Forgets the run: ends it if it is still running, then deletes its state and output. */
  async release(runId: string): Promise<void> {
    const record = await this.record(runId);
    if (await isAlive(record.pid, record.startTicks)) killAll(record, await liveSandbox(record));
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
      if (await isAlive(record.pid, record.startTicks)) return { ...base, state: 'running', exitCode: null };
      // It may have finished between the two checks.
      ended = await readExit(`${folder}/exit`);
    }
    // bwrap reports no exit code when the command never started (the sandbox failed to set up).
    const started = record.sandboxPid === undefined || (await readSandboxStatus(folder)).exitCode !== undefined;
    if (ended !== undefined && started) {
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

/** True while that process (not a recycled pid) exists and is not a zombie. */
async function isAlive(pid: number, startTicks: number | null | undefined): Promise<boolean> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return false;
    return startTicks === null || startTicks === undefined || Number(fields[19]) === startTicks;
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return false;
    // No /proc: fall back to signal 0, which cannot tell a recycled pid apart.
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** The sandbox's pid 1 while it is the one this run started. */
async function liveSandbox(record: RunRecord): Promise<number | undefined> {
  const pid = record.sandboxPid;
  if (pid === undefined || pid === null) return undefined;
  // Without its start time a pid could be anyone's by now: only the wrapper's group is signalled.
  if (record.sandboxTicks === null || record.sandboxTicks === undefined) return undefined;
  return (await isAlive(pid, record.sandboxTicks)) ? pid : undefined;
}

/** SIGKILL to the wrapper's group (bwrap with it) and to the sandbox's pid 1: the pid namespace ends. */
function killAll(record: RunRecord, sandbox: number | undefined): void {
  signalGroup(record.pid, 'SIGKILL');
  if (sandbox !== undefined) signalGroup(sandbox, 'SIGKILL');
}

async function readSandboxStatus(folder: string): Promise<SandboxStatus> {
  return SandboxStatus.of(await readFile(`${folder}/status.json`, 'utf8').catch(() => ''));
}
