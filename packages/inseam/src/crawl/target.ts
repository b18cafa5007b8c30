import type { Connector, Description, Scope } from '@inseam/connector';
import type { SourceSyncSettings } from '@neuralis/package-system/contracts';
import type { HostMemoStore, HostRef } from '../store/index.js';

/** A host as the crawler drives it. */
export interface CrawlTarget {
  readonly ref: HostRef;
  readonly connector: Connector;
  /** What the connector's describe() returned, validated (`validateDescription`). */
  readonly description: Description;
  /** The host's own scope, merged over the kind's `defaultScope`; null or absent: the default alone. */
  readonly scope?: Scope | null;
  /** `exclude` globs are applied by the crawler; trigger, interval and alwaysActive by the SyncScheduler. */
  readonly sync?: SourceSyncSettings | null;
  /**
   * The connector honours `list({ order: "newest" })` (the trial showed it): the crawler asks for
   * it and stops listing at the first entry below a skipped window's lower bound.
   */
  readonly honoursOrder?: boolean;
}

/**
 * What a built-in host may offer beyond the skill document's interface (the folder kinds do):
 * the path of every object `list()` returns, in ascending UTF-16 code-unit order (the catalog's
 * order), without the per-object metadata that makes a listing cost. An incremental sync diffs it
 * against the catalog to find deletions and renames (diff.ts).
 */
export interface HostNames {
  names(options: { readonly cursor?: string; readonly memo?: NamesMemo }): Promise<HostNamesPage>;
}

/**
 * Small named values the crawler keeps for one host between processes (the store's host memos),
 * so a names listing can ask the host only what changed since the last one, also in a new
 * process (an IMAP host keeps each mailbox's MODSEQ watermark and message names). A cache of the
 * host's state, not of the catalog: a host lists in full when its memo is missing, unreadable
 * or stale, so a lost memo costs time and never an entry.
 */
export interface NamesMemo {
  get(key: string): Promise<string | null>;
  /** null removes the key. */
  put(key: string, value: string | null): Promise<void>;
  keys(): Promise<string[]>;
}

/** The store's memos of one host, as its names listing sees them. */
export function hostMemo(memos: HostMemoStore, hostId: number): NamesMemo {
  return {
    get: (key) => memos.get(hostId, key),
    put: (key, value) => memos.put(hostId, key, value),
    keys: () => memos.keys(hostId),
  };
}

/**
 * A page of names. `etags`, when given, is each path's current etag (the same as its entry's,
 * null where it has none): a path the catalog holds under another etag changed, and is stat'ed
 * and stored again. A host whose every page carries etags has stated every change there is, so
 * the incremental run skips its `since` listing (run.ts).
 */
export interface HostNamesPage {
  readonly paths: readonly string[];
  readonly etags?: readonly (string | null)[];
  readonly cursor?: string;
}

/** The connector's names-only listing, when it has one. */
export function hostNames(connector: object): HostNames | undefined {
  return typeof (connector as Partial<HostNames>).names === 'function' ? (connector as HostNames) : undefined;
}
