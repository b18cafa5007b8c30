/**
 * What a built-in host keeps between processes to answer its names listing cheaply: small named
 * values per host (an IMAP host's per-mailbox UIDVALIDITY, MODSEQ watermark and message names,
 * so the first incremental sync of a new process asks the server only what changed). The store
 * holds them beside the catalog, removes them with their host, and writes each value whole: a
 * reader sees the old value or the new one, never part of either.
 *
 * A memo is a cache of the host's own state, not of the catalog: a host must stay correct when
 * one is missing or stale (it lists in full), so losing one costs time, never entries.
 */

/** The longest key, in UTF-16 code units. */
export const HOST_MEMO_KEY_MAX = 200;
/** The largest value, in UTF-8 bytes (a 100,000-message mailbox's names take about 6 MiB). */
export const HOST_MEMO_VALUE_MAX = 32 * 1024 * 1024;

export interface HostMemoStore {
  /** The value stored under `key` for the host, or null. */
  get(hostId: number, key: string): Promise<string | null>;
  /**
   * Stores `value` under `key` (null removes it). Refused with `invalid_argument` for an empty or
   * over-long key or an over-large value, `not_found` when the host is gone.
   */
  put(hostId: number, key: string, value: string | null, now?: number): Promise<void>;
  /** The host's keys, in ascending order. */
  keys(hostId: number): Promise<string[]>;
}
