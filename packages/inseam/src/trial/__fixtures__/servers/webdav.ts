/**
 * A minimal WebDAV server (RFC 4918 class 1) on loopback, the host of the `webdav` example
 * connector, served under `/dav/` with Basic auth:
 *
 *   OPTIONS                      → DAV: 1
 *   PROPFIND  Depth: 0 | 1       → 207 multistatus (displayname, getcontentlength,
 *                                  getlastmodified, getetag, getcontenttype, resourcetype);
 *                                  Depth: infinity → 403 (as most servers answer)
 *   GET/HEAD  (Range: bytes=a-b) → 200, or 206 with Content-Range, or 416
 *   PUT       (If-Match, If-None-Match: *) → 201 created / 204 replaced, 409 without a parent
 *             collection, 412 on a failed precondition
 *   DELETE                       → 204, 404
 *
 * Hrefs are percent-encoded per segment, collections end with "/", dates are RFC 1123.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DavSeed {
  /** Decoded, "/"-separated, below the DAV root. */
  readonly path: string;
  readonly text: string;
  readonly modified: string;
}

interface DavFile {
  bytes: Buffer;
  modified: number;
  etag: string;
}

export interface DavServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The DAV root URL, `<origin>/dav/`. */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** Decoded path → file. */
  readonly files: Map<string, DavFile>;
  /** Methods seen, in order. */
  readonly methods: string[];
  close(): Promise<void>;
}

const ROOT = '/dav/';
const MIMES: Record<string, string> = { txt: 'text/plain', md: 'text/markdown', json: 'application/json', png: 'image/png', bin: 'application/octet-stream' };

function mimeOf(path: string): string {
  return MIMES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function hrefOf(path: string, collection: boolean): string {
  const encoded = path === '' ? '' : path.split('/').map(encodeURIComponent).join('/');
  return `${ROOT}${encoded}${collection && path !== '' ? '/' : ''}`;
}

async function drain(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startDavServer(seed: readonly DavSeed[], username = 'alice', password = 'wonder-land-42'): Promise<DavServer> {
  const files = new Map<string, DavFile>();
  const collections = new Set<string>(['']);
  const methods: string[] = [];
  let version = 0;
  const etag = (): string => `"e${++version}"`;
  const addParents = (path: string): void => {
    const parts = path.split('/');
    for (let index = 1; index < parts.length; index += 1) collections.add(parts.slice(0, index).join('/'));
  };
  for (const item of seed) {
    addParents(item.path);
    files.set(item.path, { bytes: Buffer.from(item.text), modified: Date.parse(item.modified), etag: etag() });
  }
  const expectedAuth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      res.writeHead(500);
      res.end();
    });
  });

  function propResponse(path: string, collection: boolean): string {
    const file = files.get(path);
    const name = path.split('/').pop() ?? '';
    const props = collection
      ? '<D:resourcetype><D:collection/></D:resourcetype>'
      : `<D:resourcetype/><D:getcontentlength>${file!.bytes.byteLength}</D:getcontentlength><D:getlastmodified>${new Date(file!.modified).toUTCString()}</D:getlastmodified><D:getetag>${escapeXml(file!.etag)}</D:getetag><D:getcontenttype>${mimeOf(path)}</D:getcontenttype>`;
    return `<D:response><D:href>${escapeXml(hrefOf(path, collection))}</D:href><D:propstat><D:prop><D:displayname>${escapeXml(name)}</D:displayname>${props}</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    methods.push(method);
    if (req.headers.authorization !== expectedAuth) {
      await drain(req);
      res.writeHead(401, { 'www-authenticate': 'Basic realm="dav"' });
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://dav');
    if (!url.pathname.startsWith(ROOT) && url.pathname !== ROOT.slice(0, -1)) {
      res.writeHead(404);
      res.end();
      return;
    }
    const raw = url.pathname.slice(ROOT.length).replace(/\/$/, '');
    const path = raw === '' ? '' : raw.split('/').map(decodeURIComponent).join('/');
    const file = files.get(path);
    const isCollection = collections.has(path);
    switch (method) {
      case 'OPTIONS':
        res.writeHead(200, { dav: '1', allow: 'OPTIONS, PROPFIND, GET, HEAD, PUT, DELETE' });
        res.end();
        return;
      case 'PROPFIND': {
        await drain(req);
        const depth = req.headers.depth ?? 'infinity';
        if (depth !== '0' && depth !== '1') {
          res.writeHead(403, { 'content-type': 'application/xml' });
          res.end('<?xml version="1.0"?><D:error xmlns:D="DAV:"><D:propfind-finite-depth/></D:error>');
          return;
        }
        if (file === undefined && !isCollection) {
          res.writeHead(404);
          res.end();
          return;
        }
        const responses = [propResponse(path, isCollection)];
        if (isCollection && depth === '1') {
          const prefix = path === '' ? '' : `${path}/`;
          const children = (candidates: Iterable<string>): string[] => [...candidates].filter((item) => item !== path && item.startsWith(prefix) && !item.slice(prefix.length).includes('/'));
          for (const child of children(collections)) responses.push(propResponse(child, true));
          for (const child of children(files.keys())) responses.push(propResponse(child, false));
        }
        res.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' });
        res.end(`<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">${responses.join('')}</D:multistatus>`);
        return;
      }
      case 'GET':
      case 'HEAD': {
        if (file === undefined) {
          res.writeHead(isCollection ? 405 : 404);
          res.end();
          return;
        }
        const headers = { 'content-type': mimeOf(path), etag: file.etag, 'last-modified': new Date(file.modified).toUTCString(), 'accept-ranges': 'bytes' };
        const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
        const size = file.bytes.byteLength;
        if (range === null) {
          res.writeHead(200, { ...headers, 'content-length': String(size) });
          res.end(method === 'HEAD' ? undefined : file.bytes);
          return;
        }
        const start = Number(range[1]);
        if (start >= size) {
          res.writeHead(416, { 'content-range': `bytes */${size}` });
          res.end();
          return;
        }
        const end = range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
        res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) });
        res.end(method === 'HEAD' ? undefined : file.bytes.subarray(start, end + 1));
        return;
      }
      case 'PUT': {
        const body = await drain(req);
        const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
        if (path === '' || isCollection || !collections.has(parent)) {
          res.writeHead(409);
          res.end();
          return;
        }
        const ifMatch = req.headers['if-match'];
        if ((ifMatch !== undefined && ifMatch !== file?.etag) || (req.headers['if-none-match'] === '*' && file !== undefined)) {
          res.writeHead(412);
          res.end();
          return;
        }
        const written = { bytes: body, modified: Date.now(), etag: etag() };
        files.set(path, written);
        res.writeHead(file === undefined ? 201 : 204, { etag: written.etag });
        res.end();
        return;
      }
      case 'DELETE':
        if (file === undefined) {
          res.writeHead(404);
          res.end();
          return;
        }
        files.delete(path);
        res.writeHead(204);
        res.end();
        return;
      default:
        await drain(req);
        res.writeHead(405);
        res.end();
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}${ROOT}`,
    username,
    password,
    files,
    methods,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
