/**
 * Where sealed credential records are kept. The store above it (store.ts) encrypts and decrypts;
 * an implementation of this interface only keeps opaque bytes keyed by scope and id, so a
 * PostgreSQL implementation can sit beside the SQLite one without touching any cryptography.
 *
 * Every method is asynchronous for that reason, even where SQLite answers synchronously.
 * Implementations reject with `unavailable` when the backing database cannot be read or written,
 * and never put a record's bytes in an error.
 */
import type { CredentialScope } from './scope.js';

export interface CredentialRecordStore {
  /** The sealed bytes of record `id` in exactly `scope`, or null when there is none. */
  get(scope: CredentialScope, id: string): Promise<Uint8Array | null>;
  /** Inserts or replaces record `id` in `scope`, atomically (one transaction). */
  put(scope: CredentialScope, id: string, sealed: Uint8Array): Promise<void>;
  /** Removes the record; resolves false when there was none. */
  delete(scope: CredentialScope, id: string): Promise<boolean>;
  /** Ids of the records in exactly `scope` (not its owners' or the deployment's), sorted, optionally only those starting with `prefix`. */
  list(scope: CredentialScope, prefix?: string): Promise<string[]>;
  /**
   * The key check stored with the records. Stores `candidate` when none is stored yet (the first
   * open), atomically, and resolves with what is stored afterwards.
   */
  keyCheck(candidate: Uint8Array): Promise<Uint8Array>;
}
