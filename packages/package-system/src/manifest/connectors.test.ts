import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../contracts/errors.js';
import type { PackageTrust } from '../contracts/manifest.js';
import { expectIssueAt, expectPaths, issuesOf } from './__fixtures__/expect-issues.js';
import { EXEC_CONNECTOR, GIT_MCP_CONNECTOR, HTTP_MCP_CONNECTOR, NOTION_CONNECTOR, copy } from './__fixtures__/spec-examples.js';
import { validateConnectorEntry } from './connectors.js';
import { validateManifest } from './validate-manifest.js';

/** Issues of a manifest holding just these connectors, at `trust` (default trusted). */
function connectorIssues(entries: readonly unknown[], trust: PackageTrust = 'trusted') {
  return issuesOf(() => validateManifest({ id: 'p', connectors: entries }, { trust }));
}

function accepts(entries: readonly unknown[], trust: PackageTrust = 'trusted'): void {
  expect(() => validateManifest({ id: 'p', connectors: entries }, { trust })).not.toThrow();
}

describe('source connectors: capabilities', () => {
  it('spec: "capabilities form a closed list" — an unknown capability is refused at its index', () => {
    const entry = { ...copy(NOTION_CONNECTOR), capabilities: ['list', 'read', 'search'] };
    const issue = expectIssueAt(connectorIssues([entry]), 'connectors[0].capabilities[2]', 'list, read, write, walk, scanContent, stat, delete, exec, execDetached');
    expect(issue.message).toContain('"search"');
  });

  it('spec: "list and read are mandatory" — a list without read is refused at capabilities', () => {
    const entry = { ...copy(NOTION_CONNECTOR), capabilities: ['list', 'write'] };
    const issue = expectIssueAt(connectorIssues([entry]), 'connectors[0].capabilities', 'includes "list" and "read"');
    expect(issue.message).toContain('"read"');
  });

  it('spec: "list and read are mandatory" — a missing capabilities field is refused', () => {
    const entry = copy(NOTION_CONNECTOR);
    delete entry.capabilities;
    expectIssueAt(connectorIssues([entry]), 'connectors[0].capabilities', 'includes "list" and "read"');
  });

  it('decision: a capability listed twice is refused at the repeat', () => {
    const entry = { ...copy(NOTION_CONNECTOR), capabilities: ['list', 'read', 'write', 'read'] };
    expectPaths(connectorIssues([entry]), ['connectors[0].capabilities[3]']);
    expectIssueAt(connectorIssues([entry]), 'connectors[0].capabilities[3]', 'each capability at most once');
  });

  it('every capability of the closed list is accepted together', () => {
    accepts([{ ...copy(EXEC_CONNECTOR), capabilities: ['list', 'read', 'write', 'walk', 'scanContent', 'stat', 'delete', 'exec', 'execDetached'] }]);
  });
});

describe('source connectors: execRequires', () => {
  it('spec: "declaring the exec capability requires declaring execRequires beside it"', () => {
    const entry = copy(EXEC_CONNECTOR);
    delete entry.execRequires;
    expectIssueAt(connectorIssues([entry]), 'connectors[0].execRequires', 'a non-empty list of distinct feature ids');
  });

  it('decision: execDetached (a second exec entry) requires execRequires too', () => {
    const entry = { ...copy(EXEC_CONNECTOR), capabilities: ['list', 'read', 'execDetached'] };
    delete entry.execRequires;
    expectIssueAt(connectorIssues([entry]), 'connectors[0].execRequires', 'a non-empty list of distinct feature ids');
    accepts([{ ...entry, execRequires: ['exec.machine'] }]);
  });

  it('spec: "an empty list is a manifest error" — execRequires: [] is refused', () => {
    const issue = expectIssueAt(connectorIssues([{ ...copy(EXEC_CONNECTOR), execRequires: [] }]), 'connectors[0].execRequires', 'non-empty list');
    expect(issue.message).toContain('always open');
  });

  it('spec: execRequires is "a non-empty list of feature ids" — an empty or non-string id is refused at its index', () => {
    const issues = connectorIssues([{ ...copy(EXEC_CONNECTOR), execRequires: ['exec.machine', '', 7, 'has space'] }]);
    expectPaths(issues, ['connectors[0].execRequires[1]', 'connectors[0].execRequires[2]', 'connectors[0].execRequires[3]']);
    expectIssueAt(issues, 'connectors[0].execRequires[1]', 'a feature id');
  });

  it('decision: execRequires without exec or execDetached is refused (it would gate a shell the kind does not have)', () => {
    const entry = { ...copy(NOTION_CONNECTOR), execRequires: ['exec.machine'] };
    expectIssueAt(connectorIssues([entry]), 'connectors[0].execRequires', 'no execRequires, or "exec" or "execDetached" in capabilities');
  });
});

