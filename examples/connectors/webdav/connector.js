// inseam example connector: a WebDAV server (Nextcloud, ownCloud, Apache mod_dav, a NAS ...).
//
// One ES module, no imports: it runs in inseam's sandbox, where `fetch` goes through the egress
// gate. The connector never sees the password: describe().auth asks for it and says to present it
// as HTTP Basic auth, and the gate attaches it to every request to the declared origin.
// See README.md beside this file.

// Entry.path is the canonical form: each segment percent-encoded, only A-Z a-z 0-9 - . _ ~ literal.
function encodeSegment(segment) {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function hostError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

const XML_ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, name) => {
    if (name[0] === '#') return String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
    return XML_ENTITIES[name.toLowerCase()];
  });
}

// The sandbox has no DOMParser: a PROPFIND answer is read with patterns that ignore the namespace
// prefix servers choose (D:, d:, lp1: ...).
function elements(xml, name) {
  const pattern = new RegExp('<(?:[\\w.-]+:)?' + name + '(?:\\s[^>]*)?(?:/>|>([\\s\\S]*?)</(?:[\\w.-]+:)?' + name + '\\s*>)', 'gi');
  return [...xml.matchAll(pattern)].map((match) => match[1] ?? '');
}

function element(xml, name) {
  const found = elements(xml, name)[0];
  return found === undefined ? undefined : unescapeXml(found.trim());
}

