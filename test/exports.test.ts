import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = new URL('..', import.meta.url).pathname;

interface WorkspacePackage {
  readonly dir: string;
  readonly json: { name: string; exports?: Record<string, Record<string, string>> };
}

function workspaces(): WorkspacePackage[] {
  return ['packages', 'connectors'].flatMap((group) => {
    const base = join(repo, group);
    if (!existsSync(base)) return [];
    return readdirSync(base)
      .map((name) => join(base, name))
      .filter((dir) => existsSync(join(dir, 'package.json')))
      .map((dir) => ({ dir, json: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }));
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(name) ? [path] : [];
  });
}

describe('public surfaces', () => {
  it('@neuralis/package-system exposes the fixed subpaths ./contracts, ./paths and ./testing', () => {
    const pkg = workspaces().find((w) => w.json.name === '@neuralis/package-system');
    expect(pkg).toBeDefined();
    expect(Object.keys(pkg!.json.exports ?? {})).toEqual(expect.arrayContaining(['./contracts', './paths', './testing']));
  });

  it('every export map entry is an explicit subpath whose source, types and default targets exist or will be built', () => {
    for (const { dir, json } of workspaces()) {
      for (const [subpath, targets] of Object.entries(json.exports ?? {})) {
        expect(subpath, `${json.name} ${subpath}`).not.toContain('*');
        expect(Object.keys(targets), `${json.name} ${subpath}`).toEqual(['inseam-source', 'types', 'default']);
        expect(existsSync(join(dir, targets['inseam-source']!)), `${json.name} ${subpath} source`).toBe(true);
        expect(targets['default']).toBe(targets['inseam-source']!.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js'));
      }
    }
  });

  it('no module re-exports with `export *` (named exports only)', () => {
    const offenders = workspaces()
      .flatMap(({ dir }) => (existsSync(join(dir, 'src')) ? sourceFiles(join(dir, 'src')) : []))
      .filter((file) => /^\s*export\s+\*/m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(repo, file));
    expect(offenders).toEqual([]);
  });
});