describe('source connectors: configSchema', () => {
  it('spec: "configSchema is a closed JSON Schema" — additionalProperties omitted is refused', () => {
    const entry = copy(NOTION_CONNECTOR);
    delete entry.configSchema.additionalProperties;
    expectIssueAt(connectorIssues([entry]), 'connectors[0].configSchema.additionalProperties', 'false');
  });

  it('decision (DESIGN: Ajv strict): an unknown keyword in configSchema is refused at its path', () => {
    const entry = copy(NOTION_CONNECTOR);
    entry.configSchema.properties.workspaceId.minLenght = 1;
    expectIssueAt(connectorIssues([entry]), 'connectors[0].configSchema.properties.workspaceId.minLenght', 'a draft-07 keyword');
  });

  it('configSchema is required for a source connector', () => {
    const entry = copy(NOTION_CONNECTOR);
    delete entry.configSchema;
    expectIssueAt(connectorIssues([entry]), 'connectors[0].configSchema', '"additionalProperties": false');
  });
});

describe('source connectors: scopes', () => {
  it('spec: "the validator requires allowedScopes to include the default"', () => {
    const entry = { ...copy(NOTION_CONNECTOR), defaultScope: 'agent', allowedScopes: ['project', 'user'] };
    expectIssueAt(connectorIssues([entry]), 'connectors[0].allowedScopes', 'includes "agent"');
  });

  it('spec: allowedScopes must include the default even when selection is disabled (checked before forcing project)', () => {
    const entry = { ...copy(NOTION_CONNECTOR), scopeSelectable: false, defaultScope: 'agent', allowedScopes: ['user'] };
    expectIssueAt(connectorIssues([entry]), 'connectors[0].allowedScopes', 'includes "agent"');
  });

  it('defaultScope and allowedScopes come from project, user and agent; repeats and empty lists are refused', () => {
    const issues = connectorIssues([
      { ...copy(NOTION_CONNECTOR), defaultScope: 'team' },
      { ...copy(NOTION_CONNECTOR), id: 'b', kind: 'b', allowedScopes: ['project', 'project'] },
      { ...copy(NOTION_CONNECTOR), id: 'c', kind: 'c', allowedScopes: [] },
      { ...copy(NOTION_CONNECTOR), id: 'd', kind: 'd', allowedScopes: ['project', 'world'] },
    ]);
    expectIssueAt(issues, 'connectors[0].defaultScope', '"project", "user" or "agent"');
    expectIssueAt(issues, 'connectors[1].allowedScopes[1]', 'each item at most once');
    expectIssueAt(issues, 'connectors[2].allowedScopes', 'a non-empty list of distinct scopes');
    expectIssueAt(issues, 'connectors[3].allowedScopes[1]', '"project", "user" or "agent"');
  });

  it('scopeSelectable and runtimeGated are booleans', () => {
    const issues = connectorIssues([{ ...copy(NOTION_CONNECTOR), scopeSelectable: 'yes', runtimeGated: 1 }]);
    expectIssueAt(issues, 'connectors[0].scopeSelectable', 'true or false');
    expectIssueAt(issues, 'connectors[0].runtimeGated', 'true or false');
  });
});

describe('source connectors: connectorFactory', () => {
  it.each([
    ['no export name', './dist/NotionConnector.js'],
    ['a ".." segment', '../other-package/dist/x.js#create'],
    ['a ".." segment in the middle', './dist/../../x.js#create'],
    ['an absolute path', '/usr/lib/x.js#create'],
    ['a Windows drive', 'C:/x.js#create'],
    ['a backslash path', '.\\dist\\x.js#create'],
    ['a URL', 'file:///etc/x.js#create'],
    ['a data: URL', 'data:text/javascript,1#create'],
    ['a bare package specifier', 'node:child_process#exec'],
    ['a non-module file', './dist/x.json#create'],
    ['an export name that is not an identifier', './dist/x.js#create-it'],
    ['two "#"', './dist/x.js#a#b'],
    ['a percent-escape', './dist/%2e%2e/x.js#create'],
  ])('spec: "connectorFactory is a modulePath#exportName reference" — refuses %s', (_what, reference) => {
    expectIssueAt(connectorIssues([{ ...copy(NOTION_CONNECTOR), connectorFactory: reference }]), 'connectors[0].connectorFactory', '"modulePath#exportName"');
  });

  it('accepts a path without "./" and a default export', () => {
    accepts([{ ...copy(NOTION_CONNECTOR), connectorFactory: 'dist/notion.mjs#default' }]);
  });
});

