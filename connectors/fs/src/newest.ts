/**
 * `order: "newest"` for the host listing: newest mtime first, ties by path. A folder has no index
 * by mtime, so the first page walks the whole (prefix-limited) tree once, in flat memory, as an
 * external sort: records are buffered up to RUN_RECORDS, each full buffer is sorted and spilled to
 * a temporary run file, and pages are served by merging the runs. The merge stays in memory for
 * the next page (keyed by the cursor it produced, like the name-ordered listing); a cursor whose
 * merge is gone (restart, eviction, an old cursor) redoes the walk keeping only what sorts after
 * the cursor's (mtime, path). Cost: the first page of a newest listing costs a full walk; a tree of
 * up to 65,536 matching files never touches the disk.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { InvalidArgumentError, mimeFromName } from '@neuralis/package-system/contracts';
import type { Entry } from '@inseam/connector';
import { etagOf } from './etag.js';
import { fingerprint } from './listing.js';
import { isoTime } from './time.js';
import { TreeWalker } from './walker.js';
import type { WalkerOptions } from './walker.js';

/** One file, compactly: mtime ms, encoded path, size, inode, ctime ms, mime. */
interface FileRecord {
  readonly m: number;
  readonly p: string;
  readonly s: number;
  readonly i: number;
  readonly c: number;
  readonly t: string;
}

export const RUN_RECORDS = 65_536;
const WALK_CHUNK = 4096;
/** Each kept merge holds up to RUN_RECORDS records in memory, so only a few are kept. */
const MAX_SESSIONS = 4;
const SESSION_TTL_MS = 5 * 60_000;
const CURSOR_VERSION = 1;

function newestFirst(a: FileRecord, b: FileRecord): number {
  if (a.m !== b.m) return b.m - a.m;
  return a.p < b.p ? -1 : a.p > b.p ? 1 : 0;
}

function toEntry(record: FileRecord): Entry {
  return { path: record.p, size: record.s, mtime: isoTime(record.m), etag: etagOf({ ino: record.i, size: record.s, mtimeMs: record.m, ctimeMs: record.c }), mime: record.t };
}

interface RunSource {
  head: FileRecord | undefined;
  advance(): Promise<void>;
}

/** The merge over sorted runs; owns its temp folder until closed. */
class NewestMerge {
  private constructor(
    private readonly sources: RunSource[],
    private readonly spillDir: string | undefined,
  ) {}

  static async build(walker: WalkerOptions, keep: (record: FileRecord) => boolean, runRecords: number): Promise<NewestMerge> {
    const walk = await TreeWalker.open(walker);
    let buffer: FileRecord[] = [];
    let spillDir: string | undefined;
    const runs: string[] = [];
    try {
      while (!walk.done) {
        await walk.fill(Math.max(1, Math.min(WALK_CHUNK, runRecords - buffer.length)), (path, name, _type, stats) => {
          const record = { m: stats.mtimeMs, p: path, s: stats.size, i: stats.ino, c: stats.ctimeMs, t: mimeFromName(name) };
          if (!keep(record)) return false;
          buffer.push(record);
          return true;
        });
        if (buffer.length >= runRecords) {
          spillDir ??= await mkdtemp(`${tmpdir()}/inseam-newest-`);
          const file = `${spillDir}/run-${runs.length}.ndjson`;
          await writeFile(file, `${buffer.sort(newestFirst).map((record) => JSON.stringify(record)).join('\n')}\n`, { mode: 0o600 });
          runs.push(file);
          buffer = [];
        }
      }
    } catch (error) {
      if (spillDir !== undefined) await rm(spillDir, { recursive: true, force: true });
      throw error;
    }
    const sources = [memorySource(buffer.sort(newestFirst)), ...(await Promise.all(runs.map(fileSource)))];
    return new NewestMerge(sources, spillDir);
  }

  get done(): boolean {
    return this.sources.every((source) => source.head === undefined);
  }

  async next(limit: number): Promise<FileRecord[]> {
    const out: FileRecord[] = [];
    while (out.length < limit) {
      let best: RunSource | undefined;
      for (const source of this.sources) {
        if (source.head !== undefined && (best === undefined || newestFirst(source.head, best.head!) < 0)) best = source;
      }
      if (best === undefined) break;
      out.push(best.head!);
      await best.advance();
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.spillDir !== undefined) await rm(this.spillDir, { recursive: true, force: true });
  }
}

