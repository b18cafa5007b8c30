// crawl-metadata: a first crawl that records metadata only — N binary files (default 100,000,
// `manyBinaryFiles`: png, jpg, zip, gz, mp4, woff2, sqlite, mp3, nothing in them indexable) through
// the real platform (openPlatform, an `fs` host, the crawler, the SQLite catalog), against the
// listing it cannot be faster than: the fs host's own list() to the end and `find -printf` of the
// same fields. Target (issue 17): ≥ 50,000 entries/s, 100,000 files ≤ 3 s with the catalog writes.
//
//   node bench/crawl-metadata.mjs [--rounds N] [--count N]
//
// Run as `node bench/crawl-metadata.mjs --case <id> ...` it is one case's child process.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchRoot, manyBinaryFiles } from './lib/fixtures.mjs';
import { busyWarning, childCase, commandCase, ensureBuiltEntries, machineFacts, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption } from './lib/measure.mjs';

const script = fileURLToPath(import.meta.url);
const REF = { network: 'bench', host: 'files' };

const CASES = {
  /** A first crawl into a new data directory; the count is what the run recorded. */
  async crawl(tree, dataDir) {
    await rm(dataDir, { recursive: true, force: true });
    const { openPlatform } = await import('inseam/platform');
    const platform = await openPlatform({ dataDir, env: {} });
    await platform.networks.init(REF.network);
    await platform.networks.addHost({ network: REF.network, slug: REF.host, kind: 'fs', config: { root: tree } });
    let run;
    await childCase(async () => {
      run = await (await platform.sync(REF)).result;
      if (run.state !== 'completed') throw new Error(`The crawl ended ${run.state}: ${JSON.stringify(run.error)}`);
      if (run.counters.contentBytes !== 0) throw new Error(`The metadata crawl indexed ${run.counters.contentBytes} bytes.`);
      return run.counters.entries;
    });
    await platform.close();
    await rm(dataDir, { recursive: true, force: true });
  },
  /** The fs host's paged list() to the end: the entries the crawl records, with nothing stored. */
  async list(tree) {
    const { createFsHost } = await import('@inseam/connector-fs');
    const host = createFsHost({ packageId: 'bench', packageRoot: benchRoot, source: 'bench', config: { root: tree }, projectRoot: benchRoot, scope: 'project' });
    await childCase(async () => {
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
  /** Node start-up plus importing the platform, with no work: what every Node case pays. */
  async start() {
    await import('inseam/platform');
    await childCase(async () => 0);
  },
};

async function main(argv) {
  const rounds = roundsFromArgv(argv, 5);
  const count = wholeNumberOption(argv, '--count', 100_000);
  ensureBuiltEntries('packages/inseam', ['platform/index.js']);
  const machine = machineFacts();
  const tree = await manyBinaryFiles(count);
  const files = count + 1;
  const dataDir = join(benchRoot, 'catalog', `metadata-${count}`);
  console.log(`crawl-metadata — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  const cases = [
    nodeCase('inseam platform.sync(): metadata-only first crawl', script, 'crawl', [tree, dataDir], { expect: files }),
    nodeCase('inseam fs host list() to the end', script, 'list', [tree], { expect: files, short: 'host list()' }),
    commandCase("find -type f -printf '%P %s %T@ %i\\n'", 'find', [tree, '-type', 'f', '-printf', '%P %s %T@ %i\\n'], {
      count: (out) => out.split('\n').filter(Boolean).length,
      expect: files,
      short: 'find',
    }),
    nodeCase('Node start + import only', script, 'start', []),
  ];
  const label = `metadata crawl, ${count.toLocaleString('en-US')} binary files`;
  const rows = await runCases(cases, { rounds, onProgress: progress(label) });
  console.log(`\n### ${label} (${tree})\n`);
  console.log(table(rows, { baselines: [cases[1].name, cases[2].name], inProcessBaseline: cases[1].name }));
  const crawl = rows[0];
  const perSecond = Math.round(crawl.count / (crawl.workMs / 1000));
  console.log(`\ncrawl in-process: ${(crawl.workMs / 1000).toFixed(2)} s, ${perSecond.toLocaleString('en-US')} entries/s (target ≥ 50,000/s); load average at the end ${machine.loadAverageAtStart} → ${(await import('node:os')).loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  console.log(`raw results: ${await saveResults('crawl-metadata', { benchmark: 'crawl-metadata', machine, rounds, rows })}`);
}

await runScript(CASES, main);
