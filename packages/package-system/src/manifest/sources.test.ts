import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, ManifestValidationError } from '../contracts/errors.js';
import type { PackageTrust } from '../contracts/manifest.js';
import { expectIssueAt, expectPaths, issuesOf } from './__fixtures__/expect-issues.js';
import { SPEC_SOURCES, copy } from './__fixtures__/spec-examples.js';
import { isPositiveIsoDuration, parseSourceRoot, validateSourceDeclarations } from './sources.js';
import { validateManifest } from './validate-manifest.js';

const AUTO = SPEC_SOURCES[0];
const DISCOVERABLE = SPEC_SOURCES[1];

function sourceIssues(sources: readonly unknown[], trust: PackageTrust = 'first-party') {
  return issuesOf(() => validateManifest({ id: 'p', sources }, { trust }));
}

function accepts(sources: readonly unknown[], trust: PackageTrust = 'first-party'): void {
  expect(() => validateManifest({ id: 'p', sources }, { trust })).not.toThrow();
}

describe('sources[]: fields', () => {
  it('spec: "duplicate slugs within one manifest are rejected" — at the second declaration', () => {
    const issues = sourceIssues([AUTO, { ...copy(DISCOVERABLE), source: 'data' }]);
    expectPaths(issues, ['sources[1].source']);
    expect(expectIssueAt(issues, 'sources[1].source', 'unique within the manifest').message).toContain('sources[0]');
  });

  it('spec: "description is required" — missing or blank descriptions are refused', () => {
    const missing = copy(DISCOVERABLE);
    delete missing.description;
    const issues = sourceIssues([missing, { ...copy(DISCOVERABLE), source: 'other', description: '   ' }]);
    expectIssueAt(issues, 'sources[0].description', 'non-empty description');
    expectIssueAt(issues, 'sources[1].description', 'non-empty description');
  });

  it('spec: "seed is auto or discoverable"', () => {
    const missing = copy(DISCOVERABLE);
    delete missing.seed;
    const issues = sourceIssues([{ ...copy(DISCOVERABLE), seed: 'always' }, { ...missing, source: 'other' }]);
    expectIssueAt(issues, 'sources[0].seed', '"auto" or "discoverable"');
    expectIssueAt(issues, 'sources[1].seed', '"auto" or "discoverable"');
  });

  it('spec: "source is the canonical slug" — a slug that cannot be a URI scheme is refused', () => {
    expectIssueAt(sourceIssues([{ ...copy(DISCOVERABLE), source: 'My Notion' }]), 'sources[0].source', 'URI scheme');
  });

  it('spec: "scope picks project-, user-, or agent-ownership"', () => {
    expectIssueAt(sourceIssues([{ ...copy(DISCOVERABLE), scope: 'org' }]), 'sources[0].scope', '"project", "user" or "agent"');
  });

  it('spec: "kind must be a registered connector kind … checked at runtime, not at manifest validation" — an unknown kind passes', () => {
    accepts([{ ...copy(DISCOVERABLE), kind: 'never-registered' }]);
  });

  it('spec: "a package may declare a source on a kind it does not own"', () => {
    const manifest = validateManifest({ id: 'p', sources: [{ ...copy(DISCOVERABLE), kind: 'local', root: '${appRoot}/zone' }] }, { trust: 'first-party' });
    expect(manifest.sources?.[0]?.root).toBe('${appRoot}/zone');
  });

  it('label and kind are required; entries are closed', () => {
    const entry = copy(DISCOVERABLE);
    delete entry.label;
    delete entry.kind;
    const issues = sourceIssues([{ ...entry, roots: 'data' }]);
    expectIssueAt(issues, 'sources[0].label', 'non-empty string');
    expectIssueAt(issues, 'sources[0].kind', 'a slug');
    expectIssueAt(issues, 'sources[0].roots', 'only the fields');
  });

  it('spec: "permissions seeds the source\'s permission tree" — overrides are canonical relative paths', () => {
    accepts([{ ...copy(DISCOVERABLE), permissions: { default: { read: true, write: false, exec: false }, paths: { 'drafts/private': { read: false } } } }]);
    const issues = sourceIssues([
      { ...copy(DISCOVERABLE), permissions: { default: { read: true, write: false, exec: false }, paths: { '../up': { read: true }, '/abs': { write: true }, ok: {} } } },
    ]);
    expectIssueAt(issues, 'sources[0].permissions.paths["../up"]', 'source-relative path');
    expectIssueAt(issues, 'sources[0].permissions.paths["/abs"]', 'source-relative path');
    expectIssueAt(issues, 'sources[0].permissions.paths.ok', 'at least one of');
  });

  it('spec: "visibility.seeRequires is an optional feature hint"', () => {
    accepts([{ ...copy(DISCOVERABLE), visibility: { seeRequires: ['sources.notion'] } }]);
    expectIssueAt(sourceIssues([{ ...copy(DISCOVERABLE), visibility: { seeRequires: [''] } }]), 'sources[0].visibility.seeRequires[0]', 'a feature id');
  });
});

