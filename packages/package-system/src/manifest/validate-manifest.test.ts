import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, ManifestValidationError } from '../contracts/errors.js';
import type { PackageTrust, SourceConnectorEntry } from '../contracts/manifest.js';
import { expectIssueAt, expectPaths, issuesOf } from './__fixtures__/expect-issues.js';
import { EXEC_CONNECTOR, GIT_MCP_CONNECTOR, HTTP_MCP_CONNECTOR, NOTION_CONNECTOR, SPEC_SOURCES, copy } from './__fixtures__/spec-examples.js';
import { validateManifest } from './validate-manifest.js';

const TRUSTED: readonly PackageTrust[] = ['first-party', 'trusted'];
const UNTRUSTED: readonly PackageTrust[] = ['untrusted', 'sandboxed'];

describe('validateManifest: the spec examples', () => {
  it.each(TRUSTED)('spec example: the Notion connector entry is accepted from a %s package', (trust) => {
    const manifest = validateManifest({ id: 'notion-pkg', connectors: [NOTION_CONNECTOR] }, { trust });
    expect(manifest.connectors).toEqual([NOTION_CONNECTOR]);
  });

  it.each(TRUSTED)('spec example: the in-process Git mcp entry is accepted from a %s package', (trust) => {
    const manifest = validateManifest({ id: 'git-pkg', connectors: [GIT_MCP_CONNECTOR] }, { trust });
    expect(manifest.connectors).toEqual([GIT_MCP_CONNECTOR]);
  });

  it.each(TRUSTED)('spec example: the sources[] example (one auto, one discoverable) is accepted from a %s package', (trust) => {
    const manifest = validateManifest({ id: 'data-pkg', sources: SPEC_SOURCES }, { trust });
    expect(manifest.sources).toEqual(SPEC_SOURCES);
  });

  it('spec example: the exec snippet (capabilities with exec, execRequires ["exec.machine"]) is accepted', () => {
    const manifest = validateManifest({ id: 'machine-pkg', connectors: [EXEC_CONNECTOR] }, { trust: 'first-party' });
    expect((manifest.connectors?.[0] as SourceConnectorEntry).execRequires).toEqual(['exec.machine']);
  });

  it.each(UNTRUSTED)('spec: "an untrusted package is rejected at manifest validation" — the Notion entry from a %s package', (trust) => {
    const issues = issuesOf(() => validateManifest({ id: 'notion-pkg', connectors: [NOTION_CONNECTOR] }, { trust }));
    expectPaths(issues, ['connectors[0].type']);
    expectIssueAt(issues, 'connectors[0].type', 'a trusted or first-party package');
  });

  it.each(UNTRUSTED)('spec: "untrusted and sandboxed packages are rejected" for in-process MCP — the Git entry from a %s package', (trust) => {
    const issues = issuesOf(() => validateManifest({ id: 'git-pkg', connectors: [GIT_MCP_CONNECTOR] }, { trust }));
    expectPaths(issues, ['connectors[0].transport']);
    expectIssueAt(issues, 'connectors[0].transport', '"streamable-http"');
  });

  it.each(UNTRUSTED)('spec: untrusted packages may only declare discoverable sources — the spec sources[] from a %s package fails on the auto seed only', (trust) => {
    const issues = issuesOf(() => validateManifest({ id: 'data-pkg', sources: SPEC_SOURCES }, { trust }));
    expectPaths(issues, ['sources[0].seed']);
    expectIssueAt(issues, 'sources[0].seed', '"discoverable"');
  });

  it.each(UNTRUSTED)('decision: a %s package may contribute streamable-http MCP and discoverable project-relative sources', (trust) => {
    const manifest = validateManifest({ id: 'remote-pkg', connectors: [HTTP_MCP_CONNECTOR], sources: [SPEC_SOURCES[1]] }, { trust });
    expect(manifest.connectors).toHaveLength(1);
    expect(manifest.sources).toHaveLength(1);
  });
});

describe('validateManifest: result', () => {
  it('returns a frozen deep copy: the input is untouched and the result cannot be changed', () => {
    const input = { id: 'notion-pkg', connectors: [copy(NOTION_CONNECTOR)], sources: copy(SPEC_SOURCES) };
    const manifest = validateManifest(input, { trust: 'trusted' });
    expect(manifest).not.toBe(input);
    expect(Object.isFrozen(manifest)).toBe(true);
    const entry = manifest.connectors?.[0] as SourceConnectorEntry;
    expect(Object.isFrozen(entry.configSchema['properties'])).toBe(true);
    expect(() => (entry.capabilities as string[]).push('exec')).toThrow(TypeError);
    input.connectors[0].capabilities.push('delete');
    expect(entry.capabilities).not.toContain('delete');
  });

  it('spec: "forces project scope when selection is disabled" — a non-project defaultScope is normalised to project, never kept', () => {
    const entry = { ...copy(NOTION_CONNECTOR), defaultScope: 'user', scopeSelectable: false, allowedScopes: ['user', 'agent'] };
    const manifest = validateManifest({ id: 'p', connectors: [entry] }, { trust: 'trusted' });
    expect(manifest.connectors?.[0]).toMatchObject({ defaultScope: 'project', scopeSelectable: false, allowedScopes: ['project'] });
  });

  it('decision: an omitted scopeSelectable means selection is disabled, so the scope is forced to project', () => {
    const entry = copy(NOTION_CONNECTOR);
    delete entry.scopeSelectable;
    entry.defaultScope = 'agent';
    entry.allowedScopes = ['agent'];
    const manifest = validateManifest({ id: 'p', connectors: [entry] }, { trust: 'trusted' });
    expect(manifest.connectors?.[0]).toMatchObject({ defaultScope: 'project', scopeSelectable: false, allowedScopes: ['project'] });
  });

  it('decision: with selection enabled, an omitted allowedScopes becomes [defaultScope]', () => {
    const entry = { ...copy(NOTION_CONNECTOR), defaultScope: 'user' };
    delete entry.allowedScopes;
    const manifest = validateManifest({ id: 'p', connectors: [entry] }, { trust: 'trusted' });
    expect(manifest.connectors?.[0]).toMatchObject({ defaultScope: 'user', scopeSelectable: true, allowedScopes: ['user'] });
  });

  it('decision: top-level keys owned by other platform features are ignored and left out of the result', () => {
    const manifest = validateManifest({ id: 'p', tools: [{ name: 'x' }], policies: {} }, { trust: 'trusted' });
    expect(manifest).toEqual({ id: 'p' });
  });

  it('an empty manifest block with only an id is accepted', () => {
    expect(validateManifest({ id: '@scope/pkg' }, { trust: 'untrusted' })).toEqual({ id: '@scope/pkg' });
  });
});

