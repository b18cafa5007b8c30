/**
 * The network's outbound MCP servers, for agents: list them, list one's tools, call one's tool.
 * Each is connected on demand (outbound/connectors.ts). Adding or removing a server is a
 * person's configuration (`inseam mcp add|rm`), never a tool: a stdio server is a command run on
 * the host. Listing and calling need the session feature `mcp.outbound` (the authorization
 * table's outbound actions), since a server's tools may do anything its configuration lets them.
 */
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OutboundConnectors } from '../outbound/connectors.js';
import type { OutboundServer } from '../outbound/store.js';
import type { HostedTool, HostedToolContext } from '../hosted-tools.js';

const server = z.string().min(1).max(64).describe('The outbound server\'s id, as outbound_servers lists it.');

/** What an agent may see of a definition: no secret names' values, no URL query or command path. */
function summary(definition: OutboundServer): Record<string, unknown> {
  const target = definition.transport === 'stdio' ? { command: definition.command!.slice(definition.command!.lastIndexOf('/') + 1) } : { url: originAndPath(definition.url!) };
  return { id: definition.id, name: definition.name, transport: definition.transport, origin: definition.origin, ...target };
}

function originAndPath(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

export function outboundTools(connectors: OutboundConnectors): HostedTool[] {
  const serversTool: HostedTool = {
    name: 'outbound_servers',
    action: 'outbound.list',
    title: 'Outbound MCP servers',
    description: 'Lists the external MCP servers (stdio or streamable-http) this network can reach through inseam; their tools are listed with outbound_tools and called with outbound_call.',
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async call(_args: Record<string, never>, { caller }: HostedToolContext): Promise<CallToolResult> {
      const servers = (await connectors.list(caller.session.projectId)).map(summary);
      const text = servers.length === 0 ? 'This network has no outbound MCP server.' : servers.map((entry) => `${String(entry['id'])} — ${String(entry['name'])} (${String(entry['transport'])})`).join('\n');
      return { content: [{ type: 'text', text }], structuredContent: { servers } };
    },
  };
  const toolsInput = z.object({ server });
  const toolsTool: HostedTool = {
    name: 'outbound_tools',
    action: 'outbound.tools',
    title: 'Tools of an outbound MCP server',
    description: 'Connects to an outbound MCP server if needed and lists its tools with their input schemas and annotations (as the server states them).',
    inputSchema: toolsInput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    async call(args: z.infer<typeof toolsInput>, { caller }: HostedToolContext): Promise<CallToolResult> {
      const tools = await connectors.tools(caller.session.projectId, args.server);
      const text = tools.length === 0 ? `Server "${args.server}" has no tools.` : tools.map((tool) => `${tool.name}${tool.description === undefined ? '' : ` — ${tool.description}`}`).join('\n');
      return { content: [{ type: 'text', text }], structuredContent: { server: args.server, tools } };
    },
  };
  const callInput = z.object({
    server,
    tool: z.string().min(1).max(128).describe('The tool\'s name, as outbound_tools lists it.'),
    arguments: z.record(z.unknown()).optional().describe('The tool\'s arguments.'),
  });
  const callTool: HostedTool = {
    name: 'outbound_call',
    action: 'outbound.call',
    title: 'Call a tool of an outbound MCP server',
    description: 'Calls one tool of an outbound MCP server and returns its result as the server gave it. What the tool does is up to that server: treat it as able to change things.',
    inputSchema: callInput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    async call(args: z.infer<typeof callInput>, { caller, signal }: HostedToolContext): Promise<CallToolResult> {
      return connectors.call(caller.session.projectId, args.server, args.tool, args.arguments ?? {}, signal);
    },
  };
  return [serversTool, toolsTool, callTool];
}
