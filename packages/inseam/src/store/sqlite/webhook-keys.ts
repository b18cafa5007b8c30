/** Hosts' webhook keys in SQLite: only the hash of each key is kept, one per host. */
import type { HostRef, WebhookKeyRecord, WebhookKeyStore } from '../types.js';
import { attempt, cachedPrepare, type SqliteDatabase } from './database.js';
import { missingHost } from './networks.js';

const HOST_ID = 'SELECT h.id FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = ? AND h.slug = ?';

interface KeyRow {
  readonly key_hash: string;
  readonly created_at: number;
}

export class SqliteWebhookKeyStore implements WebhookKeyStore {
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#prepare = cachedPrepare(db);
  }

  set(ref: HostRef, hash: string, now = Date.now()): Promise<WebhookKeyRecord> {
    return attempt('store the webhook key', () => {
      const changes = this.#prepare<[string, number, string, string]>(
        // "WHERE true": SQLite reads ON CONFLICT after a bare SELECT as a join's constraint.
        `INSERT INTO webhook_keys (host_id, key_hash, created_at) SELECT id, ?, ? FROM (${HOST_ID}) WHERE true
         ON CONFLICT (host_id) DO UPDATE SET key_hash = excluded.key_hash, created_at = excluded.created_at`,
      ).run(hash, now, ref.network, ref.host).changes;
      if (changes === 0) throw missingHost(ref);
      return { hash, createdAt: now };
    });
  }

  get(ref: HostRef): Promise<WebhookKeyRecord | null> {
    return attempt('read the webhook key', () => {
      const row = this.#prepare<[string, string], KeyRow>(`SELECT key_hash, created_at FROM webhook_keys WHERE host_id = (${HOST_ID})`).get(ref.network, ref.host);
      return row === undefined ? null : { hash: row.key_hash, createdAt: row.created_at };
    });
  }

  delete(ref: HostRef): Promise<boolean> {
    return attempt('delete the webhook key', () => this.#prepare(`DELETE FROM webhook_keys WHERE host_id = (${HOST_ID})`).run(ref.network, ref.host).changes > 0);
  }
}
