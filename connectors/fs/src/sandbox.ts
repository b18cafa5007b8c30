/**
 * The bubblewrap sandbox every command runs in. Inside it the machine is:
 *
 *   /usr, /bin, /sbin, /lib*   the system, read-only (symlinks recreated where they are links)
 *   /etc                       only what a shell and its tools read: users and groups (no shadow),
 *                              name service and resolver config, the loader cache, alternatives,
 *                              time zone, CA certificates — never private keys
 *   /proc                      a fresh procfs of the command's own pid namespace; /proc/sys and
 *                              /proc/sysrq-trigger read-only (as root they are writable otherwise)
 *   /dev, /tmp                 bubblewrap's minimal /dev; an empty tmpfs
 *   <root>                     the source root at its real path, with the caller's rights: the
 *                              root and every path the plan names bound read-write or read-only
 *                              from a descriptor proven inside the root (bwrap checks the mount is
 *                              that inode), paths it may not read hidden under an empty read-only
 *                              tmpfs (folders) or an empty read-only file (files)
 *
 * and nothing else: not the data directory, the detached-run state, the credential store, another
 * host's root, the platform's processes or environment. Where the plan names a path, every folder
 * between the root and it is bound onto itself too, so a command that may write a parent cannot
 * rename it and carry a hidden subtree out from under its rule. Paths that do not exist when the
 * command starts are not mounted (a command that may write there can create them).
 *
 * The plan's descriptors are passed to bwrap as fds FIRST_BIND_FD (sandbox-mounts.ts) onward; fd
 * STATUS_FD carries bwrap's JSON status (the sandbox's pid, then the command's exit code).
 */