describe('validateManifest: every issue at once', () => {
  it('reports every issue across connectors, sources and credentials in one error, each with path, message and expected', () => {
    const notion = { ...copy(NOTION_CONNECTOR), capabilities: ['list', 'read', 'scan'] };
    const badSource = { ...copy(SPEC_SOURCES[1]), root: '/etc' };
    let caught: unknown;
    try {
      validateManifest({ id: 'p', connectors: [notion], sources: [badSource], credentials: [{ id: 'k' }] }, { trust: 'trusted' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ManifestValidationError);
    const error = caught as ManifestValidationError;
    expectPaths(error.issues, ['connectors[0].capabilities[2]', 'sources[0].root', 'credentials[0].label']);
    expect(error.details['paths']).toEqual(error.issues.map((issue) => issue.path));
    expect(error.message).toContain('connectors[0].capabilities[2]');
    expect(error.message).toContain('(2 more issues)');
  });

  it('never echoes a value that may be a host path or a secret in a message', () => {
    const source = { ...copy(SPEC_SOURCES[1]), root: '/home/alice/secret-project' };
    const http = { ...copy(HTTP_MCP_CONNECTOR), url: 'https://user:hunter2@mcp.example.com/' };
    const error = (() => {
      try {
        validateManifest({ id: 'p', connectors: [http], sources: [source] }, { trust: 'trusted' });
      } catch (caught) {
        return caught as ManifestValidationError;
      }
      throw new Error('expected a failure');
    })();
    const everything = JSON.stringify({ message: error.message, issues: error.issues, details: error.details });
    expect(everything).not.toContain('alice');
    expect(everything).not.toContain('hunter2');
  });
});

describe('validateManifest: the manifest block itself', () => {
  it('refuses a manifest that is not an object, at path "neuralis"', () => {
    const issues = issuesOf(() => validateManifest(['id'], { trust: 'trusted' }));
    expectIssueAt(issues, 'neuralis', 'the "neuralis" object');
  });

  it('decision: id is required and is an npm package name (it becomes the origin attribution of its sources)', () => {
    expectIssueAt(issuesOf(() => validateManifest({}, { trust: 'trusted' })), 'id', 'npm package name');
    expectIssueAt(issuesOf(() => validateManifest({ id: 'Bad Name' }, { trust: 'trusted' })), 'id', 'npm package name');
  });

  it('main, when present, is a relative module path inside the package', () => {
    expect(validateManifest({ id: 'p', main: './dist/index.js' }, { trust: 'trusted' }).main).toBe('./dist/index.js');
    expectIssueAt(issuesOf(() => validateManifest({ id: 'p', main: '../other/index.js' }, { trust: 'trusted' })), 'main', 'relative module path');
    expectIssueAt(issuesOf(() => validateManifest({ id: 'p', main: '/abs/index.js' }, { trust: 'trusted' })), 'main', 'relative module path');
  });

  it('version, when present, is a non-empty string', () => {
    expectIssueAt(issuesOf(() => validateManifest({ id: 'p', version: 1 }, { trust: 'trusted' })), 'version', 'non-empty string');
  });

  it('connectors, sources and credentials must be arrays', () => {
    const issues = issuesOf(() => validateManifest({ id: 'p', connectors: {}, sources: 'x', credentials: null }, { trust: 'trusted' }));
    expectIssueAt(issues, 'connectors', 'an array of connector entries');
    expectIssueAt(issues, 'sources', 'an array of source declarations');
    expectIssueAt(issues, 'credentials', 'an array of credential declarations');
  });

  it('refuses values JSON cannot carry (a cycle, a function) before walking them', () => {
    const cyclic: Record<string, unknown> = { ...copy(NOTION_CONNECTOR) };
    (cyclic['configSchema'] as Record<string, unknown>)['self'] = cyclic;
    const issues = issuesOf(() => validateManifest({ id: 'p', connectors: [cyclic, { factory: () => 1 }] }, { trust: 'trusted' }));
    expectIssueAt(issues, 'connectors[0].configSchema.self', 'without cycles');
    expectIssueAt(issues, 'connectors[1].factory', 'a JSON value');
  });

  it('throws InvalidArgumentError for a trust the installer could not have assigned', () => {
    expect(() => validateManifest({ id: 'p' }, { trust: 'root' as PackageTrust })).toThrow(InvalidArgumentError);
    expect(() => validateManifest({ id: 'p' }, undefined as unknown as { trust: PackageTrust })).toThrow(InvalidArgumentError);
  });
});
