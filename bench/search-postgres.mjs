// search-postgres: search on the PostgreSQL store through the real platform (openPlatform on a
// private PostgreSQL cluster, an `fs` host of N text files crawled into it, platform.search),
// against the bare floor of the same ranking: the catalog's own tsvectors copied into a table of
// (id, words, vector) with the same GIN index, searched with the same tsquery, the same
// ts_rank_cd-based bm25 and the same excerpt, and no entries, hosts or networks to join.
//
//   node bench/search-postgres.mjs [--rounds N] [--count N]
//
// Both run in this one process on the same server and connection pool size, query by query,
// alternating which goes first; each round is an untimed pass and a timed one over the 210
// queries of bench/lib/text-corpus.mjs (those the SQLite search bench in crawl.mjs asks).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { quantile } from './lib/case-extras.mjs';
import { benchRoot, manyTextFiles } from './lib/fixtures.mjs';
import { ensureBuiltEntries, machineFacts, median, repoRoot, roundsFromArgv, saveResults, wholeNumberOption } from './lib/measure.mjs';
import { databaseUrl, startBenchPostgres } from './lib/postgres.mjs';
import { searchQueries } from './lib/text-corpus.mjs';

const SEARCH_LIMIT = 20;
const MASTER_KEY = randomBytes(32).toString('base64');

/** The catalog's query translation and snippet, from the built package, so the floor differs only by what the platform adds. */
async function catalogText() {
  const { searchTerms } = await import(join(repoRoot, 'packages/inseam/dist/store/sqlite/fts-query.js'));
  const text = await import(join(repoRoot, 'packages/inseam/dist/store/postgres/search-text.js'));
  return { searchTerms, ...text };
}

/**
 * The floor's tables, copied from the catalog's: the same columns with their storage and
 * compression, the same table options (the vectors stay in the table's pages), the same indexes
 * (the GIN index with its options), the same vectors, word counts and bodies.
 */
async function buildFloor(client) {
  await client.query('DROP TABLE IF EXISTS floor_search, floor_text');
  for (const [floor, catalog] of [['floor_search', 'catalog_search'], ['floor_text', 'catalog_text']]) {
    await client.query(`CREATE TABLE ${floor} (LIKE ${catalog} INCLUDING STORAGE INCLUDING COMPRESSION INCLUDING INDEXES)`);
    const { rows } = await client.query('SELECT reloptions FROM pg_class WHERE relname = $1', [catalog]);
    if (rows[0]?.reloptions) await client.query(`ALTER TABLE ${floor} SET (${rows[0].reloptions.join(', ')})`);
  }
  await client.query('INSERT INTO floor_search SELECT entry_id, words, search FROM catalog_search ORDER BY entry_id');
  await client.query('INSERT INTO floor_text SELECT entry_id, body FROM catalog_text ORDER BY entry_id');
  await client.query('VACUUM ANALYZE floor_search');
  await client.query('VACUUM ANALYZE floor_text');
}

// The catalog's ranking (store/postgres/catalog.ts) over the bare table: each term's idf over the
// index, each match's score, the top page, then its excerpt.
const FLOOR_SQL = `WITH terms AS MATERIALIZED (
   SELECT t.term, greatest(ln(($5::float8 - c.hits + 0.5) / (c.hits + 0.5)), 1e-6) AS idf
   FROM unnest($4::tsquery[]) AS t(term)
   CROSS JOIN LATERAL (SELECT count(*) AS hits FROM (SELECT FROM floor_search WHERE search @@ t.term LIMIT $6) m) c
 ),
 hits AS (
   SELECT s.entry_id AS id,
          -(SELECT sum(t.idf * f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * s.words / $7::float8)))
            FROM terms t CROSS JOIN LATERAL (SELECT 2 * ts_rank_cd($3::real[], s.search, t.term, 0) AS tf) f) AS score
   FROM floor_search s WHERE s.search @@ $1::tsquery
   ORDER BY score, s.entry_id LIMIT $2
 )
 SELECT hits.id, hits.score, w.start = 1 AS at_start,
        CASE WHEN w.whole THEN t.body ELSE substr(t.body, w.start, $10) END AS excerpt,
        w.whole OR w.start - 1 + $10 >= length(t.body) AS at_end
 FROM hits JOIN floor_text t ON t.entry_id = hits.id
 CROSS JOIN LATERAL (SELECT octet_length(t.body) <= $8 AS whole) s
 CROSS JOIN LATERAL (SELECT s.whole, CASE WHEN s.whole THEN 1 ELSE greatest(1, strpos(lower(t.body), $9) - $11) END AS start) w
 ORDER BY hits.score, hits.id`;

/** The floor's search: the catalog's constants for excerpts and weights, so both sides cut the same text. */
async function floorSearch(pool, text) {
  const { WHOLE_BODY_BYTES, EXCERPT_CHARS, EXCERPT_LEAD, RANK_WEIGHTS, anchorOf } = text;
  const corpus = (await pool.query('SELECT count(*)::float8 AS docs, coalesce(sum(words), 0)::float8 AS words FROM floor_search')).rows[0];
  return async (query) => {
    const terms = text.termWords(text.searchTerms(query));
    const match = text.tsqueryLiteral(terms);
    if (match === null) return 0;
    const { rows } = await pool.query(FLOOR_SQL, [
      match,
      SEARCH_LIMIT,
      RANK_WEIGHTS,
      terms.map((term) => text.tsqueryLiteral([term])),
      corpus.docs,
      terms.length === 1 ? 0 : Math.floor(corpus.docs / 2) + 1,
      corpus.docs === 0 ? 1 : Math.max(corpus.words / corpus.docs, 1),
      WHOLE_BODY_BYTES,
      anchorOf(terms),
      EXCERPT_CHARS,
      EXCERPT_LEAD,
    ]);
    for (const row of rows) text.hitSnippet('', { text: row.excerpt, atStart: row.at_start, atEnd: row.at_end }, terms);
    return rows.length;
  };
}