describe('source connectors: other fields', () => {
  it('decision: kind is a lowercase slug', () => {
    expectIssueAt(connectorIssues([{ ...copy(NOTION_CONNECTOR), kind: 'Notion Pages' }]), 'connectors[0].kind', 'a slug');
  });

  it('spec: "an unrecognised value renders a generic chip" — an unknown category is accepted', () => {
    accepts([{ ...copy(NOTION_CONNECTOR), category: 'quantum-ledger' }]);
  });

  it('source connectors use transport "in-process"', () => {
    expectIssueAt(connectorIssues([{ ...copy(NOTION_CONNECTOR), transport: 'stdio' }]), 'connectors[0].transport', '"in-process"');
  });

  it('spec: "defaultPermissions seeds the source\'s permission tree" — its shape is checked', () => {
    const entry = { ...copy(NOTION_CONNECTOR), defaultPermissions: { default: { read: true, write: 'yes' } } };
    const issues = connectorIssues([entry]);
    expectIssueAt(issues, 'connectors[0].defaultPermissions.default.write', 'true or false');
    expectIssueAt(issues, 'connectors[0].defaultPermissions.default.exec', 'true or false');
  });

  it('decision: entries are closed — a typo\'d field is refused, naming the accepted fields', () => {
    const entry = { ...copy(NOTION_CONNECTOR), scopeSelectible: true };
    expectIssueAt(connectorIssues([entry]), 'connectors[0].scopeSelectible', 'scopeSelectable');
  });

  it('spec: secrets do not live in configSchema — a credentials map on the entry is refused', () => {
    expectIssueAt(connectorIssues([{ ...copy(NOTION_CONNECTOR), credentials: { apiKey: 'x' } }]), 'connectors[0].credentials', 'only the fields');
  });

  it('id, name and type are required', () => {
    const issues = connectorIssues([{ kind: 'x' }]);
    expectIssueAt(issues, 'connectors[0].id', 'a slug');
    expectIssueAt(issues, 'connectors[0].name', 'non-empty string');
    expectIssueAt(issues, 'connectors[0].type', '"source" or "mcp"');
  });
});

describe('connectors[]: across entries', () => {
  it('decision: duplicate connector ids are refused at the second entry, across source and mcp', () => {
    const issues = connectorIssues([NOTION_CONNECTOR, { ...copy(GIT_MCP_CONNECTOR), id: 'my-notion' }]);
    expectPaths(issues, ['connectors[1].id']);
    expect(expectIssueAt(issues, 'connectors[1].id', 'unique').message).toContain('connectors[0]');
  });

  it('decision: two source connectors of one kind in one manifest are refused', () => {
    const issues = connectorIssues([NOTION_CONNECTOR, { ...copy(NOTION_CONNECTOR), id: 'notion-2' }]);
    expectPaths(issues, ['connectors[1].kind']);
    expectIssueAt(issues, 'connectors[1].kind', 'one source connector per kind');
  });
});

