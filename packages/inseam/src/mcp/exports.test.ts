import { describe, expect, it } from 'vitest';
import * as mcp from './index.js';

describe('the mcp subpath', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(mcp).sort()).toEqual(
      [
        'ACTION_META',
        'CALLER_KEY',
        'FEATURES_META',
        'DEFAULT_MAX_SESSIONS',
        'DEFAULT_MCP_BODY_LIMIT',
        'DEFAULT_OUTBOUND_IDLE_MS',
        'DEFAULT_OUTBOUND_TIMEOUT_MS',
        'DEFAULT_SESSION_IDLE_MS',
        'HOSTED_TOOLS_EXPORT',
        'HostedTools',
        'MAX_MODULE_CHARS',
        'MCP_MAX_READ_BYTES',
        'MCP_PATH',
        'MODEL_CAPABILITY',
        'McpHost',
        'OUTBOUND_SCHEMA_COMPONENT',
        'OutboundConnectors',
        'OutboundMcpStore',
        'RUNTIME_STACK_PROMPT',
        'RUNTIME_STACK_URI',
        'packageToolSets',
        'readSummary',
        'readToolResult',
        'registerMcpRoutes',
        'serveStdio',
        'toolErrorBody',
        'toolErrorResult',
      ].sort(),
    );
  });
});
