/**
 * A host's synced content, as the service serves it while the host is offline (its probe failed,
 * a live call answered `unavailable`, or its runtime is stopped).
 *
 * The catalog holds objects, not directories: a directory is implied by the paths below it.
 * Listing one therefore walks the catalog's path order under `dir/` and shows each child folder
 * once, jumping past everything below it with a keyset skip, so a page costs one query per child
 * shown rather than one row per object below it.
 *
 * Content is the indexed text of an object; objects synced without text (binary, over the content
 * limit, metadata only) cannot be read offline and are `unavailable`.
 */
import { IsADirectoryError, NotADirectoryError, NotFoundError, UnavailableError, type ErrorDetails } from '@neuralis/package-system/contracts';
import { createAddress, formatAddress } from '../address/index.js';
import type { Envelope } from '@inseam/connector';
import type { Catalog, CatalogEntry } from '../catalog/index.js';
import type { NetworkAddress } from './access.js';
import type { Window, WindowReader } from './paging.js';
import type { FsEntry, HostStatus } from './types.js';

/** Sorts after every canonical path character, so `dir/` + this skips everything below `dir`. */
const PAST_EVERYTHING = '\u{10FFFF}';
const SCAN_PAGE = 200;

export interface CatalogListing {
  readonly entries: FsEntry[];
  /** The catalog path to continue after, when more may follow. */
  readonly after?: string;
}

/** An object's synced text, as bytes. */
export interface SyncedText {
  readonly bytes: Buffer;
  readonly mime: string;
  readonly etag?: string;
}

/** Windows over synced text, for paged reads. */
export function syncedReader(synced: SyncedText): WindowReader {
  const { bytes } = synced;
  return async (offset, length): Promise<Window> => {
    const start = Math.min(offset, bytes.length);
    const slice = bytes.subarray(start, Math.min(bytes.length, start + length));
    return {
      mime: synced.mime,
      size: bytes.length,
      ...(synced.etag === undefined ? {} : { etag: synced.etag }),
      offset,
      length: slice.length,
      text: slice.toString('utf8'),
      binary: false,
    };
  };
}

