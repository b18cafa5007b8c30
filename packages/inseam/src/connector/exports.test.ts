import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as connector from './index.js';

describe('the inseam/connector subpath', () => {
  it('exports exactly its named values (the types are erased)', () => {
    expect(Object.keys(connector).sort()).toEqual(['DESCRIPTION_RULES_BEYOND_SCHEMA', 'DESCRIPTION_SCHEMA', 'DIMENSION_TYPES', 'HOST_CAPABILITIES', 'WRITE_ROUND_TRIPS']);
  });

  it('is mapped in the package exports to this folder, source and build alike', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, Record<string, string>> };
    expect(manifest.exports['./connector']).toEqual({
      'inseam-source': './src/connector/index.ts',
      types: './dist/connector/index.d.ts',
      default: './dist/connector/index.js',
    });
  });

  it('serves the describe() schema authors validate against', () => {
    expect(connector.DESCRIPTION_SCHEMA['required']).toEqual(['kind', 'capabilities', 'auth', 'dimensions', 'listing']);
    expect(connector.WRITE_ROUND_TRIPS).toEqual(['exact', 'normalised']);
  });
});
