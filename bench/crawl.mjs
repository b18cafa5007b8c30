// crawl: the catalog on local files through the real platform (openPlatform, an `fs` host, the
// crawler, the SQLite store, search), against the bare cost of the same work.
//
// 1. First crawl of N text files (default 100,000, and 10,000 for scale): entries/s, content
//    bytes/s, peak RSS, SQLite size — against a synchronous Node walk + read + insert into a bare
//    FTS5 table (the floor for list + read + index), `find -exec cat` and `rclone cat`.
// 2. Sync after 10 changes (3 modified, 2 added, 3 deleted, 2 renamed keeping their mtime) at both
//    sizes: the incremental sync (its names diff, then its `since` listing), the two listings it
//    makes on their own (host names() and list({ since })), a full rescan, the change events
//    applied directly, and the watch (inotify → applied) — against the first crawl's time and
//    against a names-only walk of the same tree (`find -printf '%P\n'`, a bare Node readdir walk),
//    with how many of the 10 changes each left in the catalog.
// 3. Search p50/p95/max over the N indexed documents: 210 queries through platform.search, and
//    the same queries on the bare FTS5 table.
//
//   node bench/crawl.mjs [--rounds N] [--count N] [--small N]
//   node bench/crawl.mjs --search-only [--rounds N] [--count N]
//
// --search-only runs section 3 alone on the data directory and floor database an earlier run
// kept (crawling them once, in one round, when they are missing), and keeps them afterwards.
//
// Run as `node bench/crawl.mjs --case <id> ...` it is one case's child process.
import { cp, opendir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { quantile, recordExtras, resetExtras, roundExtras } from './lib/case-extras.mjs';
import { benchRoot, manyTextFiles, textFileAt } from './lib/fixtures.mjs';
import { buildFloorIndex, openFloorIndex } from './lib/fts-floor.mjs';
import { busyWarning, childCase, commandCase, ensureBuiltEntries, machineFacts, median, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption, withoutCaBundle } from './lib/measure.mjs';
import { searchQueries } from './lib/text-corpus.mjs';
import { applyChanges, changePlan, restoreTree } from './lib/tree-changes.mjs';

const script = fileURLToPath(import.meta.url);
const REF = { network: 'bench', host: 'files' };
/** Hits a search asks for (the platform's default page). */
const SEARCH_LIMIT = 20;
const MiB = 1024 * 1024;

async function openBench(dataDir) {
  const { openPlatform } = await import('inseam/platform');
  // No environment: the master key is the data directory's own file, whatever the shell has set.
  return openPlatform({ dataDir, env: {} });
}

async function fileBytes(path) {
  return (await stat(path).catch(() => ({ size: 0 }))).size;
}

/** The SQLite file with its write-ahead log (empty after a clean close). */
async function databaseBytes(path) {
  return (await fileBytes(path)) + (await fileBytes(`${path}-wal`));
}

/** What a run record says, for the report. */
function runSummary(run) {
  return { mode: run.mode, state: run.state, since: run.since, counters: run.counters, elapsedMs: run.elapsedMs };
}

/** Puts the tree back and the catalog to its state after the first crawl (a fresh copy of it). */
async function freshCopy(tree, count, template, work) {
  await restoreTree(tree, count);
  await rm(work, { recursive: true, force: true });
  await cp(template, work, { recursive: true });
}

/** How many of the 10 changes the catalog now agrees with (modified: new size; added: present; deleted: gone; renamed: old gone and new present). */
async function changesSeen(platform, tree, count) {
  const { modified, deleted, added, renamed } = changePlan(count);
  let seen = 0;
  for (const index of modified) {
    const entry = await platform.catalog.entry(REF, textFileAt(index).path);
    if (entry !== null && entry.size === (await fileBytes(join(tree, textFileAt(index).path)))) seen += 1;
  }
  for (const path of added) if ((await platform.catalog.entry(REF, path)) !== null) seen += 1;
  for (const index of deleted) if ((await platform.catalog.entry(REF, textFileAt(index).path)) === null) seen += 1;
  for (const { index, to } of renamed) {
    if ((await platform.catalog.entry(REF, textFileAt(index).path)) === null && (await platform.catalog.entry(REF, to)) !== null) seen += 1;
  }
  return seen;
}

async function hostTarget(platform) {
  return platform.kinds.crawlTarget(await platform.networks.hostRecord(REF));
}

/** Times `work` as the case's in-process time and returns its result; `count` picks the reported count. */
async function timed(work, count) {
  let result;
  let ms;
  await childCase(async () => {
    const started = performance.now();
    result = await work();
    ms = performance.now() - started;
    return count(result);
  });
  return { result, ms };
}

async function incremental(mode, tree, countText, template, work, extras) {
  const count = Number(countText);
  await freshCopy(tree, count, template, work);
  await applyChanges(tree, count);
  const platform = await openBench(work);
  const { result: run, ms } = await timed(
    async () => {
      const ended = await (await platform.sync(REF, { mode })).result;
      if (ended.state !== 'completed') throw new Error(`The ${mode} sync ended ${ended.state}: ${JSON.stringify(ended.error)}`);
      return ended;
    },
    (ended) => ended.counters.entries,
  );
  const seen = await changesSeen(platform, tree, count);
  await platform.close();
  recordExtras(extras, { ms, run: runSummary(run), seen });
}

/** Waits for the watcher to have applied `written` puts and `deleted` deletes (30 s at most). */
function appliedAtLeast(watcher, want) {
  const totals = { written: 0, deleted: 0, batches: 0, errors: 0 };
  const reached = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The watch applied ${JSON.stringify(totals)} in 30 s; wanted ${JSON.stringify(want)}.`)), 30_000);
    watcher.on('applied', (outcome) => {
      totals.written += outcome.written;
      totals.deleted += outcome.deleted;
      totals.errors += outcome.errors;
      totals.batches += 1;
      if (totals.written >= want.written && totals.deleted >= want.deleted) {
        clearTimeout(timer);
        resolve(totals);
      }
    });
    watcher.on('failed', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  return reached;
}

const CASES = {
  /** A first crawl into a new data directory, which stays as the template of the later sections. */
  async crawl(tree, dataDir, extras) {
    await rm(dataDir, { recursive: true, force: true });
    const opened = performance.now();
    const platform = await openBench(dataDir);
    await platform.networks.init(REF.network);
    await platform.networks.addHost({ network: REF.network, slug: REF.host, kind: 'fs', config: { root: tree } });
    const openMs = performance.now() - opened;
    const { result: run, ms } = await timed(
      async () => {
        const ended = await (await platform.sync(REF)).result;
        if (ended.state !== 'completed') throw new Error(`The crawl ended ${ended.state}: ${JSON.stringify(ended.error)}`);
        return ended;
      },
      (ended) => ended.counters.entries,
    );
    await platform.close();
    recordExtras(extras, { ms, openMs, run: runSummary(run), contentBytes: run.counters.contentBytes, dbBytes: await databaseBytes(join(dataDir, 'inseam.db')) });
  },
  async floor(tree, dbPath, extras) {
    const { result, ms } = await timed(() => buildFloorIndex(tree, dbPath), (built) => built.files);
    recordExtras(extras, { ms, contentBytes: result.bytes, dbBytes: await databaseBytes(dbPath) });
  },
  /** Node start-up plus importing the platform, with no work: what every Node case pays. */
  async start() {
    await import('inseam/platform');
    await childCase(async () => 0);
  },
  async since(tree, count, template, work, extras) {
    await incremental('incremental', tree, count, template, work, extras);
  },
  async rescan(tree, count, template, work, extras) {
    await incremental('full', tree, count, template, work, extras);
  },
  /** The listing an incremental sync makes: the host's list() with the same `since`, to the end. */
  async listing(tree, countText, template, _work, extras) {
    const count = Number(countText);
    await restoreTree(tree, count);
    await applyChanges(tree, count);
    // Only reads the catalog (the watermark), so the template itself serves.
    const platform = await openBench(template);
    const state = await platform.store.catalog.syncState(await platform.store.catalog.resolveHost(REF));
    // As the crawler turns the watermark into `since` (its default overlapMs, 1 s).
    const since = new Date(Date.parse(state.watermark) - 1000).toISOString();
    const { connector } = await hostTarget(platform);
    const { result, ms } = await timed(
      async () => {
        let entries = 0;
        let pages = 0;
        let cursor;
        do {
          const page = await connector.list({ since, ...(cursor === undefined ? {} : { cursor }) });
          entries += page.entries.length;
          pages += 1;
          cursor = page.cursor;
        } while (cursor !== undefined);
        return { entries, pages };
      },
      (listed) => listed.entries,
    );
    await platform.close();
    recordExtras(extras, { ms, listed: result });
  },
  /** The names-only listing the incremental sync diffs: the host's names() to the end. */
  async names(tree, countText, template, _work, extras) {
    const count = Number(countText);
    await restoreTree(tree, count);
    await applyChanges(tree, count);
    const platform = await openBench(template);
    const { connector } = await hostTarget(platform);
    const { result, ms } = await timed(
      async () => {
        let paths = 0;
        let pages = 0;
        let cursor;
        do {
          const page = await connector.names(cursor === undefined ? {} : { cursor });
          paths += page.paths.length;
          pages += 1;
          cursor = page.cursor;
        } while (cursor !== undefined);
        return { entries: paths, pages };
      },
      (listed) => listed.entries,
    );
    await platform.close();
    recordExtras(extras, { ms, listed: result });
  },
  /** The baseline: a bare Node walk of the tree's names, readdir with file types, no stat, nothing sorted. */
  async 'readdir-walk'(tree, countText, _template, _work, extras) {
    const count = Number(countText);
    await restoreTree(tree, count);
    await applyChanges(tree, count);
    const { result, ms } = await timed(
      async () => {
        let files = 0;
        const walk = async (dir) => {
          for await (const entry of await opendir(dir)) {
            if (entry.isDirectory()) await walk(join(dir, entry.name));
            else if (entry.isFile()) files += 1;
          }
        };
        await walk(tree);
        return { entries: files, pages: 1 };
      },
      (listed) => listed.entries,
    );
    recordExtras(extras, { ms, listed: result });
  },
  /** The 10 changes as the watch reports them, applied through the crawler directly. */
  async events(tree, countText, template, work, extras) {
    const count = Number(countText);
    await freshCopy(tree, count, template, work);
    const events = await applyChanges(tree, count);
    const platform = await openBench(work);
    const target = await hostTarget(platform);
    const { result, ms } = await timed(
      () => platform.crawler.applyEvents(target, events),
      (outcome) => outcome.written + outcome.deleted,
    );
    const seen = await changesSeen(platform, tree, count);
    await platform.close();
    recordExtras(extras, { ms, outcome: { ...result, rescan: result.rescan !== null }, seen });
  },
  /** The watch end to end: the files change, inotify reports them, the crawler applies them. */
  async watch(tree, countText, template, work, extras) {
    const count = Number(countText);
    await freshCopy(tree, count, template, work);
    const platform = await openBench(work);
    const target = await hostTarget(platform);
    const watchStarted = performance.now();
    const watcher = await platform.crawler.watch(target);
    const setupMs = performance.now() - watchStarted;
    const plan = changePlan(count);
    const applied = appliedAtLeast(watcher, { written: plan.modified.length + plan.added.length + plan.renamed.length, deleted: plan.deleted.length + plan.renamed.length });
    const { result, ms } = await timed(
      async () => {
        await applyChanges(tree, count);
        return applied;
      },
      (totals) => totals.written + totals.deleted,
    );
    await watcher.stop();
    const seen = await changesSeen(platform, tree, count);
    await platform.close();
    recordExtras(extras, { ms, setupMs, outcome: result, seen });
  },
  async search(dataDir, countText, extras) {
    const queries = searchQueries(Number(countText));
    const platform = await openBench(dataDir);
    const run = (query) => platform.search.search(query.text, { network: REF.network, limit: SEARCH_LIMIT }).then((page) => page.hits.length);
    await searchCase(queries, run, extras);
    await platform.close();
  },
  async 'search-floor'(dbPath, countText, extras) {
    const queries = searchQueries(Number(countText));
    const floor = await openFloorIndex(dbPath, SEARCH_LIMIT);
    await searchCase(queries, async (query) => floor.search(query.text).length, extras);
    floor.close();
  },
};

/** One untimed pass over the queries (caches, statements), then the timed pass, query by query. */
async function searchCase(queries, run, extras) {
  for (const query of queries) await run(query);
  const latencies = [];
  const { ms } = await timed(
    async () => {
      let hits = 0;
      for (const query of queries) {
        const started = performance.now();
        hits += await run(query);
        latencies.push(performance.now() - started);
      }
      return hits;
    },
    (hits) => hits,
  );
  recordExtras(extras, { ms, latencies });
}

// ---- the parent ----

const format = {
  count: (n) => n.toLocaleString('en-US'),
  ms: (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 10 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(0)} µs`),
  mib: (bytes) => `${(bytes / MiB).toFixed(0)} MiB`,
  ratio: (a, b) => `${(a / b).toFixed(2)}×`,
};

