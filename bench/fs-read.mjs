// fs-read: reading a 1 GiB file through the fs connector — the host Connector's read() stream
// (with a default reader, and with a BYOB reader), and the ConnectorPort read() in the ranges a
// large binary file must be paged in — against `cat` and raw Node read loops; and end to end as
// users read it, `inseam cat` to /dev/null and `curl` of `GET /v1/fs/read` from a running
// `inseam up`, against `rclone cat` (issue #17: cat ≤ 0.8×, HTTP ≤ 1.0× rclone's wall time).
//
//   node bench/fs-read.mjs [--rounds N] [--bytes N] [--bin path/to/inseam.js]
//
// `--bin` measures another build of the CLI and server (say the main checkout's, for a
// before/after pair); the default is this checkout's packages/inseam/bin/inseam.js.
//
// Run as `node bench/fs-read.mjs --case <id> <file>` it is one case's child process.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchRoot, bigFileFolder } from './lib/fixtures.mjs';
import { busyWarning, childCase, commandCase, ensureBuilt, ensureBuiltEntries, machineFacts, nodeCase, progress, repoRoot, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption } from './lib/measure.mjs';

const script = fileURLToPath(import.meta.url);
const MiB = 1 << 20;

async function folderConnector(file) {
  const { createFsConnector } = await import('@inseam/connector-fs');
  const root = dirname(file);
  return createFsConnector({ packageId: 'bench', packageRoot: root, source: 'bench', config: { root }, projectRoot: benchRoot, scope: 'project' });
}

/** Reads a whole stream with a default reader; every chunk is a fresh copy the reader owns. */
async function drainDefault(stream) {
  const reader = stream.getReader();
  let bytes = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
  return bytes;
}

/** Reads a whole byte stream into one reused 1 MiB buffer (the stream reads straight into it). */
async function drainByob(stream, size = MiB) {
  const reader = stream.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(size);
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done) return bytes;
    bytes += value.byteLength;
    buffer = value.buffer;
  }
}

const CASES = {
  async 'host-default'(file) {
    const host = (await folderConnector(file)).host();
    return childCase(async () => drainDefault(await host.read(basename(file))));
  },
  async 'host-byob'(file) {
    const host = (await folderConnector(file)).host();
    return childCase(async () => drainByob(await host.read(basename(file))));
  },
  /** A binary file over its inline cap (1 MiB by default) is read in ranges of at most the cap. */
  async 'port-ranges'(file) {
    const connector = await folderConnector(file);
    const uri = `bench://${basename(file)}`;
    return childCase(async () => {
      let bytes = 0;
      for (let offset = 0; ; offset += MiB) {
        const result = await connector.read(uri, { range: { offset, length: MiB } });
        if (result.bytes === undefined) throw new Error(`No bytes at ${offset}: ${result.text}`);
        const chunk = Buffer.from(result.bytes, 'base64');
        bytes += chunk.length;
        if (chunk.length < MiB) return bytes;
      }
    });
  },
  async 'raw-async'(file) {
    return childCase(async () => {
      const handle = await open(file, 'r');
      const buffer = Buffer.allocUnsafe(MiB);
      let bytes = 0;
      for (let read; (read = (await handle.read(buffer, 0, MiB, bytes)).bytesRead) > 0; ) bytes += read;
      await handle.close();
      return bytes;
    });
  },
  /** The floor for Node: cat's own loop (128 KiB reads), synchronous, so it blocks the event loop. */
  async 'raw-sync'(file) {
    return childCase(async () => {
      const fd = openSync(file, 'r');
      const buffer = Buffer.allocUnsafe(128 * 1024);
      let bytes = 0;
      for (let read; (read = readSync(fd, buffer, 0, buffer.length, bytes)) > 0; ) bytes += read;
      closeSync(fd);
      return bytes;
    });
  },
  async start() {
    await import('@inseam/connector-fs');
    return childCase(async () => 0);
  },
};

function binFrom(argv) {
  const at = argv.indexOf('--bin');
  return at < 0 ? join(repoRoot, 'packages', 'inseam', 'bin', 'inseam.js') : resolve(argv[at + 1]);
}

