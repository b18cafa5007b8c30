/**
 * The catalog's search statements on PostgreSQL (the ranking is described in catalog.ts).
 *
 * Scoring visits every match whichever way the statement goes; what ranking before the join saves
 * is looking up every match's entry, host and network, which a common word's tens of thousands of
 * matches pay for nothing when the page keeps twenty. So the first statement ranks the vectors
 * alone, keeps the top `depth`, and only then joins those to their entries and applies the
 * filters; when the filters leave too few of them for the page (a caller who reads a few hosts of
 * a large network, a narrow scope) and the ranking was cut short, the second statement filters
 * before it ranks. Both answer the same rows: the order is (score, entry id) throughout, so the top
 * `depth` filtered are the top of everything filtered.
 *
 * The corpus figures (documents and words, catalog_search_stats) are read inside the statement,
 * not by a round trip of their own.
 *
 * Parameters: $1 the match (tsquery), $2 host ids or null, $3 network slug or null, $4 limit, $5
 * offset, $6 whole-body bytes, $7 the excerpt's anchor word, $8 excerpt characters, $9 the rank
 * weights, $10 each term's tsquery, $11 whether there is a single term (whose weight is not
 * counted), $12 the excerpt's lead; the scopes' parameters from $13 (SEARCH_SCOPE_FIRST_PARAM);
 * the ranked-first statement's depth after them.
 */

export const SEARCH_SCOPE_FIRST_PARAM = 13;

// Each term's weight is counted once, over the whole index as FTS5 counts it, up to the half of the
// documents past which its weight is nil anyway.
const RANKING = `stats AS MATERIALIZED (
   SELECT coalesce(sum(docs), 0)::float8 AS docs,
          greatest(coalesce(sum(words), 0)::float8 / greatest(coalesce(sum(docs), 0)::float8, 1), 1) AS avg_words
   FROM catalog_search_stats
 ),
 terms AS MATERIALIZED (
   SELECT t.term, greatest(ln((st.docs - c.hits + 0.5) / (c.hits + 0.5)), 1e-6) AS idf
   FROM stats st
   CROSS JOIN unnest($10::tsquery[]) AS t(term)
   CROSS JOIN LATERAL (
     SELECT count(*) AS hits
     FROM (SELECT FROM catalog_search WHERE search @@ t.term LIMIT (SELECT CASE WHEN $11::boolean THEN 0 ELSE floor(docs / 2)::bigint + 1 END FROM stats)) m
   ) c
 )`;

/** A match's score, lower is better, for the catalog_search row aliased `row`. */
function score(row: string): string {
  return `-(SELECT sum(t.idf * f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * ${row}.words / st.avg_words)))
     FROM terms t CROSS JOIN LATERAL (SELECT 2 * ts_rank_cd($9::real[], ${row}.search, t.term, 0) AS tf) f)`;
}

const FILTERS = `($2::bigint[] IS NULL OR e.host_id = ANY($2::bigint[])) AND ($3::text IS NULL OR n.slug = $3)`;

const ENTRY_JOINS = `JOIN catalog_entries e ON e.id = m.entry_id
   JOIN hosts h ON h.id = e.host_id
   JOIN networks n ON n.id = h.network_id`;

// The page's rows with their excerpt: a small body whole, a large one around the anchor word.
const EXCERPT = `CASE WHEN w.whole THEN t.body ELSE substr(t.body, w.start, $8) END AS excerpt,
        w.whole OR w.start - 1 + $8 >= length(t.body) AS at_end, w.start = 1 AS at_start`;
const EXCERPT_WINDOW = `CROSS JOIN LATERAL (SELECT octet_length(t.body) <= $6 AS whole) b
   CROSS JOIN LATERAL (SELECT b.whole, CASE WHEN b.whole THEN 1 ELSE greatest(1, strpos(lower(t.body), $7) - $12) END AS start) w`;

/**
 * Ranks the vectors alone, then joins and filters the top `depth` (its parameter `$<depthParam>`).
 * Every row carries `ranked`, how many the ranking kept; one row with a null id stands for an
 * empty page, so that count is there either way.
 */
export function rankedFirstSql(scoped: string, depthParam: number): string {
  return `WITH ${RANKING},
 ranked AS MATERIALIZED (
   SELECT s.entry_id, ${score('s')} AS score
   FROM catalog_search s CROSS JOIN stats st
   WHERE s.search @@ $1::tsquery
   ORDER BY score, s.entry_id LIMIT $${depthParam}
 ),
 page AS MATERIALIZED (
   SELECT m.entry_id, m.score, n.slug AS network, h.slug AS host, e.path, e.size, e.mtime, e.etag, e.mime
   FROM ranked m
   ${ENTRY_JOINS}
   WHERE ${FILTERS} ${scoped}
   ORDER BY m.score, m.entry_id LIMIT $4 OFFSET $5
 ),
 hits AS (
   SELECT p.entry_id AS id, p.network, p.host, p.path, p.size, p.mtime, p.etag, p.mime, p.score, ${EXCERPT}
   FROM page p
   JOIN catalog_text t ON t.entry_id = p.entry_id
   ${EXCERPT_WINDOW}
 )
 SELECT (SELECT count(*) FROM ranked)::int AS ranked, hits.*
 FROM (SELECT 1) one LEFT JOIN hits ON true
 ORDER BY hits.score, hits.id`;
}

/** Filters every match, then ranks what is left: for filters that keep few of the matches. */
export function joinedFirstSql(scoped: string): string {
  return `WITH ${RANKING},
 matched AS MATERIALIZED (
   SELECT m.entry_id, ${score('m')} AS score
   FROM catalog_search m CROSS JOIN stats st
   ${ENTRY_JOINS}
   WHERE m.search @@ $1::tsquery AND ${FILTERS} ${scoped}
 ),
 page AS (
   SELECT entry_id, score FROM matched ORDER BY score, entry_id LIMIT $4 OFFSET $5
 )
 SELECT p.entry_id AS id, n.slug AS network, h.slug AS host, e.path, e.size, e.mtime, e.etag, e.mime, p.score, ${EXCERPT}
 FROM page p
 JOIN catalog_entries e ON e.id = p.entry_id
 JOIN hosts h ON h.id = e.host_id
 JOIN networks n ON n.id = h.network_id
 JOIN catalog_text t ON t.entry_id = p.entry_id
 ${EXCERPT_WINDOW}
 ORDER BY p.score, p.entry_id`;
}
