/**
 * The filesystem tools: hosts, list, stat, read, write, delete, search (and edit, move, copy,
 * mkdir, tree and find from their own modules) — each made of calls of the filesystem service with the session's
 * caller, so routing, permission trees, capabilities and offline answers are exactly those of
 * every other surface (docs/fs.md).
 */
import { z } from 'zod';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { Caller, FsEntry, FsHost, FsListPage, FsReadOptions, FsReadResult, FsService } from '../../fs/index.js';
import { DEFAULT_READ_BYTES, MAX_NAMES_LIST_LIMIT, addressName, readDocumentText } from '../../fs/index.js';
import { documentKind, type DocumentKind } from '../../extract/index.js';
import { WHERE_OPERATORS, describeWhere, type WhereDimensions } from '../../search/index.js';
import { toolErrorBody } from '../errors.js';
import type { HostedTool, HostedToolContext } from '../hosted-tools.js';
import { readSummary, readToolResult } from '../read-content.js';
import { BYTES_HINT, documentToolResult } from '../read-document.js';
import { CHANGE_TOOLS } from './changes.js';
import { editTool } from './edit.js';
import { MCP_MAX_READ_BYTES, addressInput as address } from './inputs.js';
import { findTool, treeTool } from './walk.js';

/** The most objects one read call takes. */
const MAX_READ_ADDRESSES = 50;
const count = (max: number): z.ZodNumber => z.number().int().min(0).max(max);

function json(value: object): Record<string, unknown> {
  return { ...value };
}

function entryLine(entry: FsEntry): string {
  if (entry.type === 'directory') return `${entry.name}/`;
  return entry.size === undefined ? entry.name : `${entry.name}  ${entry.size} B`;
}

function listText(page: FsListPage): string {
  const head = `${page.address} — ${page.entries.length} entr${page.entries.length === 1 ? 'y' : 'ies'}${page.source === 'catalog' ? ' (host offline: synced copy)' : ''}`;
  const tail = page.cursor === undefined ? '' : `\nmore: call list again with cursor "${page.cursor}"`;
  return `${head}\n${page.entries.map(entryLine).join('\n')}${tail}`;
}

/**
 * A names-only listing for programs: the directory's address once and its children's names, a
 * directory's ending in "/" as in the text — one string each rather than an object, so a large
 * folder costs a fraction of the bytes and of the time to write and parse.
 */
function namesStructure(page: FsListPage): Record<string, unknown> {
  const names = page.entries.map((entry) => (entry.type === 'directory' ? `${entry.name}/` : entry.name));
  return { address: page.address, names, ...(page.cursor === undefined ? {} : { cursor: page.cursor }), source: page.source };
}

/**
 * A listing for programs: the directory's address once, each entry by name (its address is the
 * directory's plus the encoded name) with what stat would say of it but the MIME type.
 */
function listStructure(page: FsListPage): Record<string, unknown> {
  const entries = page.entries.map((entry) => {
    const listed: Record<string, unknown> = { name: entry.name, type: entry.type };
    if (entry.size !== undefined) listed['size'] = entry.size;
    if (entry.mtime !== undefined) listed['mtime'] = entry.mtime;
    if (entry.etag !== undefined) listed['etag'] = entry.etag;
    return listed;
  });
  return { address: page.address, entries, ...(page.cursor === undefined ? {} : { cursor: page.cursor }), source: page.source };
}

/** A runtime's path says whose it is, so an agent never takes a remote machine's path for one here. */
function osPathLabel(hit: { readonly host: string; readonly osPathOn?: 'local' | 'runtime' }): string {
  return hit.osPathOn === 'runtime' ? `os path on ${hit.host}'s own machine (not this one)` : 'os path';
}

function hostLine(host: FsHost): string {
  const state = host.status.state === 'offline' ? ' (offline)' : '';
  const rights = (['read', 'write', 'exec'] as const).filter((right) => host.rights[right]).join('/') || 'none';
  return `${host.address} — ${host.label} [${host.kind}]${state}, rights: ${rights}${host.description === '' ? '' : `\n  ${host.description}`}`;
}