import { closeSync, lstatSync, openSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { readlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { PermissionDeniedError } from '@neuralis/package-system/contracts';
import type { ExecConfinement } from '@neuralis/package-system/contracts';
import { openContainedHandle } from '@neuralis/package-system/paths';
import type { Address } from './address.js';
import { mountArgs, planRules, resolvePoints } from './sandbox-mounts.js';

/**
 * Every command's namespaces. A user namespace even when the platform runs as root, so the
 * sandbox's uid maps to the platform's own and `--disable-userns` can keep commands from making
 * nested ones (each would give them capabilities over new namespaces: kernel attack surface).
 */
export const NAMESPACE_FLAGS: readonly string[] = Object.freeze([
  '--unshare-user',
  '--disable-userns',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--new-session',
  '--cap-drop',
  'ALL',
]);

export const STATUS_FD = 3;

/** fdinfo's flags are octal open(2) flags. */
const O_CLOEXEC = 0o2000000;

export type StdioEntry = number | 'ignore' | 'pipe';

/** What a command may see, with every descriptor it is built from; close() when bwrap has started. */
export interface PreparedSandbox {
  /** Mounts of the root and below, then `--chdir`. */
  readonly treeArgs: readonly string[];
  /**
   * The child's descriptors: `head` (fds 0 to STATUS_FD), the plan's from FIRST_BIND_FD on, then
   * /dev/null over every descriptor this process inherited without close-on-exec — bwrap hands
   * the command every descriptor it did not use, and one on a folder would lead out of the sandbox.
   */
  stdio(head: readonly StdioEntry[]): StdioEntry[];
  close(): Promise<void>;
}

export interface CommandLine {
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
  readonly network: boolean;
  readonly maxProcesses: number;
}

/** Top-level system paths that may be folders or links into /usr, depending on the distribution. */
const SYSTEM_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** /etc entries a shell and common tools need; each bound read-only where it exists. */
const ETC_ENTRIES = [
  '/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/etc/host.conf', '/etc/hosts', '/etc/resolv.conf', '/etc/gai.conf',
  '/etc/services', '/etc/protocols', '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives',
  '/etc/localtime', '/etc/timezone', '/etc/os-release', '/etc/mime.types', '/etc/locale.alias', '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf', '/etc/ca-certificates', '/etc/pki/tls/certs', '/etc/pki/ca-trust', '/etc/crypto-policies',
];

/** procfs parts that accept writes from uid 0 without any capability (sysctls, SysRq). */
const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/fs', '/proc/asound'];

/** Roots a command can never be confined to: the machine itself and its pseudo filesystems. */
const UNCONFINABLE = /^\/(?:$|proc(?:\/|$)|sys(?:\/|$)|dev(?:\/|$))/;

let systemArgsCache: readonly string[] | undefined;

/** The system part of every sandbox (read once; the layout of /bin and /lib does not change). */
export function systemArgs(): readonly string[] {
  if (systemArgsCache !== undefined) return systemArgsCache;
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const path of SYSTEM_DIRS) {
    const stats = lstatOrUndefined(path);
    if (stats?.isSymbolicLink() === true) args.push('--symlink', readlinkSync(path), path);
    else if (stats?.isDirectory() === true) args.push('--ro-bind', path, path);
  }
  for (const path of ETC_ENTRIES) args.push('--ro-bind-try', path, path);
  args.push('--proc', '/proc');
  for (const path of PROC_READ_ONLY) args.push('--ro-bind-try', path, path);
  args.push('--dev', '/dev', '--tmpfs', '/tmp');
  systemArgsCache = Object.freeze(args);
  return systemArgsCache;
}

/**
 * The whole bwrap argument list: namespaces, the system, the tree, the environment, the command.
 * `--die-with-parent` ties the sandbox to bwrap's parent — the platform for a foreground command,
 * the detached wrapper shell (which outlives the request and the platform) for a detached run —
 * and bwrap's pid 1 to bwrap itself, so when the command's shell ends, or bwrap is killed,
 * everything left in its pid namespace ends with it.
 */
export function sandboxArgs(sandbox: PreparedSandbox, line: CommandLine): string[] {
  const args = [...NAMESPACE_FLAGS, ...(line.network ? [] : ['--unshare-net']), '--die-with-parent'];
  args.push('--json-status-fd', String(STATUS_FD), ...systemArgs(), ...sandbox.treeArgs, '--clearenv');
  for (const [name, value] of Object.entries(line.env)) args.push('--setenv', name, value);
  // The limits are set inside, after the user namespace exists: RLIMIT_NPROC then counts this
  // sandbox's own processes, not every process of the platform's user. dash calls it -p, bash -u.
  const limits = 'ulimit -c 0; ulimit -u "$1" 2>/dev/null || ulimit -p "$1" 2>/dev/null || { echo "inseam: the process limit could not be set; the command did not run." >&2; exit 126; }; exec /bin/sh -c "$0"';
  args.push('--', '/bin/sh', '-c', limits, line.command, String(line.maxProcesses));
  return args;
}

/**
 * bwrap's `--json-status-fd` stream: one JSON object a line — the sandbox's pid 1 (its pid on the
 * platform's side, the leader of the sandbox's session and process group) first, the command's
 * exit code when it ends. No exit code after bwrap has exited means the command never started.
 */
export class SandboxStatus {
  private pending = '';
  sandboxPid: number | undefined;
  exitCode: number | undefined;

  /** A status file read whole. */
  static of(text: string): SandboxStatus {
    const status = new SandboxStatus();
    status.push(`${text}\n`);
    return status;
  }

  push(chunk: string): void {
    this.pending += chunk;
    for (let newline = this.pending.indexOf('\n'); newline >= 0; newline = this.pending.indexOf('\n')) {
      this.take(this.pending.slice(0, newline));
      this.pending = this.pending.slice(newline + 1);
    }
  }

  private take(line: string): void {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const pid = value['child-pid'];
    const code = value['exit-code'];
    if (typeof pid === 'number' && Number.isSafeInteger(pid)) this.sandboxPid ??= pid;
    if (typeof code === 'number' && Number.isSafeInteger(code)) this.exitCode = code;
  }
}

/**
 * Resolves the plan against the root: opens the root, the cwd and every named path through the
 * containment primitives and turns them into mounts. `conceal` are absolute paths hidden wherever
 * they lie inside the root (they win over any right the plan gives below them).
 * Throws: not_found, not_a_directory, containment_violation (the cwd), invalid_argument (a
 * malformed plan), permission_denied (a root that cannot be confined, or a restricted path that
 * cannot be resolved), unavailable.
 */
export async function prepareSandbox(rootPath: string, cwd: Address, confinement: ExecConfinement | undefined, conceal: readonly string[]): Promise<PreparedSandbox> {
  const rules = planRules(confinement);
  const handles: FileHandle[] = [];
  const devNulls: number[] = [];
  const close = async (): Promise<void> => {
    for (const fd of devNulls.splice(0)) closeSync(fd);
    await Promise.all(handles.splice(0).map((handle) => handle.close().catch(() => undefined)));
  };
  try {
    const root = await openContainedHandle(rootPath, '', { expect: 'directory' });
    handles.push(root);
    const rootReal = await readlink(`/proc/self/fd/${root.fd}`);
    if (UNCONFINABLE.test(rootReal)) {
      throw new PermissionDeniedError("Commands cannot run on a host whose root is the whole machine or one of its system filesystems (/proc, /sys, /dev): the sandbox would hold the machine's own state.", {
        details: { reason: 'root_not_confinable' },
      });
    }
    const directory = await openContainedHandle(rootPath, cwd.relative, { expect: 'directory' });
    handles.push(directory);
    const cwdReal = await readlink(`/proc/self/fd/${directory.fd}`);
    const { rootMode, points } = await resolvePoints(rootPath, rootReal, rules, [...rules.conceal, ...conceal], handles);
    const { treeArgs, fds } = mountArgs({ rootReal, rootMode, rootFd: root.fd, cwdReal, points, devNulls });
    const strays = strayDescriptors();
    const devNull = strays.length > 0 ? openSync('/dev/null', 'r') : undefined;
    if (devNull !== undefined) devNulls.push(devNull);
    const stdio = (head: readonly StdioEntry[]): StdioEntry[] => {
      const entries: StdioEntry[] = [...head, ...fds];
      for (const fd of strays) {
        if (fd < entries.length) continue;
        while (entries.length < fd) entries.push('ignore');
        entries.push(devNull!);
      }
      return entries;
    };
    return { treeArgs, stdio, close };
  } catch (error) {
    await close();
    throw error;
  }
}

let strayCache: readonly number[] | undefined;

/**
 * Descriptors this process inherited from whatever started it without close-on-exec (every
 * descriptor Node opens has it). Read once: inherited ones only ever go away.
 */
function strayDescriptors(): readonly number[] {
  if (strayCache !== undefined) return strayCache;
  const strays: number[] = [];
  for (const name of readdirSync('/proc/self/fd')) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (flags !== null && (Number.parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) strays.push(fd);
    } catch {
      // Closed meanwhile (readdir's own descriptor).
    }
  }
  strayCache = Object.freeze(strays.sort((a, b) => a - b));
  return strayCache;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
