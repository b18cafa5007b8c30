import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const references = (JSON.parse(await readFile(join(root, 'tsconfig.json'), 'utf8')) as { references: { path: string }[] }).references;
const WORKSPACES = references.map((reference) => reference.path);

async function modulesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && (entry.name.endsWith('.js') || entry.name.endsWith('.js.map'))) found.push(relative(dir, join(entry.parentPath, entry.name)));
  }
  return found.sort();
}

// npm start emits the runtime with scripts/build-runtime.mjs instead of tsc -b; npm test's tsc -b
// has just written dist/, so every module the fast build writes must equal tsc's, byte for byte.
describe('scripts/build-runtime.mjs', () => {
  let out: string | undefined;
  afterAll(async () => {
    if (out !== undefined) await rm(out, { recursive: true, force: true });
  });

  it('writes the same JavaScript and source maps as tsc -b, for every module of every workspace', async () => {
    out = await mkdtemp(join(tmpdir(), 'inseam-build-runtime-'));
    await run(process.execPath, [join(root, 'scripts', 'build-runtime.mjs'), '--out', out]);
    for (const workspace of WORKSPACES) {
      const ours = await modulesUnder(join(out, workspace, 'dist'));
      const tsc = await modulesUnder(join(root, workspace, 'dist'));
      expect(ours, workspace).toEqual(tsc);
      expect(ours.length, workspace).toBeGreaterThan(0);
      for (const file of ours) {
        expect(await readFile(join(out, workspace, 'dist', file), 'utf8'), `${workspace}/dist/${file}`).toBe(await readFile(join(root, workspace, 'dist', file), 'utf8'));
      }
    }
  }, 120_000);

  it('writes nothing when every output is newer than its source', async () => {
    const { stderr } = await run(process.execPath, [join(root, 'scripts', 'build-runtime.mjs'), '--out', out!]);
    expect(stderr).toMatch(/^build-runtime: 0 of [0-9]+ modules written/u);
  }, 60_000);
});
