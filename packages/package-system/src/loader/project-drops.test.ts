import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PackageTrust } from '../contracts/index.js';
import { PackageLoader } from './package-loader.js';
import { listProjectDrops } from './project-drops.js';
import { copyFixture, fixture, fixtureLog, resetFixtureLog, tempDir } from './__fixtures__/support.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let projectRoot: string;
let dropFolder: string;
beforeEach(async () => {
  resetFixtureLog();
  dir = await tempDir();
  projectRoot = join(dir.path, 'project');
  dropFolder = await copyFixture('drop-pkg', join(projectRoot, '_packages', 'notes-drop'));
});
afterEach(() => dir.remove());

const trusted = (): PackageTrust => 'trusted';

async function setRevision(revision: number): Promise<void> {
  const file = join(dropFolder, 'dist', 'drop.js');
  await writeFile(file, (await readFile(file, 'utf8')).replace(/REVISION = \d+/, `REVISION = ${revision}`));
}

describe('project _packages/ drops', () => {
  it('"A project _packages/ drop is re-loaded on scan": every drop folder is loaded, with the project id passed on', async () => {
    const loader = new PackageLoader();
    const result = await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    expect(result.failed).toEqual([]);
    expect(result.loaded.map((outcome) => outcome.package.packageId)).toEqual(['fixture-drop']);
    expect(loader.getPackage('fixture-drop')).toMatchObject({ trust: 'trusted', projectId: 'p1', kinds: ['dropnote'] });
    const instance = await loader.bindSource({ source: 'dropped', kind: 'dropnote', config: {}, scope: 'project' });
    await expect(instance.read('dropped://')).resolves.toMatchObject({ text: 'revision 1' });
  });

  it('a drop is untrusted unless the caller maps it: its source connector is refused and its code never imported', async () => {
    const before = fixtureLog().imports['drop-r1'] ?? 0;
    const loader = new PackageLoader();
    const result = await loader.scanProjectPackages(projectRoot, { projectId: 'p1' });
    expect(result.loaded).toEqual([]);
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]?.drop).toBe('notes-drop');
    expect(['manifest_invalid', 'trust_violation']).toContain(result.failed[0]?.error.code);
    expect(fixtureLog().imports['drop-r1'] ?? 0).toBe(before);
    expect(loader.sourceKinds.has('dropnote')).toBe(false);
  });

  it('"...and on rescan": an unchanged drop is left alone, a changed factory module is re-imported and its sources re-bound', async () => {
    const loader = new PackageLoader();
    await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    const first = await loader.bindSource({ source: 'dropped', kind: 'dropnote', config: {}, scope: 'project' });

    const unchanged = await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    expect(unchanged).toEqual({ loaded: [], unchanged: ['fixture-drop'], removed: [], failed: [] });
    expect(loader.connectors.resolveBySource('dropped')).toBe(first);

    await setRevision(2);
    const rescan = await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    expect(rescan.loaded[0]).toMatchObject({ kept: ['dropnote'], rebound: [{ source: 'dropped', ok: true }] });
    expect(fixtureLog().imports['drop-r2']).toBe(1);
    const second = loader.connectors.resolveBySource('dropped');
    expect(second).not.toBe(first);
    await expect(second.read('dropped://')).resolves.toMatchObject({ text: 'revision 2' });
  });

  it('a removed drop is unregistered on rescan; its sources become orphans, and come back when it is dropped in again', async () => {
    const loader = new PackageLoader();
    await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    await loader.bindSource({ source: 'dropped', kind: 'dropnote', config: {}, scope: 'project' });

    const parked = join(dir.path, 'parked');
    await rename(dropFolder, parked);
    const removed = await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    expect(removed.removed).toEqual(['fixture-drop']);
    expect(loader.sourceKinds.has('dropnote')).toBe(false);
    expect(loader.connectors.hasKind('dropnote')).toBe(false);
    expect(() => loader.connectors.resolveBySource('dropped')).toThrow(expect.objectContaining({ code: 'orphan_source' }));

    await rename(parked, dropFolder);
    const back = await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    expect(back.loaded[0]).toMatchObject({ added: ['dropnote'], rebound: [{ source: 'dropped', ok: true }] });
    await expect(loader.connectors.resolveBySource('dropped').read('dropped://')).resolves.toMatchObject({ text: 'revision 1' });
  });

  it('a drop that breaks on rescan is reported and its previous version keeps serving', async () => {
    const loader = new PackageLoader();
    await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    await writeFile(join(dropFolder, 'package.json'), '{ not json');
    const result = await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    expect(result.failed.map((failure) => [failure.drop, failure.error.code])).toEqual([['notes-drop', 'manifest_invalid']]);
    expect(loader.sourceKinds.has('dropnote')).toBe(true);
  });

  it('a drop claiming the id of an installed package is refused before its code is imported', async () => {
    const loader = new PackageLoader();
    await loader.loadPackage(fixture('drop-pkg'), { trust: 'trusted' });
    const before = fixtureLog().imports['drop-r1'];
    const result = await loader.scanProjectPackages(projectRoot, { projectId: 'p1', trustFor: trusted });
    expect(result.failed.map((failure) => failure.error.code)).toEqual(['already_exists']);
    expect(fixtureLog().imports['drop-r1']).toBe(before);
    expect(loader.getPackage('fixture-drop')?.projectId).toBeUndefined();
  });

  it('only real sub-folders count as drops: symlinks and dot-folders are skipped; no _packages/ means no drops', async () => {
    await mkdir(join(projectRoot, '_packages', '.cache'));
    await symlink(fixture('notes-pkg'), join(projectRoot, '_packages', 'linked'));
    expect((await listProjectDrops(projectRoot)).map((drop) => drop.name)).toEqual(['notes-drop']);
    await rm(join(projectRoot, '_packages'), { recursive: true });
    expect(await listProjectDrops(projectRoot)).toEqual([]);
  });

  it('a relative project root is invalid_argument', async () => {
    await expect(new PackageLoader().scanProjectPackages('project', { projectId: 'p1' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
