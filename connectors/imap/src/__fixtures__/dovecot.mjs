// Test and benchmark fixture: a private Dovecot (Debian's dovecot-imapd) on a loopback port,
// with its own configuration, users and a self-signed test CA in a temporary folder.
//
//   const server = await startDovecot({ users: [{ name: 'alice', password: 'pw' }] });
//   server.port, server.ca (PEM of the test CA), server.maildir('alice')
//   await server.stop();
//
// Running as root, Dovecot's login process refuses root, so logins run as `dovenull`, internal
// processes as `dovecot`, and mail is owned by `nobody` (first_valid_uid = 1 lets that uid in).
// Users and passwords come from a passwd-file. TLS is implicit (IMAPS) with a server certificate
// for 127.0.0.1/localhost signed by a CA openssl makes here, so the client must be given the CA.
// XOAUTH2 is offered when `oauth.introspectionUrl` is given: Dovecot then asks that endpoint
// (RFC 7662 introspection, POST) whether a bearer token is active and whose it is.
// Plain JavaScript (with dovecot.d.mts beside it) so bench/ can use it without a build.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NOBODY = 65534;
const NOGROUP = 65534;
const DOVECOT = '/usr/sbin/dovecot';

export const SPECIAL_MAILBOXES = [
  { name: 'Drafts', use: '\\Drafts' },
  { name: 'Sent', use: '\\Sent' },
  { name: 'Trash', use: '\\Trash' },
  { name: 'Junk', use: '\\Junk' },
  { name: 'Archive', use: '\\Archive' },
];

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

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

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A test CA and a server certificate for 127.0.0.1 and localhost, signed by it. */
export function makeTestCa(dir, name = 'inseam test CA') {
  mkdirSync(dir, { recursive: true });
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', `/CN=${name}`], dir);
  run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  const ext = join(dir, 'san.ext');
  spawnSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nbasicConstraints=CA:FALSE\\n' > '${ext}'`]);
  run('openssl', ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext'], dir);
  return { ca: readFileSync(join(dir, 'ca.pem'), 'utf8'), cert: join(dir, 'server.pem'), key: join(dir, 'server.key') };
}

function config({ dir, port, tls, oauth }) {
  const mailboxes = SPECIAL_MAILBOXES.map((box) => `  mailbox ${box.name} {\n    special_use = ${box.use}\n    auto = subscribe\n  }`).join('\n');
  const oauthPassdb = oauth === undefined ? '' : `passdb {\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n  args = ${join(dir, 'oauth2.conf.ext')}\n}\n`;
  return `base_dir = ${join(dir, 'run')}
state_dir = ${join(dir, 'state')}
log_path = ${join(dir, 'dovecot.log')}
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <${tls.cert}
ssl_key = <${tls.key}
ssl_min_protocol = TLSv1.2
default_login_user = dovenull
default_internal_user = dovecot
first_valid_uid = 1
mail_location = maildir:~/Maildir
auth_mechanisms = plain login${oauth === undefined ? '' : ' xoauth2 oauthbearer'}
disable_plaintext_auth = yes
mail_max_userip_connections = 100
imap_idle_notify_interval = 1 secs
service imap-login {
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${port}
    ssl = yes
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
${oauthPassdb}passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${join(dir, 'passwd')}
}
userdb {
  driver = passwd-file
  args = username_format=%u ${join(dir, 'passwd')}
}
namespace inbox {
  inbox = yes
  separator = /
${mailboxes}
}
`;
}

/**
 * Starts Dovecot. `users`: name/password pairs (default one user, `alice`/`alice-password`).
 * Resolves once the IMAPS port accepts connections.
 */
export async function startDovecot(options = {}) {
  if (!existsSync(DOVECOT)) throw new Error('Dovecot is not installed: install Debian\'s dovecot-imapd (the imap tests start a private one).');
  const users = options.users ?? [{ name: 'alice', password: 'alice-password' }];
  const dir = await mkdtemp(join(tmpdir(), 'inseam-dovecot-'));
  chmodSync(dir, 0o755);
  const tls = makeTestCa(join(dir, 'tls'));
  chmodSync(join(dir, 'tls'), 0o755);
  for (const sub of ['run', 'state', 'home']) mkdirSync(join(dir, sub), { mode: 0o755 });
  const lines = users.map((user) => {
    const home = join(dir, 'home', user.name);
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, NOBODY, NOGROUP);
    return `${user.name}:{PLAIN}${user.password}:${NOBODY}:${NOGROUP}::${home}::`;
  });
  await writeFile(join(dir, 'passwd'), `${lines.join('\n')}\n`, { mode: 0o644 });
  if (options.oauth !== undefined) {
    // Users are told apart by the introspection answer's `username`; `active` decides.
    await writeFile(
      join(dir, 'oauth2.conf.ext'),
      `introspection_mode = post\nintrospection_url = ${options.oauth.introspectionUrl}\nusername_attribute = username\nactive_attribute = active\nactive_value = true\ntls_ca_cert_file = ${tls.cert}\n`,
    );
  }
  const port = await freePort();
  const file = join(dir, 'dovecot.conf');
  await writeFile(file, config({ dir, port, tls, oauth: options.oauth }));
  let child;
  const start = async () => {
    child = spawn(DOVECOT, ['-F', '-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 15_000;
    while (!(await portOpen(port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        const log = await readFile(join(dir, 'dovecot.log'), 'utf8').catch(() => '');
        child.kill('SIGKILL');
        throw new Error(`Dovecot did not start: ${stderr}\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Wrapped: an async function returning the promise itself would wait for the exit.
    return { exited };
  };
  let { exited } = await start();
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  return {
    host: '127.0.0.1',
    port,
    ca: tls.ca,
    caPath: join(dir, 'tls', 'ca.pem'),
    dir,
    users,
    /** The user's Maildir (Maildir++ layout: INBOX is the root, `Sent` is `.Sent`). */
    maildir: (user) => join(dir, 'home', user, 'Maildir'),
    /** Stops the server, keeping its mail; `start()` brings it back on the same port. */
    async pause() {
      await stop();
    },
    async resume() {
      ({ exited } = await start());
    },
    async log() {
      return readFile(join(dir, 'dovecot.log'), 'utf8').catch(() => '');
    },
    async stop() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Files a message straight into a Maildir folder (for seeding thousands fast), owned by nobody. */
export function maildirFolder(maildir, mailbox) {
  const root = mailbox === 'INBOX' ? maildir : join(maildir, `.${mailbox}`);
  for (const sub of ['', 'cur', 'new', 'tmp']) {
    const path = join(root, sub);
    if (!existsSync(path)) {
      mkdirSync(path, { recursive: true, mode: 0o700 });
      chownSync(path, NOBODY, NOGROUP);
    }
  }
  chownSync(maildir, NOBODY, NOGROUP);
  return root;
}
