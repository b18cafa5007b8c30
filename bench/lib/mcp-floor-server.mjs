// The floor under any MCP stdio server built on the SDK: its low-level `Server` answering every
// `tools/call` with a fixed reply the size of inseam's answer to a 1 KiB read (1 KiB of text and
// a small structured summary), doing no file work. bench/mcp.mjs times it beside the two real
// servers, so what the SDK and the pipe cost per message is measured, not guessed.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const text = `${'w12345 '.repeat(146)}\n`;
const reply = {
  content: [{ type: 'text', text }],
  structuredContent: { address: 'inseam://bench/files/small/note-00000.txt', mime: 'text/plain', size: text.length, etag: '"0123456789abcdef"', offset: 0, length: text.length, done: true },
};
const server = new Server({ name: 'floor', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'read', inputSchema: { type: 'object' } }] }));
server.setRequestHandler(CallToolRequestSchema, () => reply);
await server.connect(new StdioServerTransport());
