// startup: how long an `inseam` command takes from spawn to exit, next to the native tool people
// compare it with — `--version` and `--help` against `rclone version`, and `ls`, `stat` and `cat`
// of a small object on the embedded store against `rclone lsjson` / `rclone lsjson --stat` /
// `rclone cat` of the same folder. Each command is a fresh process, so this is mostly start-up:
// Node's own, the modules the command loads, opening the store.
//
//   node bench/startup.mjs [--rounds N] [--bin path/to/inseam.js]
//
// `--bin` measures another build of the CLI (say the main checkout's, for a before/after pair);
// the default is this checkout's packages/inseam/bin/inseam.js, built first.
import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { benchRoot } from './lib/fixtures.mjs';
import { busyWarning, commandCase, ensureBuiltEntries, machineFacts, progress, repoRoot, roundsFromArgv, runCases, saveResults, table } from './lib/measure.mjs';

const FILES = 100;
/** What each inseam command must come within, as a multiple of its baseline's wall time (issue #17). */
const TARGETS = { version: 1.5, help: 1.5, ls: 2, stat: 2, cat: 2 };

function binFrom(argv) {
  const at = argv.indexOf('--bin');
  return at < 0 ? join(repoRoot, 'packages', 'inseam', 'bin', 'inseam.js') : resolve(argv[at + 1]);
}

/** A folder of FILES small files and a data directory whose network `bench` has an fs host `files` on it. */
async function fixture(bin) {
  const root = join(benchRoot, 'startup');
  const folder = join(root, 'folder');
  const dataDir = join(root, 'data');
  await rm(root, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  for (let i = 0; i < FILES; i += 1) await writeFile(join(folder, `f${String(i).padStart(3, '0')}.txt`), `file ${i}\n`);
  // rclone reads its config file at start; an empty one keeps it from warning on every run.
  const rcloneConfig = join(root, 'rclone.conf');
  await writeFile(rcloneConfig, '');
  const cli = (args) => {
    const run = spawnSync(process.execPath, [bin, '--data', dataDir, ...args], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`inseam ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  };
  cli(['network', 'init', 'bench']);
  cli(['host', 'add', 'bench/files', '--kind', 'fs', '--config', JSON.stringify({ root: folder })]);
  return { folder, dataDir, rcloneConfig };
}

const jsonLength = (out) => JSON.parse(out).length;

function casesFor(bin, { folder, dataDir, rcloneConfig }) {
  const env = { ...process.env, RCLONE_CONFIG: rcloneConfig };
  const inseam = (args) => [bin, '--data', dataDir, ...args];
  const small = join(folder, 'f000.txt');
  return [
    ['version', commandCase('inseam --version', process.execPath, [bin, '--version'], { env }), commandCase('rclone version', 'rclone', ['version'], { env })],
    ['help', commandCase('inseam --help', process.execPath, [bin, '--help'], { env }), commandCase('rclone version (for --help)', 'rclone', ['version'], { env })],
    [
      'ls',
      commandCase(`inseam ls --json (${FILES} files)`, process.execPath, inseam(['ls', '--json', 'inseam://bench/files/']), { env, count: jsonLength, agree: 'ls', expect: FILES }),
      commandCase(`rclone lsjson (${FILES} files)`, 'rclone', ['lsjson', folder], { env, count: jsonLength, agree: 'ls' }),
    ],
    [
      'stat',
      commandCase('inseam stat --json', process.execPath, inseam(['stat', '--json', 'inseam://bench/files/f000.txt']), { env }),
      commandCase('rclone lsjson --stat', 'rclone', ['lsjson', '--stat', small], { env }),
    ],
    [
      'cat',
      commandCase('inseam cat (7 bytes)', process.execPath, inseam(['cat', 'inseam://bench/files/f000.txt']), { env, count: (out) => out.length, agree: 'cat', expect: 7 }),
      commandCase('rclone cat (7 bytes)', 'rclone', ['cat', small], { env, count: (out) => out.length, agree: 'cat' }),
    ],
  ];
}

function pairsTable(pairs, rows) {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const lines = ['| command | inseam | baseline | ratio | target |', '|---|---:|---:|---:|---:|'];
  for (const [key, ours, theirs] of pairs) {
    const a = byName.get(ours.name);
    const b = byName.get(theirs.name);
    const ratio = a.wallMs / b.wallMs;
    lines.push(`| ${ours.name} vs ${theirs.name} | ${(a.wallMs / 1000).toFixed(3)} s | ${(b.wallMs / 1000).toFixed(3)} s | ${ratio.toFixed(2)}× | ≤ ${TARGETS[key]}× ${ratio <= TARGETS[key] ? 'met' : 'missed'} |`);
  }
  return lines.join('\n');
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 5);
  const bin = binFrom(argv);
  if (argv.indexOf('--bin') < 0) ensureBuiltEntries('packages/inseam', ['cli/main.js']);
  const machine = machineFacts();
  console.log(`startup — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, ${machine.rclone}, load ${machine.loadAverageAtStart}`);
  console.log(`CLI: ${bin}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  const pairs = casesFor(bin, await fixture(bin));
  // Interleaved: inseam, its baseline, the next inseam command, … in every round.
  const rows = await runCases(pairs.flatMap(([, ours, theirs]) => [ours, theirs]), { rounds, onProgress: progress('startup') });
  console.log(`\nmedians of ${rounds} interleaved rounds, each command a fresh process\n`);
  console.log(table(rows, { countLabel: 'count' }));
  console.log(`\n${pairsTable(pairs, rows)}`);
  console.log(`\nraw results: ${await saveResults('startup', { benchmark: 'startup', machine, rounds, bin, rows })}`);
}

await main(process.argv.slice(2));
