// Module hooks so a child process can run this package's TypeScript sources directly (the kill
// test forks crawlers from src/). Run node with `--conditions=inseam-source` so workspace packages
// resolve to their sources too. Transpiled modules are cached by content hash in the temp
// directory, so the twenty-odd children of one test run do not each transpile the whole tree.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cache = join(tmpdir(), 'inseam-ts-hooks-cache');
let typescript;

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    // Sources import each other as './x.js'; the file on disk is './x.ts'.
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const cached = join(cache, `${createHash('sha256').update(path).update('\0').update(source).digest('hex')}.js`);
  try {
    return { format: 'module', source: await readFile(cached, 'utf8'), shortCircuit: true };
  } catch {
    typescript ??= (await import('typescript')).default;
    const { outputText } = typescript.transpileModule(source, {
      fileName: path,
      compilerOptions: { module: typescript.ModuleKind.ESNext, target: typescript.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: false },
    });
    try {
      await mkdir(cache, { recursive: true });
      const partial = `${cached}.${process.pid}.partial`;
      await writeFile(partial, outputText);
      await rename(partial, cached);
    } catch {
      // A cache another user owns (a test running a command as "nobody") is only read.
    }
    return { format: 'module', source: outputText, shortCircuit: true };
  }
}