const hostsTool: HostedTool = {
  name: 'hosts',
  action: 'hosts.list',
  title: 'Hosts',
  description: 'Lists the hosts (mounted sources) of this session\'s network that it may use, with each one\'s kind, description, rights at its root and liveness.',
  inputSchema: z.object({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(_args: Record<string, never>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const hosts = await fs.hosts(caller);
    return { content: [{ type: 'text', text: hosts.length === 0 ? 'This network has no host this session may use.' : hosts.map(hostLine).join('\n') }], structuredContent: { hosts } };
  },
};

const listInput = z.object({
  address,
  cursor: z.string().max(4096).optional().describe('The cursor a previous page of the same listing returned.'),
  limit: z.number().int().min(1).max(MAX_NAMES_LIST_LIMIT).optional().describe('Entries per page: 1–1000 (default 1000); with detail "names" up to 10,000 (default 5,000).'),
  detail: z
    .enum(['full', 'names'])
    .optional()
    .describe('"names": names and types only, without size, time and etag — faster on large folders. Default "full". A cursor continues a listing of the same detail.'),
});

const listTool: HostedTool = {
  name: 'list',
  action: 'fs.list',
  title: 'List a directory',
  description: 'Lists one page of the direct children of a directory (entries this session may not read are left out): names (directories end in "/"), sizes, and in the structured answer mtime and etag. With detail "names": names only (directories end in "/"), as `names` in the structured answer. Continue with the returned cursor.',
  inputSchema: listInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof listInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const page = await fs.list(caller, args.address, {
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
      ...(args.limit === undefined ? {} : { limit: args.limit }),
      ...(args.detail === undefined ? {} : { detail: args.detail }),
    });
    return { content: [{ type: 'text', text: listText(page) }], structuredContent: args.detail === 'names' ? namesStructure(page) : listStructure(page) };
  },
};

const statInput = z.object({ address });

const statTool: HostedTool = {
  name: 'stat',
  action: 'fs.stat',
  title: 'Describe an object',
  description: 'Describes one object: type, size, modification time, etag (pass it to write or delete as ifMatch) and MIME type.',
  inputSchema: statInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof statInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const entry = await fs.stat(caller, args.address);
    const facts = [entry.type, entry.size === undefined ? undefined : `${entry.size} bytes`, entry.mime, entry.mtime === undefined ? undefined : `modified ${entry.mtime}`, entry.etag === undefined ? undefined : `etag ${entry.etag}`];
    return { content: [{ type: 'text', text: `${entry.address}: ${facts.filter((fact) => fact !== undefined).join(', ')}` }], structuredContent: json(entry) };
  },
};

const readInput = z.object({
  address: address.optional().describe('The object to read (or give addresses).'),
  addresses: z
    .array(address)
    .min(1)
    .max(MAX_READ_ADDRESSES)
    .optional()
    .describe(`Several objects in one call (at most ${MAX_READ_ADDRESSES}), each read with the same options and answered on its own, failures included; their pages share the ${MCP_MAX_READ_BYTES}-byte message cap.`),
  offset: count(Number.MAX_SAFE_INTEGER).optional().describe('First byte to read (0-based); continue a long read with the nextOffset of the previous answer.'),
  length: count(MCP_MAX_READ_BYTES).optional().describe('Bytes wanted from offset; at most maxBytes.'),
  lineStart: z.number().int().min(1).optional().describe('First line to read (1-based), for text; exclusive with offset/length.'),
  lineCount: z.number().int().min(1).optional().describe('Lines wanted from lineStart; default as many as fit in maxBytes.'),
  head: z.number().int().min(1).optional().describe('The first N lines, for text (as lineStart 1, lineCount N).'),
  tail: z.number().int().min(1).optional().describe('The last N lines, for text, as many of them as fit in maxBytes.'),
  format: z
    .enum(['text', 'bytes'])
    .optional()
    .describe(
      'text: a PDF, DOCX, XLSX or PPTX (or an HTML page) as its extracted text, paged by lineStart/lineCount (or head) — the default for PDF, DOCX, XLSX and PPTX unless offset or length is given; HTML is read as its source unless format is "text". bytes: the object as stored.',
    ),
  maxBytes: z.number().int().min(1).max(MCP_MAX_READ_BYTES).optional().describe(`Per-message cap in bytes (default ${DEFAULT_READ_BYTES}, at most ${MCP_MAX_READ_BYTES}).`),
});

