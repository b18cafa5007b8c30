import { afterAll, beforeAll, expect, test } from 'vitest';
import { failedChecks, formatComplianceReport, runCompliance } from '@neuralis/package-system/testing';
import { MACHINE_CONNECTOR_ENTRY } from './manifest.js';
import { machinePort } from './__fixtures__/machine.js';
import { startSshd } from './__fixtures__/sshd.mjs';
import type { SshdFixture } from './__fixtures__/sshd.mjs';
import type { MachinePort } from './port.js';

let sshd: SshdFixture;
let port: MachinePort;
beforeAll(async () => {
  sshd = await startSshd();
  port = machinePort(sshd);
});
afterAll(async () => {
  port.dispose();
  await sshd.close();
});

test('the machine kind passes the package-system compliance harness against a real sshd', async () => {
  const report = await runCompliance({ port, manifest: MACHINE_CONNECTOR_ENTRY, scratch: 'box://' });
  expect(failedChecks(report), formatComplianceReport(report)).toEqual([]);
  const passed = report.checks.filter((check) => check.status === 'pass').map((check) => check.id);
  expect(passed).toEqual(expect.arrayContaining(['capabilities.match', 'list.paging', 'read.content', 'read.range', 'write.if-match', 'write.create-only', 'delete.removes', 'walk.tree', 'probe.connection', 'runtime-gated.active']));
});
