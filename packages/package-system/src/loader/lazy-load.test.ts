import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorError } from '../contracts/index.js';
import { PackageLoader } from './package-loader.js';
import { copyFixture, fixtureLog, resetFixtureLog, tempDir } from './__fixtures__/support.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  resetFixtureLog();
  dir = await tempDir();
});
afterEach(() => dir.remove());

/** A copy of notes-pkg whose connector module has bytes of its own, so importing it evaluates it afresh. */
async function freshNotes(name = 'notes'): Promise<string> {
  const root = await copyFixture('notes-pkg', join(dir.path, name));
  await appendFile(join(root, 'dist', 'notes-connector.js'), `// ${root}\n`);
  return root;
}

const bind = (loader: PackageLoader, source: string) => loader.bindSource({ source, kind: 'notes', config: { folder: source }, scope: 'project' });

describe('a lazy load', () => {
  it('registers the kinds without importing any code; the first binding imports it and runs init(ctx) once, before the factory', async () => {
    const root = await freshNotes();
    const log = fixtureLog();
    const imported = log.imports['notes-connector'] ?? 0;
    const loader = new PackageLoader();
    await loader.loadPackage(root, { trust: 'first-party', lazy: true });
    expect(loader.sourceKinds.get('notes')).toMatchObject({ kind: 'notes', providerPackageId: 'fixture-notes' });
    expect(loader.connectors.hasKind('notes')).toBe(true);
    expect(log.imports['notes-connector'] ?? 0).toBe(imported);
    expect(log.events).toEqual([]);

    const [a, b] = await Promise.all([bind(loader, 'a'), bind(loader, 'b')]);
    await bind(loader, 'c');
    expect(log.imports['notes-connector']).toBe(imported + 1);
    expect(log.events).toEqual(['init:fixture-notes', 'factory:a', 'factory:b', 'factory:c']);
    expect(log.inits.map((context) => context.packageId)).toEqual(['fixture-notes']);
    expect(await a.read('a://hello.txt')).toMatchObject({ text: 'hello from a' });
    expect(b.source).toBe('b');
  });

  it('still refuses at load, before any code runs, what the manifest and the trust refuse: a module path outside the package, an untrusted package', async () => {
    const log = fixtureLog();
    const imported = log.imports['notes-connector'] ?? 0;
    const root = await freshNotes();
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { neuralis: { connectors: { connectorFactory: string }[] } };
    manifest.neuralis.connectors[0]!.connectorFactory = '../outside.js#createNotesConnector';
    await writeFile(join(root, 'package.json'), JSON.stringify(manifest));
    const escaped = await new PackageLoader().loadPackage(root, { trust: 'first-party', lazy: true }).catch((error: unknown) => error as ConnectorError);
    expect(escaped).toMatchObject({ code: 'manifest_invalid' });

    const untrusted = await new PackageLoader().loadPackage(await freshNotes('untrusted'), { trust: 'untrusted', lazy: true }).catch((error: unknown) => error as ConnectorError);
    expect(untrusted).toMatchObject({ code: 'manifest_invalid' });
    expect(log.imports['notes-connector'] ?? 0).toBe(imported);
    expect(log.events).toEqual([]);
  });

  it('a module that fails to import fails its bindings with connector_failed, not the load', async () => {
    const root = await freshNotes();
    await writeFile(join(root, 'dist', 'notes-connector.js'), `throw new Error('broken at import ${root}');\n`);
    const loader = new PackageLoader();
    await loader.loadPackage(root, { trust: 'first-party', lazy: true });
    for (const source of ['a', 'b']) {
      const error = (await bind(loader, source).catch((reason: unknown) => reason)) as ConnectorError;
      expect(error.code).toBe('connector_failed');
    }
    expect(fixtureLog().events).toEqual([]);
  });
});

