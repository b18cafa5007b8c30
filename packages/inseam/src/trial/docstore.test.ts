/**
 * The docstore example connector — a host that re-serialises what it stores — passes the trial
 * against a real JSON document store on loopback: it declares writes.roundTrip "normalised", so
 * check 10 compares JSON values, not bytes. The same connector without that declaration fails
 * check 10 alone, linking the section that explains why.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTrialReport, readTrialConfigFile, runTrial, TrialSandbox, type TrialReport } from './index.js';
import { brokenModule } from './__fixtures__/broken/broken-connectors.js';
import { DOC_SEED, exampleFile, exampleSource } from './__fixtures__/examples.js';
import { startDocStore, type DocStore } from './__fixtures__/servers/docstore.js';

let store: DocStore;
let sandbox: TrialSandbox;

beforeAll(async () => {
  store = await startDocStore(DOC_SEED);
  sandbox = new TrialSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await store.close();
});

function statuses(report: TrialReport): Record<number, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function hostOptions(module = exampleSource('docstore'), label = 'docstore') {
  return {
    subject: { module, label },
    config: { baseUrl: store.origin, pageSize: 2 },
    credentials: { token: store.token },
    allowPrivateOrigins: [store.origin],
    sandbox,
  };
}

describe('the docstore example', () => {
  it('passes the submit phase: keyset cursors, string prefixes, inclusive since, newest refused as unsupported', async () => {
    const report = await runTrial(hostOptions());
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toEqual({ 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'skip', 8: 'skip', 9: 'skip', 10: 'skip', 11: 'pass' });
    expect(report.checks[1]?.detail).toMatch(/^3 entries; the cursor round-trips; 2 pages without repeats; prefix "invoices\/" and "i" filtered as string prefixes; since 2024-05-02T08:00:00\.000Z lists the newest entry \(inclusive\); order "newest": the host cannot/);
  });

  it('passes the install phase: what it stores is compared as JSON values, and nothing is left', async () => {
    const report = await runTrial({ ...hostOptions(), phase: 'install', scratchPrefix: 'scratch' });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[9]?.detail).toBe(
      'application/json: created, read back as normalised content, write() matches stat(), replaced with ifMatch, stale ifMatch refused, replaced without ifMatch, deleted (stat and list agree), a second delete is not_found, a stale ifMatch is precondition_failed and creates nothing',
    );
    expect([...store.docs.keys()].filter((id) => id.startsWith('scratch/'))).toEqual([]);
  });

  it('fails check 10 alone, linking the normalising-hosts section, when it claims exact round trips', async () => {
    const patch = `connector.describe = () => {
      const description = base.describe();
      delete description.writes.roundTrip;
      return description;
    };`;
    const report = await runTrial({ ...hostOptions(brokenModule(exampleSource('docstore'), patch), 'docstore-exact'), phase: 'install', scratchPrefix: 'scratch' });
    const failed = report.checks.filter((check) => check.status === 'fail');
    expect(failed.map((check) => check.id), formatTrialReport(report)).toEqual([10]);
    expect(failed[0]?.detail).toMatch(/^expected: read\("scratch\/inseam-trial-\w+-1\.json"\) after create streams the 59 bytes written\nactual: 58 bytes where 59 were expected; first difference at byte 2 /);
    expect(failed[0]?.detail).toMatch(/writes\.roundTrip: "normalised"\nsee: docs\/connectors\/authoring\.md#writing-normalising-hosts$/);
    expect([...store.docs.keys()].filter((id) => id.startsWith('scratch/'))).toEqual([]);
  });

  it('ships a host.json template in the config file form', async () => {
    const file = await readTrialConfigFile(fileURLToPath(exampleFile('docstore', 'host.json')));
    expect(Object.keys(file.config).sort()).toEqual(['baseUrl', 'pageSize']);
    expect(Object.keys(file.credentials)).toEqual(['token']);
  });
});
