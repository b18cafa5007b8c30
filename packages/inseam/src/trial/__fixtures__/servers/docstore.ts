/**
 * A JSON document store on loopback, the host of the `docstore` example connector. It parses
 * every document it is given and stores its own serialisation — keys sorted, no whitespace — so a
 * document never reads back as the bytes written (the "normalising host" of the author's
 * reference). Revisions are its version tags. Bearer-token auth on every route.
 *
 *   GET    /v1/docs?prefix&since&after&limit  → { docs: [meta], next: <id> | null }   (id order)
 *   GET    /v1/meta/{id}                      → meta | 404
 *   GET    /v1/docs/{id}   (Range)            → the stored JSON, ETag "<rev>" (206, 416)
 *   PUT    /v1/docs/{id}   (If-Match)         → meta (201 new, 200 replaced, 400 not JSON, 412)
 *   DELETE /v1/docs/{id}                      → 204 | 404
 *
 * `{id}` is one URL path segment (a "/" in an id is %2F). meta: { id, rev, updated, size }.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DocSeed {
  readonly id: string;
  readonly json: string;
  readonly updatedAt: string;
}

interface StoredDoc {
  readonly id: string;
  bytes: Buffer;
  rev: string;
  updated: number;
}

export interface DocStore {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly token: string;
  /** id → stored document. */
  readonly docs: Map<string, StoredDoc>;
  close(): Promise<void>;
}

/** The store's serialisation: keys sorted at every level, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
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

export async function startDocStore(seed: readonly DocSeed[], token = 'ds_trial_91c2'): Promise<DocStore> {
  const docs = new Map<string, StoredDoc>();
  let clock = 0;
  const now = (): number => (clock = Math.max(Date.now(), clock + 1));
  const revOf = (generation: number, bytes: Buffer): string => `${generation}-${createHash('sha1').update(bytes).digest('hex').slice(0, 8)}`;
  for (const item of seed) {
    const bytes = Buffer.from(canonicalJson(JSON.parse(item.json)));
    docs.set(item.id, { id: item.id, bytes, rev: revOf(1, bytes), updated: Date.parse(item.updatedAt) });
  }
  const meta = (doc: StoredDoc): Record<string, unknown> => ({ id: doc.id, rev: doc.rev, updated: new Date(doc.updated).toISOString(), size: doc.bytes.byteLength });

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 500, { error: 'internal' }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'unauthorized' });
    const url = new URL(req.url ?? '/', 'http://docstore');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'v1' || parts.length > 3) return send(res, 404, { error: 'no such route' });
    if (parts[1] === 'docs' && parts.length === 2 && req.method === 'GET') return list(url, res);
    let id: string;
    try {
      id = decodeURIComponent(parts[2] ?? '');
    } catch {
      return send(res, 400, { error: 'bad id' });
    }
    if (id === '') return send(res, 404, { error: 'no such route' });
    const doc = docs.get(id);
    if (parts[1] === 'meta' && req.method === 'GET') return doc === undefined ? send(res, 404, { error: 'not found' }) : send(res, 200, meta(doc));
    if (parts[1] !== 'docs') return send(res, 404, { error: 'no such route' });
    if (req.method === 'GET' || req.method === 'HEAD') return doc === undefined ? send(res, 404, { error: 'not found' }) : content(req, res, doc);
    if (req.method === 'DELETE') {
      if (doc === undefined) return send(res, 404, { error: 'not found' });
      docs.delete(id);
      return send(res, 204);
    }
    if (req.method === 'PUT') {
      const ifMatch = req.headers['if-match'];
      let value: unknown;
      try {
        value = JSON.parse((await readBody(req)).toString('utf8')) as unknown;
      } catch {
        return send(res, 400, { error: 'the body is not JSON' });
      }
      if (ifMatch !== undefined && (doc === undefined || ifMatch !== `"${doc.rev}"`)) return send(res, 412, { error: 'revision mismatch' });
      const bytes = Buffer.from(canonicalJson(value));
      if (doc === undefined) {
        const created: StoredDoc = { id, bytes, rev: revOf(1, bytes), updated: now() };
        docs.set(id, created);
        return send(res, 201, meta(created));
      }
      Object.assign(doc, { bytes, rev: revOf(Number(doc.rev.split('-')[0]) + 1, bytes), updated: now() });
      return send(res, 200, meta(doc));
    }
    return send(res, 405, { error: 'method not allowed' });
  }

  function list(url: URL, res: ServerResponse): void {
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? '100'), 1), 1000);
    const prefix = url.searchParams.get('prefix') ?? '';
    const since = url.searchParams.get('since');
    const after = url.searchParams.get('after');
    const all = [...docs.values()]
      .filter((doc) => doc.id.startsWith(prefix) && (since === null || doc.updated >= Date.parse(since)) && (after === null || doc.id > after))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = all.slice(0, limit);
    send(res, 200, { docs: page.map(meta), next: all.length > limit ? page[page.length - 1]!.id : null });
  }

  function content(req: IncomingMessage, res: ServerResponse, doc: StoredDoc): void {
    const headers = { 'content-type': 'application/json', etag: `"${doc.rev}"`, 'accept-ranges': 'bytes' };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range === null) {
      res.writeHead(200, { ...headers, 'content-length': String(doc.bytes.byteLength) });
      res.end(req.method === 'HEAD' ? undefined : doc.bytes);
      return;
    }
    const start = Number(range[1]);
    if (start >= doc.bytes.byteLength) {
      res.writeHead(416, { 'content-range': `bytes */${doc.bytes.byteLength}` });
      res.end();
      return;
    }
    const end = range[2] === '' ? doc.bytes.byteLength - 1 : Math.min(Number(range[2]), doc.bytes.byteLength - 1);
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${doc.bytes.byteLength}`, 'content-length': String(end - start + 1) });
    res.end(req.method === 'HEAD' ? undefined : doc.bytes.subarray(start, end + 1));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    token,
    docs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
