/** Hosts' webhook keys on PostgreSQL: only the hash of each key is kept, one per host. */
import { missingHost } from '../sqlite/networks.js';
import type { HostRef, WebhookKeyRecord, WebhookKeyStore } from '../types.js';
import { attempt, type Db } from './database.js';

const HOST_ID = 'SELECT h.id FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = $1 AND h.slug = $2';

export class PostgresWebhookKeyStore implements WebhookKeyStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  set(ref: HostRef, hash: string, now = Date.now()): Promise<WebhookKeyRecord> {
    return attempt('store the webhook key', async () => {
      const changes = await this.#db.run(
        `INSERT INTO webhook_keys (host_id, key_hash, created_at) SELECT id, $3, $4 FROM (${HOST_ID}) AS host
         ON CONFLICT (host_id) DO UPDATE SET key_hash = EXCLUDED.key_hash, created_at = EXCLUDED.created_at`,
        [ref.network, ref.host, hash, now],
      );
      if (changes === 0) throw missingHost(ref);
      return { hash, createdAt: now };
    });
  }

  get(ref: HostRef): Promise<WebhookKeyRecord | null> {
    return attempt('read the webhook key', async () => {
      const row = await this.#db.one<{ key_hash: string; created_at: string | number }>(`SELECT key_hash, created_at FROM webhook_keys WHERE host_id = (${HOST_ID})`, [ref.network, ref.host]);
      return row === undefined ? null : { hash: row.key_hash, createdAt: Number(row.created_at) };
    });
  }

  delete(ref: HostRef): Promise<boolean> {
    return attempt('delete the webhook key', async () => (await this.#db.run(`DELETE FROM webhook_keys WHERE host_id = (${HOST_ID})`, [ref.network, ref.host])) > 0);
  }
}
