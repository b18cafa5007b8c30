import { afterAll, beforeAll, expect, test } from 'vitest';
import { failedChecks, formatComplianceReport, runCompliance } from '@neuralis/package-system/testing';
import { FS_CONNECTOR_ENTRY } from './manifest.js';
import { makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
});
afterAll(() => box.cleanup());

test('the fs kind passes the package-system compliance harness', async () => {
  const report = await runCompliance({ port: box.connector, manifest: FS_CONNECTOR_ENTRY, scratch: 'box://' });
  expect(failedChecks(report), formatComplianceReport(report)).toEqual([]);
  // Every capability is declared and the kind is not runtime-gated: only those two checks skip.
  expect(report.checks.filter((check) => check.status === 'skip').map((check) => check.id)).toEqual([
    'capabilities.undeclared-refused',
    'runtime-gated.active',
  ]);
});
