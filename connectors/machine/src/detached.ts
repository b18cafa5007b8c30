/**
 * Detached runs, kept on the machine so they outlive the SSH connection and the inseam process.
 * Each run has a folder under the state folder (outside the root, mode 0700):
 *
 *   run.sh    the wrapper, written by start()
 *   started   when start() launched it (RFC 3339)
 *   pid       the wrapper's pid;  pgid: the command's process group (its own session)
 *   output    stdout and stderr, interleaved as written
 *   exit      the command's exit status, written by the wrapper when the command ends
 *   killed    written by kill() before it signals the group
 *
 * The wrapper runs under `setsid nohup`, so neither a dropped connection nor a restarted sshd
 * ends it; it starts the command in a session of its own and waits for it, so kill() can end the
 * command's whole group and the wrapper still records how it ended. A run with neither a living
 * wrapper nor an `exit` file ended without a record (the machine restarted, say): `failed`, or
 * `killed` after kill(). Everything is on the machine, so a new connector instance — after an
 * inseam restart — answers every verb for earlier runs. Ownership is the platform's stored record;
 * the run id (128 random bits) is only the key. `timeout` does not apply: a detached run runs
 * until it ends or is killed.
 */
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, InvalidConfigError, NotFoundError, hasErrorCode } from '@neuralis/package-system/contracts';
import type { DetachedRunHandle, DetachedRunOutput, DetachedRunState, DetachedRunStatus, ExecRequest } from '@neuralis/package-system/contracts';
import type { MachineConfig } from './config.js';
import type { MachineConnection } from './connection.js';
import { killGroup } from './exec.js';
import type { RemoteFiles } from './remote.js';
import { inside } from './remote.js';
import { checkCommand, environmentWords, quote, viaSh } from './shell.js';
import { sftpCall } from './sftp-call.js';
import type { SftpAttributes, SftpSession } from './ssh.js';

const RUN_ID = /^m[0-9a-f]{32}$/;
/** The longest a status call waits for a change. */
export const MAX_WAIT_MS = 30_000;
const POLL_MS = 200;
/** Output bytes one output() call returns at most. */
export const OUTPUT_PAGE_BYTES = 1024 * 1024;

interface RunFiles {
  readonly exit?: string;
  readonly killed: boolean;
  readonly pid?: number;
  readonly pgid?: number;
  readonly started?: string;
  readonly endedAt?: string;
  readonly outputBytes: number;
}

export class DetachedRuns {
  #stateRoot: Promise<string> | undefined;

  constructor(
    private readonly connection: MachineConnection,
    private readonly files: RemoteFiles,
    private readonly config: MachineConfig,
  ) {}

