/**
 * A small ticket tracker API on loopback, the host of the `tickets` example connector: tickets
 * with stable numeric ids, people with ids (some without an email), attachments with their own
 * ids and SHA-256, cursor paging, an updated-since filter, newest-first order, and a webhook
 * delivery format. Bearer-token auth on every route. Ticket content ignores Range (as some hosts
 * do); attachments honour it.
 *
 *   GET /api/me                                          → the token's user
 *   GET /api/tickets?limit&cursor&order=id|updated_desc&updated_since → { tickets: [...], next_cursor }
 *   GET /api/tickets/{id}                                → ticket | 404
 *   GET /api/tickets/{id}/content                        → text/markdown (always 200, whole)
 *   GET /api/tickets/{id}/attachments/{aid}              → bytes (Range → 206, past the end → 416)
 *
 * A ticket: { id, key, title, status: open|pending|closed, project, labels, reporter, assignee,
 * watchers, created_at, updated_at, due: "YYYY-MM-DD" | null, version, content_size, attachments }.
 * A user: { id, name, email | null }. An attachment: { id, filename, mime, size, sha256, created_at }.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TicketUser {
  readonly id: string;
  readonly name: string;
  readonly email: string | null;
}

export interface TicketAttachmentSeed {
  readonly id: string;
  readonly filename: string;
  readonly mime: string;
  readonly bytes: Uint8Array;
}

export interface TicketSeed {
  readonly id: number;
  readonly title: string;
  readonly status: 'open' | 'pending' | 'closed';
  readonly project: string;
  readonly labels?: readonly string[];
  readonly reporter: string;
  readonly assignee: string | null;
  readonly watchers?: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly due: string | null;
  readonly content: string;
  readonly attachments?: readonly TicketAttachmentSeed[];
}

export interface TicketsApi {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly token: string;
  /** Requests seen, as `METHOD /path` (no query). */
  readonly requests: string[];
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

export async function startTicketsApi(users: readonly TicketUser[], owner: string, seed: readonly TicketSeed[], token = 'tk_trial_5e1f'): Promise<TicketsApi> {
  const requests: string[] = [];
  const userById = new Map(users.map((user) => [user.id, user]));
  const person = (id: string | null): TicketUser | null => (id === null ? null : (userById.get(id) ?? null));
  const tickets = seed.map((ticket) => ({
    ...ticket,
    contentBytes: Buffer.from(ticket.content),
    attachments: (ticket.attachments ?? []).map((attachment) => ({ ...attachment, bytes: Buffer.from(attachment.bytes), sha256: createHash('sha256').update(attachment.bytes).digest('hex') })),
  }));
  const view = (ticket: (typeof tickets)[number]): Record<string, unknown> => ({
    id: ticket.id,
    key: `T-${ticket.id}`,
    title: ticket.title,
    status: ticket.status,
    project: ticket.project,
    labels: ticket.labels ?? [],
    reporter: person(ticket.reporter),
    assignee: person(ticket.assignee),
    watchers: (ticket.watchers ?? []).map(person),
    created_at: ticket.createdAt,
    updated_at: ticket.updatedAt,
    due: ticket.due,
    version: 1,
    content_size: ticket.contentBytes.byteLength,
    attachments: ticket.attachments.map((attachment) => ({ id: attachment.id, filename: attachment.filename, mime: attachment.mime, size: attachment.bytes.byteLength, sha256: attachment.sha256, created_at: ticket.createdAt })),
  });

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 500, { error: 'internal' }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://tickets');
    requests.push(`${req.method} ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'unauthorized' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'read-only API' });
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'api') return send(res, 404, { error: 'no such route' });
    if (parts[1] === 'me' && parts.length === 2) return send(res, 200, person(owner));
    if (parts[1] !== 'tickets') return send(res, 404, { error: 'no such route' });
    if (parts.length === 2) return list(url, res);
    const ticket = tickets.find((item) => String(item.id) === parts[2]);
    if (ticket === undefined) return send(res, 404, { error: 'no such ticket' });
    if (parts.length === 3) return send(res, 200, view(ticket));
    if (parts[3] === 'content' && parts.length === 4) {
      res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8', 'content-length': String(ticket.contentBytes.byteLength), etag: `"v1"` });
      res.end(req.method === 'HEAD' ? undefined : ticket.contentBytes);
      return;
    }
    const attachment = parts[3] === 'attachments' && parts.length === 5 ? ticket.attachments.find((item) => item.id === parts[4]) : undefined;
    if (attachment === undefined) return send(res, 404, { error: 'no such attachment' });
    return content(req, res, attachment.bytes, attachment.mime);
  }

  function list(url: URL, res: ServerResponse): void {
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? '50'), 1), 100);
    const order = url.searchParams.get('order') ?? 'id';
    if (order !== 'id' && order !== 'updated_desc') return send(res, 400, { error: 'bad order' });
    const since = url.searchParams.get('updated_since');
    let offset = 0;
    const cursor = url.searchParams.get('cursor');
    if (cursor !== null) {
      const decoded = /^(\d+):(id|updated_desc)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (decoded === null || decoded[2] !== order) return send(res, 400, { error: 'bad cursor' });
      offset = Number(decoded[1]);
    }
    let all = tickets.filter((ticket) => since === null || Date.parse(ticket.updatedAt) >= Date.parse(since));
    all = order === 'id' ? all.sort((a, b) => a.id - b.id) : all.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || a.id - b.id);
    const page = all.slice(offset, offset + limit);
    const next = offset + limit < all.length ? Buffer.from(`${offset + limit}:${order}`).toString('base64url') : null;
    send(res, 200, { tickets: page.map(view), next_cursor: next });
  }

  function content(req: IncomingMessage, res: ServerResponse, bytes: Buffer, mime: string): void {
    const headers = { 'content-type': mime, 'accept-ranges': 'bytes' };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range === null) {
      res.writeHead(200, { ...headers, 'content-length': String(bytes.byteLength) });
      res.end(req.method === 'HEAD' ? undefined : bytes);
      return;
    }
    const start = Number(range[1]);
    if (start >= bytes.byteLength) {
      res.writeHead(416, { 'content-range': `bytes */${bytes.byteLength}` });
      res.end();
      return;
    }
    const end = range[2] === '' ? bytes.byteLength - 1 : Math.min(Number(range[2]), bytes.byteLength - 1);
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${bytes.byteLength}`, 'content-length': String(end - start + 1) });
    res.end(req.method === 'HEAD' ? undefined : bytes.subarray(start, end + 1));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    token,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
