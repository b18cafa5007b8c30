/**
 * The filesystem routes: thin over FsService, which decides everything a caller may do. Addresses
 * come in the `address` query parameter; a global address names the network the call works in.
 */
import { hasErrorCode, PreconditionFailedError } from '@neuralis/package-system/contracts';
import { parseAddress } from '../../address/index.js';
import { DEFAULT_NAMES_LIST_LIMIT, DEFAULT_READ_BYTES, MAX_LIST_LIMIT, MAX_NAMES_LIST_LIMIT, readDocumentText } from '../../fs/index.js';
import { readBody } from '../body.js';
import { sendByteBody } from '../byte-body.js';
import { HttpError } from '../errors.js';
import { formatEtag, noneMatchHits, parseIfMatch, parseIfNoneMatchWrite, parseRange } from '../headers.js';
import type { Call, JsonSchema, RouteSpec } from '../route.js';
import { address, addressQuery, documentTextPage, errorSchema, fsEntry, fsFolder, fsListPage, fsReadResult, fsStat, fsTransfer, searchPage } from '../schemas.js';

const TAG = 'files';

/** The network a global address names; a short or malformed one names none (the service reports it). */
export function addressNetwork(text: string): string | undefined {
  try {
    return parseAddress(text).network;
  } catch {
    return undefined;
  }
}

function query<T>(call: Call): T {
  return call.request.query as T;
}

async function callerFor(call: Call, text: string) {
  return call.caller(addressNetwork(text));
}

function header(call: Call, name: string): string | undefined {
  const value = call.request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

const withAddress = (properties: Record<string, JsonSchema>, required: readonly string[] = []): JsonSchema => ({
  type: 'object',
  properties: { address, ...properties },
  required: ['address', ...required],
  additionalProperties: false,
});

/** A copy's or move's body: the source, the target, and whether an object there may be replaced. */
const transferBody = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties: {
    from: { ...address, description: 'The object or folder to copy or move.' },
    to: { ...address, description: 'Where to: a new name, or a folder that is there (then inside it, under the source\'s name).' },
    ...properties,
    createOnly: { type: 'boolean', description: 'Never replace an object at the target (409 `already_exists`).' },
  },
  required: ['from', 'to'],
  additionalProperties: false,
});

