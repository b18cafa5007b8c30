// machine-gc: why the machine kind's 1 GiB read costs more than ssh2 alone (#22), counted rather
// than timed. Each case reads the same file once in its own process under `--trace-gc`, and the
// table gives the process CPU (user + sys, all threads) and the collector's work: scavenges,
// full mark-compacts, total pause. Those counts hardly move with the machine's load, where the
// wall time (also shown) swings 2–4× on two shared cores.
//
// Cases: ssh2 alone (the bench's library floor: 16 × 255 KiB in flight from callbacks), the
// port's readStream(), and each of them again in a process that has first imported
// bench/lib/fixtures.mjs (as every bench/machine.mjs child does; its text corpus leaves 30,000
// strings on the heap).
//
//   node bench/machine-gc.mjs [--bytes N] [--rounds N]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigFile } from './lib/fixtures.mjs';
import { ensureBuilt, machineFacts, wholeNumberOption, roundsFromArgv } from './lib/measure.mjs';
import { startSshd } from '../connectors/machine/src/__fixtures__/sshd.mjs';

const script = fileURLToPath(import.meta.url);

async function ssh2Read(target) {
  const { Client } = await import('ssh2');
  const privateKey = readFileSync(target.keyFile, 'utf8');
  return new Promise((resolve, reject) => {
    const client = new Client();
    client.once('error', reject);
    client.once('ready', () =>
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
              while (inFlight < 16 && next < size) {
                const length = Math.min(255 * 1024, size - next);
                const read = (offset, want) =>
                  sftp.read(handle, Buffer.allocUnsafe(want), 0, want, offset, (readError, count) => {
                    if (readError) return reject(readError);
                    got += count;
                    if (count > 0 && count < want) return read(offset + count, want - count);
                    inFlight -= 1;
                    if (got >= size) {
                      client.end();
                      resolve(got);
                    } else fill();
                  });
                inFlight += 1;
                read(next, length);
                next += length;
              }
            };
            fill();
          });
        });
      }),
    );
    // Nagle off, as the kind does and Go (rclone) does by default.
    client.connect({ host: '127.0.0.1', port: target.port, username: target.username, privateKey }).setNoDelay(true);
  });
}

async function portRead(target) {
  const { createMachinePort } = await import('@inseam/connector-machine');
  const privateKey = readFileSync(target.keyFile, 'utf8');
  const port = createMachinePort(
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
  const { stream } = await port.readStream(`bench://${encodeURIComponent(target.file)}`);
  const reader = stream.getReader();
  let bytes = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
  port.dispose();
  return bytes;
}

const CASES = [
  { name: 'ssh2 alone', id: 'ssh2', fixtures: false },
  { name: 'ssh2 alone, fixtures.mjs imported', id: 'ssh2', fixtures: true },
  { name: 'machine port readStream()', id: 'port', fixtures: false },
  { name: 'machine port readStream(), fixtures.mjs imported', id: 'port', fixtures: true },
];

/** Counts the `--trace-gc` lines of one child's stdout. */
function gcOf(out) {
  let scavenges = 0;
  let markCompacts = 0;
  let pauseMs = 0;
  for (const line of out.split('\n')) {
    const kind = /: (Scavenge|Mark-Compact) /.exec(line)?.[1];
    if (kind === undefined) continue;
    if (kind === 'Scavenge') scavenges += 1;
    else markCompacts += 1;
    pauseMs += Number(/MB, ([\d.]+) \//.exec(line)?.[1] ?? 0);
  }
  return { scavenges, markCompacts, pauseMs };
}

async function child([id, fixtures, json]) {
  const target = JSON.parse(json);
  if (fixtures === '1') await import('./lib/text-corpus.mjs');
  const started = performance.now();
  const bytes = id === 'ssh2' ? await ssh2Read(target) : await portRead(target);
  const cpu = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ bytes, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
}

async function main(argv) {
  const bytes = wholeNumberOption(argv, '--bytes', 1 << 30);
  const rounds = roundsFromArgv(argv, 2);
  ensureBuilt(['connectors/machine']);
  const machine = machineFacts();
  const file = await bigFile(bytes);
  const sshd = await startSshd();
  const rows = new Map(CASES.map((c) => [c.name, []]));
  try {
    const target = JSON.stringify({ port: sshd.port, username: sshd.username, keyFile: sshd.keyFile, fingerprint: sshd.fingerprint, root: dirname(file), file: basename(file) });
    for (let round = 0; round < rounds; round += 1) {
      for (const c of CASES) {
        const result = spawnSync(process.execPath, ['--trace-gc', script, '--case', c.id, c.fixtures ? '1' : '0', target], { encoding: 'utf8', maxBuffer: 1 << 26 });
        if (result.status !== 0) throw new Error(`${c.name}: exited ${result.status}: ${result.stderr.slice(-800)}`);
        const report = JSON.parse(result.stdout.trim().split('\n').filter((line) => line.startsWith('{')).pop());
        if (report.bytes !== bytes) throw new Error(`${c.name} read ${report.bytes} bytes, expected ${bytes}.`);
        rows.get(c.name).push({ ...report, ...gcOf(result.stdout) });
      }
    }
  } finally {
    await sshd.close();
  }
  console.log(`machine-gc — ${machine.date}, ${machine.cpu}, ${machine.node}, load ${machine.loadAverageAtStart}; ${(bytes / (1 << 20)).toFixed(0)} MiB, ${rounds} rounds (each cell: every round, in order)\n`);
  const floor = rows.get('ssh2 alone');
  const list = (runs, pick) => runs.map(pick).join(' / ');
  console.log('| case | CPU user+sys | ÷ ssh2 alone (CPU) | mark-compacts | scavenges | GC pause | wall |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, runs] of rows) {
    const ratio = runs.map((run, i) => `${(run.cpuMs / floor[i].cpuMs).toFixed(2)}×`).join(' / ');
    console.log(`| ${name} | ${list(runs, (r) => `${(r.cpuMs / 1000).toFixed(2)} s`)} | ${ratio} | ${list(runs, (r) => r.markCompacts)} | ${list(runs, (r) => r.scavenges)} | ${list(runs, (r) => `${Math.round(r.pauseMs)} ms`)} | ${list(runs, (r) => `${(r.ms / 1000).toFixed(1)} s`)} |`);
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--case') await child(argv.slice(1));
else await main(argv);