type ReadInput = z.infer<typeof readInput>;

/** How one object is read: the service's options, or the last lines (which the service has no range for). */
type ReadPlan = { readonly options: FsReadOptions; readonly tail?: number; readonly format?: 'text' | 'bytes' };

function readPlan(args: ReadInput): ReadPlan {
  const given = [
    args.offset !== undefined || args.length !== undefined ? 'offset/length' : undefined,
    args.lineStart !== undefined || args.lineCount !== undefined ? 'lineStart/lineCount' : undefined,
    args.head === undefined ? undefined : 'head',
    args.tail === undefined ? undefined : 'tail',
  ].filter((range) => range !== undefined);
  if (given.length > 1) throw new InvalidArgumentError(`Give one way to choose what to read, not ${given.join(' and ')}.`, { details: { argument: args.tail !== undefined ? 'tail' : args.head !== undefined ? 'head' : 'lineStart' } });
  if (args.lineCount !== undefined && args.lineStart === undefined) throw new InvalidArgumentError('lineCount needs lineStart.', { details: { argument: 'lineStart' } });
  const cap = args.maxBytes === undefined ? {} : { maxBytes: args.maxBytes };
  const format = args.format === undefined ? {} : { format: args.format };
  if (args.format === 'text' && (args.offset !== undefined || args.length !== undefined || args.tail !== undefined)) {
    throw new InvalidArgumentError('format "text" pages a document\'s text by lines (lineStart, lineCount, head); a byte range or tail reads the object as stored — give format "bytes" or drop the range.', { details: { argument: 'format' } });
  }
  if (args.tail !== undefined) return { options: cap, tail: args.tail, ...format };
  if (args.head !== undefined) return { options: { lines: { start: 1, count: args.head }, ...cap }, ...format };
  if (args.lineStart !== undefined) return { options: { lines: { start: args.lineStart, ...(args.lineCount === undefined ? {} : { count: args.lineCount }) }, ...cap }, ...format };
  if (args.offset !== undefined || args.length !== undefined) return { options: { range: { offset: args.offset ?? 0, ...(args.length === undefined ? {} : { length: args.length }) }, ...cap }, ...format };
  return { options: cap, ...format };
}

interface Reader {
  readonly fs: FsService;
  readonly caller: Caller;
  readonly signal: AbortSignal;
}

/**
 * One object: a PDF, DOCX, XLSX or PPTX as its extracted text unless bytes were asked for (HTML
 * only with format "text"), anything else as the service reads it.
 */
async function readOne(reader: Reader, target: string, plan: ReadPlan): Promise<CallToolResult> {
  const { fs, caller, signal } = reader;
  const { options, format } = plan;
  if (plan.tail !== undefined) return readTail(fs, caller, target, plan.tail, options.maxBytes ?? DEFAULT_READ_BYTES);
  const wantsText = format === 'text' || (format === undefined && options.range === undefined);
  const asText = (kind: DocumentKind | null): kind is DocumentKind => wantsText && kind !== null && (kind !== 'html' || format === 'text');
  const documentText = async (kind: DocumentKind): Promise<CallToolResult> =>
    documentToolResult(
      await readDocumentText(fs, caller, target, {
        kind,
        maxBytes: options.maxBytes ?? DEFAULT_READ_BYTES,
        ...(options.lines === undefined ? {} : { lineStart: options.lines.start, ...(options.lines.count === undefined ? {} : { lineCount: options.lines.count }) }),
        signal,
        bytesHint: BYTES_HINT,
      }),
    );
  // By name first, which costs no read; a name that lies about the type is read as usual.
  const named = documentKind('', addressName(target));
  if (asText(named)) {
    try {
      return await documentText(named);
    } catch (error) {
      const { code, details } = error as { code?: unknown; details?: { reason?: unknown } };
      if (format === 'text' || code !== 'document_unreadable' || details?.reason !== 'wrong_type') throw error;
    }
  }
  const result = await plainRead(fs, caller, target, options);
  const typed = documentKind(result.mime, '');
  if (typed !== named && asText(typed) && !(result.encoding === 'text' && format !== 'text')) return documentText(typed);
  return readToolResult(result);
}

