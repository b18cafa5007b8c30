/**
 * Crash safety on SQLite: crawler processes killed with SIGKILL at random points, again and again on
 * the same file, then resumed (the driver is __fixtures__/kill-driver.ts). The catalog must end
 * identical to one clean crawl's — the same entries, content index and run counters — in a
 * database that passes its integrity checks. kill.postgres.test.ts is the same on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { killAndResume } from './__fixtures__/kill-driver.js';
import type { CatalogSnapshot } from './__fixtures__/kill-driver.js';

const dir = mkdtempSync(join(tmpdir(), 'inseam-kill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The catalog's observable state: rows without ids, run stamps or times. */
function snapshot(db: string): CatalogSnapshot {
  const database = new Database(db);
  try {
    expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
    // FTS5's own check that the index matches its content.
    database.prepare("INSERT INTO catalog_content (catalog_content, rank) VALUES ('integrity-check', 1)").run();
    const entries = database
      .prepare(
        `SELECT path, size, mtime, etag, mime, native_hash, native_id, decision, dimensions, extra, envelope, content_state, content_key, content_bytes
         FROM catalog_entries ORDER BY path`,
      )
      .all();
    const content = database.prepare('SELECT e.path, c.path AS indexed_path, c.body FROM catalog_content c JOIN catalog_entries e ON e.id = c.rowid ORDER BY e.path').all();
    const orphans = database.prepare("SELECT count(*) AS n FROM catalog_content WHERE rowid NOT IN (SELECT id FROM catalog_entries WHERE content_state = 'indexed')").get() as { n: number };
    expect(orphans.n).toBe(0);
    const runs = database
      .prepare(
        `SELECT mode, state, phase, cursor, watermark, entries, bytes, indexed, content_bytes, skipped, moved, deleted, errors, pages
         FROM crawl_runs WHERE mode = 'full' ORDER BY id`,
      )
      .all();
    return { entries, content, runs };
  } finally {
    database.close();
  }
}

describe('a crawl killed with SIGKILL at random points', () => {
  it('resumes to a catalog identical to one clean crawl, whatever the page and batch sizes', async () => {
    await killAndResume({ fresh: async (name) => join(dir, `${name}.db`), snapshot: async (db) => snapshot(db) }, 24);
  }, 180_000);
});
