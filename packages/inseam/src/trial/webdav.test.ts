/**
 * The webdav example connector passes the trial against a real WebDAV server on loopback, in the
 * sandbox behind the gate, in both phases.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTrialReport, readTrialConfigFile, runTrial, TrialSandbox, type TrialReport } from './index.js';
import { DAV_SEED, exampleFile, exampleSource } from './__fixtures__/examples.js';
import { startDavServer, type DavServer } from './__fixtures__/servers/webdav.js';

let dav: DavServer;
let sandbox: TrialSandbox;

beforeAll(async () => {
  dav = await startDavServer(DAV_SEED);
  sandbox = new TrialSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await dav.close();
});

function statuses(report: TrialReport): Record<number, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function hostOptions() {
  return {
    subject: { module: exampleSource('webdav'), label: 'webdav' },
    config: { url: dav.url },
    credentials: { username: dav.username, password: dav.password },
    allowPrivateOrigins: [dav.origin],
    sandbox,
  };
}

describe('the webdav example', () => {
  it('passes the submit phase: PROPFIND and GET pass the audit gate, nothing writes', async () => {
    const before = dav.methods.length;
    const report = await runTrial(hostOptions());
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toMatchObject({ 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'pass', 8: 'skip', 9: 'skip', 10: 'skip', 11: 'pass' });
    expect(report.checks[1]?.detail).toMatch(/order "newest": the host cannot/);
    expect(new Set(dav.methods.slice(before))).toEqual(new Set(['PROPFIND', 'GET']));
    expect(report.origins).toEqual([dav.origin]);
  });

  it('passes the install phase: PUT with If-Match and DELETE on the scratch folder, nothing left', async () => {
    const files = new Set(dav.files.keys());
    const report = await runTrial({ ...hostOptions(), phase: 'install', scratchPrefix: 'scratch' });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toMatchObject({ 10: 'pass', 11: 'pass' });
    expect(new Set(dav.files.keys())).toEqual(files);
  });

  it('keeps its cursor one path long on a wide tree (at most 4,096 characters), however many folders wait', async () => {
    const wide = await startDavServer(
      Array.from({ length: 80 }, (_, index) => ({ path: `projects/${String(index).padStart(3, '0')}-a-folder-with-a-rather-long-descriptive-name/notes.txt`, text: `folder ${index}\n`, modified: '2024-03-01T08:00:00Z' })),
    );
    try {
      const report = await runTrial({ ...hostOptions(), config: { url: wide.url }, credentials: { username: wide.username, password: wide.password }, allowPrivateOrigins: [wide.origin] });
      expect(report.passed, formatTrialReport(report)).toBe(true);
      expect(report.checks[1]?.detail).toMatch(/^20 entries; the cursor round-trips; 20 pages without repeats \(stopped after 20\)/);
    } finally {
      await wide.close();
    }
  });

  it('ships a host.json template in the config file form, naming the fields the connector uses', async () => {
    const file = await readTrialConfigFile(fileURLToPath(exampleFile('webdav', 'host.json')));
    expect(Object.keys(file.config).sort()).toEqual(['url']);
    expect(Object.keys(file.credentials).sort()).toEqual(['password', 'username']);
    expect(file.scratchPrefix).toBe('inseam-scratch');
  });
});
