/**
 * A private OpenSSH server for the tests and the machine benchmark (bench/machine.mjs): Debian's sshd on a loopback port with its own host key,
 * its own client key in its own authorized_keys, everything in a temp folder. It logs in as the
 * user the tests run as. As root, sshd wants its privilege-separation folder `/run/sshd`; PAM is
 * off (no system login stack) and StrictModes off (the keys sit under a temp folder).
 *
 * `stop()` ends the listener and every session sshd process, as a machine going down would; the
 * processes those sessions started are left alone (a detached run must outlive its connection).
 * `start()` brings the same server back on the same port with the same host key.
 *
 * With `{ passwordUser: true }` it also makes a throwaway system user with a random password (this
 * machine runs the tests as root, so `useradd` is there) whose home holds its own root folder, and
 * lets only that user log in with a password (`Match User`); `close()` deletes the user.
 *
 * Plain JavaScript (with sshd.d.mts beside it) so bench/ can use it without a build. sshd serves
 * the machine's real files, so a client may read any folder the login may, not only `root`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';

const SSHD = '/usr/sbin/sshd';

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function keygen(file) {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'inseam-test', '-f', file], { stdio: 'ignore' });
}

function fingerprintOf(publicKeyFile) {
  return execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicKeyFile], { encoding: 'utf8' }).split(' ')[1];
}

async function waitForPort(port, deadline) {
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every process named sshd whose ancestry leads to `pid` (the per-connection children). */
function sshdDescendants(pid) {
  const parents = new Map();
  const names = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found = [];
  for (const [child] of parents) {
    let at = child;
    while (at !== undefined && at > 1) {
      at = parents.get(at);
      if (at === pid) {
        if (names.get(child) === 'sshd') found.push(child);
        break;
      }
    }
  }
  return found;
}

/** Makes the throwaway user; its home (and root below it) sits in `base`, which others may now traverse. */
function addPasswordUser(base) {
  const username = `inseampw${randomBytes(4).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  const hash = execFileSync('openssl', ['passwd', '-6', '-stdin'], { input: password, encoding: 'utf8' }).trim();
  const home = `${base}/pw-home`;
  const root = `${home}/root`;
  mkdirSync(root, { recursive: true });
  execFileSync('useradd', ['-M', '-d', home, '-s', '/bin/sh', '-p', hash, username], { stdio: 'ignore' });
  const uid = Number(execFileSync('id', ['-u', username], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', username], { encoding: 'utf8' }));
  chownSync(home, uid, gid);
  chownSync(root, uid, gid);
  chmodSync(base, 0o711);
  return { username, password, root };
}

/** @param {{ readonly passwordUser?: boolean }} [options] */
export async function startSshd(options = {}) {
  const base = realpathSync(await mkdtemp(`${tmpdir()}/inseam-sshd-`));
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = `${base}/host_ed25519`;
  const clientKey = `${base}/client_ed25519`;
  keygen(hostKey);
  keygen(clientKey);
  writeFileSync(`${base}/authorized_keys`, readFileSync(`${clientKey}.pub`), { mode: 0o600 });
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  mkdirSync(root);
  mkdirSync(outside);
  const passwordLogin = options.passwordUser === true ? addPasswordUser(base) : undefined;
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey}`,
    `AuthorizedKeysFile ${base}/authorized_keys`,
    `PidFile ${base}/sshd.pid`,
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'Subsystem sftp internal-sftp',
    'MaxSessions 64',
    'MaxStartups 64:30:128',
    'LogLevel ERROR',
    // Match blocks go last: everything after one belongs to it.
    ...(passwordLogin === undefined ? [] : [`Match User ${passwordLogin.username}`, '  PasswordAuthentication yes']),
  ].join('\n');
  writeFileSync(`${base}/sshd_config`, `${config}\n`);
  // For OpenSSH's own client and rclone, which check the host key against a file.
  const knownHosts = `${base}/known_hosts`;
  const writeKnownHosts = () =>
    writeFileSync(knownHosts, `[127.0.0.1]:${port} ${readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
  writeKnownHosts();
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let child;

  const start = async () => {
    if (child !== undefined) return;
    const started = spawn(SSHD, ['-D', '-e', '-f', `${base}/sshd_config`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    started.stderr.on('data', (chunk) => (errors += chunk.toString('utf8')));
    child = started;
    try {
      await waitForPort(port, Date.now() + 10_000);
    } catch (error) {
      throw new Error(`${error.message}: ${errors}`, { cause: error });
    }
  };

  const stop = async () => {
    const running = child;
    if (running === undefined || running.pid === undefined) return;
    child = undefined;
    const sessions = sshdDescendants(running.pid);
    const exited = new Promise((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    for (const pid of sessions) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await exited;
  };

  await start();
  return {
    base,
    port,
    username: userInfo().username,
    privateKey: readFileSync(clientKey, 'utf8'),
    keyFile: clientKey,
    knownHosts,
    fingerprint: fingerprintOf(`${hostKey}.pub`),
    root,
    outside,
    ...(passwordLogin === undefined ? {} : { passwordLogin }),
    rotateHostKey: async () => {
      await stop();
      await rm(hostKey, { force: true });
      await rm(`${hostKey}.pub`, { force: true });
      keygen(hostKey);
      writeKnownHosts();
      await start();
      return fingerprintOf(`${hostKey}.pub`);
    },
    stop,
    start,
    close: async () => {
      await stop();
      if (passwordLogin !== undefined) execFileSync('userdel', [passwordLogin.username], { stdio: 'ignore' });
      await rm(base, { recursive: true, force: true });
    },
  };
}
