// fs-list: listing 100,000 small files through the fs connector — the host Connector's paged
// list() to the end, and the ConnectorPort's walk() — against a naive Node walk, rclone and find,
// on two shapes: a tree (~100 files a folder) and one flat folder.
//
//   node bench/fs-list.mjs [--rounds N] [--count N]
//
// Run as `node bench/fs-list.mjs --case <id> <dir>` it is one case's child process.
import { lstatSync, readdirSync } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchRoot, flatFiles, manySmallFiles } from './lib/fixtures.mjs';
import { busyWarning, childCase, commandCase, ensureBuilt, machineFacts, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption, withoutCaBundle } from './lib/measure.mjs';

const script = fileURLToPath(import.meta.url);

/** The fs connector bound to `dir`, made as the platform's factory call makes it. */
async function folderConnector(dir) {
  const { createFsConnector } = await import('@inseam/connector-fs');
  return createFsConnector({ packageId: 'bench', packageRoot: benchRoot, source: 'bench', config: { root: dir }, projectRoot: benchRoot, scope: 'project' });
}

/** The naive baseline: what a first attempt in Node looks like (one await per entry). */
async function naiveWalk(dir) {
  let count = 0;
  for await (const dirent of await opendir(dir)) {
    const path = join(dir, dirent.name);
    const stats = await lstat(path);
    count += 1;
    if (stats.isDirectory()) count += await naiveWalk(path);
  }
  return count;
}

/** The floor for a Node walk: synchronous readdir and lstat, nothing else. */
function syncWalk(dir) {
  let count = 0;
  for (const name of readdirSync(dir)) {
    const path = `${dir}/${name}`;
    const stats = lstatSync(path);
    count += 1;
    if (stats.isDirectory()) count += syncWalk(path);
  }
  return count;
}

const CASES = {
  async host(dir) {
    const host = (await folderConnector(dir)).host();
    return childCase(async () => {
      let count = 0;
      let cursor;
      do {
        const page = await host.list(cursor === undefined ? {} : { cursor });
        count += page.entries.length;
        cursor = page.cursor;
      } while (cursor !== undefined);
      return count;
    });
  },
  async walk(dir) {
    const connector = await folderConnector(dir);
    return childCase(async () => {
      let count = 0;
      for await (const entry of connector.walk('bench://')) if (entry.uri) count += 1;
      return count;
    });
  },
  async naive(dir) {
    return childCase(() => naiveWalk(dir));
  },
  async sync(dir) {
    return childCase(() => syncWalk(dir));
  },
  /** Node start-up plus importing the connector, with no work: what every Node case pays. */
  async start() {
    await import('@inseam/connector-fs');
    return childCase(async () => 0);
  },
};

/** `files` is what the host lists (files only, the fixture's `.complete` marker included). */
function casesFor(dir, files) {
  const rcloneEnv = withoutCaBundle();
  // No config file: rclone only prints a notice, but keep its lookups out of the timing.
  rcloneEnv.RCLONE_CONFIG = '/dev/null';
  // Every other case lists folders too; they all agree with one another.
  const all = { agree: 'files and folders' };
  return [
    nodeCase('inseam fs host list() to the end', script, 'host', [dir], { expect: files }),
    nodeCase('inseam fs port walk()', script, 'walk', [dir], all),
    nodeCase('Node naive opendir+lstat walk', script, 'naive', [dir], { ...all, short: 'naive walk' }),
    nodeCase('Node sync readdir+lstat walk', script, 'sync', [dir], all),
    commandCase('rclone lsjson -R', 'rclone', ['lsjson', '-R', dir], { ...all, env: rcloneEnv, count: (out) => JSON.parse(out).length, short: 'rclone' }),
    commandCase('find -printf', 'find', [dir, '-mindepth', '1', '-printf', '%p %s %T@\\n'], {
      ...all,
      count: (out) => out.split('\n').filter(Boolean).length,
      short: 'find',
    }),
    nodeCase('Node start + import only', script, 'start', []),
  ];
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 5);
  const count = wholeNumberOption(argv, '--count', 100_000);
  ensureBuilt(['connectors/fs']);
  const machine = machineFacts();
  const shapes = [
    { shape: `tree: ${count.toLocaleString('en-US')} files, ~100 a folder`, dir: await manySmallFiles(count) },
    { shape: `flat: ${count.toLocaleString('en-US')} files in one folder`, dir: await flatFiles(count) },
  ];
  const results = { benchmark: 'fs-list', machine, rounds, shapes: [] };
  console.log(`fs-list — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  for (const { shape, dir } of shapes) {
    const rows = await runCases(casesFor(dir, count + 1), { rounds, onProgress: progress(shape) });
    results.shapes.push({ shape, dir, rows });
    console.log(`\n${shape} (${dir})\n`);
    console.log(
      table(rows, {
        baselines: ['Node naive opendir+lstat walk', 'rclone lsjson -R', 'find -printf'],
        inProcessBaseline: 'Node naive opendir+lstat walk',
      }),
    );
  }
  console.log(`\nraw results: ${await saveResults('fs-list', results)}`);
}

await runScript(CASES, main);
