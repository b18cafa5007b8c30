/**
 * MCP over stdio: one session on the process's stdin and stdout, for a client that starts
 * `inseam mcp`. The caller is fixed for the session (see the command for how it is resolved).
 * Nothing but MCP messages may be written to `stdout` while it runs.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpHost, McpSessionOptions } from './host.js';

export interface StdioStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
}

/**
 * Serves one session until the client goes away (stdin ends or closes) or `signal` aborts;
 * resolves once the session is closed. The host stays open (the caller closes it).
 */
export async function serveStdio(host: McpHost, session: McpSessionOptions & { readonly caller: NonNullable<McpSessionOptions['caller']> }, streams: StdioStreams, signal?: AbortSignal): Promise<void> {
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  const server = host.createServer(session);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  const stop = (): void => void server.close().catch(() => undefined);
  streams.stdin.once('end', stop);
  streams.stdin.once('close', stop);
  signal?.addEventListener('abort', stop, { once: true });
  await server.connect(transport);
  if (signal?.aborted === true) stop();
  try {
    await closed;
  } finally {
    streams.stdin.off('end', stop);
    streams.stdin.off('close', stop);
    signal?.removeEventListener('abort', stop);
  }
}
