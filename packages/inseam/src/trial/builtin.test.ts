/**
 * The built-in kinds pass the trial: the fs host on a temp folder and the bucket pad host, both
 * in-process (no gate: check 11 skips, origins used are none), in both phases.
 */
import { mkdtemp, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsHost } from '@inseam/connector-fs';
import { createBucketHost } from '@inseam/connector-bucket';
import type { Connector } from '@inseam/connector';
import { runTrial, formatTrialReport, type TrialReport } from './index.js';

let base: string;

beforeAll(async () => {
  base = realpathSync(await mkdtemp(join(tmpdir(), 'inseam-trial-builtin-')));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A few files with distinct modification times, one with a name that needs encoding. */
async function seed(root: string): Promise<void> {
  const files: [string, string][] = [
    ['notes/alpha.md', '# alpha\n'],
    ['notes/meeting notes.txt', 'Agenda: trial ✓ — über alles\n'],
    ['report.csv', 'a,b\n1,2\n'],
    ['scratch/keep.txt', 'the scratch folder exists\n'],
  ];
  let day = 1;
  for (const [path, text] of files) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
    const at = new Date(Date.UTC(2024, 4, day++));
    await utimes(join(root, path), at, at);
  }
}

function statuses(report: TrialReport): Record<number, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function explain(report: TrialReport): string {
  return formatTrialReport(report);
}

describe('the fs host', () => {
  async function fsHost(name: string): Promise<Connector> {
    const root = join(base, name);
    await mkdir(root);
    await seed(root);
    return createFsHost({ packageId: '@inseam/connector-fs', packageRoot: base, source: name, config: { root }, projectRoot: base, scope: 'project' });
  }

  it('passes the submit phase: reads only, write checks skip with the reason', async () => {
    const report = await runTrial({ subject: { connector: await fsHost('fs-submit') } });
    expect(report.passed, explain(report)).toBe(true);
    expect(report.kind).toBe('fs');
    expect(statuses(report)).toMatchObject({ 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'pass', 9: 'skip', 10: 'skip', 11: 'skip' });
    expect(report.checks[9]?.detail).toBe('runs after install on a scratch prefix a person names');
    expect(report.checks[1]?.detail).toMatch(/newest first verified over 4 entries/);
    expect(report.origins).toEqual([]);
  });

  it('passes the install phase: writes on the scratch prefix, watch sees them, nothing is left', async () => {
    const root = join(base, 'fs-install');
    const host = await fsHost('fs-install');
    const report = await runTrial({ subject: { connector: host }, phase: 'install', scratchPrefix: 'scratch' });
    expect(report.passed, explain(report)).toBe(true);
    expect(statuses(report)).toMatchObject({ 8: 'pass', 9: 'skip', 10: 'pass' });
    expect(report.checks[9]?.detail).toMatch(/text\/plain: created, read back, write\(\) matches stat\(\), replaced with ifMatch, stale ifMatch refused, replaced without ifMatch, deleted \(stat and list agree\), a second delete is not_found, a stale ifMatch is precondition_failed and creates nothing; application\/octet-stream: /);
    expect(report.leftovers).toEqual([]);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(root, 'scratch'))).toEqual(['keep.txt']);
  });
});

describe('the bucket pad host', () => {
  it('passes both phases; newest is reported as unsupported', async () => {
    const path = join(base, 'pad');
    await mkdir(path);
    const host = await createBucketHost({ provider: 'pad', path });
    for (const [key, text] of [['a.txt', 'alpha\n'], ['docs/b c.md', '# b c\n'], ['scratch/x.txt', 'x\n']] as const) {
      await host.write(key.split('/').map(encodeURIComponent).join('/'), new Blob([text]).stream());
    }
    const submit = await runTrial({ subject: { connector: host } });
    expect(submit.passed, explain(submit)).toBe(true);
    expect(submit.checks[1]?.detail).toMatch(/order "newest": the host cannot/);
    const install = await runTrial({ subject: { connector: host }, phase: 'install', scratchPrefix: 'scratch/' });
    expect(install.passed, explain(install)).toBe(true);
    expect(statuses(install)).toMatchObject({ 8: 'skip', 10: 'pass', 11: 'skip' });
  });
});