async function plainRead(fs: FsService, caller: Caller, target: string, options: FsReadOptions): Promise<FsReadResult> {
  try {
    return await fs.read(caller, target, options);
  } catch (error) {
    // A whole read of text over the cap: hand the agent the first page rather than a refusal.
    if (options.range === undefined && options.lines === undefined && (error as { code?: unknown }).code === 'too_large') {
      return fs.read(caller, target, { ...options, range: { offset: 0 } });
    }
    throw error;
  }
}

/**
 * The last `count` lines: the object's last `cap` bytes, less the first line there when it may
 * be cut (the window does not start the object). Fewer lines come back when they do not fit;
 * `tail.complete` says whether all that were asked for did.
 */
async function readTail(fs: FsService, caller: Caller, target: string, count: number, cap: number): Promise<CallToolResult> {
  const probe = await fs.read(caller, target, { range: { offset: 0, length: 0 }, maxBytes: cap });
  if (probe.encoding !== 'text') throw new InvalidArgumentError(`Line reads apply to text; ${probe.address} is ${probe.mime}. Read it with byte ranges.`, { details: { argument: 'tail' } });
  const start = Math.max(0, probe.size - cap);
  const page = await fs.read(caller, target, { range: { offset: start, length: probe.size - start }, maxBytes: cap });
  const ends = page.content.endsWith('\n');
  const lines = (ends ? page.content.slice(0, -1) : page.content).split('\n');
  if (page.offset > 0) lines.shift();
  const taken = page.content === '' ? [] : lines.slice(-count);
  const content = taken.length === 0 ? '' : `${taken.join('\n')}${ends ? '\n' : ''}`;
  const length = Buffer.byteLength(content);
  const result = { ...page, content, offset: page.offset + page.length - length, length };
  return { content: [{ type: 'text', text: content }], structuredContent: { ...readSummary(result), tail: { count: taken.length, complete: taken.length === count || page.offset === 0 } } };
}

/** Several reads in one answer: each object's blocks after a line naming it, and its summary or error in `results`. */
async function readMany(reader: Reader, addresses: readonly string[], plan: ReadPlan): Promise<CallToolResult> {
  const share = Math.max(1, Math.floor(MCP_MAX_READ_BYTES / addresses.length));
  const capped: ReadPlan = { ...plan, options: { ...plan.options, maxBytes: Math.min(plan.options.maxBytes ?? DEFAULT_READ_BYTES, share) } };
  const answers = await Promise.all(
    addresses.map(async (target) => {
      try {
        return { target, result: await readOne(reader, target, capped) };
      } catch (error) {
        return { target, error: toolErrorBody(error) };
      }
    }),
  );
  const content: ContentBlock[] = [];
  const results: Record<string, unknown>[] = [];
  for (const answer of answers) {
    if (answer.error !== undefined) {
      const said = answer.error.code === null ? answer.error.message : `[${answer.error.code}] ${answer.error.message}`;
      content.push({ type: 'text', text: `=== ${answer.target}: ${said}` });
      results.push({ address: answer.target, error: answer.error });
      continue;
    }
    const summary = answer.result.structuredContent ?? {};
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the summary is the read tool's own structured answer, of strings and numbers
    content.push({ type: 'text', text: `=== ${String(summary['address'] ?? answer.target)} (${String(summary['mime'])}, ${String(summary['size'])} bytes${summary['done'] === false ? ', more follows: read it alone with offset = nextOffset' : ''})` });
    content.push(...answer.result.content);
    results.push(summary);
  }
  return { content, structuredContent: { results } };
}

