/**
 * Whether bubblewrap can confine commands on this machine, found out once per bwrap program by
 * running it with exactly the namespace flags every command gets. Commands never run without
 * the sandbox: where the probe fails, exec and detached runs are refused with `unavailable`,
 * `details.reason: "exec_sandbox_unavailable"` and `details.cause` saying why.
 */
import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { NAMESPACE_FLAGS, systemArgs } from './sandbox.js';

/** Names the bwrap program to use instead of `bwrap` on the platform's PATH. */
export const BWRAP_ENV = 'INSEAM_BWRAP';

export type SandboxCause = 'bwrap_missing' | 'bwrap_too_old' | 'no_user_namespaces' | 'bwrap_failed';

export type SandboxVerdict = { readonly ok: true; readonly bwrap: string } | { readonly ok: false; readonly cause: SandboxCause };

const PROBE_TIMEOUT_MS = 10_000;

const CAUSE_TEXT: Readonly<Record<SandboxCause, string>> = {
  bwrap_missing: `bubblewrap (bwrap) is not installed (install the "bubblewrap" package, or name the program in ${BWRAP_ENV})`,
  bwrap_too_old: 'the installed bubblewrap lacks --bind-fd or --disable-userns (it needs bubblewrap 0.10, or Debian 12\'s 0.8.0-2+deb12u1)',
  no_user_namespaces: 'the kernel does not let this user create user namespaces (e.g. kernel.unprivileged_userns_clone=0, or a container that forbids them)',
  bwrap_failed: 'bubblewrap could not set up a sandbox here',
};

const verdicts = new Map<string, Promise<SandboxVerdict>>();

/** The bwrap program to use: INSEAM_BWRAP when set, else `bwrap` on PATH. */
export function bwrapProgram(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[BWRAP_ENV];
  return named === undefined || named === '' ? 'bwrap' : named;
}

/** The cached verdict for `bwrap`, probing on first use. */
export function sandboxVerdict(bwrap: string = bwrapProgram()): Promise<SandboxVerdict> {
  let verdict = verdicts.get(bwrap);
  if (verdict === undefined) {
    verdict = probe(bwrap);
    verdicts.set(bwrap, verdict);
  }
  return verdict;
}

/** The bwrap program to run a command with; throws `unavailable` naming why there is none. */
export async function requireSandbox(): Promise<string> {
  const verdict = await sandboxVerdict();
  if (verdict.ok) return verdict.bwrap;
  throw new UnavailableError(`Commands cannot run on this machine: ${CAUSE_TEXT[verdict.cause]}. inseam never runs a command outside its sandbox.`, {
    details: { reason: 'exec_sandbox_unavailable', cause: verdict.cause },
  });
}

async function probe(bwrap: string): Promise<SandboxVerdict> {
  // What every command's sandbox depends on beyond the namespaces: the system mounts, a bind from
  // a directory descriptor (fd 3, here /) and a fresh /proc in the new pid namespace.
  const args = [...NAMESPACE_FLAGS, '--unshare-net', '--die-with-parent', ...systemArgs(), '--ro-bind-fd', '3', '/tmp/probe', '--', '/bin/sh', '-c', ':'];
  const directory = await open('/', 'r');
  try {
    return await new Promise<SandboxVerdict>((resolve) => {
      let stderr = '';
      let settled = false;
      const done = (verdict: SandboxVerdict): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(verdict);
      };
      const child = spawn(bwrap, args, { cwd: '/', env: {}, stdio: ['ignore', 'ignore', 'pipe', directory.fd] });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        done({ ok: false, cause: 'bwrap_failed' });
      }, PROBE_TIMEOUT_MS);
      timer.unref();
      child.stderr!.on('data', (chunk: Buffer) => {
        if (stderr.length < 4096) stderr += chunk.toString('utf8');
      });
      child.once('error', (error: NodeJS.ErrnoException) => done({ ok: false, cause: error.code === 'ENOENT' || error.code === 'EACCES' ? 'bwrap_missing' : 'bwrap_failed' }));
      child.once('close', (code) => done(code === 0 ? { ok: true, bwrap } : { ok: false, cause: causeOf(stderr) }));
    });
  } finally {
    await directory.close();
  }
}

/** Reads bwrap's complaint; the texts are bubblewrap's own (bubblewrap.c). */
export function causeOf(stderr: string): SandboxCause {
  if (/Unknown option|Unrecognized option/i.test(stderr)) return 'bwrap_too_old';
  if (/namespace|uid map|gid map|setgroups|Operation not permitted|Permission denied/i.test(stderr)) return 'no_user_namespaces';
  return 'bwrap_failed';
}
