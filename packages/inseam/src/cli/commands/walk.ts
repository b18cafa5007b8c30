/**
 * Walking a folder of a host and everything below it, for `ls -R`, `tree` and `du`: through the
 * filesystem service (the host's permission tree, offline hosts answered from the catalog), one
 * page at a time. Depth first, in each folder's listing order; the walk holds one page per level
 * it is inside, never the tree, so memory stays flat however large the tree is.
 */
import { userInfo } from 'node:os';
import type { ListDetail } from '@neuralis/package-system/contracts';
import type { Caller, FsEntry, FsListPage, FsService } from '../../fs/index.js';
import type { Platform } from '../../platform/index.js';

/** The person running the command: the host's permission tree decides, as for `ls` (no agent, no grants). */
export function localCaller(network: string): Caller {
  return { session: { userId: userInfo().username, projectId: network, features: new Set<string>() } };
}

/** The filesystem service, loaded only by the commands that walk. */
export async function openFs(platform: Platform): Promise<FsService> {
  const { FsService } = await import('../../fs/index.js');
  return new FsService(platform);
}

export interface Walked {
  readonly entry: FsEntry;
  /** 1 for the walked folder's own children. */
  readonly depth: number;
  /** Whether it is the last entry of its folder (so `tree` knows which branch to draw). */
  readonly last: boolean;
  /** Its path below the walked folder, decoded, `/`-separated (`notes/meeting notes.txt`). */
  readonly path: string;
}

export interface WalkOptions {
  /** How many levels to go down; 1 lists the folder's children only. Default: all the way. */
  readonly depth?: number;
  readonly detail?: ListDetail;
}

type ListPage = (address: string, cursor: string | undefined) => Promise<FsListPage>;

/** One folder being listed: the page it is on, and the cursor of the next. */
class Level {
  #entries: readonly FsEntry[] = [];
  #index = 0;
  #cursor: string | undefined;
  #listed = false;

  constructor(
    private readonly list: ListPage,
    private readonly address: string,
    readonly depth: number,
    readonly prefix: string,
  ) {}

  /** The next entry, and whether none follows it; undefined when the folder is done. */
  async next(): Promise<{ readonly entry: FsEntry; readonly last: boolean } | undefined> {
    await this.#fill();
    const entry = this.#entries[this.#index];
    if (entry === undefined) return undefined;
    this.#index += 1;
    await this.#fill();
    return { entry, last: this.#index >= this.#entries.length };
  }

  /** Reads pages until one has an entry not yet handed out, or the listing is done. */
  async #fill(): Promise<void> {
    while (this.#index >= this.#entries.length && (!this.#listed || this.#cursor !== undefined)) {
      const page = await this.list(this.address, this.#cursor);
      this.#listed = true;
      this.#entries = page.entries;
      this.#index = 0;
      this.#cursor = page.cursor;
    }
  }
}

/**
 * Every entry below `address` (a folder), depth first. Throws what the service's list throws
 * (permission_denied, not_found, not_a_directory, unavailable, …), at the folder it happened in.
 */
export async function* walk(fs: FsService, caller: Caller, address: string, options: WalkOptions = {}): AsyncGenerator<Walked> {
  const maxDepth = options.depth ?? Number.POSITIVE_INFINITY;
  const detail = options.detail === undefined ? {} : { detail: options.detail };
  const list: ListPage = (at, cursor) => fs.list(caller, at, { ...detail, ...(cursor === undefined ? {} : { cursor }) });
  const levels: Level[] = [new Level(list, address, 1, '')];
  while (levels.length > 0) {
    const level = levels[levels.length - 1]!;
    const next = await level.next();
    if (next === undefined) {
      levels.pop();
      continue;
    }
    const path = `${level.prefix}${next.entry.name}`;
    yield { entry: next.entry, depth: level.depth, last: next.last, path };
    if (next.entry.type === 'directory' && level.depth < maxDepth) levels.push(new Level(list, next.entry.address, level.depth + 1, `${path}/`));
  }
}
