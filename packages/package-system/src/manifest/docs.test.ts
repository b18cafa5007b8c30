import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_CAPABILITIES } from '../contracts/capabilities.js';
import { CREDENTIAL_KEYS } from './credentials.js';
import { MCP_CONNECTOR_KEYS, SOURCE_CONNECTOR_KEYS } from './connectors.js';
import { SOURCE_DECLARATION_KEYS } from './sources.js';
import { MANIFEST_KEYS } from './validate-manifest.js';

const reference = readFileSync(new URL('../../../../docs/manifest.md', import.meta.url), 'utf8');

describe('docs/manifest.md', () => {
  it('documents the issue path of every field the validator accepts', () => {
    const documented = (path: string) => reference.includes(`\`${path}\``);
    const missing = [
      ...MANIFEST_KEYS,
      ...[...SOURCE_CONNECTOR_KEYS, ...MCP_CONNECTOR_KEYS]
        .filter((key) => !['icon', 'category', 'description'].includes(key))
        .map((key) => `connectors[i].${key}`),
      ...SOURCE_DECLARATION_KEYS.map((key) => `sources[i].${key}`),
      ...CREDENTIAL_KEYS.map((key) => `credentials[i].${key}`),
    ].filter((path) => !documented(path));
    expect(missing).toEqual([]);
    expect(reference).toContain('`connectors[i].icon`, `.category`, `.description`');
  });

  it('lists the closed capability list', () => {
    expect(reference).toContain(CONNECTOR_CAPABILITIES.join(', '));
  });
});
