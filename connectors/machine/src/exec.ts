/**
 * One-shot exec over an SSH exec channel. The command runs as the login, in the exact contained
 * working folder, under `env -i` with an allow-listed environment, in its own session and process
 * group (`setsid -w`), whose id it prints first so a timeout or an abort can end the whole group
 * (SIGTERM, then SIGKILL after KILL_GRACE_MS) from a second channel. Output is capped per stream.
 *
 * Confinement. A remote login cannot be confined to part of a folder the way bubblewrap confines
 * a local command, so a command runs only for a caller whose rights cover the whole root (read
 * and write everywhere the plan names); anyone else is refused with `permission_denied`.
 */
import { InvalidArgumentError, PermissionDeniedError } from '@neuralis/package-system/contracts';
import type { ExecConfinement, ExecContext, ExecRequest, ExecResult } from '@neuralis/package-system/contracts';
import type { MachineExecSettings } from './config.js';
import type { MachineConnection } from './connection.js';
import { unavailable, failure } from './failures.js';
import { checkCommand, environmentWords, quote, viaSh } from './shell.js';
import type { ExecChannel } from './ssh.js';

export const KILL_GRACE_MS = 2000;

export function effectiveTimeout(timeout: unknown, settings: MachineExecSettings): number {
  if (timeout === undefined) return Math.min(settings.defaultTimeoutMs, settings.maxTimeoutMs);
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0) {
    throw new InvalidArgumentError('timeout must be a positive whole number of milliseconds.', { details: { argument: 'timeout' } });
  }
  return Math.min(timeout, settings.maxTimeoutMs);
}

/** Throws `permission_denied` unless the plan gives read and write at every path it names. */
export function requireWholeRoot(confinement: ExecConfinement | undefined): void {
  if (confinement === undefined) return;
  if (confinement.paths.every((rights) => rights.read && rights.write)) return;
  throw new PermissionDeniedError(
    "A machine cannot confine a command to part of its folder, so commands run only for callers who may read and write all of it; ask for write on the whole host, or use a folder host.",
    { details: { reason: 'exec_needs_whole_root' } },
  );
}

/** The script: print the group id, enter the folder, run the command in a clean environment. */
export function commandScript(cwd: string, command: string, env: string): string {
  return `exec setsid -w /bin/sh -c ${quote(`printf '%s\\n' "$$"; cd -- ${quote(cwd)} || exit 126; exec env -i ${env} /bin/sh -c ${quote(command)}`)}`;
}

export async function runCommand(connection: MachineConnection, cwd: string, request: ExecRequest, context: ExecContext, settings: MachineExecSettings): Promise<ExecResult> {
  const command = checkCommand(request.command);
  if (request.background === true) {
    throw new InvalidArgumentError('background runs are started with detached.start, which returns a run id to poll.', { details: { argument: 'background' } });
  }
  const timeoutMs = effectiveTimeout(request.timeout, settings);
  const started = performance.now();
  const channel = await connection.exec(viaSh(commandScript(cwd, command, environmentWords(settings.envAllowlist, request.env))));
  return collect(connection, channel, started, timeoutMs, settings.outputCapBytes, context.signal);
}

/** Ends the process group `pgid` on the machine: SIGTERM now, SIGKILL after the grace period. */
export async function killGroup(connection: MachineConnection, pgid: number): Promise<void> {
  // `kill -TERM -N`, not `kill -TERM -- -N`: dash, Debian's /bin/sh, reads "--" as a pid.
  const script = `kill -TERM -${pgid} 2>/dev/null; sleep ${KILL_GRACE_MS / 1000}; kill -KILL -${pgid} 2>/dev/null; exit 0`;
  const channel = await connection.exec(viaSh(script));
  channel.resume();
  channel.stderr.resume();
}

function collect(connection: MachineConnection, channel: ExecChannel, started: number, timeoutMs: number, cap: number, signal: AbortSignal | undefined): Promise<ExecResult> {
  const stdout = new CappedBuffer(cap);
  const stderr = new CappedBuffer(cap);
  let pgid: number | undefined;
  let head = '';
  return new Promise<ExecResult>((resolve, reject) => {
    let stopped = false;
    let timedOut = false;
    let exitCode: number | null = null;
    let exitSignal: string | undefined;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      if (pgid !== undefined) void killGroup(connection, pgid).catch(() => undefined);
      else channel.close();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    const onAbort = (): void => stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted === true) stop();
    channel.on('data', (chunk: Buffer) => {
      if (pgid !== undefined) {
        stdout.push(chunk);
        return;
      }
      head += chunk.toString('latin1');
      const newline = head.indexOf('\n');
      if (newline < 0) return;
      pgid = Number(head.slice(0, newline));
      if (stopped) void killGroup(connection, pgid).catch(() => undefined);
      const rest = Buffer.from(head.slice(newline + 1), 'latin1');
      if (rest.length > 0) stdout.push(rest);
    });
    channel.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    channel.on('exit', (code, name) => {
      exitCode = typeof code === 'number' ? code : null;
      exitSignal = name;
    });
    channel.on('close', () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (pgid === undefined && !stopped && exitCode === null) {
        reject(unavailable(connection.state === 'ready' ? failure('disconnected') : (connection.lastFailure ?? failure('disconnected'))));
        return;
      }
      if (exitCode === null && exitSignal === undefined && !stopped) {
        // The channel closed without an exit status: the connection went away under the command.
        reject(unavailable(connection.lastFailure ?? failure('disconnected')));
        return;
      }
      resolve({
        exitCode: stopped ? null : exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        durationMs: Math.round(performance.now() - started),
        ...(timedOut ? { timedOut: true } : {}),
      });
    });
  });
}

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
