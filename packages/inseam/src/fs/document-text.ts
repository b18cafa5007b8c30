/**
 * A document read as text — a PDF, DOCX, XLSX, PPTX or HTML page as the words in it — for the
 * surfaces that show documents to models and people (MCP `read`, `GET /v1/fs/text`, the web
 * preview). The bytes come through `readStream`, so the caller's read permission is checked as
 * for any read; they are extracted in the worker pool and the text is paged by lines within
 * `maxBytes`. An offline host's synced copy already is that text. Errors carry a hint to read
 * the original bytes instead.
 */
import { collectCapped, DocumentUnreadableError, TimeoutError, TooLargeError, InvalidArgumentError, isConnectorError } from '@neuralis/package-system/contracts';
import { documentKind, sharedExtractor, type DocumentExtractor, type DocumentKind, type ExtractLimits } from '../extract/index.js';
import type { FsService } from './service.js';
import type { Caller, ContentSource } from './types.js';

export interface DocumentTextRequest {
  /** The document's kind when the caller knows it (from the name); else from the object's media type. */
  readonly kind?: DocumentKind;
  readonly lineStart?: number;
  readonly lineCount?: number;
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  /** The pool and its limits; default the process's shared pool. */
  readonly extractor?: DocumentExtractor & { readonly limits: ExtractLimits };
  /** Appended to extraction errors: how this surface reads the original bytes. */
  readonly bytesHint?: string;
}

export interface DocumentTextPage {
  readonly address: string;
  readonly mime: string;
  /** Bytes of the original object, when the host knows them. */
  readonly size?: number;
  readonly etag?: string;
  readonly format: 'text';
  readonly extractedFrom: DocumentKind;
  readonly text: string;
  readonly lines: { readonly start: number; readonly count: number; readonly total: number; readonly next?: number };
  readonly done: boolean;
  /** Present when a limit cut the document's text short. */
  readonly truncated?: true;
  readonly source: ContentSource;
}

export async function readDocumentText(fs: FsService, caller: Caller, address: string, request: DocumentTextRequest): Promise<DocumentTextPage> {
  const extractor = request.extractor ?? sharedExtractor();
  const hint = request.bytesHint === undefined ? '' : ` ${request.bytesHint}`;
  const opened = await fs.readStream(caller, address);
  const kind = request.kind ?? documentKind(opened.mime, addressName(address));
  if (kind === null) {
    void opened.stream.cancel().catch(() => undefined);
    throw new DocumentUnreadableError(`${opened.address} is ${opened.mime ?? 'of an unknown type'}, not a document whose text can be extracted (PDF, DOCX, XLSX, PPTX, HTML).${hint}`, { details: { reason: 'wrong_type' } });
  }
  const max = extractor.limits.maxInputBytes;
  const overMessage = `${opened.address} is over the ${max} bytes whose text can be extracted.${hint}`;
  const over = new TooLargeError(overMessage, { details: { reason: 'document_too_large', kind, limit: max } });
  if (opened.source === 'live' && opened.size !== undefined && opened.size > max) {
    void opened.stream.cancel().catch(() => undefined);
    throw over;
  }
  const bytes = await collectCapped(opened.stream, { maxBytes: max, tooLarge: () => over });
  let text: string;
  let truncated = false;
  if (opened.source === 'catalog') text = new TextDecoder().decode(bytes);
  else {
    try {
      ({ text, truncated } = await extractor.extract(kind, bytes, request.signal === undefined ? {} : { signal: request.signal }));
    } catch (error) {
      throw withHint(error, hint);
    }
  }
  const page = linePage(text, request);
  return {
    address: opened.address,
    mime: opened.mime ?? 'application/octet-stream',
    ...(opened.size === undefined ? {} : { size: opened.size }),
    ...(opened.etag === undefined ? {} : { etag: opened.etag }),
    format: 'text',
    extractedFrom: kind,
    text: page.text,
    lines: { start: page.start, count: page.count, total: page.total, ...(page.next === undefined ? {} : { next: page.next }) },
    done: page.next === undefined,
    ...(truncated ? { truncated: true as const } : {}),
    source: opened.source,
  };
}

/** An address's last segment, decoded: what its extension is read from. */
export function addressName(address: string): string {
  const last = address.slice(address.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

function withHint(error: unknown, hint: string): unknown {
  if (!isConnectorError(error) || hint === '') return error;
  const options = { details: error.details, cause: error };
  const message = `${error.message}${hint}`;
  if (error.code === 'document_unreadable') return new DocumentUnreadableError(message, options);
  if (error.code === 'too_large') return new TooLargeError(message, options);
  if (error.code === 'timeout') return new TimeoutError(message, options);
  return error;
}

interface LinePage {
  readonly text: string;
  readonly start: number;
  readonly count: number;
  readonly total: number;
  readonly next?: number;
}

/** Whole lines from `lineStart` within `maxBytes` (a single longer line is cut to fit). */
function linePage(text: string, request: DocumentTextRequest): LinePage {
  const lines = text === '' ? [] : text.split('\n');
  const start = request.lineStart ?? 1;
  if (start > Math.max(1, lines.length)) throw new InvalidArgumentError(`lineStart ${start} is past the last line (${lines.length}) of the document's text.`, { details: { argument: 'lineStart' } });
  const wanted = request.lineCount ?? Number.MAX_SAFE_INTEGER;
  const taken: string[] = [];
  let bytes = 0;
  for (let index = start - 1; index < lines.length && taken.length < wanted; index++) {
    const line = lines[index]!;
    const cost = Buffer.byteLength(line) + (taken.length === 0 ? 0 : 1);
    if (bytes + cost > request.maxBytes) {
      if (taken.length === 0) taken.push(cutToBytes(line, request.maxBytes));
      break;
    }
    taken.push(line);
    bytes += cost;
  }
  const count = Math.max(taken.length, lines.length === 0 ? 0 : 1);
  const next = start + count;
  return { text: taken.join('\n'), start, count, total: lines.length, ...(next <= lines.length ? { next } : {}) };
}

function cutToBytes(line: string, max: number): string {
  // A character cut in half at the end is dropped, not shown as U+FFFD.
  return new TextDecoder().decode(Buffer.from(line).subarray(0, max)).replace(/\uFFFD$/u, '');
}
