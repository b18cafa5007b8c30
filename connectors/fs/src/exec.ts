/**
 * One-shot exec: `/bin/sh -c command` in the command sandbox (sandbox.ts), starting in the exact
 * contained working directory, with an allow-listed environment and output capped per stream. A
 * timeout or an abort sends SIGTERM to the sandbox's process group (everything the command
 * started that did not leave it) and, KILL_GRACE_MS later, SIGKILL to bwrap and the sandbox's pid 1,
 * which ends every process in its pid namespace at once — a fork bomb included.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { InvalidArgumentError, UnavailableError } from '@neuralis/package-system/contracts';
import type { ExecContext, ExecRequest, ExecResult } from '@neuralis/package-system/contracts';
import type { Address } from './address.js';
import type { ExecSettings } from './config.js';
import { sandboxEnvironment } from './exec-env.js';
import { SandboxStatus, prepareSandbox, sandboxArgs } from './sandbox.js';
import { requireSandbox } from './sandbox-probe.js';

/** After SIGTERM, a process group gets this long before SIGKILL. */
export const KILL_GRACE_MS = 2000;
/** After bwrap exits, output still buffered in pipes gets this long. */
const DRAIN_MS = 200;

/** Throws `invalid_argument` unless `timeout` is a positive integer; returns the effective one. */
export function effectiveTimeout(timeout: unknown, settings: ExecSettings): number {
  if (timeout === undefined) return Math.min(settings.defaultTimeoutMs, settings.maxTimeoutMs);
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) {
    throw new InvalidArgumentError('timeout must be a positive whole number of milliseconds.', { details: { argument: 'timeout' } });
  }
  return Math.min(timeout, settings.maxTimeoutMs);
}

/** Throws `invalid_argument` unless `command` is a non-empty string without NUL bytes. */
export function checkCommand(command: unknown): string {
  if (typeof command !== 'string' || command.trim() === '' || command.includes('\0')) {
    throw new InvalidArgumentError('command must be a non-empty shell command line without NUL bytes.', { details: { argument: 'command' } });
  }
  return command;
}

/** Sends `signal` to the whole process group led by `pid`; a group already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to signal.
  }
}

/**
 * `conceal`: absolute paths hidden on top of the plan's (the source's detached-run state).
 * Throws: as prepareSandbox, and `unavailable` when there is no sandbox on this machine or it
 * could not be set up.
 */
export async function runCommand(
  rootPath: string,
  cwd: Address,
  request: ExecRequest,
  context: ExecContext,
  settings: ExecSettings,
  conceal: readonly string[],
): Promise<ExecResult> {
  const command = checkCommand(request.command);
  if (request.background === true) {
    throw new InvalidArgumentError('background runs are started with detached.start, which returns a run id to poll.', {
      details: { argument: 'background' },
    });
  }
  const timeoutMs = effectiveTimeout(request.timeout, settings);
  const bwrap = await requireSandbox();
  const env = sandboxEnvironment(settings.envAllowlist, request.env);
  const started = performance.now();
  const sandbox = await prepareSandbox(rootPath, cwd, context.confinement, conceal);
  let running: Promise<ExecResult>;
  try {
    // Every listener is attached inside collect(), before the descriptors close: a quick command
    // can end during that await, and a listener attached afterwards would never hear it.
    const args = sandboxArgs(sandbox, { command, env, network: settings.network, maxProcesses: settings.maxProcesses });
    const child = spawn(bwrap, args, { cwd: '/', env: {}, detached: true, stdio: sandbox.stdio(['ignore', 'pipe', 'pipe', 'pipe']) });
    running = collect(child, started, timeoutMs, settings.outputCapBytes, context.signal);
  } finally {
    await sandbox.close();
  }
  return running;
}

function collect(child: ChildProcess, started: number, timeoutMs: number, cap: number, signal: AbortSignal | undefined): Promise<ExecResult> {
  const stdout = new CappedBuffer(cap);
  const stderr = new CappedBuffer(cap);
  const status = new SandboxStatus();
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  (child.stdio[3] as Readable).on('data', (chunk: Buffer) => status.push(chunk.toString('utf8')));

  return new Promise<ExecResult>((resolve, reject) => {
    let timedOut = false;
    let stopped = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      const pid = child.pid;
      if (pid === undefined) return;
      stopped = true;
      const sandboxPid = status.sandboxPid;
      // Before bwrap has reported the sandbox there is nothing to ask nicely: killing bwrap ends it.
      if (sandboxPid === undefined) signalGroup(pid, 'SIGKILL');
      else signalGroup(sandboxPid, 'SIGTERM');
      killTimer ??= setTimeout(() => {
        signalGroup(pid, 'SIGKILL');
        if (sandboxPid !== undefined) signalGroup(sandboxPid, 'SIGKILL');
      }, KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = (): void => stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted === true) stop();

    const settle = (): void => {
      settled = true;
      clearTimeout(timer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
      child.stdout!.destroy();
      child.stderr!.destroy();
      (child.stdio[3] as Readable).destroy();
    };
    const finish = (exitCode: number | null): void => {
      if (settled) return;
      settle();
      if (!stopped && status.exitCode === undefined) {
        // bwrap's own complaint names host paths: it is not passed on.
        reject(new UnavailableError('The command sandbox could not be set up, so the command did not run; retry, or check that bubblewrap works on this machine.', { details: { reason: 'exec_sandbox_failed' } }));
        return;
      }
      resolve({
        // bwrap reports a command killed by signal N as 128 + N; ours (timeout, abort) are null.
        exitCode: stopped ? null : (status.exitCode ?? exitCode),
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        durationMs: Math.round(performance.now() - started),
        ...(timedOut ? { timedOut: true } : {}),
      });
    };
    child.once('error', () => {
      if (settled) return;
      settle();
      reject(new UnavailableError('The command could not be started (bubblewrap is missing or the process limit was reached).'));
    });
    child.once('close', (code) => finish(code));
    child.once('exit', (code) => {
      setTimeout(() => finish(code), DRAIN_MS).unref();
    });
  });
}

/** Keeps the first `cap` bytes of a stream and remembers whether more came. */
class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.byteLength;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}
