import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import { cachedPrepare } from './database.js';
import { SqliteStore } from './store.js';

describe('cachedPrepare', () => {
  it('compiles each SQL text once per connection and keeps statements of two connections apart', () => {
    const one = new Database(':memory:');
    const two = new Database(':memory:');
    try {
      const prepareOne = cachedPrepare(one);
      const first = prepareOne<[number], { n: number }>('SELECT ? + 1 AS n');
      expect(first.get(1)).toEqual({ n: 2 });
      // A second caller on the same connection shares the cache.
      expect(cachedPrepare(one)('SELECT ? + 1 AS n')).toBe(first);
      expect(prepareOne('SELECT ? + 2 AS n')).not.toBe(first);
      const other = cachedPrepare(two)('SELECT ? + 1 AS n');
      expect(other).not.toBe(first);
      expect(other.database).toBe(two);
    } finally {
      one.close();
      two.close();
    }
  });

  it('keeps the 256 most recently used statements, dropping the least recently used', () => {
    const db = new Database(':memory:');
    try {
      const prepare = cachedPrepare(db);
      const kept = prepare('SELECT 0');
      const dropped = prepare('SELECT 1');
      for (let index = 2; index < 257; index += 1) {
        prepare(`SELECT ${index}`);
        // Using "SELECT 0" keeps it the most recent, so "SELECT 1" is the oldest when the cache overflows.
        prepare('SELECT 0');
      }
      expect(prepare('SELECT 0')).toBe(kept);
      expect(prepare('SELECT 1')).not.toBe(dropped);
    } finally {
      db.close();
    }
  });

  it('sees rows another connection committed, and answers unavailable once its connection is closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inseam-db-'));
    const store = SqliteStore.open({ path: join(dir, 'inseam.db') });
    const writer = SqliteStore.open({ path: join(dir, 'inseam.db') });
    try {
      await store.networks.create({ slug: 'home' });
      expect((await store.networks.get('home'))?.label).toBe('home');
      await writer.networks.update('home', { label: 'Home' });
      expect((await store.networks.get('home'))?.label).toBe('Home');
    } finally {
      await writer.close();
    }
    await store.close();
    let error: unknown;
    try {
      await store.networks.get('home');
    } catch (caught) {
      error = caught;
    }
    expect(hasErrorCode(error, 'unavailable')).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });
});
