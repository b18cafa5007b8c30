// An MCP server over stdio that says where it was started and reads a file of its package by a
// relative path (`--greeting <file>`), so a test sees that it runs in the package's folder.
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const at = process.argv.indexOf('--greeting');
const greeting = at === -1 ? 'no greeting' : readFileSync(process.argv[at + 1], 'utf8').trim();
const server = new McpServer({ name: 'where', version: '1.0.0' });
server.registerTool('where', { description: 'The working directory and the greeting.' }, async () => ({
  content: [{ type: 'text', text: JSON.stringify({ cwd: process.cwd(), greeting }) }],
}));
await server.connect(new StdioServerTransport());
