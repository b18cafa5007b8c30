/**
 * How one page of a read goes out over MCP — the content once, never twice:
 *
 * - text: one text block holding exactly the page's text;
 * - a whole image the session declared it can take: one image block;
 * - other bytes (a range of a binary object, a PDF, audio…): one embedded resource with the
 *   bytes as `blob`;
 * - bytes left out because they are over a cap: a `resource_link` to the object's address (the
 *   agent reads it in ranges, or the client fetches it) and a short note;
 * - bytes left out because the model cannot take the type: the service's marker as text.
 *
 * `structuredContent` carries only what the agent needs to continue — address, mime, size, etag,
 * the bytes covered, `nextOffset`, `done`, the line window — never the content itself.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { FsReadResult } from '../fs/index.js';

export interface ReadPageSummary {
  readonly address: string;
  readonly mime: string;
  readonly size: number;
  readonly etag?: string;
  readonly encoding: FsReadResult['encoding'];
  readonly offset: number;
  readonly length: number;
  /** Where the next page starts; absent when this page reaches the end. */
  readonly nextOffset?: number;
  /** True when nothing follows this page. */
  readonly done: boolean;
  readonly lines?: FsReadResult['lines'];
  readonly omitted?: FsReadResult['omitted'];
  readonly source: FsReadResult['source'];
}

export function readSummary(result: FsReadResult): ReadPageSummary {
  return {
    address: result.address,
    mime: result.mime,
    size: result.size,
    ...(result.etag === undefined ? {} : { etag: result.etag }),
    encoding: result.encoding,
    offset: result.offset,
    length: result.length,
    ...(result.nextOffset === undefined ? {} : { nextOffset: result.nextOffset }),
    done: result.nextOffset === undefined,
    ...(result.lines === undefined ? {} : { lines: result.lines }),
    ...(result.omitted === undefined ? {} : { omitted: result.omitted }),
    source: result.source,
  };
}

export function readToolResult(result: FsReadResult): CallToolResult {
  return { content: readBlocks(result), structuredContent: { ...readSummary(result) } };
}

function readBlocks(result: FsReadResult): ContentBlock[] {
  if (result.encoding === 'text') return [{ type: 'text', text: result.content }];
  if (result.encoding === 'base64') {
    const whole = result.offset === 0 && result.length === result.size;
    if (whole && result.mime.startsWith('image/')) return [{ type: 'image', data: result.content, mimeType: result.mime }];
    return [{ type: 'resource', resource: { uri: result.address, mimeType: result.mime, blob: result.content } }];
  }
  const reason = result.omitted?.reason;
  if (reason === 'over_inline_cap' || reason === 'over_message_cap') {
    return [
      { type: 'resource_link', uri: result.address, name: nameOf(result.address), mimeType: result.mime, size: result.size, description: result.content },
      {
        type: 'text',
        text: `${result.address} is ${result.mime}, ${result.size} bytes — too large to send in one message. It is linked above; read it in byte ranges (offset, length) to get its bytes here.`,
      },
    ];
  }
  return [{ type: 'text', text: result.content }];
}

function nameOf(address: string): string {
  const last = address.slice(address.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last) || address;
  } catch {
    return last || address;
  }
}
