/**
 * A package's outbound stdio MCP servers start in the package's folder, so a package-relative
 * command (`./bin/where.mjs`) or script argument (`node server/where.mjs`) runs — with the real
 * loader, the real outbound store and the SDK client over MCP. A person's own stdio server keeps
 * the platform's working directory.
 */
import { realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { errorCode, openMcpFixture, textOf, type McpFixture } from './__fixtures__/mcp-fixture.js';
import { OutboundConnectors } from './outbound/connectors.js';

const STDIO_PACKAGE = fileURLToPath(new URL('./__fixtures__/stdio-package', import.meta.url));
const WHERE_SERVER = fileURLToPath(new URL('./__fixtures__/stdio-package/server/where.mjs', import.meta.url));

let fixture: McpFixture;
let ann: Client;
let packageRoot: string;

beforeAll(async () => {
  packageRoot = await realpath(STDIO_PACKAGE);
  fixture = await openMcpFixture({ packages: [{ folder: STDIO_PACKAGE, trust: 'trusted' }], routes: { outbound: { timeoutMs: 15_000 } } });
  fixture.tokens.set('ann', callerOf('ann', { features: ['mcp.outbound'] }));
  ann = await fixture.client('ann');
  await fixture.host.outbound.store.add('home', { id: 'own', transport: 'stdio', command: process.execPath, args: [WHERE_SERVER] });
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

async function where(server: string): Promise<{ cwd: string; greeting: string }> {
  const result = (await ann.callTool({ name: 'outbound_call', arguments: { server, tool: 'where', arguments: {} } })) as CallToolResult;
  expect(result.isError, textOf(result)).not.toBe(true);
  return JSON.parse(textOf(result)) as { cwd: string; greeting: string };
}

describe('a package-declared stdio MCP server', () => {
  it('runs a relative command in the package folder', async () => {
    expect(await where('relative-command')).toEqual({ cwd: packageRoot, greeting: 'hello from the package' });
  });

  it('runs node with a package-relative script and arguments in the package folder', async () => {
    expect(await where('relative-script')).toEqual({ cwd: packageRoot, greeting: 'hello from the package' });
  });

  it('is unavailable, not started elsewhere, when its package is no longer loaded', async () => {
    expect(fixture.platform.loader.listPackages().find((entry) => entry.packageId === 'test.stdio-servers')?.root).toBe(packageRoot);
    const outbound = new OutboundConnectors({ store: fixture.host.outbound.store, loader: { listPackages: () => [] }, timeoutMs: 15_000 });
    try {
      const failure = await outbound.tools('home', 'relative-script').then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failure).toMatchObject({ code: 'unavailable', details: { server: 'relative-script', package: 'test.stdio-servers' } });
      expect(failure?.message).toContain('"test.stdio-servers"');
      expect(failure?.message).not.toContain(packageRoot);
    } finally {
      await outbound.close();
    }
  });
});

describe('a person’s own stdio MCP server', () => {
  it('keeps the platform’s working directory', async () => {
    expect(await where('own')).toEqual({ cwd: process.cwd(), greeting: 'no greeting' });
    expect(errorCode((await ann.callTool({ name: 'outbound_call', arguments: { server: 'nope', tool: 'where', arguments: {} } })) as CallToolResult)).toBe('not_found');
  });
});
