// Shared benchmark plumbing. Every benchmark runs our code and its baselines in one run, each
// case in a fresh child process so its peak memory (maxRSS) belongs to that case alone. One
// warm-up round (which also fills the page cache and checks every case saw the same entries)
// comes first; then the cases run in interleaved rounds — A B C, A B C, … rather than A A A,
// B B B — so a burst of load on the machine is spread over every case instead of landing on
// one, and the median of the rounds is reported with its ratio to each baseline.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchRoot } from './fixtures.mjs';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** GNU time reports a command's peak RSS; without it, only Node cases can report theirs. */
const GNU_TIME = '/usr/bin/time';
const hasGnuTime = existsSync(GNU_TIME);

/**
 * Builds the projects the cases import (`tsc -b`, which builds their references too), so cases
 * import the compiled packages as users run them. `tsc -b` trusts a project's .tsbuildinfo; when
 * that says "up to date" but the output is gone, the project is rebuilt with --force. When the
 * build fails (someone's work in progress elsewhere in the workspace) but an earlier build is
 * there, that build is measured, with a warning.
 */
export function ensureBuilt(projects) {
  const build = (args) => spawnSync('npx', ['tsc', '-b', ...args], { cwd: repoRoot, encoding: 'utf8' });
  const built = (project) => ['index.js', 'index.d.ts'].every((file) => existsSync(join(repoRoot, project, 'dist', file)));
  for (const project of projects) {
    let result = build([project]);
    if (result.status === 0 && !built(project)) result = build([project, '--force']);
    if (result.status === 0 && built(project)) continue;
    const output = `${result.stdout}${result.stderr}`.slice(0, 2000);
    if (!built(project)) throw new Error(`Could not build ${project}; fix the build first:\n${output}`);
    process.stderr.write(`warning: npx tsc -b ${project} failed; measuring its previous build.\n${output}\n`);
  }
}

/**
 * `ensureBuilt` for one project without a root index (packages/inseam exports subpaths only):
 * `entries` are the built files the cases import, relative to the project's `dist/`.
 */
export function ensureBuiltEntries(project, entries) {
  const build = (args) => spawnSync('npx', ['tsc', '-b', ...args], { cwd: repoRoot, encoding: 'utf8' });
  const built = () => entries.every((file) => existsSync(join(repoRoot, project, 'dist', file)));
  let result = build([project]);
  if (result.status === 0 && !built()) result = build([project, '--force']);
  if (result.status === 0 && built()) return;
  const output = `${result.stdout}${result.stderr}`.slice(0, 2000);
  if (!built()) throw new Error(`Could not build ${project}; fix the build first:\n${output}`);
  process.stderr.write(`warning: npx tsc -b ${project} failed; measuring its previous build.\n${output}\n`);
}

