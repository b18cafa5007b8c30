import { describe, expect, it } from 'vitest';
import { expectIssueAt, expectPaths, issuesOf } from './__fixtures__/expect-issues.js';
import { validateCredentialDeclarations } from './credentials.js';
import { validateManifest } from './validate-manifest.js';

const NOTION_KEY = { id: 'notion-api-key', label: 'Notion API key', description: 'An internal integration token.' };

function credentialIssues(credentials: readonly unknown[]) {
  return issuesOf(() => validateManifest({ id: 'p', credentials }, { trust: 'trusted' }));
}

describe('credentials[]', () => {
  it('spec: "declares it once in the package\'s neuralis.credentials[]" — a one-secret credential (no fields) and a multi-field one are accepted', () => {
    const multi = { id: 'aws', label: 'AWS keys', fields: [{ name: 'accessKeyId', label: 'Access key id', secret: false }, { name: 'secretAccessKey', label: 'Secret', secret: true }] };
    const manifest = validateManifest({ id: 'p', credentials: [NOTION_KEY, multi] }, { trust: 'trusted' });
    expect(manifest.credentials).toEqual([NOTION_KEY, multi]);
  });

  it('decision: credential ids are unique within the manifest', () => {
    const issues = credentialIssues([NOTION_KEY, { ...NOTION_KEY, label: 'Again' }]);
    expectPaths(issues, ['credentials[1].id']);
    expectIssueAt(issues, 'credentials[1].id', 'unique within the manifest');
  });

  it('id and label are required; entries are closed (a value field is refused: secrets are never in the manifest)', () => {
    const issues = credentialIssues([{ value: 'sk-123' }]);
    expectIssueAt(issues, 'credentials[0].id', 'an id');
    expectIssueAt(issues, 'credentials[0].label', 'non-empty string');
    expectIssueAt(issues, 'credentials[0].value', 'id, label, description, fields');
  });

  it('fields need name, label and a boolean secret; names are unique; an empty list is refused', () => {
    const issues = credentialIssues([
      { id: 'a', label: 'A', fields: [{ name: 'user', label: 'User', secret: 'no' }, { name: 'user', label: 'Again', secret: true }, { label: 'Nameless', secret: true }] },
      { id: 'b', label: 'B', fields: [] },
    ]);
    expectIssueAt(issues, 'credentials[0].fields[0].secret', 'true or false');
    expectIssueAt(issues, 'credentials[0].fields[1].name', 'unique within the credential');
    expectIssueAt(issues, 'credentials[0].fields[2].name', 'a field name');
    expectIssueAt(issues, 'credentials[1].fields', 'omit "fields" for one secret field named "value"');
  });

  it('validateCredentialDeclarations checks the array on its own', () => {
    expect(validateCredentialDeclarations([NOTION_KEY])).toEqual([]);
    expect(validateCredentialDeclarations([{ id: '1bad', label: 'x' }]).map((issue) => issue.path)).toEqual(['credentials[0].id']);
  });
});