describe('mcp connectors: transports', () => {
  it('spec: streamable-http "with a url" — a missing url is refused', () => {
    const entry = copy(HTTP_MCP_CONNECTOR);
    delete entry.url;
    expectIssueAt(connectorIssues([entry]), 'connectors[0].url', 'http:// or https://');
  });

  it.each([
    ['a relative URL', '/mcp'],
    ['a file URL', 'file:///var/run/mcp.sock'],
    ['a ws URL', 'ws://mcp.example.com/'],
    ['a javascript URL', 'javascript:alert(1)'],
    ['embedded credentials', 'https://user:pass@mcp.example.com/'],
  ])('decision: a streamable-http url is http/https only — refuses %s', (_what, url) => {
    expectIssueAt(connectorIssues([{ ...copy(HTTP_MCP_CONNECTOR), url }]), 'connectors[0].url', 'http:// or https://');
  });

  it('spec: stdio "with a command" — a missing command is refused; args and env are checked', () => {
    const issues = connectorIssues([{ id: 'local', type: 'mcp', transport: 'stdio', name: 'Local', args: ['--x', 3], env: { 'BAD-NAME': 'v', OK: 1 } }]);
    expectIssueAt(issues, 'connectors[0].command', 'a non-empty command');
    expectIssueAt(issues, 'connectors[0].args[1]', 'a string');
    expectIssueAt(issues, 'connectors[0].env["BAD-NAME"]', 'letters, digits and "_"');
    expectIssueAt(issues, 'connectors[0].env.OK', 'a string value');
  });

  it('accepts a stdio entry with command, args and env from a trusted package', () => {
    accepts([{ id: 'local', type: 'mcp', transport: 'stdio', name: 'Local', command: 'node', args: ['server.js'], env: { LOG_LEVEL: 'info' } }]);
  });

  it('spec: in-process "needs neither a url nor a command" — carrying either is refused', () => {
    const issues = connectorIssues([{ ...copy(GIT_MCP_CONNECTOR), url: 'https://x.example/', command: 'git' }]);
    expectPaths(issues, ['connectors[0].url', 'connectors[0].command']);
    expectIssueAt(issues, 'connectors[0].url', 'no "url" with transport "in-process"');
  });

  it('decision: each transport carries only its own fields (no command on streamable-http, no url on stdio)', () => {
    const issues = connectorIssues([
      { ...copy(HTTP_MCP_CONNECTOR), command: 'node' },
      { id: 'local', type: 'mcp', transport: 'stdio', name: 'Local', command: 'node', url: 'https://x.example/' },
    ]);
    expectIssueAt(issues, 'connectors[0].command', 'no "command" with transport "streamable-http"');
    expectIssueAt(issues, 'connectors[1].url', 'no "url" with transport "stdio"');
  });

  it('an unknown transport is refused', () => {
    expectIssueAt(connectorIssues([{ ...copy(GIT_MCP_CONNECTOR), transport: 'websocket' }]), 'connectors[0].transport', '"streamable-http", "stdio" or "in-process"');
  });

  it.each(['untrusted', 'sandboxed'] as const)('spec: in-process MCP "carries the same minimum trust as stdio" — stdio from a %s package is refused', (trust) => {
    const stdio = { id: 'local', type: 'mcp', transport: 'stdio', name: 'Local', command: 'node' };
    expectIssueAt(connectorIssues([stdio], trust), 'connectors[0].transport', '"streamable-http"');
  });

  it('mcp entries are closed: source-only fields are refused', () => {
    expectIssueAt(connectorIssues([{ ...copy(GIT_MCP_CONNECTOR), capabilities: ['list', 'read'] }]), 'connectors[0].capabilities', 'only the fields');
  });
});

describe('mcp connectors: advisory fields', () => {
  it('spec: requiredScopes "closed set is local, project, user, app, and managed"', () => {
    const issues = connectorIssues([{ ...copy(GIT_MCP_CONNECTOR), requiredScopes: ['project', 'agent', 'project'] }]);
    expectPaths(issues, ['connectors[0].requiredScopes[1]', 'connectors[0].requiredScopes[2]']);
    expectIssueAt(issues, 'connectors[0].requiredScopes[1]', '"local", "project", "user", "app" or "managed"');
    accepts([{ ...copy(GIT_MCP_CONNECTOR), requiredScopes: ['local', 'project', 'user', 'app', 'managed'] }]);
  });

  it('spec: defaultToolFilter is "an { include?, exclude? } hint"', () => {
    accepts([{ ...copy(GIT_MCP_CONNECTOR), defaultToolFilter: { include: ['git_status'], exclude: ['git_push'] } }]);
    const issues = connectorIssues([{ ...copy(GIT_MCP_CONNECTOR), defaultToolFilter: { include: 'git_status', only: [] } }]);
    expectIssueAt(issues, 'connectors[0].defaultToolFilter.include', 'a list of non-empty tool names');
    expectIssueAt(issues, 'connectors[0].defaultToolFilter.only', 'include, exclude');
  });
});

describe('validateConnectorEntry (helper)', () => {
  it('checks one entry with paths relative to it, or under a given prefix', () => {
    const entry = { ...copy(NOTION_CONNECTOR), capabilities: ['list'] };
    expect(validateConnectorEntry(entry, { trust: 'trusted' }).map((issue) => issue.path)).toEqual(['capabilities']);
    expect(validateConnectorEntry(entry, { trust: 'trusted', path: 'connectors[4]' }).map((issue) => issue.path)).toEqual(['connectors[4].capabilities']);
    expect(validateConnectorEntry(NOTION_CONNECTOR, { trust: 'first-party' })).toEqual([]);
  });

  it('reports a non-object entry at "(entry)" and rejects an unknown trust', () => {
    expect(validateConnectorEntry('notion', { trust: 'trusted' }).map((issue) => issue.path)).toEqual(['(entry)']);
    expect(() => validateConnectorEntry(NOTION_CONNECTOR, { trust: 'admin' as PackageTrust })).toThrow(InvalidArgumentError);
  });
});
