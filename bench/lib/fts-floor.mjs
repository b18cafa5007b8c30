// The floor for "list + read + index" and for search: a bare better-sqlite3 FTS5 table defined
// exactly as the catalog's (columns, tokenizer, prefix indexes — read from the catalog's own
// migrations) with its pragmas (WAL, synchronous NORMAL), filled by a synchronous
// walk that reads every file and inserts path + text in transactions of 1,000 — no entry table,
// no change detection, no checkpoints. Searched with the MATCH expression and the bm25 weights
// and snippet() call the catalog uses, so the two differ only by what the platform adds.
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { repoRoot } from './measure.mjs';

const BATCH = 1000;

/** The catalog's own query translation (words, "phrases", prefix*), from the built package. */
async function catalogFtsQuery() {
  const module = await import(join(repoRoot, 'packages/inseam/dist/store/sqlite/fts-query.js'));
  return module.ftsQuery;
}

/** The catalog's `CREATE VIRTUAL TABLE catalog_content …`, as its migrations leave it, for a table named `content`. */
async function catalogContentDefinition() {
  const { migrate } = await import(join(repoRoot, 'packages/inseam/dist/store/sqlite/migrations.js'));
  const { STORE_SCHEMA } = await import(join(repoRoot, 'packages/inseam/dist/store/sqlite/schema.js'));
  const scratch = new Database(':memory:');
  try {
    migrate(scratch, STORE_SCHEMA.filter(({ component }) => component === 'network' || component === 'catalog'));
    const { sql } = scratch.prepare("SELECT sql FROM sqlite_schema WHERE name = 'catalog_content'").get();
    return sql.replace(/^CREATE VIRTUAL TABLE "?catalog_content"?/i, 'CREATE VIRTUAL TABLE content');
  } finally {
    scratch.close();
  }
}

/** Creates the table at `dbPath` (replacing any file there) and indexes `tree`; returns { files, bytes }. */
export async function buildFloorIndex(tree, dbPath) {
  await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${dbPath}${suffix}`, { force: true })));
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(await catalogContentDefinition());
  const insert = db.prepare('INSERT INTO content (path, body) VALUES (?, ?)');
  const insertBatch = db.transaction((rows) => {
    for (const [path, body] of rows) insert.run(path, body);
  });
  let files = 0;
  let bytes = 0;
  let rows = [];
  const walk = (dir, relative) => {
    for (const dirent of readdirSync(dir, { withFileTypes: true })) {
      const path = relative === '' ? dirent.name : `${relative}/${dirent.name}`;
      if (dirent.isDirectory()) {
        walk(join(dir, dirent.name), path);
        continue;
      }
      const body = readFileSync(join(dir, dirent.name), 'utf8');
      rows.push([path, body]);
      files += 1;
      bytes += Buffer.byteLength(body);
      if (rows.length === BATCH) {
        insertBatch(rows);
        rows = [];
      }
    }
  };
  walk(tree, '');
  insertBatch(rows);
  db.close();
  return { files, bytes };
}

/** Opens a table `buildFloorIndex` made; `search(text)` answers the top `limit` hits as the catalog ranks them. */
export async function openFloorIndex(dbPath, limit) {
  const ftsQuery = await catalogFtsQuery();
  const db = new Database(dbPath, { readonly: true });
  const statement = db.prepare(
    `SELECT rowid, path, bm25(content, 2.0, 1.0) AS score, snippet(content, -1, char(2), char(3), '…', 16) AS snippet
     FROM content WHERE content MATCH ? ORDER BY score LIMIT ?`,
  );
  return {
    search: (text) => statement.all(ftsQuery(text), limit),
    close: () => db.close(),
  };
}
