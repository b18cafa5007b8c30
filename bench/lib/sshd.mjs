// A private OpenSSH server for benchmarks: Debian's sshd on a loopback port, configured as the
// machine connector's test fixture (connectors/machine/src/__fixtures__/sshd.ts) configures it —
// its own host key, its own client key in its own authorized_keys, PAM and StrictModes off — in a
// temp folder. That fixture is TypeScript, which a bench script (plain Node 20) cannot import, so
// the same few lines are here. It serves the machine's real files, so `root` may be any folder.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const SSHD = '/usr/sbin/sshd';

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
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

const keygen = (file) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'inseam-bench', '-f', file], { stdio: 'ignore' });

/**
 * Starts sshd. Resolves with its port, the login, the client key's file and text, the host key's
 * SHA256 fingerprint, a known_hosts file naming it (for OpenSSH and rclone clients) and stop().
 */
export async function startBenchSshd() {
  const base = realpathSync(await mkdtemp(join(tmpdir(), 'inseam-bench-sshd-')));
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = join(base, 'host_ed25519');
  const clientKey = join(base, 'client_ed25519');
  keygen(hostKey);
  keygen(clientKey);
  writeFileSync(join(base, 'authorized_keys'), readFileSync(`${clientKey}.pub`), { mode: 0o600 });
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
  ].join('\n');
  writeFileSync(join(base, 'sshd_config'), `${config}\n`);
  const knownHosts = join(base, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
  const child = spawn(SSHD, ['-D', '-e', '-f', join(base, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  try {
    await waitForPort(port, Date.now() + 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${error.message}: ${errors}`);
  }
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`], { encoding: 'utf8' }).split(' ')[1];
  return {
    port,
    username: userInfo().username,
    keyFile: clientKey,
    fingerprint,
    knownHosts,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(base, { recursive: true, force: true });
    },
  };
}
