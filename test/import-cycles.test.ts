import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

// Static imports and re-exports, type-only ones included: a cycle of types still ties two
// modules together for whoever changes one. Dynamic import() is how the CLI loads commands
// lazily and is left out on purpose.
const STATIC_IMPORT = /^\s*(?:import|export)\s[^'";]*?\bfrom\s*'(\.{1,2}\/[^']+)'|^\s*import\s*'(\.{1,2}\/[^']+)'/gmu;

/** Each module's relative imports, as absolute .ts paths of modules in `sources`. */
function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const targets: string[] = [];
    for (const match of text.matchAll(STATIC_IMPORT)) {
      const target = resolve(dirname(file), match[1] ?? match[2]!).replace(/\.js$/u, '.ts');
      if (sources.has(target)) targets.push(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan), each sorted. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

async function workspaceSources(): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  for (const group of ['packages', 'connectors']) {
    for (const workspace of await readdir(join(root, group))) {
      const src = join(root, group, workspace, 'src');
      let entries;
      try {
        entries = await readdir(src, { withFileTypes: true, recursive: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const file = join(entry.parentPath, entry.name);
        if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts') || file.includes('__fixtures__')) continue;
        sources.set(file, await readFile(file, 'utf8'));
      }
    }
  }
  return sources;
}

describe('import cycles', () => {
  it('no module of any workspace imports itself through others (type-only imports included)', async () => {
    const sources = await workspaceSources();
    expect(sources.size).toBeGreaterThan(300);
    const cycles = cyclesOf(importGraph(sources)).map((cycle) => cycle.map((file) => relative(root, file)));
    expect(cycles).toEqual([]);
  });

  it('the check finds a cycle through a type-only import, a re-export and a multi-line import', () => {
    const sources = new Map([
      ['/w/a.ts', "import type { B } from './b.js';\nexport const a = 1;\n"],
      ['/w/b.ts', "export { c } from './sub/c.js';\nexport type B = string;\n"],
      ['/w/sub/c.ts', "import {\n  a,\n} from '../a.js';\nexport const c = a;\n"],
      ['/w/d.ts', "import { a } from './a.js';\nconst lazy = () => import('./d.js');\n"],
    ]);
    expect(cyclesOf(importGraph(sources))).toEqual([['/w/a.ts', '/w/b.ts', '/w/sub/c.ts']]);
  });
});
