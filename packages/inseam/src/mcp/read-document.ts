/**
 * A document read over MCP: its text as one text block; the structured content says what the
 * page covers (never the text again). docs/mcp.md "Documents as text".
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DocumentTextPage } from '../fs/index.js';

export const BYTES_HINT = 'Read its original bytes with format "bytes".';

export function documentToolResult(page: DocumentTextPage): CallToolResult {
  const { text, ...summary } = page;
  return { content: [{ type: 'text', text }], structuredContent: { ...summary } };
}
