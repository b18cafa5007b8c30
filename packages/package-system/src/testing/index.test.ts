import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as testing from './index.js';

const folder = fileURLToPath(new URL('.', import.meta.url));

function shippedSources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return shippedSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('@neuralis/package-system/testing', () => {
  it('exports exactly its named runtime API', () => {
    expect(Object.keys(testing).sort()).toEqual(
      [
        'COMPLIANCE_CHECKS',
        'CheckFailure',
        'CheckSkipped',
        'MEMORY_CONNECTOR_CAPABILITIES',
        'MEMORY_CONNECTOR_KIND',
        'MEMORY_DEFAULT_INLINE_CAPS',
        'MEMORY_EXEC_FEATURE',
        'OPERATION_CAPABILITY',
        'PORT_OPERATIONS',
        'BROKEN_CONNECTORS',
        'assertCapability',
        'createMemoryConnector',
        'describeBytesDifference',
        'describeError',
        'describeValue',
        'ensure',
        'expectErrorCode',
        'fail',
        'failedChecks',
        'fieldMismatches',
        'formatCheckReport',
        'formatComplianceReport',
        'formatFailureDetail',
        'guardedCall',
        'isInlineBinaryMime',
        'listProblems',
        'memoryConnectorFactory',
        'memoryConnectorManifest',
        'memoryConnectorManifestFor',
        'memoryUri',
        'runCheck',
        'runCompliance',
        'PNG_1X1',
        'SAMPLE_BODIES',
        'sameBytes',
        'sampleBodyFor',
        'skip',
        'skippedCheck',
        'summarizeChecks',
      ].sort(),
    );
  });

  it('uses explicit named exports only (no export *)', () => {
    expect(readFileSync(join(folder, 'index.ts'), 'utf8')).not.toMatch(/export\s+\*/);
  });

  it('spec: the harness ships in the package, so no shipped file imports a test framework', () => {
    const offenders = shippedSources(folder)
      .filter((path) => /from\s+['"](vitest|jest|mocha|node:test)['"]/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(folder, path));
    expect(offenders).toEqual([]);
    expect(shippedSources(folder).length).toBeGreaterThan(10);
  });
});