/** The machine facts a result is meaningless without. */
export function machineFacts() {
  const version = (command, args) => {
    const result = spawnSync(command, args, { encoding: 'utf8', env: withoutCaBundle() });
    return result.status === 0 ? result.stdout.split('\n')[0].trim() : 'not installed';
  };
  const cpu = cpus();
  return {
    date: new Date().toISOString(),
    cpu: `${cpu[0]?.model ?? 'unknown'} × ${cpu.length}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    filesystem: fileSystemOf(benchRoot),
    node: process.version,
    rclone: version('rclone', ['version']),
    find: version('find', ['--version']),
    cat: version('cat', ['--version']),
    loadAverageAtStart: loadavg().map((value) => value.toFixed(2)).join(' '),
  };
}

/**
 * A warning line when other work already keeps the cores busy (1-minute load average over half the
 * cores): every case then competes for CPU, multi-threaded ones (rclone) most, and the spread of
 * the rounds widens. '' on a quiet machine.
 */
export function busyWarning() {
  const [load] = loadavg();
  const cores = cpus().length;
  if (load <= cores / 2) return '';
  return `warning: load average ${load.toFixed(2)} on ${cores} cores; other work competes with every case, so expect noisy times.`;
}

function fileSystemOf(path) {
  const result = spawnSync('df', ['--output=fstype', path], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim().split('\n').pop() : 'unknown';
}

/** rclone's S3 backend fails over plain http when AWS_CA_BUNDLE is set; no case needs it. */
export function withoutCaBundle(env = process.env) {
  const copy = { ...env };
  delete copy.AWS_CA_BUNDLE;
  return copy;
}

/**
 * A case. A `node` case is a script run as `node <script> --case <id> ...args` that times its own
 * work with `childCase` after its imports, so both the process wall time and the in-process time
 * are known. A command case's stdout goes to /dev/null; its `count` is a number known in advance
 * or a function of its stdout, captured once in the warm-up.
 *
 * Options: `short` names the case in ratio columns when it is a baseline; cases with the same
 * `agree` label must report the same count, and `expect` is the count a case must report — so a
 * case that silently did less work fails the run instead of winning it.
 */
export function nodeCase(name, script, id, args = [], { env, short, agree, expect } = {}) {
  return { name, short, agree, expect, command: process.execPath, args: [script, '--case', id, ...args], node: true, env };
}

export function commandCase(name, command, args, { env, count, short, agree, expect } = {}) {
  return { name, short, agree, expect, command, args, node: false, env, count };
}

/** Runs a case once: wall ms (spawn to exit), in-process ms (node cases), CPU ms, peak RSS, count. */
async function runOnce(definition, { capture }) {
  const scratch = await mkdtemp(join(tmpdir(), 'inseam-bench-rss-'));
  const rssFile = join(scratch, 'rss');
  const [command, args] = hasGnuTime
    ? [GNU_TIME, ['-f', '%M %U %S', '-o', rssFile, definition.command, ...definition.args]]
    : [definition.command, definition.args];
  const wantStdout = definition.node || (capture && typeof definition.count === 'function');
  try {
    const started = performance.now();
    const { code, out, err } = await new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        stdio: ['ignore', wantStdout ? 'pipe' : 'ignore', 'pipe'],
        env: definition.env ?? process.env,
      });
      const outChunks = [];
      let err = '';
      child.stdout?.on('data', (chunk) => outChunks.push(chunk));
      child.stderr.on('data', (chunk) => (err += chunk));
      child.on('error', reject);
      child.on('close', (exitCode) => resolve({ code: exitCode, out: Buffer.concat(outChunks).toString('utf8'), err }));
    });
    const wallMs = performance.now() - started;
    if (code !== 0) throw new Error(`${definition.name}: ${definition.command} exited ${code}: ${err.slice(-800)}`);
    const result = { wallMs };
    if (definition.node) {
      const report = JSON.parse(out.trim().split('\n').pop());
      Object.assign(result, { workMs: report.ms, count: report.count, maxRssMiB: report.maxRssMiB });
    } else if (typeof definition.count === 'number') {
      result.count = definition.count;
    } else if (wantStdout) {
      result.count = definition.count(out);
    }
    if (hasGnuTime) {
      // The last line: GNU time puts a "Command exited with non-zero status" line before it.
      const [rssKiB, user, system] = (await readFile(rssFile, 'utf8')).trim().split('\n').pop().split(' ').map(Number);
      Object.assign(result, { maxRssMiB: rssKiB / 1024, cpuMs: (user + system) * 1000 });
    }
    return result;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Runs every case in a warm-up round and then `rounds` interleaved rounds. Returns one row per
 * case: median wall, in-process and CPU times, the wall spread, the highest peak RSS seen, the
 * count. Throws after the warm-up when a count differs from its `expect` or its `agree` group.
 */
export async function runCases(cases, { rounds = 5, onProgress = () => {} } = {}) {
  const samples = new Map(cases.map((definition) => [definition.name, []]));
  const counts = new Map();
  for (const definition of cases) {
    onProgress(`warm-up: ${definition.name}`);
    const warm = await runOnce(definition, { capture: true });
    counts.set(definition.name, warm.count);
  }
  checkCounts(cases, counts);
  for (let round = 0; round < rounds; round += 1) {
    for (const definition of cases) {
      onProgress(`round ${round + 1}/${rounds}: ${definition.name}`);
      samples.get(definition.name).push(await runOnce(definition, { capture: false }));
    }
  }
  onProgress('');
  return cases.map((definition) => {
    const runs = samples.get(definition.name);
    const walls = runs.map((run) => run.wallMs);
    const works = runs.map((run) => run.workMs).filter((value) => value !== undefined);
    const rss = runs.map((run) => run.maxRssMiB).filter((value) => value !== undefined);
    const cpu = runs.map((run) => run.cpuMs).filter((value) => value !== undefined);
    return {
      name: definition.name,
      short: definition.short ?? definition.name,
      wallMs: median(walls),
      wallRangeMs: [Math.min(...walls), Math.max(...walls)],
      workMs: works.length > 0 ? median(works) : undefined,
      cpuMs: cpu.length > 0 ? median(cpu) : undefined,
      maxRssMiB: rss.length > 0 ? Math.max(...rss) : undefined,
      count: counts.get(definition.name),
      runs: runs.length,
    };
  });
}

function checkCounts(cases, counts) {
  const groups = new Map();
  for (const definition of cases) {
    const count = counts.get(definition.name);
    if (definition.expect !== undefined && count !== definition.expect) {
      throw new Error(`${definition.name} reported ${count}, expected ${definition.expect}.`);
    }
    if (definition.agree === undefined) continue;
    const first = groups.get(definition.agree);
    if (first === undefined) groups.set(definition.agree, definition);
    else if (counts.get(first.name) !== count) {
      throw new Error(`${definition.name} reported ${count} but ${first.name} reported ${counts.get(first.name)}.`);
    }
  }
}

const seconds = (ms) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(3)} s`);

/**
 * A Markdown table: wall time (spawn to exit, the same measurement for every case), in-process
 * time (Node cases: the work alone, after start-up and imports), CPU time (user + system, all
 * threads: above the wall time means the case ran on several cores), peak RSS, the count, and the
 * wall-time ratio to each baseline. `inProcessBaseline`, a Node case, adds a column comparing
 * in-process times, which leaves Node's start-up out of a Node-to-Node comparison.
 */
export function table(rows, { baselines = [], inProcessBaseline, countLabel = 'entries' } = {}) {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const header = ['case', 'wall (median)', 'wall min–max', 'in-process', 'CPU user+sys', 'peak RSS', countLabel];
  for (const name of baselines) header.push(`wall ÷ ${byName.get(name).short}`);
  if (inProcessBaseline !== undefined) header.push(`in-process ÷ ${byName.get(inProcessBaseline).short}`);
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const row of rows) {
    const cells = [
      row.name,
      seconds(row.wallMs),
      `${(row.wallRangeMs[0] / 1000).toFixed(3)}–${(row.wallRangeMs[1] / 1000).toFixed(3)}`,
      seconds(row.workMs),
      seconds(row.cpuMs),
      row.maxRssMiB === undefined ? 'n/a' : `${row.maxRssMiB.toFixed(0)} MiB`,
      row.count === undefined ? '—' : row.count.toLocaleString('en-US'),
    ];
    for (const name of baselines) cells.push(`${(row.wallMs / byName.get(name).wallMs).toFixed(2)}×`);
    if (inProcessBaseline !== undefined) {
      const base = byName.get(inProcessBaseline).workMs;
      cells.push(row.workMs === undefined ? '—' : `${(row.workMs / base).toFixed(2)}×`);
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Keeps a run's raw results beside the fixtures (outside the repository). */
export async function saveResults(benchmark, results) {
  const dir = join(benchRoot, 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${benchmark}-${results.machine.date.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, JSON.stringify(results, null, 2));
  return file;
}

/**
 * A bench script's entry: run as `--case <id> [args…]` (a child nodeCase starts) it runs that one
 * case with the args, as `caseArgs` turns them into arguments; otherwise `main` with the command line.
 */
export async function runScript(cases, main, caseArgs = (args) => args) {
  const argv = process.argv.slice(2);
  if (argv[0] !== '--case') return main(argv);
  const run = cases[argv[1]];
  if (run === undefined) throw new Error(`No case ${argv[1]}; cases: ${Object.keys(cases).join(', ')}.`);
  return run(...caseArgs(argv.slice(2)));
}

/** Inside a node child case: time `fn`, then print the one JSON line the parent reads. */
export async function childCase(fn) {
  const started = performance.now();
  const count = await fn();
  const ms = performance.now() - started;
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ ms, maxRssMiB, count }) + '\n');
}

/**
 * A progress line on a terminal, rewritten in place ('' clears it); nothing when stderr is not a
 * terminal, so logs stay clean.
 */
export function progress(label) {
  if (!process.stderr.isTTY) return () => {};
  return (what) => process.stderr.write(what === '' ? '\r\x1b[K' : `\r\x1b[K${label} — ${what}`.slice(0, process.stderr.columns ?? 120));
}

/** The whole number after `flag` in argv (`--rounds 9`), or `fallback` when the flag is absent. */
export function wholeNumberOption(argv, flag, fallback) {
  const at = argv.indexOf(flag);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${flag} takes a whole number of at least 1.`);
  return value;
}

/** `--rounds N` from argv, or `fallback`. */
export function roundsFromArgv(argv, fallback) {
  return wholeNumberOption(argv, '--rounds', fallback);
}
