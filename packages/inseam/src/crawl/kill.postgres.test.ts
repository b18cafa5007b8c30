/**
 * Crash safety on PostgreSQL: the kill test of kill.test.ts against a PostgreSQL store, one
 * database per scenario. Besides the same entries, content and run counters as one clean crawl,
 * the search rows must match the indexed text one for one and bm25's trigger-kept corpus
 * statistics must equal a recount: a kill between a write and its statistics would skew every
 * later score without a word.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import type { TestPostgres } from '../store/postgres/__fixtures__/test-postgres.js';
import { killAndResume } from './__fixtures__/kill-driver.js';
import type { CatalogSnapshot } from './__fixtures__/kill-driver.js';

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(() => server?.stop());

async function snapshot(url: string): Promise<CatalogSnapshot> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const entries = (
      await client.query(
        `SELECT path, size, mtime, etag, mime, native_hash, native_id, decision, dimensions, extra, envelope, content_state, content_key, content_bytes
         FROM catalog_entries ORDER BY path`,
      )
    ).rows;
    const content = (await client.query('SELECT e.path, t.body FROM catalog_text t JOIN catalog_entries e ON e.id = t.entry_id ORDER BY e.path')).rows;
    const orphans = await client.query(
      `SELECT (SELECT count(*) FROM catalog_text WHERE entry_id NOT IN (SELECT id FROM catalog_entries WHERE content_state = 'indexed'))::int AS text,
              (SELECT count(*) FROM catalog_search WHERE entry_id NOT IN (SELECT entry_id FROM catalog_text))::int AS search,
              (SELECT count(*) FROM catalog_text WHERE entry_id NOT IN (SELECT entry_id FROM catalog_search))::int AS unsearchable`,
    );
    expect(orphans.rows[0]).toEqual({ text: 0, search: 0, unsearchable: 0 });
    const stats = await client.query(
      `SELECT (SELECT sum(docs) FROM catalog_search_stats)::bigint AS kept_docs, (SELECT count(*) FROM catalog_search)::bigint AS docs,
              (SELECT sum(words) FROM catalog_search_stats)::bigint AS kept_words, (SELECT coalesce(sum(words), 0) FROM catalog_search)::bigint AS words`,
    );
    const { kept_docs, docs, kept_words, words } = stats.rows[0] as Record<string, string>;
    expect({ docs: kept_docs, words: kept_words }).toEqual({ docs, words });
    const runs = (
      await client.query(
        `SELECT mode, state, phase, cursor, watermark, entries, bytes, indexed, content_bytes, skipped, moved, deleted, errors, pages
         FROM crawl_runs WHERE mode = 'full' ORDER BY id`,
      )
    ).rows;
    return { entries, content, runs };
  } finally {
    await client.end();
  }
}

describe('a crawl on PostgreSQL killed with SIGKILL at random points', () => {
  it('resumes to a catalog identical to one clean crawl, with the search rows and their statistics intact', async () => {
    await killAndResume({ fresh: () => server.createDatabase(), snapshot }, 12);
  }, 240_000);
});
