/**
 * Webhook keys on their own: every check — a right key, a wrong one, a key of an unknown host, a
 * malformed key — compares hashes with crypto's constant-time comparison, so how long a refusal
 * takes does not tell a wrong key from a missing host.
 */
import * as crypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HostRef, WebhookKeyRecord, WebhookKeyStore } from '../store/index.js';
import { WebhookKeys, hashWebhookKey } from './webhook-keys.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

/** The store's contract in a Map (the real ones are in the store conformance suite). */
class MemoryKeys implements WebhookKeyStore {
  readonly keys = new Map<string, WebhookKeyRecord>();
  readonly hosts = new Set(['home/notes', 'home/other']);

  async set(ref: HostRef, hash: string, now = Date.now()): Promise<WebhookKeyRecord> {
    const name = `${ref.network}/${ref.host}`;
    if (!this.hosts.has(name)) throw Object.assign(new Error('no host'), { code: 'not_found' });
    const record = { hash, createdAt: now };
    this.keys.set(name, record);
    return record;
  }

  async get(ref: HostRef): Promise<WebhookKeyRecord | null> {
    return this.keys.get(`${ref.network}/${ref.host}`) ?? null;
  }

  async delete(ref: HostRef): Promise<boolean> {
    return this.keys.delete(`${ref.network}/${ref.host}`);
  }
}

const NOTES = { network: 'home', host: 'notes' };
const OTHER = { network: 'home', host: 'other' };
let store: MemoryKeys;
let keys: WebhookKeys;

beforeEach(() => {
  store = new MemoryKeys();
  keys = new WebhookKeys(store);
  vi.mocked(crypto.timingSafeEqual).mockClear();
});

describe('WebhookKeys', () => {
  it('mints an unguessable key per host and stores only its hash', async () => {
    const first = await keys.mint(NOTES, 5);
    const second = await keys.mint(OTHER, 5);
    expect(first).toMatchObject({ key: expect.stringMatching(/^whk_[A-Za-z0-9_-]{43}$/), createdAt: 5, replaced: false });
    expect(second.key).not.toBe(first.key);
    expect(store.keys.get('home/notes')).toEqual({ hash: hashWebhookKey(first.key), createdAt: 5 });
    expect([...store.keys.values()].some((record) => record.hash.includes(first.key))).toBe(false);
    await expect(keys.mint({ network: 'home', host: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('accepts only the host\'s current key, comparing in constant time whatever is wrong', async () => {
    const { key } = await keys.mint(NOTES);
    const { key: otherKey } = await keys.mint(OTHER);
    vi.mocked(crypto.timingSafeEqual).mockClear();
    const cases: [HostRef, string, boolean][] = [
      [NOTES, key, true],
      [NOTES, otherKey, false],
      [NOTES, `whk_${'A'.repeat(43)}`, false],
      [NOTES, key.slice(0, -1), false],
      [NOTES, '', false],
      [{ network: 'home', host: 'nope' }, key, false],
      [{ network: 'home', host: 'nope' }, `whk_${'0'.repeat(43)}`, false],
    ];
    for (const [ref, presented, expected] of cases) expect(await keys.verify(ref, presented), `${ref.host} ${presented}`).toBe(expected);
    // One constant-time comparison per check, the missing host's included.
    expect(vi.mocked(crypto.timingSafeEqual)).toHaveBeenCalledTimes(cases.length);
  });

  it('stops accepting a key once it is replaced or revoked', async () => {
    const { key: old } = await keys.mint(NOTES);
    const again = await keys.mint(NOTES);
    expect(again.replaced).toBe(true);
    expect(await keys.verify(NOTES, old)).toBe(false);
    expect(await keys.verify(NOTES, again.key)).toBe(true);
    expect(await keys.revoke(NOTES)).toBe(true);
    expect(await keys.verify(NOTES, again.key)).toBe(false);
    expect(await keys.revoke(NOTES)).toBe(false);
  });
});
