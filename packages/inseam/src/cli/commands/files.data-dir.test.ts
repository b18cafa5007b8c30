/**
 * `inseam ls|stat|cat` go through the filesystem service like every other surface, so a folder
 * host whose root holds the data directory never serves it from the shell either — not through a
 * symlink below the root that leads there. Before, these three commands read the host directly
 * and `cat` printed the admin token through such a link.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { cli, type CliRun } from './__fixtures__/cli.js';

const SECRET = 'admin token material wombatlantern';
let home: string;
let dataDir: string;

const run = (...args: string[]): Promise<CliRun> => cli(dataDir, args);

beforeAll(async () => {
  home = await tempDir('cli-data-dir-home');
  dataDir = join(home, '.local', 'share', 'inseam');
  await mkdir(dataDir, { recursive: true });
  await writeFiles(home, { 'notes/plan.md': 'the plan\n' });
  await writeFile(join(dataDir, 'admin.token'), SECRET);
  await symlink(dataDir, join(home, 'notes', 'state'));
  await symlink(join(dataDir, 'admin.token'), join(home, 'notes', 'token.txt'));
  for (const args of [
    ['network', 'init', 'home'],
    ['host', 'add', 'home/me', '--kind', 'fs', '--config', JSON.stringify({ root: home }), '--sync-mode', 'manual'],
  ]) {
    const done = await run(...args);
    expect(done.code, done.stderr).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await removeDir(home);
});

describe('ls, stat and cat on a host whose root holds the data directory', () => {
  it.each([
    ['cat', 'me://notes/token.txt'],
    ['cat', 'me://notes/state/admin.token'],
    ['stat', 'me://notes/token.txt'],
    ['ls', 'me://notes/state'],
    ['ls', 'me://.local/share/inseam'],
  ])('%s %s is refused and prints nothing of it', async (verb, address) => {
    const done = await run(verb, address, '--network', 'home');
    expect(done.code).not.toBe(0);
    expect(done.stderr).toMatch(/permission/i);
    expect(done.stdout).not.toContain('wombatlantern');
    expect(done.stdout).not.toContain('admin.token');
  });

  it('still reads, lists and describes the rest of the host', async () => {
    expect((await run('cat', 'me://notes/plan.md', '--network', 'home')).stdout).toBe('the plan\n');
    const listed = await run('ls', 'me://notes', '--names', '--network', 'home');
    expect(listed.stdout.split('\n')).toContain('plan.md');
    const described = JSON.parse((await run('stat', 'me://notes/plan.md', '--json', '--network', 'home')).stdout) as Record<string, unknown>;
    expect(described).toMatchObject({ address: 'inseam://home/me/notes/plan.md', type: 'file', size: 9, source: 'live' });
  });
});
