/**
 * `inseam token …` and the connector lifecycle from the command line: submit, trial, approve (a
 * person at a terminal typing the phrase), install with its first crawl.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleSha } from '../../connectors/index.js';
import { hashToken } from '../../http/index.js';
import { openPlatform } from '../../platform/index.js';
import { removeDir, tempDir } from '../../platform/__fixtures__/platforms.js';
import { NOTES_SEED, exampleFile, exampleSource } from '../../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../../trial/__fixtures__/servers/notes-api.js';
import { cli } from './__fixtures__/cli.js';

let dataDir: string;
let notes: NotesApi;
const sha = moduleSha(exampleSource('notes-api'));

/** A terminal that types `line` once asked. */
function terminal(line: string): PassThrough & { isTTY: boolean } {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  setTimeout(() => input.end(`${line}\n`), 50);
  return input;
}

beforeAll(async () => {
  dataDir = await tempDir('cli-connector');
  notes = await startNotesApi(NOTES_SEED);
  expect((await cli(dataDir, ['network', 'init', 'home'])).code).toBe(0);
});

afterAll(async () => {
  await notes?.close();
  await removeDir(dataDir);
});

describe('inseam token', () => {
  it('prints a new token once on stdout, stores its hash only, lists and revokes it', async () => {
    const created = await cli(dataDir, ['token', 'create', '--name', 'ci', '--user', 'ann', '--features', 'hosts.manage,exec.machine', '--expires', 'P30D']);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^inseam_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain('shown this once');
    const listed = await cli(dataDir, ['token', 'ls', '--user', 'ann', '--json']);
    const tokens = JSON.parse(listed.stdout) as { id: string; features: string[]; expiresAt: number }[];
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ features: ['exec.machine', 'hosts.manage'] });
    expect(tokens[0]!.expiresAt).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(listed.stdout).not.toContain(token);
    const platform = await openPlatform({ dataDir, env: {} });
    try {
      expect(await platform.store.tokens.findActive(hashToken(token))).toMatchObject({ id: tokens[0]!.id, userId: 'ann' });
    } finally {
      await platform.close();
    }
    expect((await cli(dataDir, ['token', 'revoke', tokens[0]!.id])).code).toBe(0);
    const again = await cli(dataDir, ['token', 'revoke', tokens[0]!.id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('[not_found]');
  });

  it('refuses bad input with exit 2', async () => {
    expect((await cli(dataDir, ['token', 'create', '--name', 'x', '--features', 'Bad Feature'])).code).toBe(2);
    expect((await cli(dataDir, ['token', 'create', '--name', 'x', '--network', 'nowhere'])).code).toBe(2);
    expect((await cli(dataDir, ['token', 'create', '--name', 'x', '--expires', 'soon'])).code).toBe(2);
  });
});

describe('inseam connector, approve and install', () => {
  it('submits a module and prints its sha', async () => {
    const submitted = await cli(dataDir, ['connector', 'submit', fileURLToPath(exampleFile('notes-api', 'connector.js')), '--name', 'Notes API']);
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(submitted.stdout.trim()).toBe(sha);
  });

  it('runs and records the trial', async () => {
    const config = join(dataDir, 'trial.json');
    await writeFile(config, JSON.stringify({ config: { baseUrl: notes.origin }, credentials: { token: notes.token }, allowPrivateOrigins: [notes.origin] }));
    const trial = await cli(dataDir, ['connector', 'trial', sha.slice(0, 12), '--config', config]);
    expect(trial.code, trial.stdout + trial.stderr).toBe(0);
    expect(trial.stdout).toContain('of kind "notes-api": passed');
    expect(trial.stdout + trial.stderr).not.toContain(notes.token);
  }, 60_000);

  it('approves only at a terminal, with the phrase typed', async () => {
    const script = await cli(dataDir, ['approve', sha]);
    expect(script.code).toBe(2);
    expect(script.stderr).toContain('[permission_denied]');
    const wrong = await cli(dataDir, ['approve', sha], { stdin: terminal('yes') });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`approve notes-api ${sha.slice(0, 12)}`);
    const approved = await cli(dataDir, ['approve', sha.slice(0, 10)], { stdin: terminal(`approve notes-api ${sha.slice(0, 12)}`) });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('Approved trial');
    // The approval says which phases passed, and that writes wait for the install-phase trial on the host.
    expect(approved.stdout).toContain('Phases: submit (read only) passed, install (writes) not run. It declares writes');
    expect(approved.stdout).toContain('writes are turned on only once the install-phase trial, run on that host, passes');
  });

  it('installs the approved module and runs its first crawl', async () => {
    const installed = await cli(dataDir, [
      'install',
      sha,
      '--host',
      'notes',
      '--config',
      JSON.stringify({ baseUrl: notes.origin }),
      '--credential',
      `token=${notes.token}`,
      '--allow-private-origin',
      notes.origin,
      '--json',
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const result = JSON.parse(installed.stdout) as { host: { slug: string; kind: string }; crawl: { state: string; entries: number } };
    expect(result.host).toMatchObject({ slug: 'notes', kind: 'notes-api' });
    expect(result.crawl).toMatchObject({ state: 'completed', entries: NOTES_SEED.length - 1 });
    const listed = JSON.parse((await cli(dataDir, ['connector', 'ls', '--json'])).stdout) as { sha: string; state: string }[];
    expect(listed).toEqual([expect.objectContaining({ sha, state: 'installed' })]);
  }, 60_000);

  it('installs a host writable only after the platform ran the install-phase trial on it', async () => {
    const config = JSON.stringify({ baseUrl: notes.origin });
    const install = (slug: string, ...extra: string[]) =>
      cli(dataDir, ['install', sha, '--host', slug, '--config', config, '--credential', `token=${notes.token}`, '--allow-private-origin', notes.origin, '--json', ...extra]);
    const refused = await install('notes-rw', '--writable');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('[precondition_failed]');
    expect(refused.stderr).toContain('name a scratch prefix');
    const installed = await install('notes-rw', '--writable', '--scratch-prefix', 'scratch');
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain('The install-phase trial passed on scratch prefix "scratch"');
    const result = JSON.parse(installed.stdout) as { host: { slug: string }; writes: { writable: boolean } };
    expect(result.host.slug).toBe('notes-rw');
    expect(result.writes).toMatchObject({ writable: true });
    const view = JSON.parse((await cli(dataDir, ['connector', 'ls', '--json'])).stdout) as { phases: unknown }[];
    expect(view[0]?.phases).toEqual({ submit: 'passed', install: 'passed', declaresWrites: true, writesCheckedOn: ['scratch'] });
  }, 90_000);

  it('inseam host permissions --writable on a read-only host of the kind needs that scratch prefix', async () => {
    const refused = await cli(dataDir, ['host', 'permissions', 'home/notes', '--writable']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('[precondition_failed]');
    expect(refused.stderr).toContain('declares writes');
    const made = await cli(dataDir, ['host', 'permissions', 'home/notes', '--writable', '--scratch-prefix', 'scratch', '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(made.stdout).permissions)).toContain('"write":true');
    expect(JSON.parse(made.stdout).writes).toMatchObject({ writable: true, scratchPrefix: 'scratch' });
  }, 60_000);
});