describe('sources[]: root token allow-list', () => {
  it.each(['data', '_packages', '${appRoot}', 'data/reports', '_packages/acme/cache', '${appRoot}/zone'])(
    'spec: "the root token allow-list is data, _packages, or ${appRoot}" — accepts %s (optionally with a sub-path)',
    (root) => accepts([{ ...copy(DISCOVERABLE), root }]),
  );

  it.each([
    ['an absolute OS path', '/etc'],
    ['an absolute Windows path', 'C:\\Users'],
    ['a UNC path', '\\\\server\\share'],
    ['a home path', '~/notes'],
    ['a ".." segment', '..'],
    ['a ".." escape after a token', 'data/../../etc'],
    ['a ".." escape hidden in the middle', 'data/x/../../..'],
    ['an unknown ${…} token', '${home}'],
    ['an unknown ${…} token with a sub-path', '${HOME}/.ssh'],
    ['a token later in the path', 'data/${appRoot}'],
    ['a non-token head', 'documents'],
    ['a token prefix lookalike', 'database'],
    ['a backslash separator', 'data\\x'],
    ['an empty segment', 'data//x'],
    ['a trailing slash', 'data/'],
    ['a "." segment', 'data/./x'],
    ['an empty string', ''],
    ['a NUL byte', 'data/x\0'],
  ])('spec: "absolute OS paths, .. segments, and unknown ${…} tokens are rejected" — refuses %s', (_what, root) => {
    expectIssueAt(sourceIssues([{ ...copy(DISCOVERABLE), root }]), 'sources[0].root', '"data", "_packages" or "${appRoot}"');
  });

  it('spec: "omit it for rootless kinds" — a trusted package may declare a rootless source', () => {
    const rootless = copy(DISCOVERABLE);
    delete rootless.root;
    accepts([{ ...rootless, kind: 'vector' }], 'trusted');
  });

  it('parseSourceRoot splits token and sub-path, and throws manifest_invalid at path "root" for anything else', () => {
    expect(parseSourceRoot('${appRoot}/a/b')).toEqual({ token: '${appRoot}', segments: ['a', 'b'] });
    expect(parseSourceRoot('data')).toEqual({ token: 'data', segments: [] });
    const error = (() => {
      try {
        parseSourceRoot('data/../../etc');
      } catch (caught) {
        return caught;
      }
      throw new Error('expected a failure');
    })();
    expect(error).toBeInstanceOf(ManifestValidationError);
    expect((error as ManifestValidationError).issues[0]?.path).toBe('root');
  });
});

