import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManifestValidationError } from '../contracts/index.js';
import { factoryExport, importPackageModule, parseFactoryReference, resolvePackageModule } from './factory-import.js';
import { PackageLoader } from './package-loader.js';
import { copyFixture, tempDir } from './__fixtures__/support.js';

const OUTSIDE_MODULE = `globalThis.__outsideImported = true;\nexport function x() { throw new Error('never'); }\nexport const createNotesConnector = x;\n`;

function outsideImported(): unknown {
  return (globalThis as { __outsideImported?: unknown }).__outsideImported;
}

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
  await writeFile(join(dir.path, 'package.json'), '{ "type": "module" }\n');
  delete (globalThis as { __outsideImported?: unknown }).__outsideImported;
});
afterEach(() => dir.remove());

describe('factory module references', () => {
  it('"connectorFactory is a modulePath#exportName reference": malformed references are manifest_invalid at the connector\'s field', () => {
    for (const reference of ['./dist/x.js', './dist/x.js#a#b', '#x', './dist/x.js#1x']) {
      expect(() => parseFactoryReference(reference, 'connectors[2].connectorFactory')).toThrow(
        expect.objectContaining({ code: 'manifest_invalid', issues: [expect.objectContaining({ path: 'connectors[2].connectorFactory' })] }),
      );
    }
    expect(parseFactoryReference('./dist/x.js#createX', 'where')).toEqual({ modulePath: './dist/x.js', exportName: 'createX' });
  });

  it('attack: a module path `../../outside.js#x` is refused before anything is imported', async () => {
    const root = join(dir.path, 'nest', 'escape-pkg');
    await copyFixture('escape-pkg', root);
    // ../../outside.js from the package root lands here: the file exists, so only containment can stop it.
    await writeFile(join(dir.path, 'outside.js'), OUTSIDE_MODULE);
    const loader = new PackageLoader();
    const error = await loader.loadPackage(root, { trust: 'first-party' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ManifestValidationError);
    expect((error as ManifestValidationError).issues.map((issue) => issue.path)).toContain('connectors[0].connectorFactory');
    expect(outsideImported()).toBeUndefined();
    expect(loader.sourceKinds.has('escape')).toBe(false);
  });

  it('the runtime containment check refuses `../../outside.js` too, with a message naming the field and no path', async () => {
    await writeFile(join(dir.path, 'outside.js'), OUTSIDE_MODULE);
    const root = join(dir.path, 'a', 'pkg');
    await mkdir(root, { recursive: true });
    const error = await resolvePackageModule(root, '../../outside.js', 'connectors[0].connectorFactory').catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: 'containment_violation' });
    expect((error as Error).message).toContain('connectors[0].connectorFactory');
    expect((error as Error).message).not.toContain(dir.path);
  });

  it('attack: a symlink planted in the package that leads outside is refused (containment_violation) and never imported', async () => {
    const root = await copyFixture('notes-pkg', join(dir.path, 'notes-pkg'));
    await writeFile(join(dir.path, 'outside.js'), OUTSIDE_MODULE);
    await rm(join(root, 'dist', 'notes-connector.js'));
    await symlink(join(dir.path, 'outside.js'), join(root, 'dist', 'notes-connector.js'));
    const loader = new PackageLoader();
    await expect(loader.loadPackage(root, { trust: 'trusted' })).rejects.toMatchObject({ code: 'containment_violation' });
    expect(outsideImported()).toBeUndefined();
  });

  it('a module path naming no file is manifest_invalid at that field', async () => {
    await expect(resolvePackageModule(dir.path, './dist/missing.js', 'main')).rejects.toMatchObject({
      code: 'manifest_invalid',
      issues: [expect.objectContaining({ path: 'main' })],
    });
  });

  it('a factory export that is not a function is manifest_invalid naming the export', async () => {
    const file = join(dir.path, 'module.js');
    await writeFile(file, 'export const createThing = 42;\n');
    const module = await importPackageModule(file, 'connectors[0].connectorFactory');
    expect(() => factoryExport(module, { modulePath: './module.js', exportName: 'createThing' }, 'connectors[0].connectorFactory')).toThrow(
      expect.objectContaining({ code: 'manifest_invalid', message: expect.stringContaining('"createThing"') }),
    );
  });

  it('a module that throws while it is evaluated is connector_failed with the cause kept', async () => {
    const file = join(dir.path, 'broken.js');
    await writeFile(file, "throw new Error('evaluation failed');\n");
    const error = await importPackageModule(file, 'main').catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: 'connector_failed' });
    expect(((error as Error).cause as Error).message).toBe('evaluation failed');
    expect((error as Error).message).not.toContain(dir.path);
  });

  it('"A project _packages/ drop is re-loaded on scan and on rescan": the import is keyed by the file\'s bytes, so unchanged code is reused and changed code re-imported', async () => {
    const file = join(dir.path, 'revision.js');
    await writeFile(file, 'export const revision = 1;\n');
    const first = await importPackageModule(file, 'main');
    const again = await importPackageModule(file, 'main');
    expect(again.namespace).toBe(first.namespace);
    await writeFile(file, (await readFile(file, 'utf8')).replace('1', '2'));
    const changed = await importPackageModule(file, 'main');
    expect(changed.digest).not.toBe(first.digest);
    expect(changed.namespace['revision']).toBe(2);
    expect(first.namespace['revision']).toBe(1);
  });
});