export class CatalogView {
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /**
   * Up to `limit` direct children of the directory at `address`, after catalog path `after`.
   * Throws `not_a_directory` (an object is synced there), `not_found` (nothing synced there) and
   * `unavailable` when nothing of the host was ever synced.
   */
  async list(address: NetworkAddress, status: HostStatus, options: { readonly after?: string; readonly limit: number }): Promise<CatalogListing> {
    const ref = { network: address.network, host: address.host };
    const prefix = address.path === '' ? '' : `${address.path}/`;
    const entries: FsEntry[] = [];
    let after = options.after;
    let exhausted = false;
    while (entries.length < options.limit && !exhausted) {
      const page = await this.#catalog.list(ref, { prefix, ...(after === undefined ? {} : { after }), limit: SCAN_PAGE });
      exhausted = page.next === undefined;
      let skipBelow: string | undefined;
      for (const entry of page.entries) {
        if (skipBelow !== undefined && entry.path.startsWith(skipBelow)) continue;
        const rest = entry.path.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash < 0) {
          entries.push(fileEntry(address, entry));
          after = entry.path;
        } else {
          const folder = `${prefix}${rest.slice(0, slash)}`;
          entries.push(directoryEntry(address, folder));
          skipBelow = `${folder}/`;
          after = `${skipBelow}${PAST_EVERYTHING}`;
        }
        if (entries.length === options.limit) break;
      }
    }
    if (entries.length === 0 && options.after === undefined) await this.#explainEmpty(address, status);
    return exhausted && entries.length < options.limit ? { entries } : { entries, ...(after === undefined ? {} : { after }) };
  }

  /** The synced entry at `address`. Throws `not_found`, or `unavailable` when nothing of the host was synced. */
  async stat(address: NetworkAddress, status: HostStatus): Promise<FsEntry> {
    if (address.path === '') {
      await this.#requireSynced(address, status);
      return directoryEntry(address, '');
    }
    const ref = { network: address.network, host: address.host };
    const entry = await this.#catalog.entry(ref, address.path);
    if (entry !== null) return fileEntry(address, entry);
    if ((await this.#catalog.list(ref, { prefix: `${address.path}/`, limit: 1 })).entries.length > 0) return directoryEntry(address, address.path);
    await this.#requireSynced(address, status);
    throw new NotFoundError(`Nothing is synced at ${formatAddress(address)}, and host "${address.host}" is offline.`, { details: details(address, status) });
  }

  /** The envelope the last sync recorded for the object at `address` (mail and other messages), or null. */
  async envelope(address: NetworkAddress): Promise<Envelope | null> {
    if (address.path === '') return null;
    return (await this.#catalog.entry({ network: address.network, host: address.host }, address.path))?.envelope ?? null;
  }

  /**
   * The synced text of the object at `address`. Throws `is_a_directory`, `not_found`, and
   * `unavailable` when the object's content was not synced as text.
   */
  async text(address: NetworkAddress, status: HostStatus): Promise<SyncedText> {
    const ref = { network: address.network, host: address.host };
    const entry = await this.#catalog.entry(ref, address.path);
    if (entry === null) {
      const found = await this.stat(address, status);
      throw new IsADirectoryError(`${found.address} is a directory.`);
    }
    const text = entry.content.state === 'indexed' ? await this.#catalog.content(ref, entry.path) : null;
    if (text === null) {
      throw new UnavailableError(
        `Host "${address.host}" is offline and the content of ${formatAddress(address)} was not synced as text (${entry.content.state}); try again when the host is back.`,
        { details: details(address, status) },
      );
    }
    return { bytes: Buffer.from(text, 'utf8'), mime: entry.mime ?? 'text/plain', ...(entry.etag === null ? {} : { etag: entry.etag }) };
  }

  async #explainEmpty(address: NetworkAddress, status: HostStatus): Promise<void> {
    const ref = { network: address.network, host: address.host };
    if (address.path !== '') {
      if ((await this.#catalog.entry(ref, address.path)) !== null) throw new NotADirectoryError(`${formatAddress(address)} is a file, not a directory.`);
      await this.#requireSynced(address, status);
      throw new NotFoundError(`Nothing is synced at ${formatAddress(address)}, and host "${address.host}" is offline.`, { details: details(address, status) });
    }
    await this.#requireSynced(address, status);
  }

  async #requireSynced(address: NetworkAddress, status: HostStatus): Promise<void> {
    const any = await this.#catalog.list({ network: address.network, host: address.host }, { limit: 1 });
    if (any.entries.length === 0) {
      throw new UnavailableError(`Host "${address.host}" is offline${status.reason === undefined ? '' : ` (${status.reason})`} and none of its content has been synced yet.`, {
        details: details(address, status),
      });
    }
  }
}

function details(address: NetworkAddress, status: HostStatus): ErrorDetails {
  return { network: address.network, host: address.host, ...(status.reason === undefined ? {} : { reason: status.reason }) };
}

function fileEntry(address: NetworkAddress, entry: CatalogEntry): FsEntry {
  const at = createAddress({ network: address.network, host: address.host, segments: segmentsOf(entry.path) });
  return {
    address: formatAddress(at),
    host: address.host,
    path: at.path,
    name: at.segments[at.segments.length - 1] ?? '',
    type: 'file',
    ...(entry.size === null ? {} : { size: entry.size }),
    ...(entry.mtime === null ? {} : { mtime: entry.mtime }),
    ...(entry.etag === null ? {} : { etag: entry.etag }),
    ...(entry.mime === null ? {} : { mime: entry.mime }),
  };
}

function directoryEntry(address: NetworkAddress, path: string): FsEntry {
  const at = createAddress({ network: address.network, host: address.host, segments: segmentsOf(path) });
  return { address: formatAddress(at), host: address.host, path: at.path, name: at.segments[at.segments.length - 1] ?? '', type: 'directory' };
}

/** Decoded segments of a canonical catalog path. */
function segmentsOf(path: string): string[] {
  return path === '' ? [] : path.split('/').map((segment) => decodeURIComponent(segment));
}