function markdown(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

/** Where a size's data lives: the crawled data directory (the template), the floor's database, scratch copies, side files. */
function placesFor(size) {
  const root = join(benchRoot, 'catalog');
  return {
    template: join(root, `platform-${size}`),
    floorDb: join(root, `floor-${size}.db`),
    work: join(root, `copy-${size}`),
    extras: (id) => join(root, 'extras', `${id}-${size}.jsonl`),
  };
}

async function withExtras(cases, places) {
  for (const definition of cases) if (definition.extrasId !== undefined) await resetExtras(places.extras(definition.extrasId));
  return cases;
}

function caseWithExtras(name, id, args, places, options = {}) {
  return { ...nodeCase(name, script, id, [...args, places.extras(id)], options), extrasId: id };
}

async function extrasOf(definition, places) {
  return definition.extrasId === undefined ? [] : roundExtras(places.extras(definition.extrasId));
}

async function firstCrawl(size, tree, rounds) {
  const places = placesFor(size);
  const files = size + 1;
  const rcloneEnv = withoutCaBundle();
  rcloneEnv.RCLONE_CONFIG = '/dev/null';
  const cases = await withExtras(
    [
      caseWithExtras('inseam platform.sync(): first crawl', 'crawl', [tree, places.template], places, { expect: files }),
      caseWithExtras('Node sync walk + read + bare FTS5 insert (floor)', 'floor', [tree, places.floorDb], places, { expect: files, short: 'floor' }),
      commandCase('find -type f -exec cat (list + read)', 'sh', ['-c', 'find "$1" -type f -exec cat {} + > /dev/null', 'sh', tree], { count: files, short: 'find+cat' }),
      commandCase('rclone cat (list + read)', 'rclone', ['cat', tree], { env: rcloneEnv, count: files, short: 'rclone cat' }),
      nodeCase('Node start + import only', script, 'start', []),
    ],
    places,
  );
  const label = `first crawl, ${format.count(size)} files`;
  const rows = await runCases(cases, { rounds, onProgress: progress(label) });
  const extras = {};
  for (const definition of cases) extras[definition.name] = await extrasOf(definition, places);
  const [crawl, floor] = [cases[0].name, cases[1].name];
  console.log(`\n### ${label} (${tree})\n`);
  console.log(table(rows, { baselines: [floor, cases[2].name, cases[3].name], inProcessBaseline: floor }));
  const throughput = [crawl, floor].map((name) => {
    const row = rows.find((r) => r.name === name);
    const last = extras[name].at(-1);
    const seconds = row.workMs / 1000;
    return [name, format.ms(row.workMs), `${format.count(Math.round(row.count / seconds))} /s`, `${(last.contentBytes / MiB / seconds).toFixed(1)} MiB/s`, format.mib(last.contentBytes), format.mib(last.dbBytes), `${row.maxRssMiB.toFixed(0)} MiB`];
  });
  console.log('');
  console.log(markdown(['case', 'in-process', 'entries/s', 'content/s', 'content', 'SQLite file', 'peak RSS'], throughput));
  const openMs = median(extras[crawl].map((e) => e.openMs));
  console.log(`\nplatform open + network init + addHost (not in the crawl's in-process time): ${format.ms(openMs)}`);
  return { size, rows, extras, crawlMs: rows.find((r) => r.name === crawl).workMs };
}

async function afterTenChanges(size, tree, rounds, crawlMs) {
  const places = placesFor(size);
  const args = [tree, String(size), places.template, places.work];
  const cases = await withExtras(
    [
      caseWithExtras('incremental sync (names diff + since the watermark)', 'since', args, places),
      caseWithExtras('  its names-only listing alone: host names() to the end', 'names', args, places),
      caseWithExtras('  its since listing alone: host list({ since }) to the end', 'listing', args, places),
      caseWithExtras('bare Node readdir walk, file types, no stat (names-only floor)', 'readdir-walk', args, places, { short: 'readdir' }),
      commandCase("find -type f -printf '%P\\n' (names only)", 'sh', ['-c', 'find "$1" -type f -printf \'%P\\n\' > /dev/null', 'sh', tree], { short: 'find' }),
      caseWithExtras('full rescan (mode "full")', 'rescan', args, places),
      caseWithExtras('10 change events through crawler.applyEvents()', 'events', args, places),
      caseWithExtras('watch: write the files → inotify → applied', 'watch', args, places),
    ],
    places,
  );
  const label = `10 changes, ${format.count(size)} files`;
  const rows = await runCases(cases, { rounds, onProgress: progress(label) });
  const lines = [];
  const raw = [];
  const extras = {};
  const medians = {};
  for (const definition of cases) {
    const row = rows.find((r) => r.name === definition.name);
    const runs = await extrasOf(definition, places);
    extras[definition.name] = runs;
    // A command case has no in-process time: its wall time (spawn to exit) stands in.
    const times = runs.length > 0 ? runs.map((e) => e.ms) : [row.wallMs];
    medians[definition.extrasId ?? 'find'] = median(times);
    const last = runs.at(-1) ?? {};
    let work = '';
    if (last.run !== undefined) {
      const c = last.run.counters;
      work = `pages ${format.count(c.pages)}; ${format.count(c.entries)} written, ${format.count(c.indexed)} read, ${format.count(c.deleted)} deleted, ${format.count(c.moved)} moved`;
    } else if (last.listed !== undefined) {
      work = `pages ${format.count(last.listed.pages)}; ${format.count(last.listed.entries)} listed`;
    } else if (last.outcome !== undefined) {
      work = `${format.count(last.outcome.written)} written, ${format.count(last.outcome.deleted)} deleted${last.setupMs === undefined ? '' : `; watch set-up ${format.ms(last.setupMs)}`}`;
    } else {
      work = 'wall time, spawn to exit';
    }
    raw.push(median(times));
    lines.push([definition.name.trim(), format.ms(median(times)), `${format.ms(Math.min(...times))}–${format.ms(Math.max(...times))}`, `${row.maxRssMiB.toFixed(0)} MiB`, work, last.seen === undefined ? '—' : `${last.seen}/10`, format.ratio(median(times), crawlMs)]);
  }
  lines.forEach((line, index) => line.push(format.ratio(raw[index], medians['readdir-walk'])));
  console.log(`\n### ${label}: 3 modified, 2 added, 3 deleted, 2 renamed\n`);
  console.log(markdown(['case', 'in-process (median)', 'in-process min–max', 'peak RSS', 'work (from the run\'s counters)', 'changes in the catalog', '÷ first crawl', '÷ bare readdir walk'], lines));
  console.log(
    `\nincremental sync ÷ bare readdir walk: ${format.ratio(medians.since, medians['readdir-walk'])}; ÷ find -printf (its wall time): ${format.ratio(medians.since, medians.find)}; host names() ÷ bare readdir walk: ${format.ratio(medians.names, medians['readdir-walk'])}`,
  );
  return { size, rows, extras };
}

async function search(size, rounds) {
  const places = placesFor(size);
  const cases = await withExtras(
    [
      caseWithExtras('inseam platform.search.search()', 'search', [places.template, String(size)], places, { agree: 'hits' }),
      caseWithExtras('bare FTS5 MATCH, same bm25 + snippet (floor)', 'search-floor', [places.floorDb, String(size)], places, { agree: 'hits', short: 'floor' }),
    ],
    places,
  );
  const label = `search, ${format.count(size)} documents`;
  const rows = await runCases(cases, { rounds, onProgress: progress(label) });
  const queries = searchQueries(size);
  const stats = {};
  for (const definition of cases) {
    const runs = await extrasOf(definition, places);
    const summarize = (pick) => {
      const perRound = runs.map((run) => pick(run.latencies));
      return { p50: median(perRound.map((l) => quantile(l, 0.5))), p95: median(perRound.map((l) => quantile(l, 0.95))), max: median(perRound.map((l) => Math.max(...l))) };
    };
    const kinds = {};
    for (const kind of new Set(queries.map((q) => q.kind))) kinds[kind] = summarize((l) => l.filter((_, i) => queries[i].kind === kind));
    stats[definition.name] = { all: summarize((l) => l), kinds, totalMs: median(runs.map((run) => run.ms)) };
  }
  const [platform, floor] = cases.map((c) => c.name);
  const lines = cases.map(({ name }) => {
    const row = rows.find((r) => r.name === name);
    const { all, totalMs } = stats[name];
    const base = stats[floor].all;
    return [name, format.ms(all.p50), format.ms(all.p95), format.ms(all.max), format.ms(totalMs), `${row.maxRssMiB.toFixed(0)} MiB`, format.count(row.count), format.ratio(all.p50, base.p50), format.ratio(all.p95, base.p95)];
  });
  console.log(`\n### ${label}: ${queries.length} queries, top ${SEARCH_LIMIT}\n`);
  console.log(markdown(['case', 'p50', 'p95', 'max', `all ${queries.length} queries`, 'peak RSS', 'hits', 'p50 ÷ floor', 'p95 ÷ floor'], lines));
  const kindLines = Object.keys(stats[platform].kinds).map((kind) => {
    const a = stats[platform].kinds[kind];
    const b = stats[floor].kinds[kind];
    return [kind, String(queries.filter((q) => q.kind === kind).length), format.ms(a.p50), format.ms(a.p95), format.ms(a.max), format.ms(b.p50), format.ms(b.p95), format.ms(b.max)];
  });
  console.log('');
  console.log(markdown(['kind', 'queries', 'platform p50', 'p95', 'max', 'floor p50', 'p95', 'max'], kindLines));
  return { size, rows, stats };
}

async function searchOnly(count, rounds, results) {
  const places = placesFor(count);
  const kept = (await fileBytes(join(places.template, 'inseam.db'))) > 0 && (await fileBytes(places.floorDb)) > 0;
  console.log(`crawl (search only) — ${results.machine.date}, ${results.machine.cpu}, ${results.machine.node}, load ${results.machine.loadAverageAtStart}`);
  if (!kept) {
    const tree = await manyTextFiles(count);
    await restoreTree(tree, count);
    results.firstCrawl.push(await firstCrawl(count, tree, 1));
  }
  results.search = await search(count, rounds);
  console.log(`raw results: ${await saveResults('crawl', results)}`);
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 3);
  const count = wholeNumberOption(argv, '--count', 100_000);
  const small = wholeNumberOption(argv, '--small', 10_000);
  if (Math.min(count, small) < 1000) throw new Error('--count and --small take at least 1,000 files (the changes are spread over the tree).');
  ensureBuiltEntries('packages/inseam', ['platform/index.js', 'store/sqlite/fts-query.js']);
  const machine = machineFacts();
  const sizes = [...new Set([small, count])].sort((a, b) => a - b);
  const trees = new Map();
  for (const size of sizes) {
    const tree = await manyTextFiles(size);
    // A run stopped halfway may have left its changes.
    await restoreTree(tree, size);
    trees.set(size, tree);
  }
  const results = { benchmark: 'crawl', machine, rounds, firstCrawl: [], changes: [], search: null };
  if (argv.includes('--search-only')) return searchOnly(count, rounds, results);
  console.log(`crawl — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}`);
  const busy = busyWarning();
  if (busy !== '') console.log(busy);
  try {
    for (const size of sizes) results.firstCrawl.push(await firstCrawl(size, trees.get(size), rounds));
    for (const size of sizes) {
      const crawlMs = results.firstCrawl.find((r) => r.size === size).crawlMs;
      results.changes.push(await afterTenChanges(size, trees.get(size), rounds, crawlMs));
    }
    results.search = await search(count, rounds);
  } finally {
    for (const [size, tree] of trees) await restoreTree(tree, size);
    for (const size of sizes) await rm(placesFor(size).work, { recursive: true, force: true });
  }
  results.machine.loadAverageAtEnd = (await import('node:os')).loadavg().map((v) => v.toFixed(2)).join(' ');
  console.log(`\nload average at the end: ${results.machine.loadAverageAtEnd}`);
  console.log(`raw results: ${await saveResults('crawl', results)}`);
}

await runScript(CASES, main);
