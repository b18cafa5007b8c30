/**
 * A small JSON REST API on loopback, the host of the `notes-api` example connector: files with
 * stable numeric ids, cursor paging, newest-first order, ranged content, conditional writes, a
 * rename, and an event feed. Bearer-token auth on every route.
 *
 *   GET    /api/v1/files?limit&cursor&order=path|newest&prefix&since → { files: [meta], next_cursor }
 *   GET    /api/v1/files/by-path?path=…                               → meta | 404
 *   GET    /api/v1/files/{id}/content                                 → bytes (Range → 206)
 *   PUT    /api/v1/files/content?path=…  (If-Match: "<version>")      → meta (201 new, 200 replaced, 412)
 *   PATCH  /api/v1/files/{id}  { "path": "…" }                        → meta (a rename; 409 when taken)
 *   DELETE /api/v1/files/{id}                                         → 204
 *   POST   /api/v1/search  { "path"?, "text"? }                       → { files: [meta] } (a read over POST)
 *   GET    /api/v1/events?after=<seq>                                 → { events: [...], last }
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NoteFile {
  readonly id: number;
  path: string;
  bytes: Buffer;
  mime: string;
  updatedAt: number;
  version: number;
  starred: boolean;
}

export interface NotesEvent {
  readonly seq: number;
  readonly kind: 'created' | 'updated' | 'deleted' | 'moved';
  readonly path: string;
  readonly old_path?: string;
}

export interface NotesApi {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly token: string;
  readonly files: Map<number, NoteFile>;
  /** Requests seen, as `METHOD /path` (no query), for assertions. */
  readonly requests: string[];
  /** Renames a file as the host's own app would (what a person does for check 9). */
  rename(from: string, to: string): void;
  /** Adds a file as the host's own app would (a delete-only connector's trial plants one). */
  add(path: string, text: string): void;
  close(): Promise<void>;
}

export interface NotesSeed {
  readonly path: string;
  readonly text: string;
  readonly mime?: string;
  readonly updatedAt: string;
  readonly starred?: boolean;
}

