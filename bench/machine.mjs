// machine: the machine kind over SSH against rclone's sftp backend on the same private sshd
// (Debian's OpenSSH on 127.0.0.1, its own host and client keys), side by side in one run:
// listing 10,000 small files in a tree (the port's walk() against `rclone lsjson -R`) and reading
// a 1 GiB file (the port's readStream() against `rclone cat`, `ssh … cat` as the floor of what
// the server and the cipher alone cost, and ssh2 alone, reading as the kind does, as the floor of
// the client library).
//
//   node bench/machine.mjs [--rounds N] [--count N] [--bytes N]
//
// Run as `node bench/machine.mjs --case <id> <json>` it is one case's child process.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigFile, manySmallFiles } from './lib/fixtures.mjs';
import { busyWarning, childCase, commandCase, ensureBuilt, machineFacts, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption } from './lib/measure.mjs';
import { startSshd } from '../connectors/machine/src/__fixtures__/sshd.mjs';

const script = fileURLToPath(import.meta.url);
const MiB = 1 << 20;

/** A machine binding as the platform's factory makes one; the key comes from the file, as the credential store would hand it over. */
async function machinePort(target) {
  const { createMachinePort } = await import('@inseam/connector-machine');
  const privateKey = readFileSync(target.keyFile, 'utf8');
  return createMachinePort(
    {
      packageId: '@inseam/connector-machine',
      packageRoot: target.root,
      source: 'bench',
      config: { host: '127.0.0.1', port: target.port, username: target.username, root: target.root, hostKey: target.fingerprint },
      projectRoot: target.root,
      scope: 'project',
    },
    { secret: async () => ({ privateKey }) },
  );
}

// Each case makes its binding inside the timed part, so its time includes the SSH handshake,
// as rclone's and ssh's do.
const CASES = {
  async walk(json) {
    const target = JSON.parse(json);
    await import('@inseam/connector-machine');
    let port;
    await childCase(async () => {
      port = await machinePort(target);
      let files = 0;
      for await (const entry of port.walk('bench://')) if (entry.type === 'file') files += 1;
      return files;
    });
    port.dispose();
  },
  async read(json) {
    const target = JSON.parse(json);
    await import('@inseam/connector-machine');
    let port;
    await childCase(async () => {
      port = await machinePort(target);
      const { stream } = await port.readStream(`bench://${encodeURIComponent(target.file)}`);
      const reader = stream.getReader();
      let bytes = 0;
      for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
      return bytes;
    });
    port.dispose();
  },
  // The library floor: ssh2 alone (the client the machine kind is built on), the same handshake
  // and the machine kind's own request shape — 16 reads of 255 KiB in flight, the next sent from
  // each answer's callback — with nothing of inseam between the bytes and the count.
  async ssh2(json) {
    const target = JSON.parse(json);
    const { Client } = await import('ssh2');
    const privateKey = readFileSync(target.keyFile, 'utf8');
    const DEPTH = 16;
    const CHUNK = 255 * 1024;
    await childCase(
      () =>
        new Promise((resolve, reject) => {
          const client = new Client();
          client.once('error', reject);
          client.once('ready', () => {
            client.sftp((error, sftp) => {
              if (error) return reject(error);
              sftp.open(`${target.root}/${target.file}`, 'r', (openError, handle) => {
                if (openError) return reject(openError);
                sftp.fstat(handle, (statError, attrs) => {
                  if (statError) return reject(statError);
                  const size = attrs.size;
                  let next = 0;
                  let got = 0;
                  let inFlight = 0;
                  const fill = () => {
                    while (inFlight < DEPTH && next < size) {
                      const position = next;
                      const length = Math.min(CHUNK, size - position);
                      next += length;
                      inFlight += 1;
                      const read = (offset, want) =>
                        sftp.read(handle, Buffer.allocUnsafe(want), 0, want, offset, (readError, count) => {
                          if (readError) return reject(readError);
                          got += count;
                          // A short answer: ask for the rest of this request's range.
                          if (count > 0 && count < want) return read(offset + count, want - count);
                          inFlight -= 1;
                          if (got >= size) {
                            client.end();
                            resolve(got);
                          } else fill();
                        });
                      read(position, length);
                    }
                  };
                  fill();
                });
              });
            });
          });
          // Nagle off, as the kind does and Go (rclone) does by default.
          client.connect({ host: '127.0.0.1', port: target.port, username: target.username, privateKey }).setNoDelay(true);
        }),
    );
  },
  async start() {
    await import('@inseam/connector-machine');
    return childCase(async () => 0);
  },
};

