/**
 * `inseam host set` and the sync settings of `host add`, in-process on a temp data directory:
 * the default sync, `--sync-mode`/`--interval`, a refused change that stores nothing, a new config
 * synced before the command ends, and `host show` listing the last syncs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { cli } from './__fixtures__/cli.js';

let dataDir: string;
let files: string;

beforeAll(async () => {
  dataDir = await tempDir('cli-host-set');
  files = await tempDir('cli-host-set-files');
  await writeFiles(files, { 'a/one.md': 'one', 'b/two.md': 'two', 'b/three.md': 'three' });
  await writeFile(join(files, 'plain.txt'), 'a file');
});

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(files);
});

const run = (...args: string[]) => cli(dataDir, args);
const show = async (): Promise<Record<string, unknown>> => JSON.parse((await run('host', 'show', 'home/notes', '--json')).stdout);

describe('inseam host add and set', () => {
  it('adds a folder synced automatically by default, or as --sync-mode says; refuses a root that is missing or a file', async () => {
    expect((await run('network', 'init', 'home')).code).toBe(0);
    expect((await run('host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: join(files, 'a') }))).code).toBe(0);
    expect((await show())['sync']).toEqual({ trigger: 'auto' });
    expect((await run('host', 'show', 'home/notes')).stdout).toContain('sync:         auto: every PT15M, and at each change (it watches)\n');
    const hand = await run('host', 'add', 'home/hand', '--kind', 'fs', '--config', JSON.stringify({ root: join(files, 'b') }), '--sync-mode', 'manual', '--json');
    expect(JSON.parse(hand.stdout).sync).toEqual({ trigger: 'manual' });
    const missing = await run('host', 'add', 'home/gone', '--kind', 'fs', '--config', JSON.stringify({ root: join(files, 'nope') }));
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/does not exist.*\[invalid_config\]/) });
    const file = await run('host', 'add', 'home/file', '--kind', 'fs', '--config', JSON.stringify({ root: join(files, 'plain.txt') }));
    expect(file).toMatchObject({ code: 2, stderr: expect.stringMatching(/a file, not a folder.*\[invalid_config\]/) });
  });

  it('changes label, sync and writes, and refuses a bad change without changing anything', async () => {
    const before = await show();
    for (const args of [
      ['--config', JSON.stringify({ root: join(files, 'nope') }), '--label', 'Renamed'],
      ['--config', JSON.stringify({ root: join(files, 'a'), extra: true })],
      ['--sync-mode', 'manual', '--interval', 'PT5M'],
      ['--sync-mode', 'sometimes'],
      ['--label', ''],
      [],
    ]) {
      const refused = await run('host', 'set', 'home/notes', ...args);
      expect(refused.code, `${args.join(' ')}: ${refused.stderr}`).toBe(2);
    }
    expect(await show()).toEqual(before);
    const changed = await run('host', 'set', 'home/notes', '--label', 'My notes', '--sync-mode', 'auto', '--interval', 'PT5M', '--writable');
    expect(changed).toMatchObject({ code: 0, stdout: 'Changed host inseam://home/notes/.\n' });
    expect(await show()).toMatchObject({ label: 'My notes', sync: { trigger: 'auto', interval: 'PT5M' }, permissions: { default: { write: true } } });
  });

  it('syncs a host in full from its new config before it ends, and host show lists the syncs', async () => {
    await mkdir(join(files, 'c'));
    await writeFile(join(files, 'c', 'four.md'), 'four');
    const changed = await run('host', 'set', 'home/notes', '--config', JSON.stringify({ root: join(files, 'c') }));
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toBe('Changed host inseam://home/notes/.\nSynced: 1 entry, 0 removed.\n');
    const shown = await run('host', 'show', 'home/notes');
    // What the catalog holds for it now: the one file of four bytes.
    expect(shown.stdout).toMatch(/^catalog: +1 entry, 4 B$/m);
    expect((await show())['catalog']).toEqual({ entries: 1, bytes: 4 });
    expect(shown.stdout).toMatch(/last syncs:\nSTARTED +TOOK +MODE +STATE +ADDED ~CHANGED -REMOVED +ERRORS\n\d{4}-\S+ +\d+\.\ds +full +completed +\+1 ~0 -0/);
    expect((await show())['syncs']).toEqual([expect.objectContaining({ mode: 'full', state: 'completed', added: 1, entries: 1 })]);
    expect((await run('ls', 'inseam://home/notes/')).stdout).toContain('four.md');
  });
});