describe('sources[]: trust gate', () => {
  it.each(['untrusted', 'sandboxed'] as const)('spec: "seed: auto requires trusted or first-party trust" — refused for %s', (trust) => {
    expectIssueAt(sourceIssues([AUTO], trust), 'sources[0].seed', '"discoverable"');
  });

  it.each(['trusted', 'first-party'] as const)('spec: "seed: auto requires trusted or first-party trust" — accepted for %s', (trust) => {
    accepts([AUTO], trust);
  });

  it.each(['trusted', 'untrusted', 'sandboxed'] as const)('spec: "a platform root token (${appRoot}) requires first-party trust" — refused for %s', (trust) => {
    const issue = expectIssueAt(sourceIssues([{ ...copy(DISCOVERABLE), root: '${appRoot}' }], trust), 'sources[0].root', 'project-relative root');
    expect(issue.message).toContain('first-party');
  });

  it.each(['untrusted', 'sandboxed'] as const)('spec: "untrusted and sandboxed packages may only declare seed: discoverable with a project-relative root" — a rootless source is refused for %s', (trust) => {
    const rootless = copy(DISCOVERABLE);
    delete rootless.root;
    expectIssueAt(sourceIssues([rootless], trust), 'sources[0].root', 'project-relative root');
  });

  it.each(['untrusted', 'sandboxed'] as const)('spec: untrusted and sandboxed packages may declare discoverable sources under data or _packages (%s)', (trust) => {
    accepts([DISCOVERABLE, { ...copy(DISCOVERABLE), source: 'cache', root: '_packages/cache' }], trust);
  });

  it('reports the seed and the root separately when a sandboxed package breaks both rules', () => {
    expectPaths(sourceIssues([{ ...copy(AUTO), root: '${appRoot}' }], 'sandboxed'), ['sources[0].seed', 'sources[0].root']);
  });
});

describe('sources[]: sync settings', () => {
  it('spec sync example (trigger auto, exclude globs, alwaysActive) is accepted, with an interval', () => {
    accepts([{ ...copy(AUTO), sync: { trigger: 'auto', interval: 'PT15M', exclude: ['_pending/**', '*.tmp'], alwaysActive: false } }]);
  });

  it('decision: trigger is auto or manual and required when sync is present', () => {
    const issues = sourceIssues([{ ...copy(AUTO), sync: { trigger: 'hourly' } }, { ...copy(DISCOVERABLE), sync: {} }]);
    expectIssueAt(issues, 'sources[0].sync.trigger', '"auto" or "manual"');
    expectIssueAt(issues, 'sources[1].sync.trigger', '"auto" or "manual"');
  });

  it.each(['15m', 'P', 'PT', 'PT0S', 'P1DT', '-PT5M', 'PT1.5M', 900])('decision: interval is an ISO 8601 duration longer than zero — refuses %s', (interval) => {
    expectIssueAt(sourceIssues([{ ...copy(AUTO), sync: { trigger: 'auto', interval } }]), 'sources[0].sync.interval', 'ISO 8601 duration');
  });

  it('decision: an interval with trigger "manual" is refused (manual means never scheduled)', () => {
    expectIssueAt(sourceIssues([{ ...copy(AUTO), sync: { trigger: 'manual', interval: 'PT1H' } }]), 'sources[0].sync.interval', 'trigger "auto"');
  });

  it('exclude globs are relative to the source root; alwaysActive is a boolean; sync is closed', () => {
    const issues = sourceIssues([{ ...copy(AUTO), sync: { trigger: 'auto', exclude: ['/abs/**', '../x', ''], alwaysActive: 'yes', every: 'PT1M' } }]);
    expectPaths(issues, ['sources[0].sync.exclude[0]', 'sources[0].sync.exclude[1]', 'sources[0].sync.exclude[2]', 'sources[0].sync.alwaysActive', 'sources[0].sync.every']);
    expectIssueAt(issues, 'sources[0].sync.exclude[0]', 'relative to the source root');
  });

  it('isPositiveIsoDuration accepts the common forms', () => {
    for (const value of ['PT15M', 'PT1H', 'P1D', 'P1W', 'PT0.5S', 'P1DT12H']) expect(isPositiveIsoDuration(value)).toBe(true);
  });
});

describe('validateSourceDeclarations (helper)', () => {
  it('checks a sources array on its own, with its own path prefix', () => {
    expect(validateSourceDeclarations(SPEC_SOURCES, { trust: 'trusted' })).toEqual([]);
    expect(validateSourceDeclarations([AUTO], { trust: 'untrusted', path: 'neuralis.sources' }).map((issue) => issue.path)).toEqual(['neuralis.sources[0].seed']);
    expect(() => validateSourceDeclarations([], { trust: 'nobody' as PackageTrust })).toThrow(InvalidArgumentError);
  });
});
