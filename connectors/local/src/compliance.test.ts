import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { failedChecks, formatComplianceReport, runCompliance } from '@neuralis/package-system/testing';
import { LOCAL_CONNECTOR_ENTRY, createLocalConnector } from './index.js';

let projectRoot: string;
beforeAll(async () => {
  projectRoot = realpathSync(await mkdtemp(`${tmpdir()}/inseam-local-compliance-`));
  await mkdir(`${projectRoot}/data`);
});
afterAll(() => rm(projectRoot, { recursive: true, force: true }));

test('the local kind passes the package-system compliance harness', async () => {
  const port = createLocalConnector({ packageId: '@inseam/connector-local', packageRoot: projectRoot, source: 'data', config: { root: 'data' }, projectRoot, scope: 'project' });
  const report = await runCompliance({ port, manifest: LOCAL_CONNECTOR_ENTRY, scratch: 'data://' });
  expect(failedChecks(report), formatComplianceReport(report)).toEqual([]);
  expect(report.checks.filter((check) => check.status === 'skip').map((check) => check.id)).toEqual([
    'capabilities.undeclared-refused',
    'runtime-gated.active',
  ]);
});
