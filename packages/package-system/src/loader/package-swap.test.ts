import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PackageLoader } from './package-loader.js';
import { getConnectorBindingProvenance } from './provenance.js';
import { copyFixture, fixture, resetFixtureLog, tempDir } from './__fixtures__/support.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  resetFixtureLog();
  dir = await tempDir();
});
afterEach(() => dir.remove());

async function bootWithV1(): Promise<PackageLoader> {
  const loader = new PackageLoader();
  await loader.loadPackage(fixture('swap-v1'), { trust: 'trusted' });
  await loader.bindSource({ source: 'a', kind: 'alpha', config: {}, scope: 'project' });
  await loader.bindSource({ source: 'b', kind: 'beta', config: {}, scope: 'project' });
  return loader;
}

describe('package swap', () => {
  it('"a connectors[] entry added later appears after the deployment\'s package-swap loop"; dropped entries are removed', async () => {
    const loader = await bootWithV1();
    const result = await loader.swapPackage(fixture('swap-v2'), { trust: 'trusted' });
    expect(result).toMatchObject({ added: ['gamma'], removed: ['beta'], kept: ['alpha'], orphaned: ['b'], rebound: [{ source: 'a', ok: true }] });
    expect(result.package).toMatchObject({ packageId: 'fixture-swap', version: '2.0.0', kinds: ['alpha', 'gamma'] });
    expect(loader.sourceKinds.kindsOf('fixture-swap')).toEqual(['alpha', 'gamma']);
    expect(loader.connectors.kinds()).toEqual(['alpha', 'gamma']);
    const gamma = await loader.bindSource({ source: 'g', kind: 'gamma', config: {}, scope: 'project' });
    await expect(gamma.read('g://')).resolves.toMatchObject({ text: 'gamma v2' });
  });

  it('a kept kind runs the new code: its sources are re-bound to fresh, stamped instances', async () => {
    const loader = await bootWithV1();
    const before = loader.connectors.resolveBySource('a');
    await expect(before.read('a://')).resolves.toMatchObject({ text: 'alpha v1' });
    await loader.swapPackage(fixture('swap-v2'), { trust: 'trusted' });
    const after = loader.connectors.resolveBySource('a');
    expect(after).not.toBe(before);
    await expect(after.read('a://')).resolves.toMatchObject({ text: 'alpha v2' });
    expect(getConnectorBindingProvenance(after)).toMatchObject({ providerPackageId: 'fixture-swap', kind: 'alpha', source: 'a' });
  });

  it('a source whose kind was dropped by the swap resolves as an orphan', async () => {
    const loader = await bootWithV1();
    await loader.swapPackage(fixture('swap-v2'), { trust: 'trusted' });
    expect(() => loader.connectors.resolveBySource('b')).toThrow(expect.objectContaining({ code: 'orphan_source' }));
    expect(loader.sourceKinds.has('beta')).toBe(false);
  });

  it('a swap that fails leaves the previous version loaded and serving', async () => {
    const loader = await bootWithV1();
    const broken = await copyFixture('swap-v2', join(dir.path, 'swap-v2'));
    await writeFile(join(broken, 'dist', 'kinds.js'), 'export const alpha = ;\n');
    await expect(loader.swapPackage(broken, { trust: 'trusted' })).rejects.toMatchObject({ code: 'connector_failed' });
    expect(loader.getPackage('fixture-swap')?.version).toBe('1.0.0');
    expect(loader.connectors.kinds()).toEqual(['alpha', 'beta']);
    await expect(loader.connectors.resolveBySource('b').read('b://')).resolves.toMatchObject({ text: 'beta v1' });
  });

  it('swapping a package that is not loaded loads it', async () => {
    const loader = new PackageLoader();
    const result = await loader.swapPackage(fixture('swap-v2'), { trust: 'trusted' });
    expect(result).toMatchObject({ added: ['alpha', 'gamma'], removed: [], kept: [], rebound: [] });
  });

  it('unloadPackage removes every kind and reports the orphaned sources; an unknown id is not_found', async () => {
    const loader = await bootWithV1();
    await expect(loader.unloadPackage('fixture-swap')).resolves.toEqual({ packageId: 'fixture-swap', kinds: ['alpha', 'beta'], orphaned: ['a', 'b'] });
    expect(loader.listPackages()).toEqual([]);
    await expect(loader.unloadPackage('fixture-swap')).rejects.toMatchObject({ code: 'not_found' });
  });
});