const readTool: HostedTool = {
  name: 'read',
  action: 'fs.read',
  title: 'Read objects',
  description:
    'Reads one page of an object: text as text, images as images when this client declared it can show them, PDF, DOCX, XLSX and PPTX documents as their extracted text (paged by lines; format "bytes" for the original), other bytes as an embedded resource; objects too large for one message come back as a resource link. ' +
    'The answer says size, etag, nextOffset and done: call again with offset = nextOffset until done is true. Without offset, length or lines a large text object starts at its first page. ' +
    'head / tail read the first / last N lines. With addresses, several objects are read in one call, each answered on its own (structuredContent.results, an error per object that failed).',
  inputSchema: readInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: ReadInput, { caller, fs, signal }: HostedToolContext): Promise<CallToolResult> {
    if ((args.address === undefined) === (args.addresses === undefined)) {
      throw new InvalidArgumentError('Give address (one object) or addresses (several), not both or neither.', { details: { argument: 'address' } });
    }
    const plan = readPlan(args);
    return args.addresses === undefined ? readOne({ fs, caller, signal }, args.address!, plan) : readMany({ fs, caller, signal }, args.addresses, plan);
  },
};

const writeInput = z.object({
  address,
  content: z.string().describe('The new content: text, or base64 bytes with encoding "base64".'),
  encoding: z.enum(['text', 'base64']).optional().describe('How content is given; default text (stored as UTF-8).'),
  ifMatch: z.string().min(1).max(1024).optional().describe('Write only if the object\'s current etag is this one (precondition_failed otherwise).'),
  createOnly: z.boolean().optional().describe('Write only if nothing exists at the address yet (already_exists otherwise).'),
  mime: z.string().min(1).max(255).optional(),
});

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const writeTool: HostedTool = {
  name: 'write',
  action: 'fs.write',
  title: 'Write an object',
  description: 'Creates or replaces an object atomically. Use ifMatch with the etag from stat or read so a concurrent change is never overwritten, or createOnly to never replace anything.',
  inputSchema: writeInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async call(args: z.infer<typeof writeInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    let content: string | Uint8Array = args.content;
    if (args.encoding === 'base64') {
      if (!BASE64.test(args.content)) throw new InvalidArgumentError('content is not base64 (A–Z, a–z, 0–9, "+", "/", padded with "=").', { details: { argument: 'content' } });
      content = new Uint8Array(Buffer.from(args.content, 'base64'));
    }
    const entry = await fs.write(caller, args.address, content, {
      ...(args.ifMatch === undefined ? {} : { ifMatch: args.ifMatch }),
      ...(args.createOnly === undefined ? {} : { createOnly: args.createOnly }),
      ...(args.mime === undefined ? {} : { mime: args.mime }),
    });
    return { content: [{ type: 'text', text: `Wrote ${entry.address}${entry.size === undefined ? '' : ` (${entry.size} bytes)`}${entry.etag === undefined ? '' : `, etag ${entry.etag}`}.` }], structuredContent: json(entry) };
  },
};

const deleteInput = z.object({
  address,
  recursive: z.boolean().optional().describe('Remove a directory with everything in it.'),
  ifMatch: z.string().min(1).max(1024).optional().describe('Delete only if the object\'s current etag is this one.'),
});