async function timedQuery(run, text) {
  const started = performance.now();
  let hits;
  try {
    hits = await run(text);
  } catch (error) {
    // A refused query (a one-letter prefix) is an answer too; both sides refuse the same ones.
    hits = `refused ${error.code ?? error.message}`;
  }
  return { ms: performance.now() - started, hits };
}

function summary(latencies) {
  return { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), max: Math.max(...latencies) };
}

const ms = (value) => (value >= 10 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`);
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

function markdown(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 3);
  const count = wholeNumberOption(argv, '--count', 100_000);
  ensureBuiltEntries('packages/inseam', ['platform/index.js', 'store/postgres/search-text.js']);
  const machine = machineFacts();
  const tree = await manyTextFiles(count);
  const server = await startBenchPostgres();
  const dataDir = await mkdtemp(join(benchRoot, 'search-postgres-'));
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('CREATE DATABASE inseam');
  await admin.end();
  const storeUrl = databaseUrl(server.url, 'inseam');
  const { openPlatform } = await import('inseam/platform');
  const platform = await openPlatform({ dataDir, storeUrl, env: { INSEAM_MASTER_KEY: MASTER_KEY } });
  const pool = new pg.Pool({ connectionString: storeUrl, max: 4 });
  try {
    console.log(`search-postgres — ${machine.date}, ${machine.cpu}, ${machine.node}, ${server.version}, load ${machine.loadAverageAtStart}`);
    await platform.networks.init('bench');
    await platform.networks.addHost({ network: 'bench', slug: 'files', kind: 'fs', config: { root: tree }, sync: { trigger: 'manual' } });
    const crawlStarted = performance.now();
    const crawled = await (await platform.sync({ network: 'bench', host: 'files' })).result;
    console.log(`crawl of ${count.toLocaleString('en-US')} documents into PostgreSQL: ${((performance.now() - crawlStarted) / 1000).toFixed(1)} s (${crawled.state})`);
    // Nothing else runs while the queries are timed: the crawl asked the semantic indexer to embed
    // what it catalogued, which is stopped here (keyword search reads none of it).
    await platform.vectors.close();
    const client = await pool.connect();
    try {
      await client.query('VACUUM ANALYZE');
      await buildFloor(client);
    } finally {
      client.release();
    }
    const text = await catalogText();
    const cases = {
      platform: (query) => platform.search.search(query, { network: 'bench', limit: SEARCH_LIMIT }).then((page) => page.hits.length),
      floor: await floorSearch(pool, text),
    };
    const queries = searchQueries(count);
    const latencies = { platform: [], floor: [] };
    for (let round = 0; round < rounds; round += 1) {
      const perRound = { platform: [], floor: [] };
      for (const timed of [false, true]) {
        for (const [index, query] of queries.entries()) {
          const order = (index + round) % 2 === 0 ? ['platform', 'floor'] : ['floor', 'platform'];
          const answers = {};
          for (const name of order) {
            const { ms: took, hits } = await timedQuery(cases[name], query.text);
            answers[name] = hits;
            if (timed) perRound[name].push(took);
          }
          if (answers.platform !== answers.floor) throw new Error(`"${query.text}": the platform answered ${answers.platform} hits, the floor ${answers.floor}`);
        }
      }
      for (const name of Object.keys(latencies)) latencies[name].push(perRound[name]);
      process.stderr.write(`round ${round + 1}/${rounds}\n`);
    }
    // Each statistic is the median over the rounds of that round's figure.
    const stat = (name, keep) => {
      const perRound = latencies[name].map((round) => summary(round.filter((_, index) => keep(queries[index]))));
      return { p50: median(perRound.map((s) => s.p50)), p95: median(perRound.map((s) => s.p95)), max: median(perRound.map((s) => s.max)) };
    };
    const all = { platform: stat('platform', () => true), floor: stat('floor', () => true) };
    console.log(`\n### search on PostgreSQL, ${count.toLocaleString('en-US')} documents: ${queries.length} queries, top ${SEARCH_LIMIT}\n`);
    console.log(
      markdown(
        ['case', 'p50', 'p95', 'max', 'p50 ÷ floor', 'p95 ÷ floor'],
        [
          ['inseam platform.search.search()', ms(all.platform.p50), ms(all.platform.p95), ms(all.platform.max), ratio(all.platform.p50, all.floor.p50), ratio(all.platform.p95, all.floor.p95)],
          ['bare tsvector + GIN, same ranking and excerpt (floor)', ms(all.floor.p50), ms(all.floor.p95), ms(all.floor.max), '1.00×', '1.00×'],
        ],
      ),
    );
    const kinds = [...new Set(queries.map((query) => query.kind))];
    const kindRows = kinds.map((kind) => {
      const a = stat('platform', (query) => query.kind === kind);
      const b = stat('floor', (query) => query.kind === kind);
      return [kind, String(queries.filter((query) => query.kind === kind).length), ms(a.p50), ms(a.p95), ms(b.p50), ms(b.p95), ratio(a.p95, b.p95)];
    });
    console.log('');
    console.log(markdown(['kind', 'queries', 'platform p50', 'p95', 'floor p50', 'p95', 'p95 ÷ floor'], kindRows));
    console.log(`raw results: ${await saveResults('search-postgres', { benchmark: 'search-postgres', machine: { ...machine, postgres: server.version }, rounds, count, all, latencies })}`);
  } finally {
    await pool.end();
    await platform.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
