// A private PostgreSQL cluster for benchmarks: `initdb` under $INSEAM_BENCH_DIR (as user
// `postgres` when running as root, which the server refuses), listening on a Unix socket in its
// own folder only. Durability as a deployment would run it — fsync on — except
// `synchronous_commit = off`, which matches the embedded store's SQLite `synchronous = NORMAL` in
// WAL mode: a crash may lose the last commits, never corrupt the database.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { chown, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { benchRoot } from './fixtures.mjs';

const SERVER_DIR = join(benchRoot, 'postgres');

function binDir() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'initdb'))) return join(root, version, 'bin');
  throw new Error('PostgreSQL is not installed; this benchmark needs its server (Debian: apt-get install -y postgresql).');
}

/** Starts a fresh cluster; resolves `{ url, version, stop() }`, `url` naming its `postgres` database. */
export async function startBenchPostgres() {
  const bin = binDir();
  const root = process.getuid?.() === 0;
  const dir = SERVER_DIR;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  if (root) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout);
    await chown(dir, uid, gid);
  }
  const run = (program, args) => {
    const [command, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
    const result = spawnSync(command, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${program} failed: ${(result.stderr || result.stdout).trim()}`);
    return result.stdout;
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C']);
  const options = `-k ${dir} -p 5432 -c listen_addresses='' -c synchronous_commit=off -c max_connections=200 -c shared_buffers=256MB`;
  run('pg_ctl', ['start', '-D', data, '-l', join(dir, 'server.log'), '-w', '-s', '-o', options]);
  const version = run('postgres', ['--version']).trim();
  return {
    url: `postgresql://postgres@localhost:5432/postgres?host=${encodeURIComponent(dir)}`,
    version,
    async stop() {
      run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-s']);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** utime, stime, cutime, cstime (clock ticks) and the parent of a process, from /proc. */
function processTimes(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), own: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
}

/**
 * CPU time (ms) the benchmark's server has used so far, from any process: the postmaster, its
 * live backends, and the backends that exited (in the postmaster's children totals).
 */
export function serverCpuMs() {
  const postmaster = Number(readFileSync(join(SERVER_DIR, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const main = processTimes(postmaster);
  let ticks = main.own + main.children;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === postmaster) continue;
    try {
      const times = processTimes(name);
      if (times.ppid === postmaster) ticks += times.own;
    } catch {
      // It exited meanwhile.
    }
  }
  return (ticks / TICKS_PER_SECOND) * 1000;
}

/** `url` with its database replaced by `name`. */
export function databaseUrl(url, name) {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.href;
}

/**
 * What the server has done so far in `database`: commits and rows written (pg_stat_database), and
 * WAL bytes (the whole cluster, pg_stat_wal). Counters reach the statistics within a second of a
 * backend going idle, so take the later snapshot after the writers went quiet.
 */
export async function writeCounters(client) {
  const [database] = (
    await client.query('SELECT xact_commit::float8 AS commits, (tup_inserted + tup_updated + tup_deleted)::float8 AS rows FROM pg_stat_database WHERE datname = current_database()')
  ).rows;
  const [wal] = (await client.query('SELECT wal_bytes::float8 AS bytes FROM pg_stat_wal')).rows;
  return { commits: database.commits, rows: database.rows, walBytes: wal.bytes };
}