const deleteTool: HostedTool = {
  name: 'delete',
  action: 'fs.delete',
  title: 'Delete an object',
  description: 'Removes an object (a directory only with recursive). Use ifMatch to remove only the version you read.',
  inputSchema: deleteInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof deleteInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    await fs.delete(caller, args.address, { ...(args.recursive === undefined ? {} : { recursive: args.recursive }), ...(args.ifMatch === undefined ? {} : { ifMatch: args.ifMatch }) });
    return { content: [{ type: 'text', text: `Deleted ${args.address}.` }], structuredContent: { deleted: args.address } };
  },
};

const searchInput = z.object({
  query: z.string().min(1).max(1000).describe('Words, "quoted phrases" and prefix* terms (two letters or more before the *), all of which must match.'),
  hosts: z.array(z.string().min(1).max(128)).max(100).optional().describe('Only these host slugs.'),
  where: z
    .array(z.string().min(1).max(1000))
    .max(20)
    .optional()
    .describe(`Filters on the hosts' declared dimensions, each dim<op>value (e.g. "mtime>=2024-01-01"); all must hold. Operators: ${WHERE_OPERATORS.map(([symbol, op]) => `${symbol} ${op}`).join(', ')}; the tool's description lists each dimension.`),
  limit: z.number().int().min(1).max(100).optional(),
  cursor: z.string().max(4096).optional().describe('The next of a previous answer.'),
  mode: z
    .enum(['keyword', 'semantic', 'hybrid'])
    .optional()
    .describe('hybrid (default): words and meaning, fused by rank. keyword: every term must match. semantic: passages nearest in meaning, for questions in your own words.'),
});

/** The dimensions `where` can filter on for a caller: those of the hosts it may search. */
export type WhereDimensionsOf = (caller: Caller) => Promise<readonly WhereDimensions[]>;

const SEARCH_DESCRIPTION =
  'Search the synced content of this network\'s hosts (offline hosts included) by words and meaning (mode hybrid, the default), by words only (keyword) or by meaning only (semantic); only objects this session may read are returned. Each hit has its address, score, etag, the matching passage, and its OS path or why there is none.';

const searchTool = (whereDimensions: WhereDimensionsOf): HostedTool => ({
  name: 'search',
  action: 'fs.search',
  title: 'Search content',
  description: SEARCH_DESCRIPTION,
  describe: async (caller) => `${SEARCH_DESCRIPTION} ${describeWhere(await whereDimensions(caller))}`,
  inputSchema: searchInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof searchInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const page = await fs.search(caller, args.query, {
      ...(args.hosts === undefined ? {} : { hosts: args.hosts }),
      ...(args.where === undefined ? {} : { whereText: args.where }),
      ...(args.limit === undefined ? {} : { limit: args.limit }),
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
      ...(args.mode === undefined ? {} : { mode: args.mode }),
    });
    const lines = page.hits.map((hit) => {
      const where = hit.osPath !== null ? `\n  ${osPathLabel(hit)}: ${hit.osPath}` : hit.osPathError !== undefined && hit.osPathError.code !== 'not_requested' ? `\n  os path: none (${hit.osPathError.code})` : '';
      return `${hit.address}\n  ${(hit.passage?.text ?? hit.snippet).replace(/\s+/g, ' ').slice(0, 400)}${where}`;
    });
    for (const coverage of page.index ?? []) {
      if (coverage.pending > 0 || coverage.failed > 0) lines.push(`index of ${coverage.network}: ${coverage.pending} pending, ${coverage.failed} failed (not searched by meaning yet)`);
    }
    if (page.next !== undefined) lines.push(`more: call search again with cursor "${page.next}"`);
    return { content: [{ type: 'text', text: lines.length === 0 ? 'No matches.' : lines.join('\n') }], structuredContent: json(page) };
  },
});

/** The filesystem tools; `whereDimensions` tells search's description what its filters can say to each caller. */
export function fileTools(whereDimensions: WhereDimensionsOf): readonly HostedTool[] {
  return [hostsTool, listTool, statTool, readTool, writeTool, editTool, deleteTool, ...CHANGE_TOOLS, searchTool(whereDimensions), treeTool, findTool];
}
