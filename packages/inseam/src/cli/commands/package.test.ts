/**
 * `inseam package add|ls|swap|rm`, in-process on a temp data directory with a package folder the
 * test writes: the trust is the one given on the command line, a refused install stores nothing,
 * a later command sees what an earlier one installed, and `rm` leaves the kind's hosts as orphans.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../../platform/__fixtures__/platforms.js';
import { writeSourcePackage } from '../../platform/__fixtures__/source-package.js';
import { cli } from './__fixtures__/cli.js';

let dataDir: string;
let packages: string;

beforeAll(async () => {
  dataDir = await tempDir('cli-package');
  packages = await tempDir('cli-package-src');
});
afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(packages);
});

const run = (...args: string[]) => cli(dataDir, args);

describe('inseam package', () => {
  it('adds with the given trust, lists, swaps and removes; refusals store nothing', async () => {
    const folder = await writeSourcePackage(join(packages, 'board'), { id: 'acme.board', version: '1.0.0', kinds: ['board'], text: 'board v1', claimsTrust: 'first-party' });
    expect(await run('package', 'add', folder)).toMatchObject({ code: 2, stderr: expect.stringContaining("required option '--trust <trust>'") });
    expect(await run('package', 'add', folder, '--trust', 'first-party')).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
    const low = await run('package', 'add', folder, '--trust', 'untrusted');
    expect(low).toMatchObject({ code: 2, stderr: expect.stringContaining('[manifest_invalid]') });
    expect(low.stderr).not.toContain(packages);
    expect(JSON.parse((await run('package', 'ls', '--json')).stdout).filter((view: { builtin: boolean }) => !view.builtin)).toEqual([]);

    expect(await run('package', 'add', folder, '--trust', 'trusted')).toMatchObject({ code: 0, stderr: 'Installed acme.board@1.0.0 (trusted; kinds board).\n' });
    const table = (await run('package', 'ls')).stdout;
    expect(table.split('\n')[0]).toMatch(/^PACKAGE +VERSION +TRUST +KINDS +STATE +SOURCE$/);
    expect(table).toMatch(/acme\.board +1\.0\.0 +trusted +board +loaded +installed by /);
    expect(table).toMatch(/@inseam\/connector-fs +\S+ +first-party +fs +loaded +built in/);

    expect((await run('network', 'init', 'home')).code).toBe(0);
    expect((await run('host', 'add', 'home/tasks', '--kind', 'board', '--config', '{}')).code).toBe(0);
    expect((await run('cat', 'inseam://home/tasks/note.txt')).stdout).toBe('board v1');

    await writeSourcePackage(folder, { id: 'acme.board', version: '2.0.0', kinds: ['board'], text: 'board v2' });
    expect(await run('package', 'swap', 'acme.board')).toMatchObject({ code: 0, stderr: 'Swapped in acme.board@2.0.0 (trusted; kinds board).\n' });
    expect((await run('cat', 'inseam://home/tasks/note.txt')).stdout).toBe('board v2');

    expect(await run('package', 'rm', '@inseam/connector-fs')).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    expect(await run('package', 'rm', 'acme.board')).toMatchObject({ code: 0, stderr: 'Removed acme.board; hosts of board are orphans until a package provides the kind again.\n' });
    expect(await run('cat', 'inseam://home/tasks/note.txt')).toMatchObject({ code: 2, stderr: expect.stringContaining('kind_not_registered') });
    expect(await run('package', 'rm', 'acme.board')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });

  it('rescan loads a network\'s _packages/ drops and exits 1 naming a drop that failed', async () => {
    expect((await run('network', 'init', 'lab')).code).toBe(0);
    const drops = join(dataDir, 'networks', 'lab', '_packages');
    await writeSourcePackage(join(drops, 'kind-drop'), { id: 'lab.kind-drop', version: '1.0.0', kinds: ['sneaky'], text: 'x' });
    const refused = await run('package', 'rescan', 'lab');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Network lab: no drops\.\n {2}kind-drop: .+\[manifest_invalid\]\n$/);
    expect(refused.stderr).not.toContain(dataDir);
    expect(JSON.parse((await run('package', 'rescan', 'lab', '--json')).stdout)).toMatchObject({ network: 'lab', loaded: [], failed: [{ drop: 'kind-drop', code: 'manifest_invalid' }] });
  });
});
