import { describe, expect, it } from 'vitest';
import { notionEntry } from '../loader/__fixtures__/support.js';
import { SourceKindRegistry } from './source-kind-registry.js';

describe('SourceKindRegistry', () => {
  it('"holds the metadata (label, schema, capabilities, defaults, factory) used for discovery, admin forms, and config validation"', () => {
    const registry = new SourceKindRegistry();
    const metadata = registry.register({ packageId: 'notion-pkg', trust: 'trusted', entry: notionEntry({ runtimeGated: true }) });
    expect(metadata).toEqual({
      kind: 'notion',
      connectorId: 'my-notion',
      label: 'Notion Workspace',
      category: 'api',
      configSchema: notionEntry().configSchema,
      capabilities: ['list', 'read', 'write', 'walk', 'scanContent'],
      execRequires: [],
      defaultPermissions: { default: { read: true, write: true, exec: false } },
      defaultScope: 'project',
      scopeSelectable: true,
      allowedScopes: ['project', 'user', 'agent'],
      runtimeGated: true,
      factory: './dist/connectors/NotionConnector.js#createNotionConnector',
      providerPackageId: 'notion-pkg',
      providerTrust: 'trusted',
    });
    expect(registry.get('notion')).toBe(metadata);
    expect(registry.list()).toEqual([metadata]);
    expect(registry.kindsOf('notion-pkg')).toEqual(['notion']);
  });

  it('the metadata is a frozen copy: changing the entry afterwards changes nothing', () => {
    const registry = new SourceKindRegistry();
    const entry = notionEntry();
    const metadata = registry.register({ packageId: 'p', trust: 'trusted', entry });
    (entry.configSchema['properties'] as Record<string, unknown>)['extra'] = { type: 'string' };
    expect(Object.isFrozen(metadata)).toBe(true);
    expect(Object.isFrozen(metadata.configSchema)).toBe(true);
    expect(Object.keys(metadata.configSchema['properties'] as object)).toEqual(['workspaceId']);
  });

  it('"category (optional)" and "runtimeGated (optional, default false)": absent values stay absent or false', () => {
    const registry = new SourceKindRegistry();
    const { category: _category, ...entry } = notionEntry();
    const metadata = registry.register({ packageId: 'p', trust: 'trusted', entry });
    expect('category' in metadata).toBe(false);
    expect(metadata.runtimeGated).toBe(false);
  });

  it('"forces project scope when selection is disabled"', () => {
    const registry = new SourceKindRegistry();
    const metadata = registry.register({ packageId: 'p', trust: 'trusted', entry: notionEntry({ scopeSelectable: false, defaultScope: 'user', allowedScopes: ['user'] }) });
    expect(metadata.defaultScope).toBe('project');
    expect(metadata.allowedScopes).toEqual(['project']);
  });

  it('"the registry validates configs against" the configSchema: invalid_config names the field; a valid config comes back', () => {
    const registry = new SourceKindRegistry();
    registry.register({ packageId: 'p', trust: 'trusted', entry: notionEntry() });
    expect(registry.validateConfig('notion', { workspaceId: 'w1' })).toEqual({ workspaceId: 'w1' });
    expect(() => registry.validateConfig('notion', {})).toThrow(expect.objectContaining({ code: 'invalid_config', message: expect.stringContaining('workspaceId') }));
    expect(() => registry.validateConfig('notion', { workspaceId: 'w', apiKey: 'secret-value' })).toThrow(
      expect.objectContaining({ code: 'invalid_config', message: expect.not.stringContaining('secret-value') }),
    );
    expect(() => registry.validateConfig('jira', {})).toThrow(expect.objectContaining({ code: 'kind_not_registered' }));
  });

  it('another package cannot register a kind already provided; the same package replaces its own', () => {
    const registry = new SourceKindRegistry();
    registry.register({ packageId: 'p', trust: 'trusted', entry: notionEntry() });
    expect(() => registry.checkRegistration({ packageId: 'q', trust: 'trusted', entry: notionEntry() })).toThrow(expect.objectContaining({ code: 'already_exists' }));
    expect(() => registry.register({ packageId: 'q', trust: 'trusted', entry: notionEntry() })).toThrow(expect.objectContaining({ code: 'already_exists' }));
    const replaced = registry.register({ packageId: 'p', trust: 'first-party', entry: notionEntry({ name: 'Notion v2' }) });
    expect(registry.get('notion')).toBe(replaced);
    expect(replaced.label).toBe('Notion v2');
  });

  it('a schema that is not closed is refused at registration and nothing is stored', () => {
    const registry = new SourceKindRegistry();
    const open = notionEntry({ configSchema: { type: 'object', properties: { a: { type: 'string' } } } });
    expect(() => registry.register({ packageId: 'p', trust: 'trusted', entry: open })).toThrow(expect.objectContaining({ code: 'manifest_invalid' }));
    expect(registry.has('notion')).toBe(false);
  });

  it('unregister removes the metadata', () => {
    const registry = new SourceKindRegistry();
    registry.register({ packageId: 'p', trust: 'trusted', entry: notionEntry() });
    expect(registry.unregister('notion')).toBe(true);
    expect(registry.unregister('notion')).toBe(false);
    expect(registry.get('notion')).toBeUndefined();
  });
});
