// crawl-workers: crawl throughput of the distributed path — `inseam worker` processes sharing one
// PostgreSQL database, each taking `--concurrency` crawls at once — with 1, 2 and 4 workers,
// against the embedded path: one process crawling every host into SQLite at once, as `inseam up`
// does. All on this machine, the database server included.
//
// Fixture: H folder hosts (default 8) of 10,000 text files each — the folders d0…d{H-1} of the
// catalog benchmark's 100,000-file tree (lib/fixtures.mjs manyTextFiles), so H × 10,000 entries a
// case, each read and indexed. Every case starts from an empty store (a fresh database, or data
// directory) and its workers are started before the clock: the time runs from queuing the H syncs
// to the last crawl's end.
//
// Besides time: entries/s in all and per worker, and what the database did meanwhile — commits/s,
// rows/s (inserted + updated + deleted), WAL MiB/s, and the server's CPU time per 1,000 entries
// (its processes' /proc times) — the numbers docs/scale-out.md extrapolates a cluster from.
//
//   node bench/crawl-workers.mjs [--rounds N] [--hosts N] [--concurrency N]
//
// Run as `node bench/crawl-workers.mjs --case <id> ...` it is one case's child process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { recordExtras, resetExtras, roundExtras } from './lib/case-extras.mjs';
import { benchRoot, manyTextFiles } from './lib/fixtures.mjs';
import { busyWarning, childCase, ensureBuiltEntries, machineFacts, median, nodeCase, progress, repoRoot, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption } from './lib/measure.mjs';
import { databaseUrl, serverCpuMs, startBenchPostgres, writeCounters } from './lib/postgres.mjs';

const script = fileURLToPath(import.meta.url);
const CLI = join(repoRoot, 'packages', 'inseam', 'bin', 'inseam.js');
const FILES_PER_HOST = 10_000;
const TREE_FILES = 100_000;
const MiB = 1024 * 1024;
/** Every process of a case shares it, as every machine of a cluster must. */
const MASTER_KEY = randomBytes(32).toString('base64');

function hostRefs(count) {
  return Array.from({ length: count }, (_, index) => ({ network: 'bench', host: `h${index}`, folder: `d${index}` }));
}

async function addHosts(platform, tree, count) {
  await platform.networks.init('bench');
  for (const ref of hostRefs(count)) {
    await platform.networks.addHost({ network: ref.network, slug: ref.host, kind: 'fs', config: { root: join(tree, ref.folder) } });
  }
}

async function openBench(dataDir, storeUrl) {
  const { openPlatform } = await import('inseam/platform');
  return openPlatform({ dataDir, env: { INSEAM_MASTER_KEY: MASTER_KEY }, ...(storeUrl === undefined ? {} : { storeUrl }) });
}

/** A worker process; resolves once it printed its first (`started`) line. */
function startWorker(url, dataDir, concurrency, onActivity) {
  // A short poll interval, so a worker's idle wait (2 s by default) does not add to a measured crawl.
  const child = spawn(process.execPath, [CLI, '--data', dataDir, 'worker', '--concurrency', String(concurrency), '--poll-interval', '0.25', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: dataDir, INSEAM_MASTER_KEY: MASTER_KEY, INSEAM_DATABASE_URL: url },
  });
  let pending = '';
  let errors = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const started = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        if (line.trim() === '') continue;
        const activity = JSON.parse(line);
        if (activity.type === 'started') resolve();
        onActivity(activity);
      }
    });
    child.stderr.on('data', (chunk) => (errors += chunk));
    void exited.then(({ code }) => reject(new Error(`A worker exited (${code}) early: ${errors.slice(-1500)}`)));
  });
  return { child, started, exited, errors: () => errors };
}

