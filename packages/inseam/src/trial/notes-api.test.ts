/**
 * The notes-api example connector passes the trial against a real JSON REST API on loopback, in
 * the sandbox behind the gate, in both phases.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTrialReport, readTrialConfigFile, runTrial, TrialSandbox, type TrialReport } from './index.js';
import { NOTES_SEED, exampleFile, exampleSource } from './__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from './__fixtures__/servers/notes-api.js';

let api: NotesApi;
let sandbox: TrialSandbox;

beforeAll(async () => {
  api = await startNotesApi(NOTES_SEED);
  sandbox = new TrialSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await api.close();
});

function statuses(report: TrialReport): Record<number, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function hostOptions() {
  return {
    subject: { module: exampleSource('notes-api'), label: 'notes-api' },
    config: { baseUrl: api.origin, pageSize: 2, pollMs: 50 },
    credentials: { token: api.token },
    allowPrivateOrigins: [api.origin],
    sandbox,
  };
}

describe('the notes-api example', () => {
  it('passes the submit phase through the audit gate', async () => {
    const before = api.requests.length;
    const report = await runTrial(hostOptions());
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toMatchObject({ 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'pass', 8: 'skip', 9: 'skip', 10: 'skip', 11: 'pass' });
    expect(report.checks[1]?.detail).toMatch(/6 entries; the cursor round-trips; 3 pages without repeats; prefix "data\/" and "d" filtered as string prefixes; since 2024-05-02T08:00:00.000Z lists the newest entry \(inclusive\); newest first verified/);
    expect(report.origins).toEqual([api.origin]);
    expect(api.requests.slice(before).every((request) => request.startsWith('GET '))).toBe(true);
  });

  it('passes the install phase: writes, a rename keeping nativeId, watch events', async () => {
    const report = await runTrial({
      ...hostOptions(),
      phase: 'install',
      scratchPrefix: 'scratch',
      eventWaitMs: 2000,
      rename: async (from, to) => api.rename(decodeURIComponent(from), decodeURIComponent(to)),
    });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toMatchObject({ 8: 'pass', 9: 'pass', 10: 'pass', 11: 'pass' });
    expect(report.checks[9]?.detail).toMatch(/^text\/plain: created, read back, write\(\) matches stat\(\), replaced with ifMatch, stale ifMatch refused, replaced without ifMatch, deleted \(stat and list agree\), a second delete is not_found, a stale ifMatch is precondition_failed and creates nothing; text\/markdown: .*; application\/json: .*; image\/png: created/);
    expect([...api.files.values()].filter((file) => file.path.startsWith('scratch/'))).toEqual([]);
  });

  it('ships a host.json template in the config file form, naming the fields the connector uses', async () => {
    const file = await readTrialConfigFile(fileURLToPath(exampleFile('notes-api', 'host.json')));
    expect(Object.keys(file.config).sort()).toEqual(['baseUrl', 'pageSize', 'pollMs']);
    expect(Object.keys(file.credentials).sort()).toEqual(['token']);
    expect(file.scratchPrefix).toBe('inseam-scratch');
  });
});
