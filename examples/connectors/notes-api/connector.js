// inseam example connector: a JSON REST API with cursor paging and bearer-token auth.
//
// One ES module, no imports: it runs in inseam's sandbox, where `fetch` goes through the egress
// gate. The connector never sees the token: describe().auth says how to present it
// ("Authorization: Bearer {{token}}") and the gate adds the header to every request to the
// declared origin. See README.md beside this file.

const EVENT_KINDS = { created: 'put', updated: 'put', deleted: 'delete', moved: 'move' };
const EXTENSION_MIMES = { txt: 'text/plain', md: 'text/markdown', json: 'application/json', png: 'image/png' };

// Entry.path is the canonical form: each segment percent-encoded, only A-Z a-z 0-9 - . _ ~ literal.
function encodeSegment(segment) {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function toEntryPath(apiPath) {
  return apiPath.split('/').map(encodeSegment).join('/');
}

function toApiPath(entryPath) {
  return entryPath.split('/').map(decodeURIComponent).join('/');
}

// An error the platform recognises by its code (not_found, precondition_failed, unsupported, ...).
function hostError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

export function createConnector(config) {
  if (typeof config.baseUrl !== 'string') throw hostError('invalid_argument', 'config.baseUrl is required, e.g. "https://notes.example.com".');
  const base = new URL(config.baseUrl);
  const pageSize = Number.isInteger(config.pageSize) ? config.pageSize : 100;
  const pollMs = Number.isInteger(config.pollMs) ? config.pollMs : 2000;

  async function api(method, path, { query, headers, body } = {}) {
    const url = new URL(path, base);
    for (const [name, value] of Object.entries(query || {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const init = { method, headers: headers || {} };
    if (body !== undefined) init.body = body;
    return fetch(url.href, init);
  }

  // Turns an HTTP error status into an error with a code the platform understands.
  async function check(response, doing) {
    if (response.ok) return response;
    await response.body?.cancel();
    if (response.status === 404) throw hostError('not_found', doing + ': not found');
    if (response.status === 412) throw hostError('precondition_failed', doing + ': the file changed since that version');
    if (response.status === 401 || response.status === 403) throw hostError('permission_denied', doing + ': the token was refused');
    if (response.status === 429) throw hostError('rate_limited', doing + ': rate limited');
    if (response.status >= 500) throw hostError('unavailable', doing + ': the API answered ' + response.status);
    throw new Error(doing + ': the API answered ' + response.status);
  }

  // The one place an API file becomes an Entry, so list, stat and write always agree.
  function toEntry(file) {
    return {
      path: toEntryPath(file.path),
      size: file.size,
      mtime: file.updated_at,
      etag: '"' + file.version + '"',
      mime: file.mime,
      nativeId: String(file.id),
      extra: { starred: file.starred === true },
    };
  }

  async function lookup(path) {
    const response = await api('GET', '/api/v1/files/by-path', { query: { path: toApiPath(path) } });
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    return (await check(response, 'stat ' + path)).json();
  }

  return {
    describe() {
      return {
        kind: 'notes-api',
        category: 'api',
        capabilities: ['list', 'stat', 'read', 'watch', 'write', 'delete'],
        auth: {
          fields: [{ name: 'token', label: 'API token', secret: true, help: 'Settings → API tokens → New token (read and write).' }],
          instructions: 'Create an API token with read and write access and paste it here.',
          acquire: { type: 'static' },
          present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{token}}' }],
          origins: [base.origin],
        },
        dimensions: {
          updated: { type: 'datetime', from: 'mtime', ordering: true, description: 'When the file last changed.' },
          path: { type: 'path', from: 'path', description: 'The file path, percent-encoded per segment.' },
          size: { type: 'bytes', from: 'size', description: 'File size in bytes.' },
          mime: { type: 'string', from: 'mime', description: 'The type the API stores for the file.' },
          starred: { type: 'boolean', from: 'extra.starred', description: 'Whether the file is starred.' },
        },
        listing: 'free',
        defaultScope: { rules: [{ exclude: { dim: 'path', op: 'prefix', value: 'trash/' } }] },
        writes: { mimes: Object.values(EXTENSION_MIMES), create: true, replace: true, delete: true },
      };
    },

    // The API pages for us: its next_cursor goes out as our cursor, so a cursor round-trips.
    async list({ prefix, cursor, since, order } = {}) {
      const query = { limit: pageSize, order: order === 'newest' ? 'newest' : 'path', cursor, since };
      if (prefix) query.prefix = toApiPath(prefix);
      const response = await check(await api('GET', '/api/v1/files', { query }), 'list');
      const page = await response.json();
      const result = { entries: page.files.map(toEntry) };
      if (page.next_cursor) result.cursor = page.next_cursor;
      return result;
    },

    async stat(path) {
      const file = await lookup(path);
      return file === null ? null : toEntry(file);
    },

    // range is [start, end), end exclusive; HTTP ranges are inclusive, hence end - 1.
    async read(path, { range } = {}) {
      const file = await lookup(path);
      if (file === null) throw hostError('not_found', 'read ' + path + ': not found');
      const headers = {};
      if (range) {
        const [start, end] = range;
        if (start >= end || start >= file.size) return new ReadableStream({ start: (c) => c.close() });
        headers.Range = 'bytes=' + start + '-' + (end - 1);
      }
      const response = await check(await api('GET', '/api/v1/files/' + file.id + '/content', { headers }), 'read ' + path);
      return response.body;
    },

    async write(path, body, { ifMatch } = {}) {
      const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
      const headers = { 'Content-Type': EXTENSION_MIMES[extension] || 'application/octet-stream' };
      if (ifMatch !== undefined) headers['If-Match'] = ifMatch;
      const response = await api('PUT', '/api/v1/files/content', { query: { path: toApiPath(path) }, headers, body });
      return toEntry(await (await check(response, 'write ' + path)).json());
    },

    async delete(path) {
      const file = await lookup(path);
      if (file === null) throw hostError('not_found', 'delete ' + path + ': not found');
      await check(await api('DELETE', '/api/v1/files/' + file.id), 'delete ' + path);
    },

    // Polls the API's event feed from "now" on; resolves to the function that stops it.
    async watch(emit) {
      const start = await (await check(await api('GET', '/api/v1/events', { query: { after: 'latest' } }), 'watch')).json();
      let after = start.last;
      let busy = false;
      const timer = setInterval(async () => {
        if (busy) return;
        busy = true;
        try {
          const feed = await (await check(await api('GET', '/api/v1/events', { query: { after } }), 'watch')).json();
          for (const event of feed.events) {
            const change = { type: EVENT_KINDS[event.kind], path: toEntryPath(event.path) };
            if (event.old_path !== undefined) change.from = toEntryPath(event.old_path);
            emit(change);
          }
          after = feed.last;
        } catch (error) {
          console.warn('notes-api: polling events failed: ' + error.message);
        } finally {
          busy = false;
        }
      }, pollMs);
      return () => clearInterval(timer);
    },
  };
}
