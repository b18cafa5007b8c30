/**
 * Webhook keys. A SaaS that delivers webhooks cannot hold a bearer token, so each host that takes
 * webhooks gets its own unguessable URL: `/v1/hooks/{network}/{host}/{key}`, where the key is
 * `whk_` followed by 43 base64url characters (32 random bytes). The key is shown once, when it is
 * minted; the store keeps only its SHA-256 (store.webhookKeys), as for API tokens. Minting again
 * replaces the key (the old URL stops working at once); revoking removes it.
 *
 * A presented key is checked by hashing it and comparing the hash with the stored one in constant
 * time. An unknown host, a host without a key and a wrong key all answer the same `false`, after
 * the same work, so a caller without the key learns nothing about which hosts exist.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { HostRef, WebhookKeyStore } from '../store/index.js';

const KEY_PREFIX = 'whk_';
const KEY_PATTERN = /^whk_[A-Za-z0-9_-]{43}$/;
/** Compared against when there is no stored hash, so a missing host costs the same as a wrong key. */
const NO_HASH = '0'.repeat(64);

/** SHA-256 (hex) of a webhook key: what the store keeps. */
export function hashWebhookKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface MintedWebhookKey {
  /** The key, shown once. */
  readonly key: string;
  readonly createdAt: number;
  /** A key existed before and no longer works. */
  readonly replaced: boolean;
}

export class WebhookKeys {
  readonly #store: WebhookKeyStore;

  constructor(store: WebhookKeyStore) {
    this.#store = store;
  }

  /** Mints the host's key, replacing any. Rejects with `not_found` for an unknown host, `unavailable`. */
  async mint(ref: HostRef, now = Date.now()): Promise<MintedWebhookKey> {
    const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const replaced = (await this.#store.get(ref)) !== null;
    const record = await this.#store.set(ref, hashWebhookKey(key), now);
    return { key, createdAt: record.createdAt, replaced };
  }

  /** Removes the host's key; false when it had none. Rejects with `unavailable`. */
  revoke(ref: HostRef): Promise<boolean> {
    return this.#store.delete(ref);
  }

  /** Whether `key` is the host's current key (false for an unknown host, no key, or a malformed one). Rejects with `unavailable`. */
  async verify(ref: HostRef, key: string): Promise<boolean> {
    const stored = await this.#store.get(ref);
    const presented = Buffer.from(hashWebhookKey(key), 'hex');
    const expected = Buffer.from(stored?.hash ?? NO_HASH, 'hex');
    const same = presented.length === expected.length && timingSafeEqual(presented, expected);
    return same && stored !== null && KEY_PATTERN.test(key);
  }
}