/** rclone's sftp remote `bench:` on the same server, configured by environment variables only. */
function rcloneEnv(sshd) {
  return {
    ...process.env,
    RCLONE_CONFIG: '/dev/null',
    RCLONE_CONFIG_BENCH_TYPE: 'sftp',
    RCLONE_CONFIG_BENCH_HOST: '127.0.0.1',
    RCLONE_CONFIG_BENCH_PORT: String(sshd.port),
    RCLONE_CONFIG_BENCH_USER: sshd.username,
    RCLONE_CONFIG_BENCH_KEY_FILE: sshd.keyFile,
    RCLONE_CONFIG_BENCH_KNOWN_HOSTS_FILE: sshd.knownHosts,
    // No remote shell commands (hash and disk-usage probes): the SFTP protocol alone, as ours.
    RCLONE_CONFIG_BENCH_SHELL_TYPE: 'none',
  };
}

function sshArgs(sshd) {
  return ['-i', sshd.keyFile, '-p', String(sshd.port), '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${sshd.knownHosts}`, '-o', 'StrictHostKeyChecking=yes', `${sshd.username}@127.0.0.1`];
}

function listCases(sshd, tree, count) {
  const target = JSON.stringify({ port: sshd.port, username: sshd.username, keyFile: sshd.keyFile, fingerprint: sshd.fingerprint, root: tree });
  const files = (out) => JSON.parse(out).filter((item) => !item.IsDir).length;
  const all = { expect: count + 1 };
  return [
    nodeCase('inseam machine port walk()', script, 'walk', [target], all),
    commandCase('rclone lsjson -R (sftp)', 'rclone', ['lsjson', '-R', `bench:${tree}`], { ...all, env: rcloneEnv(sshd), count: files, short: 'rclone' }),
    nodeCase('Node start + import only', script, 'start', []),
  ];
}

function readCases(sshd, file, bytes) {
  const target = JSON.stringify({ port: sshd.port, username: sshd.username, keyFile: sshd.keyFile, fingerprint: sshd.fingerprint, root: dirname(file), file: basename(file) });
  const whole = { expect: bytes };
  return [
    nodeCase('inseam machine port readStream()', script, 'read', [target], whole),
    nodeCase('ssh2 alone, 16 × 255 KiB in flight (library floor)', script, 'ssh2', [target], whole),
    commandCase('rclone cat (sftp)', 'rclone', ['cat', `bench:${file}`], { env: rcloneEnv(sshd), count: bytes, short: 'rclone cat' }),
    commandCase('ssh … cat file (server floor)', 'ssh', [...sshArgs(sshd), 'cat', file], { count: bytes, short: 'ssh cat' }),
  ];
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 5);
  const count = wholeNumberOption(argv, '--count', 10_000);
  const bytes = wholeNumberOption(argv, '--bytes', 1 << 30);
  ensureBuilt(['connectors/machine']);
  const machine = machineFacts();
  const tree = await manySmallFiles(count);
  const file = await bigFile(bytes);
  const sshd = await startSshd();
  try {
    const openssh = opensshVersion();
    console.log(`machine — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}, ${openssh}`);
    const busy = busyWarning();
    if (busy !== '') console.log(busy);
    const listed = await runCases(listCases(sshd, tree, count), { rounds, onProgress: progress('machine list') });
    console.log(`\n${count.toLocaleString('en-US')} files of 1–4 KiB (~100 a folder, 3 levels) over SFTP from sshd on 127.0.0.1\n`);
    console.log(table(listed, { baselines: ['rclone lsjson -R (sftp)'], countLabel: 'files' }));
    const read = await runCases(readCases(sshd, file, bytes), { rounds, onProgress: progress('machine read') });
    console.log(`\n${(bytes / MiB).toFixed(0)} MiB file over SFTP from sshd on 127.0.0.1, page cache warm\n`);
    console.log(table(read, { baselines: ['rclone cat (sftp)', 'ssh … cat file (server floor)'], countLabel: 'bytes' }));
    console.log(`\nraw results: ${await saveResults('machine', { benchmark: 'machine', machine, openssh, rounds, count, bytes, listed, read })}`);
  } finally {
    await sshd.close();
  }
}

/** `ssh -V` prints its version on stderr; the server is the same Debian package. */
function opensshVersion() {
  const result = spawnSync('ssh', ['-V'], { encoding: 'utf8' });
  return result.status === 0 ? result.stderr.trim() : 'OpenSSH: unknown';
}

await runScript(CASES, main);
