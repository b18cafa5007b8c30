// inseam example connector: a ticket tracker API — native ids, envelopes, attachments, webhooks.
//
// One ES module, no imports: it runs in inseam's sandbox, where `fetch` goes through the egress
// gate, which adds "Authorization: Bearer {{token}}". The rules it follows are in
// docs/connectors/authoring.md; the README beside this file says which part answers which.

// Entry.path is canonical: each segment percent-encoded, only A-Z a-z 0-9 - . _ ~ literal, the
// host's name exactly as it is (no Unicode normalisation), "/" inside a name as %2F.
function encodeSegment(segment) {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function hostError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

const STATUSES = ['open', 'pending', 'closed'];
const TICKET = /^T-(\d+)\/ticket\.md$/;
const ATTACHMENT = /^T-(\d+)\/attachments\/([A-Za-z0-9]+)-([^/]+)$/;
const ONE_TICKET = /^T-(\d+)\//;

// A date-only due date ("2024-06-01") as the RFC 3339 UTC instant a datetime dimension needs.
function dueOf(due) {
  return typeof due === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(due) ? due + 'T00:00:00Z' : null;
}

function utc(time) {
  return new Date(time).toISOString();
}

// A stream of bytes [start, end) of `body`, for a host that ignores Range: it reads on only as
// far as `end` and cancels the rest, so a large object is never buffered.
function sliceStream(body, start, end) {
  const reader = body.getReader();
  let offset = 0;
  return new ReadableStream({
    async pull(controller) {
      for (;;) {
        if (offset >= end) {
          controller.close();
          await reader.cancel();
          return;
        }
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        const from = Math.max(0, start - offset);
        const to = Math.min(value.byteLength, end - offset);
        offset += value.byteLength;
        if (to > from) {
          controller.enqueue(value.subarray(from, to));
          return;
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function emptyStream() {
  return new ReadableStream({ start: (controller) => controller.close() });
}

export function createConnector(config) {
  if (typeof config.baseUrl !== 'string') throw hostError('invalid_argument', 'config.baseUrl is required, e.g. "https://tickets.example.com".');
  const base = new URL(config.baseUrl);
  const pageSize = Number.isInteger(config.pageSize) ? config.pageSize : 50;
  // Who the owner is, asked once per runtime: state the sandbox may drop, because it can be rebuilt.
  let owner;

  async function api(path, { query, headers } = {}) {
    const url = new URL(path, base);
    for (const [name, value] of Object.entries(query || {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return fetch(url.href, { headers: headers || {} });
  }

  async function check(response, doing) {
    if (response.ok) return response;
    await response.body?.cancel();
    if (response.status === 404) throw hostError('not_found', doing + ': not found');
    if (response.status === 401 || response.status === 403) throw hostError('permission_denied', doing + ': the token was refused');
    if (response.status === 429) throw hostError('rate_limited', doing + ': rate limited');
    if (response.status >= 500) throw hostError('unavailable', doing + ': the API answered ' + response.status);
    throw hostError('invalid_argument', doing + ': the API answered ' + response.status);
  }

  async function ownerId() {
    if (owner === undefined) owner = (await (await check(await api('/api/me'), 'who am I')).json()).id;
    return owner;
  }

  async function ticketById(id) {
    const response = await api('/api/tickets/' + id);
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    return (await check(response, 'ticket ' + id)).json();
  }

  // A person as the host states them: their email when it has one, else the host's user id.
  function identity(user) {
    return user.email ? 'mailto:' + user.email.toLowerCase() : 'tickets:' + user.id;
  }

  function envelope(ticket, me) {
    const parties = [{ identity: identity(ticket.reporter), role: 'reporter' }];
    if (ticket.assignee) parties.push({ identity: identity(ticket.assignee), role: 'assignee' });
    for (const watcher of ticket.watchers) parties.push({ identity: identity(watcher), role: 'watcher' });
    return { direction: ticket.reporter.id === me ? 'sent' : 'received', parties };
  }

  // The ticket's fields every entry of it carries, the attachments too: dimensions that describe
  // the ticket take its values, and its update time orders them all.
  function shared(ticket, me) {
    return {
      mtime: utc(ticket.updated_at),
      envelope: envelope(ticket, me),
      extra: {
        key: ticket.key,
        title: ticket.title,
        status: ticket.status,
        project: ticket.project,
        labels: ticket.labels,
        due: dueOf(ticket.due),
        assignee: ticket.assignee ? identity(ticket.assignee) : null,
      },
    };
  }

  function ticketEntry(ticket, me) {
    const common = shared(ticket, me);
    return {
      path: 'T-' + ticket.id + '/ticket.md',
      size: ticket.content_size,
      mtime: common.mtime,
      etag: '"v' + ticket.version + '"',
      mime: 'text/markdown',
      nativeId: 'ticket:' + ticket.id,
      envelope: common.envelope,
      extra: { ...common.extra, kind: 'ticket', created: utc(ticket.created_at) },
    };
  }

  function attachmentEntry(ticket, attachment, me) {
    const common = shared(ticket, me);
    return {
      path: 'T-' + ticket.id + '/attachments/' + attachment.id + '-' + encodeSegment(attachment.filename),
      size: attachment.size,
      mtime: common.mtime,
      etag: '"' + attachment.sha256.slice(0, 16) + '"',
      mime: attachment.mime,
      nativeId: 'attachment:' + attachment.id,
      nativeHash: 'sha256:' + attachment.sha256,
      envelope: common.envelope,
      extra: { ...common.extra, kind: 'attachment', created: utc(attachment.created_at), filename: attachment.filename },
    };
  }

  function entriesOf(ticket, me) {
    return [ticketEntry(ticket, me), ...ticket.attachments.map((attachment) => attachmentEntry(ticket, attachment, me))];
  }

  async function lookup(path) {
    const match = TICKET.exec(path) || ATTACHMENT.exec(path);
    if (match === null) return null;
    const ticket = await ticketById(match[1]);
    if (ticket === null) return null;
    if (match[2] === undefined) return { ticket };
    const attachment = ticket.attachments.find((item) => item.id === match[2] && encodeSegment(item.filename) === match[3]);
    return attachment === undefined ? null : { ticket, attachment };
  }

  return {
    describe() {
      return {
        kind: 'tickets',
        capabilities: ['list', 'stat', 'read'],
        auth: {
          fields: [{ name: 'token', label: 'API token', secret: true, pattern: 'tk_[A-Za-z0-9_]+', help: 'Profile → API tokens → New token (read access is enough).' }],
          instructions: 'Create a read-only API token in your profile and paste it here.\n\nThe tracker\'s webhooks can be pointed at the URL inseam shows after the host is added.',
          acquire: { type: 'static' },
          present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{token}}' }],
          origins: [base.origin],
        },
        dimensions: {
          updated: { type: 'datetime', from: 'mtime', ordering: true, description: 'When the ticket last changed; its attachments carry the same time.' },
          kind: { type: 'enum', from: 'extra.kind', values: ['ticket', 'attachment'], description: 'A ticket, or a file attached to one.' },
          status: { type: 'enum', from: 'extra.status', values: STATUSES, description: 'The ticket\'s status (the tracker has exactly these three).' },
          project: { type: 'string', from: 'extra.project', description: 'The project the ticket belongs to (projects are created by people, so a string).' },
          due: { type: 'datetime', from: 'extra.due', description: 'The due date at midnight UTC, or null when the ticket has none.' },
          assignee: { type: 'string', from: 'extra.assignee', description: 'Who the ticket is assigned to (an identity), or null.' },
          size: { type: 'bytes', from: 'size', description: 'Size in bytes.' },
          path: { type: 'path', from: 'path', description: 'T-<id>/ticket.md, or T-<id>/attachments/<attachment id>-<file name>.' },
        },
        listing: 'metered',
        defaultScope: { rules: [{ exclude: { dim: 'status', op: 'eq', value: 'closed' } }] },
      };
    },

    // One page of tickets, each followed by its attachments. The API's cursor is passed through
    // as ours; since and order map to its own filter and sort.
    async list({ prefix, cursor, since, order } = {}) {
      const wanted = prefix || '';
      const me = await ownerId();
      const single = ONE_TICKET.exec(wanted);
      if (single !== null) {
        // A prefix inside one ticket lists that ticket alone, in one page.
        if (cursor !== undefined) throw hostError('invalid_argument', 'The cursor is not one this connector issued for this prefix.');
        const ticket = await ticketById(single[1]);
        if (ticket === null || (since !== undefined && Date.parse(ticket.updated_at) < Date.parse(since))) return { entries: [] };
        return { entries: entriesOf(ticket, me).filter((entry) => entry.path.startsWith(wanted)) };
      }
      const query = { limit: pageSize, cursor, order: order === 'newest' ? 'updated_desc' : 'id', updated_since: since };
      const page = await (await check(await api('/api/tickets', { query }), 'list')).json();
      const entries = page.tickets.flatMap((ticket) => entriesOf(ticket, me)).filter((entry) => entry.path.startsWith(wanted));
      return page.next_cursor ? { entries, cursor: page.next_cursor } : { entries };
    },

    async stat(path) {
      const found = await lookup(path);
      if (found === null) return null;
      const me = await ownerId();
      return found.attachment === undefined ? ticketEntry(found.ticket, me) : attachmentEntry(found.ticket, found.attachment, me);
    },

    // range is [start, end). Ticket content ignores Range, so the connector cuts it; attachments
    // honour it (HTTP ranges are inclusive, hence end - 1).
    async read(path, { range } = {}) {
      const found = await lookup(path);
      if (found === null) throw hostError('not_found', 'read ' + path + ': not found');
      if (range && range[0] >= range[1]) return emptyStream();
      if (found.attachment === undefined) {
        const response = await check(await api('/api/tickets/' + found.ticket.id + '/content'), 'read ' + path);
        return range ? sliceStream(response.body, range[0], range[1]) : response.body;
      }
      const headers = range ? { Range: 'bytes=' + range[0] + '-' + (range[1] - 1) } : {};
      const response = await api('/api/tickets/' + found.ticket.id + '/attachments/' + found.attachment.id, { headers });
      if (range && response.status === 416) {
        await response.body?.cancel();
        return emptyStream();
      }
      await check(response, 'read ' + path);
      return range && response.status === 200 ? sliceStream(response.body, range[0], range[1]) : response.body;
    },

    // A delivery from the tracker's webhooks: { event, ticket: { id }, attachment?: { id, filename } }.
    async webhook(request) {
      const text = await request.text();
      if (text === '') return [];
      const delivery = JSON.parse(text);
      const ticketPath = 'T-' + delivery.ticket.id + '/ticket.md';
      switch (delivery.event) {
        case 'ticket.created':
        case 'ticket.updated':
          return [{ type: 'put', path: ticketPath }];
        case 'attachment.added':
          return [{ type: 'put', path: 'T-' + delivery.ticket.id + '/attachments/' + delivery.attachment.id + '-' + encodeSegment(delivery.attachment.filename) }];
        case 'ticket.deleted':
          // The delivery does not list the attachments, so the whole host is listed again.
          return [{ type: 'delete', path: ticketPath }, { type: 'rescan', path: '' }];
        default:
          return [];
      }
    },
  };
}