/** A data directory whose network `bench` has the fs host `files` on the big file's folder, and a token. */
async function dataDirFor(bin, file) {
  const dataDir = join(benchRoot, 'fs-read-data');
  await rm(dataDir, { recursive: true, force: true });
  const cli = (args) => {
    const run = spawnSync(process.execPath, [bin, '--data', dataDir, ...args], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`inseam ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
    return run.stdout;
  };
  cli(['network', 'init', 'bench']);
  cli(['host', 'add', 'bench/files', '--kind', 'fs', '--config', JSON.stringify({ root: dirname(file) })]);
  const { token } = JSON.parse(cli(['token', 'create', '--name', 'bench', '--json']));
  return { dataDir, token };
}

/** `inseam up` on a free port; resolves once it prints its API address. */
function startServer(bin, dataDir) {
  const child = spawn(process.execPath, [bin, '--data', dataDir, 'up', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`inseam up did not start in 60 s:\n${out}`)), 60_000);
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGINT');
      reject(error);
    };
    child.on('exit', (code) => fail(new Error(`inseam up exited ${code}:\n${out}`)));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /HTTP API\s+(http:\/\/\S+)\/v1/.exec(out);
      if (found === null) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout.resume();
      resolvePromise({ base: found[1], child });
    });
  });
}

/** Resolves once the server has used no CPU for two seconds (its start-up crawl is done). */
async function settled(pid) {
  const cpuTicks = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 13).reduce((sum, ticks) => sum + Number(ticks), 0);
  let last = cpuTicks();
  for (let quiet = 0; quiet < 4; ) {
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 500));
    const now = cpuTicks();
    quiet = now - last <= 1 ? quiet + 1 : 0;
    last = now;
  }
}

/** The server's peak RSS so far, from the kernel (the process is not a child case, so GNU time cannot see it). */
function peakRssMiB(pid) {
  const found = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return found === null ? undefined : Number(found[1]) / 1024;
}

/** `inseam cat`, `curl` of the read route and `rclone cat`, interleaved in every round. */
function endToEndCases(bin, file, bytes, { dataDir, token, base, rcloneConfig }) {
  const env = { ...process.env, RCLONE_CONFIG: rcloneConfig };
  const url = `${base}/v1/fs/read?address=${encodeURIComponent(`inseam://bench/files/${basename(file)}`)}`;
  return [
    // One byte: what `inseam cat` costs before its first read (start-up, store, host), so the
    // difference from the whole file is the read itself.
    commandCase('inseam cat --range 0-0 (1 byte)', process.execPath, [bin, '--data', dataDir, 'cat', '--range', '0-0', `inseam://bench/files/${basename(file)}`], { env, count: (out) => out.length, expect: 1 }),
    commandCase('inseam cat > /dev/null', process.execPath, [bin, '--data', dataDir, 'cat', `inseam://bench/files/${basename(file)}`], { env, count: bytes, short: 'inseam cat' }),
    // curl writes the body to /dev/null and prints only how many bytes it got, so a short body fails the run.
    commandCase('curl GET /v1/fs/read -o /dev/null', 'curl', ['-sS', '-f', '-o', '/dev/null', '-w', '%{size_download}', '-H', `Authorization: Bearer ${token}`, url], { env, count: Number, expect: bytes, short: 'curl' }),
    commandCase('rclone cat > /dev/null', 'rclone', ['cat', file], { env, count: bytes, short: 'rclone cat' }),
  ];
}

function casesFor(file, bytes) {
  const whole = { expect: bytes };
  return [
    nodeCase('inseam fs host read(), default reader', script, 'host-default', [file], whole),
    nodeCase('inseam fs host read(), BYOB reader 1 MiB', script, 'host-byob', [file], whole),
    nodeCase('inseam fs port read(), 1 MiB ranges (base64)', script, 'port-ranges', [file], whole),
    nodeCase('Node FileHandle.read 1 MiB buffer loop', script, 'raw-async', [file], { ...whole, short: 'Node loop' }),
    nodeCase('Node readSync 128 KiB loop (blocking)', script, 'raw-sync', [file], whole),
    // cat's output goes to /dev/null (the case's stdout), as in `cat file > /dev/null`.
    commandCase('cat file > /dev/null', 'cat', [file], { count: bytes, short: 'cat' }),
    nodeCase('Node start + import only', script, 'start', []),
  ];
}

/** What each end-to-end read must come within, as a multiple of `rclone cat`'s wall time (issue #17). */
const TARGETS = { 'inseam cat > /dev/null': 0.8, 'curl GET /v1/fs/read -o /dev/null': 1.0 };

function targetLines(rows) {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const rclone = byName.get('rclone cat > /dev/null').wallMs;
  return Object.entries(TARGETS).map(([name, target]) => {
    const ratio = byName.get(name).wallMs / rclone;
    return `${name}: ${ratio.toFixed(2)}× rclone cat, target ≤ ${target}× ${ratio <= target ? 'met' : 'missed'}`;
  });
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 7);
  const bytes = wholeNumberOption(argv, '--bytes', 1 << 30);
  const bin = binFrom(argv);
  ensureBuilt(['connectors/fs']);
  if (argv.indexOf('--bin') < 0) ensureBuiltEntries('packages/inseam', ['cli/main.js']);
  const machine = machineFacts();
  const file = await bigFileFolder(bytes);
  console.log(`fs-read — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, ${machine.rclone}, load ${machine.loadAverageAtStart}`);
  console.log(`CLI and server: ${bin}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  const { dataDir, token } = await dataDirFor(bin, file);
  // rclone reads its config file at start; an empty one keeps it from warning on every run.
  const rcloneConfig = join(benchRoot, 'fs-read-rclone.conf');
  await writeFile(rcloneConfig, '');
  const { base, child } = await startServer(bin, dataDir);
  await settled(child.pid);
  let rows;
  let serverRssMiB;
  try {
    const cases = [...endToEndCases(bin, file, bytes, { dataDir, token, base, rcloneConfig }), ...casesFor(file, bytes)];
    rows = await runCases(cases, { rounds, onProgress: progress('fs-read') });
    serverRssMiB = peakRssMiB(child.pid);
  } finally {
    child.kill('SIGINT');
  }
  console.log(`\n${(bytes / MiB).toFixed(0)} MiB file, page cache warm (${file}); medians of ${rounds} interleaved rounds\n`);
  console.log(table(rows, { baselines: ['rclone cat > /dev/null', 'cat file > /dev/null', 'Node FileHandle.read 1 MiB buffer loop'], inProcessBaseline: 'Node FileHandle.read 1 MiB buffer loop', countLabel: 'bytes' }));
  console.log(`\nthe server's peak RSS over ${rounds + 1} reads of the file: ${serverRssMiB?.toFixed(0) ?? 'n/a'} MiB`);
  console.log(targetLines(rows).join('\n'));
  console.log(`\nraw results: ${await saveResults('fs-read', { benchmark: 'fs-read', machine, rounds, bin, file, rows, serverRssMiB })}`);
}

await runScript(CASES, main);