function meta(file: NoteFile): Record<string, unknown> {
  return { id: file.id, path: file.path, size: file.bytes.byteLength, mime: file.mime, updated_at: new Date(file.updatedAt).toISOString(), version: file.version, starred: file.starred };
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startNotesApi(seed: readonly NotesSeed[], token = 'notes-token-7f3a'): Promise<NotesApi> {
  const files = new Map<number, NoteFile>();
  const events: NotesEvent[] = [];
  const requests: string[] = [];
  let nextId = 100;
  let clock = 0;
  // Strictly increasing update times, so newest-first is well defined.
  const now = (): number => (clock = Math.max(Date.now(), clock + 1));
  for (const item of seed) {
    const id = nextId++;
    files.set(id, { id, path: item.path, bytes: Buffer.from(item.text), mime: item.mime ?? 'text/plain', updatedAt: Date.parse(item.updatedAt), version: 1, starred: item.starred ?? false });
  }
  const byPath = (path: string): NoteFile | undefined => [...files.values()].find((file) => file.path === path);
  const emit = (kind: NotesEvent['kind'], path: string, oldPath?: string): void => {
    events.push({ seq: events.length + 1, kind, path, ...(oldPath === undefined ? {} : { old_path: oldPath }) });
  };
  const rename = (from: string, to: string): void => {
    const file = byPath(from);
    if (file === undefined) throw new Error(`no file at ${from}`);
    file.path = to;
    file.updatedAt = now();
    emit('moved', to, from);
  };

  const add = (path: string, text: string): void => {
    const id = nextId++;
    files.set(id, { id, path, bytes: Buffer.from(text), mime: 'text/plain', updatedAt: now(), version: 1, starred: false });
    emit('created', path);
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 500, { error: 'internal' }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://notes');
    requests.push(`${req.method} ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'unauthorized' });
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'api' || parts[1] !== 'v1') return send(res, 404, { error: 'no such route' });
    const [resource, second, third] = parts.slice(2);
    if (resource === 'events' && req.method === 'GET') {
      const after = url.searchParams.get('after');
      const since = after === 'latest' ? events.length : Number(after ?? '0');
      return send(res, 200, { events: events.slice(since), last: events.length });
    }
    if (resource === 'search' && second === undefined && req.method === 'POST') {
      const query = JSON.parse((await readBody(req)).toString('utf8') || '{}') as { path?: unknown; text?: unknown };
      const found = [...files.values()].filter(
        (file) => (typeof query.path !== 'string' || file.path === query.path) && (typeof query.text !== 'string' || file.bytes.toString('utf8').includes(query.text)),
      );
      return send(res, 200, { files: found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map(meta) });
    }
    if (resource !== 'files') return send(res, 404, { error: 'no such route' });
    if (second === undefined && req.method === 'GET') return list(url, res);
    if (second === 'by-path' && req.method === 'GET') {
      const file = byPath(url.searchParams.get('path') ?? '');
      return file === undefined ? send(res, 404, { error: 'not found' }) : send(res, 200, meta(file));
    }
    if (second === 'content' && req.method === 'PUT') return put(req, url, res);
    const file = files.get(Number(second));
    if (file === undefined) return send(res, 404, { error: 'not found' });
    if (third === 'content' && (req.method === 'GET' || req.method === 'HEAD')) return content(req, file, res);
    if (third === undefined && req.method === 'PATCH') {
      const body = JSON.parse((await readBody(req)).toString('utf8')) as { path?: unknown };
      if (typeof body.path !== 'string') return send(res, 400, { error: 'path required' });
      if (byPath(body.path) !== undefined) return send(res, 409, { error: 'path taken' });
      rename(file.path, body.path);
      return send(res, 200, meta(file));
    }
    if (third === undefined && req.method === 'DELETE') {
      files.delete(file.id);
      emit('deleted', file.path);
      return send(res, 204);
    }
    return send(res, 405, { error: 'method not allowed' });
  }

  function list(url: URL, res: ServerResponse): void {
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? '50'), 1), 100);
    const order = url.searchParams.get('order') ?? 'path';
    const prefix = url.searchParams.get('prefix') ?? '';
    const since = url.searchParams.get('since');
    let offset = 0;
    const cursor = url.searchParams.get('cursor');
    if (cursor !== null) {
      const decoded = /^o(\d+):(path|newest)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (decoded === null || decoded[2] !== order) return send(res, 400, { error: 'bad cursor' });
      offset = Number(decoded[1]);
    }
    let all = [...files.values()].filter((file) => file.path.startsWith(prefix) && (since === null || file.updatedAt >= Date.parse(since)));
    all = order === 'newest' ? all.sort((a, b) => b.updatedAt - a.updatedAt || a.id - b.id) : all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const page = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? Buffer.from(`o${offset + limit}:${order}`).toString('base64url') : null;
    send(res, 200, { files: page.map(meta), next_cursor: next });
  }

  function content(req: IncomingMessage, file: NoteFile, res: ServerResponse): void {
    const headers = { 'content-type': file.mime, etag: `"${file.version}"`, 'accept-ranges': 'bytes' };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range === null) {
      res.writeHead(200, { ...headers, 'content-length': String(file.bytes.byteLength) });
      res.end(req.method === 'HEAD' ? undefined : file.bytes);
      return;
    }
    const start = Number(range[1]);
    const size = file.bytes.byteLength;
    if (start >= size) {
      res.writeHead(416, { 'content-range': `bytes */${size}` });
      res.end();
      return;
    }
    const end = range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) });
    res.end(req.method === 'HEAD' ? undefined : file.bytes.subarray(start, end + 1));
  }

  async function put(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    const path = url.searchParams.get('path');
    if (path === null || path === '') return send(res, 400, { error: 'path required' });
    const bytes = await readBody(req);
    const existing = byPath(path);
    const ifMatch = req.headers['if-match'];
    if (ifMatch !== undefined && (existing === undefined || ifMatch !== `"${existing.version}"`)) return send(res, 412, { error: 'version mismatch' });
    const mime = (req.headers['content-type'] ?? 'application/octet-stream').split(';')[0]!.trim();
    if (existing !== undefined) {
      Object.assign(existing, { bytes, mime, updatedAt: now(), version: existing.version + 1 });
      emit('updated', path);
      return send(res, 200, meta(existing));
    }
    const id = nextId++;
    const file: NoteFile = { id, path, bytes, mime, updatedAt: now(), version: 1, starred: false };
    files.set(id, file);
    emit('created', path);
    return send(res, 201, meta(file));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    token,
    files,
    requests,
    rename,
    add,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
