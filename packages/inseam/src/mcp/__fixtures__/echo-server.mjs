// A small MCP server over stdio, built with the SDK, for the outbound connector tests: one tool
// that echoes its text with the ECHO_PREFIX environment variable in front (so a test sees the
// sealed environment arrive) and one that fails.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'echo', version: '1.0.0' });
server.registerTool('echo', { description: 'Echoes text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text: `${process.env.ECHO_PREFIX ?? ''}${text}` }],
}));
server.registerTool('fail', { description: 'Always fails.' }, async () => ({ isError: true, content: [{ type: 'text', text: 'failed on purpose' }] }));
await server.connect(new StdioServerTransport());
