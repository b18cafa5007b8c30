/**
 * The web page: static files from `packages/inseam/web/` (outside `src/`, so the TypeScript build
 * neither needs nor copies them, and the same path works from `src/web/` under the test condition
 * and from `dist/web/` once built). Every file is read once when the server is created and served
 * from memory, so no request path ever reaches the file system.
 *
 * `/` is `index.html`; `/web/<path>` is any other file. Both carry the page's policy: scripts,
 * styles and fonts only from this origin and never inline, requests only to this origin, images
 * also from `blob:` and `data:` (previews), never framed. Answers carry an ETag and are
 * revalidated (`no-cache`), so a new inseam never runs an old script.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http/errors.js';

/** Where the page's files are: `packages/inseam/web/`, relative to this module in src/ and in dist/. */
export const WEB_ROOT: string = fileURLToPath(new URL('../../web/', import.meta.url));

/** The URL prefix of the page's files. */
export const WEB_PREFIX = '/web/';

/** The Content-Security-Policy of the page and of its files. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every answer of the page. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-cache',
});

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

export interface WebAsset {
  readonly body: Buffer;
  readonly type: string;
  /** A strong ETag of the bytes, quoted. */
  readonly etag: string;
}

/**
 * Every file under `root` with a known type, by URL path (`/` for index.html, `/web/…` for the
 * rest). Files of other types and dot files are left out. Rejects when `root` has no index.html.
 */
export async function loadWebAssets(root: string = WEB_ROOT): Promise<ReadonlyMap<string, WebAsset>> {
  const assets = new Map<string, WebAsset>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const type = TYPES[extname(entry.name).toLowerCase()];
    if (type === undefined) continue;
    const file = join(entry.parentPath, entry.name);
    const path = relative(root, file).split(sep).join('/');
    if (path.split('/').some((segment) => segment.startsWith('.'))) continue;
    const body = await readFile(file);
    const asset = { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    assets.set(path === 'index.html' ? '/' : `${WEB_PREFIX}${path}`, asset);
  }
  if (!assets.has('/')) throw new Error(`The web page's files are missing: no index.html in ${root}.`);
  return assets;
}

function send(request: FastifyRequest, reply: FastifyReply, asset: WebAsset): FastifyReply {
  reply.headers({ ...PAGE_HEADERS, 'content-type': asset.type, etag: asset.etag });
  const match = request.headers['if-none-match'];
  if (typeof match === 'string' && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag)) return reply.code(304).send();
  return reply.send(asset.body);
}

/**
 * Serves the page at `/` and its files under `/web/`. An unknown file is the API's JSON 404
 * (`not_found`), so a typo in a script path shows up in the browser's console plainly.
 */
export async function registerWebPage(app: FastifyInstance, options: { readonly root?: string } = {}): Promise<void> {
  const assets = await loadWebAssets(options.root);
  app.get('/', async (request, reply) => send(request, reply, assets.get('/')!));
  app.get(`${WEB_PREFIX}*`, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const asset = path === '/' ? undefined : assets.get(path);
    if (asset === undefined) throw new HttpError('not_found', `The web page has no file ${path}.`, { details: { reason: 'no_file' } });
    return send(request, reply, asset);
  });
}