  /** The state folder's real path, made on first use; refused when it is inside the root. */
  async #state(sftp: SftpSession, rootPath: string, home: string): Promise<string> {
    this.#stateRoot ??= (async () => {
      const wanted = posix.resolve(home, this.config.stateDir);
      const channel = await this.connection.exec(viaSh(`umask 077; mkdir -p -- ${quote(wanted)}`));
      await new Promise<void>((resolve) => {
        channel.resume();
        channel.stderr.resume();
        channel.on('close', () => resolve());
      });
      const real = await this.files.call<string>(sftp, (done) => sftp.realpath(wanted, done));
      if (inside(real, rootPath) || inside(rootPath, real)) {
        throw new InvalidConfigError('Invalid machine config: field "stateDir" must lie outside the host\'s folder (commands there could rewrite run records).', { details: { fields: ['stateDir'] } });
      }
      return real;
    })().catch((error: unknown) => {
      this.#stateRoot = undefined;
      throw error;
    });
    return this.#stateRoot;
  }

  async #runDir(runId: string): Promise<{ sftp: SftpSession; dir: string }> {
    if (typeof runId !== 'string' || !RUN_ID.test(runId)) throw new NotFoundError('There is no detached run with that id.');
    const { sftp, rootPath, home } = await this.connection.sftp();
    return { sftp, dir: posix.join(await this.#state(sftp, rootPath, home), runId) };
  }

  async start(cwd: string, request: ExecRequest): Promise<DetachedRunHandle> {
    const command = checkCommand(request.command);
    if (request.timeout !== undefined && (typeof request.timeout !== 'number' || !Number.isInteger(request.timeout) || request.timeout <= 0)) {
      throw new InvalidArgumentError('timeout must be a positive whole number of milliseconds.', { details: { argument: 'timeout' } });
    }
    const { sftp, rootPath, home } = await this.connection.sftp();
    const runId = `m${randomBytes(16).toString('hex')}`;
    const dir = posix.join(await this.#state(sftp, rootPath, home), runId);
    await this.files.call(sftp, (done) => sftp.mkdir(dir, { mode: 0o700 }, done));
    const d = quote(dir);
    const wrapper = [
      `d=${d}`,
      `printf '%s\\n' "$$" > "$d/pid"`,
      `cd -- ${quote(cwd)} || { printf '126\\n' > "$d/exit.tmp"; mv "$d/exit.tmp" "$d/exit"; exit 0; }`,
      `setsid env -i ${environmentWords(this.config.exec.envAllowlist, request.env)} /bin/sh -c ${quote(command)} > "$d/output" 2>&1 < /dev/null &`,
      'child=$!',
      `printf '%s\\n' "$child" > "$d/pgid"`,
      'wait "$child"',
      'code=$?',
      `printf '%s\\n' "$code" > "$d/exit.tmp"`,
      `mv "$d/exit.tmp" "$d/exit"`,
      '',
    ].join('\n');
    await this.#writeFile(sftp, posix.join(dir, 'run.sh'), wrapper);
    await this.#writeFile(sftp, posix.join(dir, 'started'), new Date().toISOString());
    const channel = await this.connection.exec(viaSh(`cd / && setsid nohup /bin/sh ${quote(posix.join(dir, 'run.sh'))} < /dev/null > /dev/null 2>&1 &`));
    await new Promise<void>((resolve) => {
      channel.resume();
      channel.stderr.resume();
      channel.on('close', () => resolve());
    });
    // The wrapper records its pid at once; wait for it so status never sees a run that is not there yet.
    for (let i = 0; i < 50; i++) {
      if ((await this.#read(sftp, dir)).pid !== undefined) break;
      await sleep(40);
    }
    return { runId };
  }

  async status(runId: string, waitMs?: number): Promise<DetachedRunStatus> {
    if (waitMs !== undefined && (typeof waitMs !== 'number' || !Number.isFinite(waitMs) || waitMs < 0)) {
      throw new InvalidArgumentError('waitMs must be a non-negative number of milliseconds.', { details: { argument: 'waitMs' } });
    }
    const deadline = Date.now() + Math.min(waitMs ?? 0, MAX_WAIT_MS);
    const first = await this.#status(runId);
    let current = first;
    while (current.state === first.state && current.state === 'running' && Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      current = await this.#status(runId);
    }
    return current;
  }

  async #status(runId: string): Promise<DetachedRunStatus> {
    const { sftp, dir } = await this.#runDir(runId);
    const run = await this.#read(sftp, dir);
    if (run.started === undefined) throw new NotFoundError('There is no detached run with that id.');
    let state: DetachedRunState;
    let exitCode: number | null = null;
    if (run.exit !== undefined) {
      const code = Number(run.exit);
      state = run.killed ? 'killed' : 'exited';
      exitCode = run.killed || !Number.isInteger(code) ? null : code;
    } else if (run.pid !== undefined && (await this.#alive(run.pid))) {
      state = 'running';
    } else {
      state = run.killed ? 'killed' : 'failed';
    }
    return {
      runId,
      state,
      exitCode,
      startedAt: run.started,
      ...(state !== 'running' && run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
      outputBytes: run.outputBytes,
    };
  }

  async output(runId: string, since: number): Promise<DetachedRunOutput> {
    if (!Number.isSafeInteger(since) || since < 0) throw new InvalidArgumentError('since must be a non-negative whole number of bytes.', { details: { argument: 'since' } });
    const status = await this.#status(runId);
    const { sftp, dir } = await this.#runDir(runId);
    const size = status.outputBytes;
    if (since >= size) return { data: '', next: since, done: status.state !== 'running' };
    const handle = await this.files.call<Buffer>(sftp, (done) => sftp.open(posix.join(dir, 'output'), 'r', {}, done));
    try {
      const read = await this.files.readAt(sftp, handle, since, Math.min(OUTPUT_PAGE_BYTES, size - since));
      // Never split a UTF-8 character between two calls (the end of the output is taken whole).
      const bytes = since + read.length >= size ? read : read.subarray(0, completeUtf8Length(read));
      const next = since + bytes.length;
      return { data: bytes.toString('utf8'), next, done: status.state !== 'running' && next >= size };
    } finally {
      await this.files.close(sftp, handle);
    }
  }

  async kill(runId: string, _actor?: string): Promise<{ readonly acknowledged: true }> {
    const status = await this.#status(runId);
    if (status.state !== 'running') return { acknowledged: true };
    const { sftp, dir } = await this.#runDir(runId);
    await this.#writeFile(sftp, posix.join(dir, 'killed'), new Date().toISOString());
    const run = await this.#read(sftp, dir);
    if (run.pgid !== undefined) await killGroup(this.connection, run.pgid);
    return { acknowledged: true };
  }

  async release(runId: string): Promise<void> {
    const status = await this.#status(runId);
    if (status.state === 'running') await this.kill(runId);
    const { dir } = await this.#runDir(runId);
    const channel = await this.connection.exec(viaSh(`rm -rf -- ${quote(dir)}`));
    await new Promise<void>((resolve) => {
      channel.resume();
      channel.stderr.resume();
      channel.on('close', () => resolve());
    });
  }

  async #alive(pid: number): Promise<boolean> {
    const channel = await this.connection.exec(viaSh(`kill -0 ${pid} 2>/dev/null && echo alive`));
    let out = '';
    channel.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    channel.stderr.resume();
    await new Promise<void>((resolve) => channel.on('close', () => resolve()));
    return out.includes('alive');
  }

  async #read(sftp: SftpSession, dir: string): Promise<RunFiles> {
    const [exit, killed, pid, pgid, started, output] = await Promise.all([
      this.#small(sftp, posix.join(dir, 'exit')),
      this.#small(sftp, posix.join(dir, 'killed')),
      this.#small(sftp, posix.join(dir, 'pid')),
      this.#small(sftp, posix.join(dir, 'pgid')),
      this.#small(sftp, posix.join(dir, 'started')),
      this.#attrs(sftp, posix.join(dir, 'output')),
    ]);
    const exitAttrs = exit === undefined ? undefined : await this.#attrs(sftp, posix.join(dir, 'exit'));
    const number = (text: string | undefined): number | undefined => (text !== undefined && /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);
    return {
      ...(exit === undefined ? {} : { exit: exit.trim() }),
      killed: killed !== undefined,
      ...(number(pid) === undefined ? {} : { pid: number(pid)! }),
      ...(number(pgid) === undefined ? {} : { pgid: number(pgid)! }),
      ...(started === undefined ? {} : { started: started.trim() }),
      ...(exitAttrs === undefined ? {} : { endedAt: new Date(exitAttrs.mtime * 1000).toISOString() }),
      outputBytes: output?.size ?? 0,
    };
  }

  async #attrs(sftp: SftpSession, path: string): Promise<SftpAttributes | undefined> {
    try {
      return await this.files.call<SftpAttributes>(sftp, (done) => sftp.stat(path, done));
    } catch (error) {
      if (hasErrorCode(error, 'not_found')) return undefined;
      throw error;
    }
  }

  async #small(sftp: SftpSession, path: string): Promise<string | undefined> {
    let handle: Buffer;
    try {
      handle = await this.files.call<Buffer>(sftp, (done) => sftp.open(path, 'r', {}, done));
    } catch (error) {
      if (hasErrorCode(error, 'not_found')) return undefined;
      throw error;
    }
    try {
      return (await this.files.readAt(sftp, handle, 0, 4096)).toString('utf8');
    } finally {
      await this.files.close(sftp, handle);
    }
  }

  async #writeFile(sftp: SftpSession, path: string, text: string): Promise<void> {
    const handle = await this.files.call<Buffer>(sftp, (done) => sftp.open(path, 'w', { mode: 0o600 }, done));
    try {
      const bytes = Buffer.from(text, 'utf8');
      await this.files.call(sftp, (done) => sftp.write(handle, bytes, 0, bytes.length, 0, done));
    } finally {
      await sftpCall((done) => sftp.close(handle, done)).catch(() => undefined);
    }
  }
}

/** The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function completeUtf8Length(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= Math.min(4, end); back++) {
    const byte = bytes[end - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? end - back : end;
  }
  return end;
}