function memorySource(records: FileRecord[]): RunSource {
  let index = 0;
  const source: RunSource = {
    head: records[0],
    advance: async () => {
      index += 1;
      source.head = records[index];
    },
  };
  return source;
}

async function fileSource(file: string): Promise<RunSource> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
  const read = async (): Promise<FileRecord | undefined> => {
    const line = await lines.next();
    return line.done === true ? undefined : (JSON.parse(line.value) as FileRecord);
  };
  const source: RunSource = {
    head: await read(),
    advance: async () => {
      source.head = await read();
    },
  };
  return source;
}

interface Session {
  readonly merge: NewestMerge;
  readonly cursor: string;
  readonly expires: number;
}

export interface NewestPageRequest {
  readonly listing: string;
  readonly cursor?: string;
  readonly limit: number;
  readonly walker: WalkerOptions;
  /** Keeps only files modified at or after this many ms since the epoch. */
  readonly sinceMs?: number;
}

export class NewestListings {
  private readonly sessions = new Map<string, Session>();

  /** `runRecords`: records sorted in memory before a run is spilled to disk. */
  constructor(private readonly runRecords = RUN_RECORDS) {}

  async page(request: NewestPageRequest): Promise<{ entries: Entry[]; cursor?: string }> {
    const listing = fingerprint(`newest\0${request.listing}`);
    const since = request.sinceMs ?? Number.NEGATIVE_INFINITY;
    let merge: NewestMerge | undefined;
    let sessionId = randomBytes(9).toString('base64url');
    if (request.cursor === undefined) {
      merge = await NewestMerge.build(request.walker, (record) => record.m >= since, this.runRecords);
    } else {
      const after = decodeNewestCursor(request.cursor, listing);
      sessionId = after.session;
      merge = this.take(sessionId, request.cursor);
      merge ??= await NewestMerge.build(
        request.walker,
        (record) => record.m >= since && (record.m < after.m || (record.m === after.m && record.p > after.p)),
        this.runRecords,
      );
    }
    let records: FileRecord[];
    try {
      records = await merge.next(request.limit);
    } catch (error) {
      await merge.close();
      throw error;
    }
    const last = records[records.length - 1];
    if (merge.done || last === undefined) {
      await merge.close();
      return { entries: records.map(toEntry) };
    }
    const cursor = Buffer.from(JSON.stringify({ v: CURSOR_VERSION, l: listing, s: sessionId, m: last.m, p: last.p })).toString('base64url');
    await this.keep(sessionId, { merge, cursor, expires: Date.now() + SESSION_TTL_MS });
    return { entries: records.map(toEntry), cursor };
  }

  /** Ends every kept merge and deletes its temp files. */
  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((session) => session.merge.close()));
  }

  private take(sessionId: string, cursor: string): NewestMerge | undefined {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return undefined;
    this.sessions.delete(sessionId);
    if (session.cursor === cursor && session.expires > Date.now()) return session.merge;
    void session.merge.close();
    return undefined;
  }

  private async keep(sessionId: string, session: Session): Promise<void> {
    this.sessions.set(sessionId, session);
    const now = Date.now();
    for (const [id, old] of this.sessions) {
      if (this.sessions.size <= MAX_SESSIONS && old.expires > now) break;
      this.sessions.delete(id);
      await old.merge.close();
    }
  }
}

function decodeNewestCursor(cursor: string, listing: string): { session: string; m: number; p: string } {
  const invalid = (): never => {
    throw new InvalidArgumentError('The cursor is not one this listing returned; start the listing again without a cursor.', {
      details: { argument: 'cursor' },
    });
  };
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 65_536) return invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return invalid();
  }
  const { v, l, s, m, p } = (payload ?? {}) as Record<string, unknown>;
  if (v !== CURSOR_VERSION || l !== listing || typeof s !== 'string' || typeof m !== 'number' || !Number.isFinite(m) || typeof p !== 'string') {
    return invalid();
  }
  return { session: s, m, p };
}