export function createConnector(config) {
  if (typeof config.url !== 'string') throw hostError('invalid_argument', 'config.url is required: the WebDAV folder URL, e.g. "https://cloud.example.com/remote.php/dav/files/alice/".');
  const root = new URL(config.url.endsWith('/') ? config.url : config.url + '/');

  // Entry path "a%20b/c.txt" → request URL under the root; the path is already percent-encoded.
  function urlOf(path, collection) {
    return new URL(path + (collection && path !== '' ? '/' : ''), root).href;
  }

  // A server href (absolute URL or absolute path, encoded its own way) → canonical Entry path.
  // This is URL space, not a filesystem: root.pathname always ends in "/", so a prefix test keeps
  // sibling folders out, and hrefs that are malformed or name "." / ".." are left out of listings.
  function pathOfHref(href) {
    const pathname = new URL(href, root).pathname;
    if (!pathname.startsWith(root.pathname)) return undefined;
    const relative = pathname.slice(root.pathname.length).replace(/\/$/, '');
    if (relative === '') return '';
    const names = [];
    for (const segment of relative.split('/')) {
      let name;
      try {
        name = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
      if (name === '' || name === '.' || name === '..') return undefined;
      names.push(encodeSegment(name));
    }
    return names.join('/');
  }

  function toEntry(response) {
    const path = pathOfHref(element(response, 'href') ?? '');
    if (path === undefined || path === '') return undefined;
    const collection = /<(?:[\w.-]+:)?collection\b/i.test(element(response, 'resourcetype') ?? '');
    const entry = { path, collection };
    const size = element(response, 'getcontentlength');
    if (size !== undefined && size !== '') entry.size = Number(size);
    const modified = element(response, 'getlastmodified');
    if (modified) entry.mtime = new Date(modified).toISOString();
    const etag = element(response, 'getetag');
    if (etag) entry.etag = etag;
    const mime = element(response, 'getcontenttype');
    if (mime) entry.mime = mime.split(';')[0].trim();
    return entry;
  }

  async function check(response, doing) {
    if (response.ok) return response;
    await response.body?.cancel();
    if (response.status === 404) throw hostError('not_found', doing + ': not found');
    if (response.status === 412) throw hostError('precondition_failed', doing + ': the file changed since that version');
    if (response.status === 401 || response.status === 403) throw hostError('permission_denied', doing + ': the server refused the credentials (' + response.status + ')');
    if (response.status === 507) throw hostError('too_large', doing + ': the server is out of space');
    if (response.status >= 500) throw hostError('unavailable', doing + ': the server answered ' + response.status);
    throw new Error(doing + ': the server answered ' + response.status);
  }

  // PROPFIND with Depth 0 (the resource) or 1 (and its children); many servers refuse infinity.
  async function propfind(path, depth) {
    const response = await fetch(urlOf(path, depth === '1'), {
      method: 'PROPFIND',
      headers: { Depth: depth, 'Content-Type': 'application/xml; charset=utf-8' },
      body: '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getlastmodified/><d:getetag/><d:getcontenttype/></d:prop></d:propfind>',
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    const xml = await (await check(response, 'PROPFIND ' + (path || '/'))).text();
    return elements(xml, 'response').map(toEntry).filter((entry) => entry !== undefined);
  }

  function fileEntry({ collection, ...entry }) {
    return entry;
  }

  async function stat(path) {
    const found = await propfind(path, '0');
    const entry = found?.[0];
    return entry === undefined || entry.collection ? null : fileEntry(entry);
  }

  // The cursor names the next folder to visit, so any cursor can be resumed later and its size is
  // bounded by one path (a list of every folder still to visit would grow with the tree).
  function encodeCursor(folder) {
    return btoa('next:' + folder);
  }

  function decodeCursor(cursor) {
    let text = '';
    try {
      text = atob(cursor);
    } catch {
      // fall through
    }
    if (!text.startsWith('next:')) throw hostError('invalid_argument', 'The cursor is not one this connector issued.');
    return text.slice('next:'.length);
  }

  function parentOf(folder) {
    return folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
  }

  // The files and the sorted subfolders of a folder that can hold paths starting with `wanted`.
  async function childrenOf(folder, wanted) {
    const files = [];
    const folders = [];
    for (const child of (await propfind(folder, '1')) ?? []) {
      if (child.path === folder) continue;
      if (child.collection) {
        if (child.path.startsWith(wanted) || wanted.startsWith(child.path + '/')) folders.push(child.path);
      } else if (child.path.startsWith(wanted)) {
        files.push(fileEntry(child));
      }
    }
    // Canonical paths are ASCII, so < is code point order.
    return { files, folders: folders.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
  }

  // The folder after `folder` in a depth-first walk below `top`: its first subfolder, else the
  // next sibling of it or of its nearest ancestor that has one.
  async function nextFolder(folder, subfolders, top, wanted) {
    if (subfolders.length > 0) return subfolders[0];
    let current = folder;
    while (current !== top) {
      const parent = parentOf(current);
      const siblings = (await childrenOf(parent, wanted)).folders;
      const next = siblings.find((sibling) => sibling > current);
      if (next !== undefined) return next;
      current = parent;
    }
    return undefined;
  }

  return {
    describe() {
      return {
        kind: 'webdav',
        capabilities: ['list', 'stat', 'read', 'write', 'delete'],
        auth: {
          fields: [
            { name: 'username', label: 'User name', secret: false },
            { name: 'password', label: 'Password or app password', secret: true, help: 'Prefer an app password: Settings → Security → Devices & sessions.' },
          ],
          instructions: 'Use the WebDAV URL of the folder to attach (your server shows it under Files → Settings → WebDAV).',
          acquire: { type: 'static' },
          present: [{ in: 'basic', username: '{{username}}', password: '{{password}}' }],
          origins: [root.origin],
        },
        dimensions: {
          modified: { type: 'datetime', from: 'mtime', ordering: true, description: 'When the file last changed (getlastmodified).' },
          path: { type: 'path', from: 'path', description: 'The file path below the WebDAV folder, percent-encoded per segment.' },
          size: { type: 'bytes', from: 'size', description: 'File size in bytes (getcontentlength).' },
          mime: { type: 'string', from: 'mime', description: 'The type the server reports (getcontenttype).' },
        },
        listing: 'free',
        defaultScope: {
          rules: [{ exclude: { any: [{ dim: 'path', op: 'glob', value: '**/.DS_Store' }, { dim: 'path', op: 'glob', value: '**/Thumbs.db' }] } }],
        },
        writes: { mimes: '*', create: true, replace: true, delete: true },
      };
    },

    // One folder per call (PROPFIND Depth 1), files only: folders are implied by paths.
    async list({ prefix, cursor, since, order } = {}) {
      if (order === 'newest') throw hostError('unsupported', 'WebDAV cannot list newest first.');
      const wanted = prefix || '';
      // prefix is a string prefix of the path: "Documents/rep" starts in "Documents".
      const top = wanted.includes('/') ? wanted.slice(0, wanted.lastIndexOf('/')) : '';
      let folder = cursor === undefined ? top : decodeCursor(cursor);
      // since is inclusive; a server cannot filter by time, so the connector does.
      const sinceMs = since === undefined ? undefined : Date.parse(since);
      const entries = [];
      // Visit folders until one has files, so pages are rarely empty.
      while (folder !== undefined && entries.length === 0) {
        const { files, folders } = await childrenOf(folder, wanted);
        for (const file of files) {
          if (sinceMs === undefined || Date.parse(file.mtime) >= sinceMs) entries.push(file);
        }
        folder = await nextFolder(folder, folders, top, wanted);
      }
      entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return folder === undefined ? { entries } : { entries, cursor: encodeCursor(folder) };
    },

    stat,

    // range is [start, end), end exclusive; HTTP ranges are inclusive, hence end - 1.
    async read(path, { range } = {}) {
      if (range && range[0] >= range[1]) return new ReadableStream({ start: (c) => c.close() });
      const headers = range ? { Range: 'bytes=' + range[0] + '-' + (range[1] - 1) } : {};
      const response = await fetch(urlOf(path, false), { headers });
      if (range && response.status === 416) return new ReadableStream({ start: (c) => c.close() });
      await check(response, 'GET ' + path);
      if (range && response.status === 200) {
        // The server ignored Range: cut the bytes out of the whole body ourselves.
        const bytes = new Uint8Array(await response.arrayBuffer()).slice(range[0], range[1]);
        return new ReadableStream({ start: (c) => { c.enqueue(bytes); c.close(); } });
      }
      return response.body;
    },

    async write(path, body, { ifMatch } = {}) {
      const headers = ifMatch === undefined ? {} : { 'If-Match': ifMatch };
      const response = await fetch(urlOf(path, false), { method: 'PUT', headers, body });
      if (response.status === 409) {
        // WebDAV does not create missing folders on PUT, and the body stream is spent, so say so.
        await response.body?.cancel();
        throw hostError('not_found', 'PUT ' + path + ': its folder does not exist on the server.');
      }
      await check(response, 'PUT ' + path);
      // The PUT answer has no size or date: describe the file as the server now has it.
      const entry = await stat(path);
      if (entry === null) throw new Error('PUT ' + path + ' succeeded but the file is not there.');
      return entry;
    },

    async delete(path) {
      await check(await fetch(urlOf(path, false), { method: 'DELETE' }), 'DELETE ' + path);
    },
  };
}
