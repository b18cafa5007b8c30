/**
 * One-shot exec: `/bin/sh -c command` in a contained working directory, in its own process group
 * so a timeout or an abort ends everything it started, with an allow-listed environment and
 * output capped per stream.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { InvalidArgumentError, UnavailableError } from '@neuralis/package-system/contracts';
import type { ExecContext, ExecRequest, ExecResult } from '@neuralis/package-system/contracts';
import type { Address } from './address.js';
import type { ExecSettings } from './config.js';
import { checkCommand, withContainedCwd } from './cwd.js';
import { commandEnvironment } from './exec-env.js';

/** After SIGTERM, a process group gets this long before SIGKILL. */
export const KILL_GRACE_MS = 2000;
/** After the shell exits, output still buffered in pipes held by escaped descendants gets this long. */
const DRAIN_MS = 200;

/** Throws `invalid_argument` unless `timeout` is a positive integer; returns the effective one. */
export function effectiveTimeout(timeout: unknown, settings: ExecSettings): number {
  if (timeout === undefined) return Math.min(settings.defaultTimeoutMs, settings.maxTimeoutMs);
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) {
    throw new InvalidArgumentError('timeout must be a positive whole number of milliseconds.', { details: { argument: 'timeout' } });
  }
  return Math.min(timeout, settings.maxTimeoutMs);
}

/** Sends `signal` to the whole process group led by `pid`; a group already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to signal.
  }
}

export async function runCommand(rootPath: string, cwd: Address, request: ExecRequest, context: ExecContext, settings: ExecSettings): Promise<ExecResult> {
  const command = checkCommand(request.command);
  if (request.background === true) {
    throw new InvalidArgumentError('background runs are started with detached.start, which returns a run id to poll.', {
      details: { argument: 'background' },
    });
  }
  const timeoutMs = effectiveTimeout(request.timeout, settings);
  const env = commandEnvironment(settings.envAllowlist, request.env);
  const started = performance.now();
  return withContainedCwd(rootPath, cwd, (directory) =>
    collect(
      spawn('/bin/sh', ['-c', command], { cwd: directory, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }),
      started,
      timeoutMs,
      settings.outputCapBytes,
      context.signal,
    ),
  );
}

function collect(child: ChildProcess, started: number, timeoutMs: number, cap: number, signal: AbortSignal | undefined): Promise<ExecResult> {
  const stdout = new CappedBuffer(cap);
  const stderr = new CappedBuffer(cap);
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));

  return new Promise<ExecResult>((resolve, reject) => {
    let timedOut = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      const pid = child.pid;
      if (pid === undefined) return;
      signalGroup(pid, 'SIGTERM');
      killTimer ??= setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = (): void => stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted === true) stop();

    const finish = (exitCode: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer !== undefined) clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
      // Descendants that left the group may still hold the pipes open; do not wait for them.
      child.stdout!.destroy();
      child.stderr!.destroy();
      resolve({
        exitCode: timedOut ? null : exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        durationMs: Math.round(performance.now() - started),
        ...(timedOut ? { timedOut: true } : {}),
      });
    };
    child.once('error', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(new UnavailableError('The command could not be started (the shell is missing or the process limit was reached).'));
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
