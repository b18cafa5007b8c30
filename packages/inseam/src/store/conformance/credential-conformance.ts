/**
 * The credential record store's conformance suite: what every `CredentialRecordStore` does, and
 * that the one `CredentialStore` above it seals records the same way on each (the cryptography
 * lives above the record store, so a record store only has to keep bytes exactly).
 *
 * `open` is called before every test and answers an empty record store, `reopen` (another handle
 * on the same records: a restart, or another process) and `cleanup`.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CredentialRecordStore } from '../../credentials/record-store.js';
import { agentScope, deploymentScope, projectScope, userScope, type CredentialScope } from '../../credentials/scope.js';
import { CredentialStore } from '../../credentials/store.js';

export interface ConformanceRecords {
  readonly records: CredentialRecordStore;
  readonly reopen: () => Promise<CredentialRecordStore>;
  readonly cleanup: () => Promise<void>;
}

const SECRET = 'sk_live_0123456789abcdef';

/** Registers the tests under `credential record conformance (<name>)`. */
export function runCredentialRecordConformance(name: string, open: () => Promise<ConformanceRecords>): void {
  describe(`credential record conformance (${name})`, () => {
    let opened: ConformanceRecords;
    let records: CredentialRecordStore;

    beforeEach(async () => {
      opened = await open();
      records = opened.records;
    });

    afterEach(async () => {
      await opened.cleanup();
    });

    it('keeps bytes exactly, per scope and id, and replaces them in place', async () => {
      const scopes: CredentialScope[] = [projectScope('home'), userScope('home', 'u1'), agentScope('home', 'a1'), deploymentScope(), projectScope('work'), userScope('home', 'u2')];
      const values = scopes.map((_, index) => new Uint8Array([index, 0, 255, 0, index]));
      for (const [index, scope] of scopes.entries()) await records.put(scope, 'same-id', values[index]!);
      for (const [index, scope] of scopes.entries()) expect(await records.get(scope, 'same-id')).toEqual(values[index]);
      expect(await records.get(agentScope('home', 'u1'), 'same-id')).toBeNull();
      expect(await records.get(projectScope('home'), 'other-id')).toBeNull();
      const large = randomBytes(256 * 1024);
      await records.put(projectScope('home'), 'same-id', large);
      expect(Buffer.from((await records.get(projectScope('home'), 'same-id'))!).equals(large)).toBe(true);
      await records.put(projectScope('home'), 'empty', new Uint8Array());
      expect(await records.get(projectScope('home'), 'empty')).toEqual(new Uint8Array());
      expect(await records.delete(projectScope('home'), 'same-id')).toBe(true);
      expect(await records.delete(projectScope('home'), 'same-id')).toBe(false);
      expect(await records.get(projectScope('home'), 'same-id')).toBeNull();
      expect(await records.get(userScope('home', 'u1'), 'same-id')).toEqual(values[1]);
    });

    it('lists the ids of exactly one scope in code-point order, by a literal prefix', async () => {
      const ids = ['host/b', 'host/a', 'package/p/x', 'host%', 'host_x', 'hostZ', 'host/é', 'host/😀', 'host/\uFFFD', 'Host/upper'];
      for (const id of ids) await records.put(projectScope('home'), id, new Uint8Array([1]));
      await records.put(userScope('home', 'u1'), 'host/mine', new Uint8Array([1]));
      await records.put(deploymentScope(), 'host/global', new Uint8Array([1]));
      expect(await records.list(projectScope('home'))).toEqual(['Host/upper', 'host%', 'host/a', 'host/b', 'host/é', 'host/\uFFFD', 'host/😀', 'hostZ', 'host_x', 'package/p/x']);
      expect(await records.list(projectScope('home'), 'host/')).toEqual(['host/a', 'host/b', 'host/é', 'host/\uFFFD', 'host/😀']);
      // A prefix is text, not a pattern.
      expect(await records.list(projectScope('home'), 'host%')).toEqual(['host%']);
      expect(await records.list(projectScope('home'), 'host_')).toEqual(['host_x']);
      expect(await records.list(userScope('home', 'u1'))).toEqual(['host/mine']);
      expect(await records.list(deploymentScope(), 'host/')).toEqual(['host/global']);
      expect(await records.list(projectScope('work'))).toEqual([]);
    });

    it('stores the first key check and answers it ever after, on every handle', async () => {
      const first = randomBytes(48);
      expect(Buffer.from(await records.keyCheck(first)).equals(first)).toBe(true);
      expect(Buffer.from(await records.keyCheck(randomBytes(48))).equals(first)).toBe(true);
      const again = await opened.reopen();
      expect(Buffer.from(await again.keyCheck(randomBytes(48))).equals(first)).toBe(true);
    });

    it('shows another handle what one wrote', async () => {
      await records.put(projectScope('home'), 'shared', new Uint8Array([7, 8]));
      const other = await opened.reopen();
      expect(await other.get(projectScope('home'), 'shared')).toEqual(new Uint8Array([7, 8]));
      expect(await other.delete(projectScope('home'), 'shared')).toBe(true);
      expect(await records.get(projectScope('home'), 'shared')).toBeNull();
    });

    it('holds records the credential store sealed: no plaintext, bound to their scope and id, under one master key', async () => {
      const masterKey = randomBytes(32);
      const store = await CredentialStore.open({ records, masterKey });
      await store.put(projectScope('home'), 'victim', { value: SECRET });
      await store.put(projectScope('home'), 'attacker', { value: 'mine' });
      const sealed = (await records.get(projectScope('home'), 'victim'))!;
      expect(Buffer.from(sealed).includes(Buffer.from(SECRET))).toBe(false);
      // A sealed record copied to another id or scope does not open.
      await records.put(projectScope('home'), 'attacker', sealed);
      await records.put(userScope('home', 'u1'), 'victim', sealed);
      await expect(store.get(projectScope('home'), 'attacker')).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'integrity_check_failed' } });
      await expect(store.get(userScope('home', 'u1'), 'victim')).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'integrity_check_failed' } });
      // Another handle opens with the same key and reads; another key is refused as such.
      const reopened = await CredentialStore.open({ records: await opened.reopen(), masterKey });
      expect(await reopened.get(projectScope('home'), 'victim')).toEqual({ value: SECRET });
      await expect(CredentialStore.open({ records: await opened.reopen(), masterKey: randomBytes(32) })).rejects.toMatchObject({ code: 'invalid_config', details: { reason: 'master_key_mismatch' } });
    });
  });
}