export const fsRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    url: '/v1/fs/list',
    operationId: 'listDirectory',
    action: 'fs.list',
    summary: 'List the direct children of a directory',
    description: 'One page of a directory, entries the caller may not read left out. Needs `read`. While the host is offline the synced listing answers (`source: "catalog"`).',
    tag: TAG,
    querystring: withAddress({
      cursor: { type: 'string', maxLength: 8192 },
      limit: { type: 'integer', minimum: 1, maximum: MAX_NAMES_LIST_LIMIT, description: `Entries per page: 1–${MAX_LIST_LIMIT} (default ${MAX_LIST_LIMIT}); with \`detail=names\` up to ${MAX_NAMES_LIST_LIMIT} (default ${DEFAULT_NAMES_LIST_LIMIT}).` },
      detail: { type: 'string', enum: ['full', 'names'], description: '`names`: names and types only (no size, time or etag), faster on large folders. Default `full`; a cursor continues a listing of the same detail.' },
    }),
    responses: { 200: { description: 'A page of entries; `cursor` continues it.', schema: fsListPage } },
    handler: async (call) => {
      const { address: text, cursor, limit, detail } = query<{ address: string; cursor?: string; limit?: number; detail?: 'full' | 'names' }>(call);
      return call.services.fs.list(await callerFor(call, text), text, {
        ...(cursor === undefined ? {} : { cursor }),
        ...(limit === undefined ? {} : { limit }),
        ...(detail === undefined ? {} : { detail }),
      });
    },
  },
  {
    method: 'GET',
    url: '/v1/fs/stat',
    operationId: 'statObject',
    action: 'fs.stat',
    summary: 'Describe one object',
    tag: TAG,
    querystring: addressQuery,
    responses: { 200: { description: 'The entry.', schema: fsStat } },
    handler: async (call) => {
      const { address: text } = query<{ address: string }>(call);
      return call.services.fs.stat(await callerFor(call, text), text);
    },
  },
  {
    method: 'GET',
    url: '/v1/fs/read',
    operationId: 'readObject',
    action: 'fs.read',
    summary: 'Download an object\'s bytes (Range supported)',
    description:
      'Streams the raw bytes (HEAD answers the headers alone). `Range: bytes=a-b`, `bytes=a-` or `bytes=-n` answers 206 with `Content-Range`; a range starting past the end is 416 (`invalid_argument`, `details.reason: range_not_satisfiable`); other Range forms are ignored (200, the whole object). `If-None-Match` with the current etag answers 304.',
    tag: TAG,
    querystring: addressQuery,
    responses: {
      200: { description: 'The whole object.', contentType: 'application/octet-stream', schema: { type: 'string', format: 'binary' }, headers: { ETag: 'The object\'s etag, quoted.', 'Inseam-Source': '`live` or `catalog`.' } },
      206: { description: 'The requested range.', contentType: 'application/octet-stream', schema: { type: 'string', format: 'binary' }, headers: { 'Content-Range': 'bytes a-b/size' } },
      304: { description: 'The object still has the etag If-None-Match named.' },
      416: { description: 'The range starts past the end.', schema: errorSchema },
    },
    handler: async (call) => {
      const { address: text } = query<{ address: string }>(call);
      const caller = await callerFor(call, text);
      const range = parseRange(header(call, 'range'));
      let window: { offset: number; length?: number } | undefined;
      if (range.kind === 'suffix') {
        const size = (await call.services.fs.stat(caller, text)).size;
        if (size !== undefined && range.length > 0) window = { offset: Math.max(0, size - range.length) };
        else if (range.length === 0) throw unsatisfiable(size);
      } else if (range.kind === 'bytes') {
        window = { offset: range.offset, ...(range.last === undefined ? {} : { length: range.last - range.offset + 1 }) };
      }
      const opened = await call.services.fs.readStream(caller, text, window === undefined ? {} : { range: window });
      const etag = formatEtag(opened.etag);
      if (noneMatchHits(header(call, 'if-none-match'), opened.etag)) {
        await opened.stream.cancel().catch(() => undefined);
        return call.reply.code(304).headers(etag === undefined ? {} : { etag }).send();
      }
      if (window !== undefined && opened.size !== undefined && window.offset >= opened.size) {
        await opened.stream.cancel().catch(() => undefined);
        throw unsatisfiable(opened.size);
      }
      const headers: Record<string, string> = {
        'content-type': opened.mime ?? 'application/octet-stream',
        'accept-ranges': 'bytes',
        'inseam-source': opened.source,
        'x-content-type-options': 'nosniff',
        // Bytes from a host are never rendered as a page of this origin.
        'content-security-policy': "default-src 'none'; sandbox",
        ...(etag === undefined ? {} : { etag }),
        ...(opened.length === undefined ? {} : { 'content-length': String(opened.length) }),
      };
      if (window !== undefined) {
        const last = opened.length === undefined ? undefined : opened.offset + opened.length - 1;
        headers['content-range'] = `bytes ${opened.offset}-${last ?? '*'}/${opened.size ?? '*'}`;
      }
      // Written from two reused buffers (byte-body.ts); HEAD answers the headers and cancels the stream unread.
      return sendByteBody(
        call.reply,
        { status: window === undefined ? 200 : 206, headers, stream: opened.stream, ...(opened.length === undefined ? {} : { length: opened.length }) },
        call.services.answerHeaders,
      );
    },
  },
  {
    method: 'GET',
    url: '/v1/fs/page',
    operationId: 'readPage',
    action: 'fs.read',
    summary: 'Read one page of an object as JSON (text, base64 or a marker)',
    description:
      'What agents read: at most `maxBytes` of content per answer (default 256 KiB, at most 8 MiB), with `size`, `etag` and `nextOffset`. Without `offset` or `line` the whole object is read: a text object larger than the cap is `too_large` (413) — read it by ranges or lines.',
    tag: TAG,
    querystring: withAddress({
      offset: { type: 'integer', minimum: 0, description: 'First byte (a byte range).' },
      length: { type: 'integer', minimum: 0, description: 'Bytes wanted from offset.' },
      line: { type: 'integer', minimum: 1, description: 'First line, 1-based (a line range; exclusive with offset).' },
      lines: { type: 'integer', minimum: 0, description: 'Lines wanted from line.' },
      maxBytes: { type: 'integer', minimum: 1 },
    }),
    responses: { 200: { description: 'One page.', schema: fsReadResult } },
    handler: async (call) => {
      const q = query<{ address: string; offset?: number; length?: number; line?: number; lines?: number; maxBytes?: number }>(call);
      if (q.length !== undefined && q.offset === undefined) throw new HttpError('invalid_argument', '`length` goes with `offset`.', { details: { argument: 'length' } });
      if (q.lines !== undefined && q.line === undefined) throw new HttpError('invalid_argument', '`lines` goes with `line`.', { details: { argument: 'lines' } });
      return call.services.fs.read(await callerFor(call, q.address), q.address, {
        ...(q.offset === undefined ? {} : { range: { offset: q.offset, ...(q.length === undefined ? {} : { length: q.length }) } }),
        ...(q.line === undefined ? {} : { lines: { start: q.line, ...(q.lines === undefined ? {} : { count: q.lines }) } }),
        ...(q.maxBytes === undefined ? {} : { maxBytes: q.maxBytes }),
      });
    },
  },
  {
    method: 'GET',
    url: '/v1/fs/text',
    operationId: 'readDocumentText',
    action: 'fs.read',
    summary: 'Read a document (PDF, DOCX, XLSX, PPTX, HTML) as its extracted text',
    description:
      'The text in a document, paged by lines within `maxBytes` (default 256 KiB): `lines.next` is the `line` to ask for next, absent on the last page. The type comes from the object\'s media type, or its extension when that is generic. A document that cannot be read is 422 `document_unreadable` (`details.reason`: `malformed`, `wrong_type`, `encrypted`, `crashed`), one over an extraction limit 413 `too_large`, a slow one 504 `timeout`; its bytes stay readable with `GET /v1/fs/read`. Needs `read`.',
    tag: TAG,
    querystring: withAddress({
      line: { type: 'integer', minimum: 1, description: 'First line, 1-based.' },
      lines: { type: 'integer', minimum: 1, description: 'Lines wanted from line.' },
      maxBytes: { type: 'integer', minimum: 1, maximum: 8 * 1024 * 1024 },
    }),
    responses: { 200: { description: 'One page of the text.', schema: documentTextPage } },
    handler: async (call) => {
      const q = query<{ address: string; line?: number; lines?: number; maxBytes?: number }>(call);
      if (q.lines !== undefined && q.line === undefined) throw new HttpError('invalid_argument', '`lines` goes with `line`.', { details: { argument: 'lines' } });
      return readDocumentText(call.services.fs, await callerFor(call, q.address), q.address, {
        maxBytes: q.maxBytes ?? DEFAULT_READ_BYTES,
        ...(q.line === undefined ? {} : { lineStart: q.line }),
        ...(q.lines === undefined ? {} : { lineCount: q.lines }),
        bytesHint: 'Download its original bytes with GET /v1/fs/read.',
      });
    },
  },
  {
    method: 'PUT',
    url: '/v1/fs/write',
    operationId: 'writeObject',
    action: 'fs.write',
    summary: 'Create or replace an object (If-Match / If-None-Match: *)',
    description:
      'The body is the object\'s bytes, any content type (its `Content-Type` is passed on as the mime). Atomic: readers see the old or the new object, never a mix. `If-Match: "<etag>"` replaces only that version (412 `precondition_failed` otherwise, nothing written); `If-Match: *` only an existing object; `If-None-Match: *` creates only (409 `already_exists`). A body over the server\'s limit is 413 `too_large`. Needs `write`.',
    tag: TAG,
    querystring: addressQuery,
    rawBody: { description: 'The object\'s bytes.' },
    responses: {
      200: { description: 'Written; the entry with its new etag.', schema: fsEntry, headers: { ETag: 'The new etag.' } },
      201: { description: 'Created (with If-None-Match: *).', schema: fsEntry, headers: { ETag: 'The new etag.' } },
    },
    handler: async (call) => {
      const { address: text } = query<{ address: string }>(call);
      const caller = await callerFor(call, text);
      let ifMatch = parseIfMatch(header(call, 'if-match'));
      const createOnly = parseIfNoneMatchWrite(header(call, 'if-none-match'));
      if (ifMatch !== undefined && createOnly) throw new HttpError('invalid_argument', 'Send If-Match or If-None-Match, not both.', { details: { argument: 'if-match' } });
      const body = await readBody(call.rawBody(), call.services.maxWriteBytes, header(call, 'content-length'));
      if (ifMatch === '*') ifMatch = await currentEtag(call, caller, text);
      const mime = header(call, 'content-type')?.split(';')[0]?.trim();
      const entry = await call.services.fs.write(caller, text, new Uint8Array(body.buffer, body.byteOffset, body.byteLength), {
        ...(ifMatch === undefined ? {} : { ifMatch }),
        ...(createOnly ? { createOnly } : {}),
        ...(mime === undefined || mime === '' ? {} : { mime }),
      });
      const etag = formatEtag(entry.etag);
      return call.reply
        .code(createOnly ? 201 : 200)
        .headers(etag === undefined ? {} : { etag })
        .send(entry);
    },
  },
  {
    method: 'DELETE',
    url: '/v1/fs/delete',
    operationId: 'deleteObject',
    action: 'fs.delete',
    summary: 'Remove an object (If-Match supported)',
    description: 'Needs `write` — with `recursive`, at every path the host\'s permission tree names below too, so a denied child is never removed with its parent.',
    tag: TAG,
    querystring: withAddress({ recursive: { type: 'boolean' } }),
    responses: { 204: { description: 'Removed.' } },
    handler: async (call) => {
      const { address: text, recursive } = query<{ address: string; recursive?: boolean }>(call);
      const caller = await callerFor(call, text);
      let ifMatch = parseIfMatch(header(call, 'if-match'));
      if (ifMatch === '*') ifMatch = await currentEtag(call, caller, text);
      await call.services.fs.delete(caller, text, { ...(recursive === undefined ? {} : { recursive }), ...(ifMatch === undefined ? {} : { ifMatch }) });
      return undefined;
    },
  },
  {
    method: 'POST',
    url: '/v1/fs/mkdir',
    operationId: 'makeFolder',
    action: 'fs.mkdir',
    summary: 'Make a folder and the folders on the way to it (as mkdir -p)',
    description:
      'Answers 201 with the folder when it was made, 200 when it was there already (`created: false`). On a host whose folders exist only through what is in them (a bucket) nothing is made: the name is checked to be free and the answer is 200 with `implied: true`. A file there is 409 `already_exists`, a file on the way 409 `not_a_directory`. Needs `write` and `read`.',
    tag: TAG,
    body: { type: 'object', properties: { address }, required: ['address'], additionalProperties: false },
    responses: {
      200: { description: 'The folder was there already, or is implied.', schema: fsFolder },
      201: { description: 'Made.', schema: fsFolder },
      409: { description: '`already_exists` (a file is there) or `not_a_directory` (a file on the way).', schema: errorSchema },
    },
    handler: async (call) => {
      const { address: text } = call.request.body as { address: string };
      const folder = await call.services.fs.mkdir(await callerFor(call, text), text);
      return call.reply.code(folder.created ? 201 : 200).send(folder);
    },
  },
  {
    method: 'POST',
    url: '/v1/fs/copy',
    operationId: 'copyObject',
    action: 'fs.copy',
    summary: 'Copy an object, or a folder with `recursive`, within a host or to another',
    description:
      'Streams each file from its host to the target. `to` naming a folder that is there copies into it, under the source\'s name. Existing files are replaced unless `createOnly` (409 `already_exists`); a folder without `recursive` is 409 `is_a_directory`; a target inside the source is 400 `invalid_argument`. A copy that fails part way leaves what it wrote. Needs `read` at the source and `write` at the target (for a folder at every path the tree names below each); an agent a `write` grant.',
    tag: TAG,
    body: transferBody({ recursive: { type: 'boolean', description: 'Copy a folder and everything below it.' } }),
    responses: {
      200: { description: 'What was copied.', schema: fsTransfer },
      404: { description: 'Nothing is at `from` (`not_found`).', schema: errorSchema },
      409: { description: '`already_exists` (createOnly), `is_a_directory` (a folder without recursive, or a folder at a file\'s target), `not_a_directory` (a file on the way).', schema: errorSchema },
    },
    handler: async (call) => {
      const { from, to, recursive, createOnly } = call.request.body as { from: string; to: string; recursive?: boolean; createOnly?: boolean };
      return call.services.fs.copy(await callerFor(call, from), from, to, { ...(recursive === undefined ? {} : { recursive }), ...(createOnly === undefined ? {} : { createOnly }) });
    },
  },
  {
    method: 'POST',
    url: '/v1/fs/move',
    operationId: 'moveObject',
    action: 'fs.move',
    summary: 'Move or rename an object or a folder, within a host or to another',
    description:
      'A copy (as `POST /v1/fs/copy`, always recursive) and then the source removed, each file only if it is still the version copied (412 `precondition_failed` otherwise: it is kept, and the target holds the version read). A folder\'s files are all copied before any is removed. Within a host the catalog\'s entries move with their identity, so search finds the object at its new address at once. Moving a host\'s root is 400 `invalid_argument`. Needs `write` and `read` at the source and `write` at the target (for a folder at every path the tree names below each); an agent a `delete` and a `write` grant.',
    tag: TAG,
    body: transferBody({}),
    responses: {
      200: { description: 'What was moved.', schema: fsTransfer },
      404: { description: 'Nothing is at `from` (`not_found`).', schema: errorSchema },
      409: { description: '`already_exists` (createOnly), `is_a_directory`, `not_a_directory`.', schema: errorSchema },
      412: { description: 'A source file changed while it was moved (`precondition_failed`): it was kept.', schema: errorSchema },
    },
    handler: async (call) => {
      const { from, to, createOnly } = call.request.body as { from: string; to: string; createOnly?: boolean };
      return call.services.fs.move(await callerFor(call, from), from, to, createOnly === undefined ? {} : { createOnly });
    },
  },
  {
    method: 'GET',
    url: '/v1/search',
    operationId: 'search',
    action: 'fs.search',
    summary: 'Search the synced content of the caller\'s network, by words or by meaning',
    description: 'mode=hybrid (default): words and meaning, fused by reciprocal rank. mode=keyword: words, "quoted phrases" and prefix* terms (two letters or more before the *), all of which must match. mode=semantic: passages nearest in meaning (the network\'s embedder). Filters and permissions apply before ranking; never a hit the caller may not read.',
    tag: TAG,
    querystring: {
      type: 'object',
      properties: {
        q: { type: 'string', minLength: 1, maxLength: 1000 },
        host: { type: 'array', items: { type: 'string' }, description: 'Only these hosts (repeat the parameter).' },
        where: { type: 'array', items: { type: 'string' }, description: 'Dimension filters such as mime=text/markdown or size>1000 (repeat the parameter).' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        cursor: { type: 'string', maxLength: 4096 },
        mode: { type: 'string', enum: ['keyword', 'semantic', 'hybrid'], description: 'Default hybrid.' },
      },
      required: ['q'],
      additionalProperties: false,
    },
    responses: { 200: { description: 'Hits, best first; `next` continues.', schema: searchPage } },
    handler: async (call) => {
      const q = query<{ q: string; host?: string[]; where?: string[]; limit?: number; cursor?: string; mode?: 'keyword' | 'semantic' | 'hybrid' }>(call);
      return call.services.fs.search(await call.caller(), q.q, {
        ...(q.host === undefined ? {} : { hosts: q.host }),
        ...(q.where === undefined ? {} : { whereText: q.where }),
        ...(q.limit === undefined ? {} : { limit: q.limit }),
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...(q.mode === undefined ? {} : { mode: q.mode }),
      });
    },
  },
];

/** `If-Match: *`: the object must exist; its current etag then guards the write like any other. */
async function currentEtag(call: Call, caller: Awaited<ReturnType<Call['caller']>>, text: string): Promise<string> {
  try {
    const stat = await call.services.fs.stat(caller, text);
    if (stat.etag !== undefined) return stat.etag;
  } catch (error) {
    if (!hasErrorCode(error, 'not_found')) throw error;
  }
  throw new PreconditionFailedError('If-Match: * needs an existing object (with an etag) at that address; nothing was written.', { details: { reason: 'no_current_object' } });
}

function unsatisfiable(size: number | undefined): HttpError {
  return new HttpError('invalid_argument', 'The range starts at or past the end of the object.', {
    status: 416,
    details: { argument: 'range', reason: 'range_not_satisfiable', ...(size === undefined ? {} : { size }) },
    ...(size === undefined ? {} : { headers: { 'content-range': `bytes */${size}` } }),
  });
}
