/**
 * Every platform command registers the sandboxed connectors installed earlier: a host installed
 * through the lifecycle (here on its own platform, then closed) is listed by a later `inseam ls`,
 * and a host of that kind in a network where no person approved the module is still refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorLifecycle } from '../../connectors/index.js';
import { openPlatform } from '../../platform/index.js';
import { removeDir, tempDir } from '../../platform/__fixtures__/platforms.js';
import { NOTES_SEED, exampleSource } from '../../trial/__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from '../../trial/__fixtures__/servers/notes-api.js';
import { cli } from './__fixtures__/cli.js';

let dataDir: string;
let notes: NotesApi;

beforeAll(async () => {
  dataDir = await tempDir('cli-restore');
  notes = await startNotesApi(NOTES_SEED);
  const platform = await openPlatform({ dataDir, env: {} });
  try {
    await platform.networks.init('home');
    await platform.networks.init('work');
    const connectors = new ConnectorLifecycle(platform);
    const person = { userId: 'ann' };
    const { connector } = await connectors.submit(person, 'home', { module: exampleSource('notes-api') });
    const { trial } = await connectors.trial(person, 'home', connector.sha, {
      config: { baseUrl: notes.origin },
      credentials: { token: notes.token },
      allowPrivateOrigins: [notes.origin],
    });
    expect(trial.passed).toBe(true);
    await connectors.approveTrial(person, 'home', trial.id, (await connectors.trialRecord('home', trial.id)).confirmation);
    const { crawl } = await connectors.install(person, 'home', connector.sha, {
      host: 'notes',
      config: { baseUrl: notes.origin },
      credentials: { token: notes.token },
      privateOrigins: [notes.origin],
    });
    if (crawl.where !== 'process') throw new Error('The CLI crawls in its own process.');
    await crawl.handle.result;
  } finally {
    await platform.close();
  }
}, 60_000);

afterAll(async () => {
  await notes?.close();
  await removeDir(dataDir);
});

describe('installed connectors after a restart', () => {
  it('inseam ls lists a host of an installed sandboxed kind', async () => {
    const listed = await cli(dataDir, ['ls', 'inseam://home/notes/journal', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('');
    const entries = JSON.parse(listed.stdout) as { name: string }[];
    expect(entries.map((entry) => entry.name)).toEqual(['2024-05-01.md', '2024-05-02.md']);
  });

  it('inseam host add refuses the kind in a network where the module is not approved', async () => {
    const refused = await cli(dataDir, ['host', 'add', 'work/notes', '--kind', 'notes-api', '--config', JSON.stringify({ baseUrl: notes.origin })]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('[precondition_failed]');
    expect(refused.stderr).toContain('not approved in network "work"');
    const hosts = await cli(dataDir, ['host', 'ls', 'work', '--json']);
    expect((JSON.parse(hosts.stdout) as { slug: string }[]).map((host) => host.slug)).not.toContain('notes');
  });
});