const CASES = {
  /** The embedded path: one process, every host crawled at once into SQLite. */
  async sqlite(tree, hostsText, extrasFile) {
    const hosts = Number(hostsText);
    const dataDir = await mkdtemp(join(benchRoot, 'workers-sqlite-'));
    try {
      const platform = await openBench(dataDir);
      await addHosts(platform, tree, hosts);
      let ms;
      await childCase(async () => {
        const started = performance.now();
        const runs = await Promise.all(hostRefs(hosts).map(async (ref) => (await platform.sync(ref)).result));
        ms = performance.now() - started;
        for (const run of runs) if (run.state !== 'completed') throw new Error(`A crawl ended ${run.state}: ${JSON.stringify(run.error)}`);
        return runs.reduce((sum, run) => sum + run.counters.entries, 0);
      });
      await platform.close();
      recordExtras(extrasFile, { ms, workers: 1 });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },

  /** The distributed path: `workers` processes of `inseam worker` on a fresh PostgreSQL database. */
  async postgres(tree, hostsText, workersText, concurrencyText, serverUrl, extrasFile) {
    const hosts = Number(hostsText);
    const workers = Number(workersText);
    const { default: pg } = await import('pg');
    const { HostQueue, QueueDatabase } = await import('inseam/queue');
    const name = `bench_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
    const url = databaseUrl(serverUrl, name);
    const scratch = await mkdtemp(join(benchRoot, 'workers-pg-'));
    const processes = [];
    const database = new QueueDatabase({ url });
    const stats = new pg.Client({ connectionString: url });
    try {
      const platform = await openBench(join(scratch, 'setup'), url);
      await addHosts(platform, tree, hosts);
      await platform.close();
      const queue = await HostQueue.start({ database });
      const ended = [];
      let allEnded;
      const done = new Promise((resolve) => (allEnded = resolve));
      for (let index = 0; index < workers; index++) {
        const dataDir = await mkdtemp(join(scratch, `worker${index}-`));
        processes.push(
          startWorker(url, dataDir, Number(concurrencyText), (activity) => {
            if (activity.type === 'crawl-ended') {
              if (activity.state !== 'completed') throw new Error(`A crawl ended ${activity.state}: ${JSON.stringify(activity.error)}`);
              ended.push(activity);
              if (ended.length === hosts) allEnded();
            }
          }),
        );
      }
      await Promise.all(processes.map((worker) => worker.started));
      await stats.connect();
      const before = await writeCounters(stats);
      const serverCpuBefore = serverCpuMs();
      let ms;
      await childCase(async () => {
        const started = performance.now();
        for (const ref of hostRefs(hosts)) await queue.requestSync(ref);
        await done;
        ms = performance.now() - started;
        return ended.reduce((sum, activity) => sum + activity.entries, 0);
      });
      const serverCpu = serverCpuMs() - serverCpuBefore;
      // Statistics reach pg_stat_* within a second of a backend going idle.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = await writeCounters(stats);
      const perWorker = {};
      for (const activity of ended) perWorker[activity.worker] = (perWorker[activity.worker] ?? 0) + activity.entries;
      recordExtras(extrasFile, {
        ms,
        workers,
        commits: after.commits - before.commits,
        rows: after.rows - before.rows,
        walBytes: after.walBytes - before.walBytes,
        serverCpuMs: serverCpu,
        perWorker: Object.values(perWorker),
      });
      await queue.stop();
    } finally {
      for (const worker of processes) worker.child.kill('SIGTERM');
      const exits = await Promise.all(processes.map((worker) => worker.exited));
      await stats.end().catch(() => undefined);
      await database.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      await rm(scratch, { recursive: true, force: true });
      for (const [index, exit] of exits.entries()) if (exit.code !== 0) throw new Error(`Worker ${index} exited ${exit.code ?? exit.signal}: ${processes[index].errors().slice(-1500)}`);
    }
  },

  /** Node start-up plus importing the platform and the queue, with no work. */
  async start() {
    await import('inseam/platform');
    await import('inseam/queue');
    await childCase(async () => 0);
  },
};

const format = {
  count: (n) => Math.round(n).toLocaleString('en-US'),
  s: (ms) => `${(ms / 1000).toFixed(2)} s`,
};

function markdown(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 3);
  const hosts = wholeNumberOption(argv, '--hosts', 8);
  const concurrency = wholeNumberOption(argv, '--concurrency', 2);
  if (hosts > TREE_FILES / FILES_PER_HOST) throw new Error(`--hosts takes at most ${TREE_FILES / FILES_PER_HOST} (the tree's top folders).`);
  ensureBuiltEntries('packages/inseam', ['platform/index.js', 'queue/index.js', 'cli/main.js']);
  const machine = machineFacts();
  const tree = await manyTextFiles(TREE_FILES);
  const server = await startBenchPostgres();
  const extrasDir = join(benchRoot, 'workers-extras');
  const extrasOf = (id) => join(extrasDir, `${id}.jsonl`);
  const expect = hosts * FILES_PER_HOST;
  const workerCounts = [1, 2, 4];
  const cases = [
    { ...nodeCase(`SQLite, one process, ${hosts} crawls at once`, script, 'sqlite', [tree, String(hosts), extrasOf('sqlite')], { expect, short: 'SQLite' }), id: 'sqlite' },
    ...workerCounts.map((workers) => ({
      ...nodeCase(`PostgreSQL, ${workers} worker${workers > 1 ? 's' : ''} × ${concurrency} crawls`, script, 'postgres', [tree, String(hosts), String(workers), String(concurrency), server.url, extrasOf(`pg-${workers}`)], { expect, short: `${workers}w` }),
      id: `pg-${workers}`,
      workers,
    })),
    { ...nodeCase('Node start + import only', script, 'start', []), id: 'start' },
  ];
  for (const definition of cases) await resetExtras(extrasOf(definition.id));
  const results = { benchmark: 'crawl-workers', machine: { ...machine, postgres: server.version }, rounds, hosts, filesPerHost: FILES_PER_HOST, concurrency, rows: null, extras: {} };
  console.log(`crawl-workers — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, ${server.version}, load ${machine.loadAverageAtStart}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  try {
    const rows = await runCases(cases, { rounds, onProgress: progress(`${hosts} hosts × ${format.count(FILES_PER_HOST)} files`) });
    results.rows = rows;
    for (const definition of cases) if (definition.id !== 'start') results.extras[definition.id] = await roundExtras(extrasOf(definition.id));
    console.log(`\n### ${hosts} hosts × ${format.count(FILES_PER_HOST)} files (${format.count(expect)} entries), ${cpus().length} cores, database on the same machine\n`);
    console.log(table(rows, { baselines: [cases[0].name], inProcessBaseline: cases[0].name }));
    const sqliteMs = median(results.extras.sqlite.map((extra) => extra.ms));
    const lines = cases
      .filter((definition) => definition.id !== 'start')
      .map((definition) => {
        const extras = results.extras[definition.id];
        const ms = median(extras.map((extra) => extra.ms));
        const rate = expect / (ms / 1000);
        if (definition.workers === undefined) return [definition.name, format.s(ms), `${format.count(rate)} /s`, `${format.count(rate)} /s`, '—', '—', '—', '—', '—', '1.00×'];
        const seconds = (extra) => extra.ms / 1000;
        const commits = median(extras.map((extra) => extra.commits / seconds(extra)));
        const rowsPerSecond = median(extras.map((extra) => extra.rows / seconds(extra)));
        const wal = median(extras.map((extra) => extra.walBytes / MiB / seconds(extra)));
        const share = extras.at(-1).perWorker.map((entries) => format.count(entries)).join(' / ');
        const serverCpu = median(extras.map((extra) => (extra.serverCpuMs / expect) * 1000));
        return [
          definition.name,
          format.s(ms),
          `${format.count(rate)} /s`,
          `${format.count(rate / definition.workers)} /s`,
          share,
          `${format.count(commits)} /s`,
          `${format.count(rowsPerSecond)} /s`,
          `${wal.toFixed(1)} MiB/s`,
          `${serverCpu.toFixed(0)} ms`,
          `${(sqliteMs / ms).toFixed(2)}×`,
        ];
      });
    console.log('');
    console.log(markdown(['case', 'crawl time (median)', 'entries/s', 'per worker', 'entries per worker (last round)', 'DB commits', 'DB rows written', 'WAL', 'DB server CPU per 1,000 entries', 'throughput ÷ SQLite'], lines));
  } finally {
    await server.stop();
    await rm(extrasDir, { recursive: true, force: true });
  }
  console.log(`\nraw results: ${await saveResults('crawl-workers', results)}`);
}

await runScript(CASES, main);
