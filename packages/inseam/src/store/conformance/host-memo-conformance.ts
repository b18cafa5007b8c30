/**
 * The host memos' conformance suite (host-memo-types.ts), registered beside the store suite by
 * each backend's test file: values round-trip whole (large, non-ASCII), per host, replaced and
 * removed, refused past their limits with nothing stored, and gone with their host.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOST_MEMO_KEY_MAX, HOST_MEMO_VALUE_MAX } from '../host-memo-types.js';
import type { Store } from '../types.js';
import type { ConformanceStore } from './store-conformance.js';

export function runHostMemoConformance(name: string, open: () => Promise<ConformanceStore>): void {
  describe(`host memo conformance (${name})`, () => {
    let opened: ConformanceStore;
    let store: Store;
    let hostId: number;

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
      await store.networks.create({ slug: 'home' });
      hostId = (await store.hosts.create('home', { slug: 'mail', kind: 'imap' })).id;
    });

    afterEach(async () => {
      await store.close();
      await opened.cleanup();
    });

    it('keeps a value per host and key, whole, and replaces or removes it', async () => {
      const other = (await store.hosts.create('home', { slug: 'other', kind: 'imap' })).id;
      expect(await store.hostMemos.get(hostId, 'names:INBOX')).toBeNull();
      const large = JSON.stringify({ box: 'Entwürfe ✉', rows: Array.from({ length: 20_000 }, (_, i) => [i, `\\Seen ${i}`]) });
      await store.hostMemos.put(hostId, 'names:INBOX', large);
      await store.hostMemos.put(hostId, 'names:Sent', 'b');
      await store.hostMemos.put(other, 'names:INBOX', 'other');
      expect(await store.hostMemos.get(hostId, 'names:INBOX')).toBe(large);
      expect(await store.hostMemos.keys(hostId)).toEqual(['names:INBOX', 'names:Sent']);
      await store.hostMemos.put(hostId, 'names:INBOX', 'replaced');
      expect(await store.hostMemos.get(hostId, 'names:INBOX')).toBe('replaced');
      await store.hostMemos.put(hostId, 'names:INBOX', null);
      expect(await store.hostMemos.get(hostId, 'names:INBOX')).toBeNull();
      expect(await store.hostMemos.keys(hostId)).toEqual(['names:Sent']);
      expect(await store.hostMemos.get(other, 'names:INBOX')).toBe('other');
      // Another connection sees what the first wrote.
      const again = await opened.another();
      expect(await again.hostMemos.get(hostId, 'names:Sent')).toBe('b');
    });

    it('refuses an empty or over-long key and an over-large value, storing nothing', async () => {
      for (const key of ['', 'k'.repeat(HOST_MEMO_KEY_MAX + 1)]) {
        await expect(store.hostMemos.put(hostId, key, 'v')).rejects.toMatchObject({ code: 'invalid_argument', details: { field: 'key' } });
      }
      await store.hostMemos.put(hostId, 'names:INBOX', 'kept');
      await expect(store.hostMemos.put(hostId, 'names:INBOX', 'x'.repeat(HOST_MEMO_VALUE_MAX + 1))).rejects.toMatchObject({ code: 'invalid_argument', details: { field: 'value' } });
      expect(await store.hostMemos.get(hostId, 'names:INBOX')).toBe('kept');
    });

    it('goes with its host, and refuses a write for a host that is gone', async () => {
      await store.hostMemos.put(hostId, 'names:INBOX', 'v');
      await store.hosts.delete({ network: 'home', host: 'mail' });
      expect(await store.hostMemos.get(hostId, 'names:INBOX')).toBeNull();
      expect(await store.hostMemos.keys(hostId)).toEqual([]);
      await expect(store.hostMemos.put(hostId, 'names:INBOX', 'v')).rejects.toMatchObject({ code: 'not_found' });
    });
  });
}
