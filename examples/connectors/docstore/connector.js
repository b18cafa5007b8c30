// inseam example connector: a JSON document store that re-serialises what it stores.
//
// One ES module, no imports: it runs in inseam's sandbox, where `fetch` goes through the egress
// gate, which adds "Authorization: Bearer {{token}}". The store parses every document and keeps
// its own form (keys sorted, no whitespace), so a document never reads back as the bytes written:
// describe() says so with writes.roundTrip "normalised", and the trial compares JSON values
// instead of bytes (docs/connectors/authoring.md#writing-normalising-hosts).

// Entry.path is canonical: each segment percent-encoded, only A-Z a-z 0-9 - . _ ~ literal.
function encodeSegment(segment) {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function hostError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

// A document id ("invoices/2024-0001") is "/"-separated like a bucket key: its parts are the
// path's segments.
function pathOf(id) {
  return id.split('/').map(encodeSegment).join('/');
}

function idOf(path) {
  return path.split('/').map(decodeURIComponent).join('/');
}

// A path prefix as an id prefix. A prefix may end inside a character's escapes ("%C3"); the
// store is then asked for the longest whole part, and the connector filters the rest.
function idPrefixOf(prefix) {
  for (let text = prefix; text !== ''; ) {
    try {
      return idOf(text);
    } catch {
      const shorter = text.replace(/%[0-9A-Fa-f]{0,2}$/, '');
      text = shorter === text ? text.slice(0, -1) : shorter;
    }
  }
  return '';
}

export function createConnector(config) {
  if (typeof config.baseUrl !== 'string') throw hostError('invalid_argument', 'config.baseUrl is required, e.g. "https://docs.example.com".');
  const base = new URL(config.baseUrl);
  const pageSize = Number.isInteger(config.pageSize) ? config.pageSize : 100;

  function docUrl(route, id) {
    // The id is one URL path segment: a "/" in it is sent as %2F.
    return new URL('/v1/' + route + '/' + encodeURIComponent(id), base).href;
  }

  async function check(response, doing) {
    if (response.ok) return response;
    await response.body?.cancel();
    if (response.status === 404) throw hostError('not_found', doing + ': not found');
    if (response.status === 412) throw hostError('precondition_failed', doing + ': the document changed since that revision');
    if (response.status === 400) throw hostError('invalid_argument', doing + ': the store refused the document (it must be JSON)');
    if (response.status === 401 || response.status === 403) throw hostError('permission_denied', doing + ': the token was refused');
    if (response.status === 429) throw hostError('rate_limited', doing + ': rate limited');
    if (response.status >= 500) throw hostError('unavailable', doing + ': the store answered ' + response.status);
    throw hostError('invalid_argument', doing + ': the store answered ' + response.status);
  }

  // One function turns the store's metadata into an Entry, for list, stat and write alike.
  function toEntry(meta) {
    const slash = meta.id.indexOf('/');
    return {
      path: pathOf(meta.id),
      size: meta.size,
      mtime: new Date(meta.updated).toISOString(),
      etag: '"' + meta.rev + '"',
      mime: 'application/json',
      extra: { collection: slash < 0 ? null : meta.id.slice(0, slash) },
    };
  }

  async function stat(path) {
    const response = await fetch(docUrl('meta', idOf(path)));
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    return toEntry(await (await check(response, 'stat ' + path)).json());
  }

  return {
    describe() {
      return {
        kind: 'docstore',
        capabilities: ['list', 'stat', 'read', 'write', 'delete'],
        auth: {
          fields: [{ name: 'token', label: 'Access token', secret: true, help: 'Console → Access tokens; give it read and write.' }],
          instructions: 'Create an access token with read and write access to the documents and paste it here.',
          acquire: { type: 'static' },
          present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{token}}' }],
          origins: [base.origin],
        },
        dimensions: {
          updated: { type: 'datetime', from: 'mtime', ordering: true, description: 'When the document last changed.' },
          path: { type: 'path', from: 'path', description: 'The document id, its "/"-separated parts as segments.' },
          size: { type: 'bytes', from: 'size', description: 'Size of the stored JSON in bytes.' },
          collection: { type: 'string', from: 'extra.collection', description: 'The first part of the id ("invoices"), or null for a document at the top.' },
        },
        listing: 'free',
        writes: { mimes: ['application/json'], create: true, replace: true, delete: true, maxBytes: 1048576, roundTrip: 'normalised' },
      };
    },

    // Keyset paging: the cursor is the path of the page's last document; the store lists after it.
    async list({ prefix, cursor, since, order } = {}) {
      if (order === 'newest') throw hostError('unsupported', 'The document store lists in id order only.');
      const wanted = prefix || '';
      const url = new URL('/v1/docs', base);
      url.searchParams.set('limit', String(pageSize));
      if (wanted !== '') url.searchParams.set('prefix', idPrefixOf(wanted));
      if (since !== undefined) url.searchParams.set('since', since);
      if (cursor !== undefined) {
        if (!cursor.startsWith('after:')) throw hostError('invalid_argument', 'The cursor is not one this connector issued.');
        url.searchParams.set('after', idOf(cursor.slice('after:'.length)));
      }
      const page = await (await check(await fetch(url.href), 'list')).json();
      const entries = page.docs.map(toEntry).filter((entry) => entry.path.startsWith(wanted));
      return page.next ? { entries, cursor: 'after:' + pathOf(page.next) } : { entries };
    },

    stat,

    // range is [start, end); HTTP ranges are inclusive, hence end - 1; 416 means past the end.
    async read(path, { range } = {}) {
      if (range && range[0] >= range[1]) return new ReadableStream({ start: (c) => c.close() });
      const headers = range ? { Range: 'bytes=' + range[0] + '-' + (range[1] - 1) } : {};
      const response = await fetch(docUrl('docs', idOf(path)), { headers });
      if (range && response.status === 416) {
        await response.body?.cancel();
        return new ReadableStream({ start: (c) => c.close() });
      }
      return (await check(response, 'read ' + path)).body;
    },

    // The store answers with the metadata of what it stored (its own serialisation), which is what
    // stat() reports from now on.
    async write(path, body, { ifMatch } = {}) {
      const headers = { 'Content-Type': 'application/json' };
      if (ifMatch !== undefined) headers['If-Match'] = ifMatch;
      const response = await fetch(docUrl('docs', idOf(path)), { method: 'PUT', headers, body });
      return toEntry(await (await check(response, 'write ' + path)).json());
    },

    async delete(path) {
      await check(await fetch(docUrl('docs', idOf(path)), { method: 'DELETE' }), 'delete ' + path);
    },
  };
}
