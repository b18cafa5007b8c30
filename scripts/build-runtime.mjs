#!/usr/bin/env node
// Emits every workspace's dist/ JavaScript without type-checking, for `npm start` on a fresh
// clone: `tsc -b` spends about two minutes checking types before it writes a file, while each
// module's JavaScript depends only on its own source (the base config sets isolatedModules and
// verbatimModuleSyntax), so TypeScript's single-file transpiler writes the same output in
// seconds. Type-checking stays in `npm test` (and `npm run build`), which runs the full `tsc -b`.
//
// The projects, their files and their options are read from the root tsconfig.json's references
// exactly as tsc reads them. A file is written only when its source is newer than its output,
// so a second start costs a few milliseconds.
//
//   node scripts/build-runtime.mjs [--out <dir>]   (--out: write the tree under <dir> instead,
//                                                   as the test comparing it with tsc's does)
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const outRoot = outFlag === -1 ? root : resolve(process.argv[outFlag + 1] ?? '.');

function fail(message) {
  process.stderr.write(`build-runtime: ${message}\n`);
  process.exit(1);
}

function parsedConfig(path) {
  const read = ts.readConfigFile(path, ts.sys.readFile);
  if (read.error !== undefined) fail(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(path), undefined, path);
  if (parsed.errors.length > 0) fail(parsed.errors.map((error) => ts.flattenDiagnosticMessageText(error.messageText, '\n')).join('\n'));
  return parsed;
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** Writes one module's JavaScript and source map beside where tsc would; false when it was current. */
function emit(source, options) {
  const out = join(outRoot, relative(root, options.outDir), relative(options.rootDir, source)).replace(/\.ts$/u, '.js');
  if (mtimeOf(out) >= mtimeOf(source)) return false;
  // The single-file transpiler cannot look up package.json's "type", so under NodeNext it would
  // write CommonJS; every workspace is an ES module package (checked below), which ES2022 emits.
  const compilerOptions = { ...options, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, declaration: false, declarationMap: false, composite: false, noEmit: false };
  const result = ts.transpileModule(readFileSync(source, 'utf8'), { compilerOptions, fileName: source, reportDiagnostics: true });
  const syntax = result.diagnostics?.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error) ?? [];
  if (syntax.length > 0) fail(`${relative(root, source)}: ${ts.flattenDiagnosticMessageText(syntax[0].messageText, '\n')}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, result.outputText);
  if (result.sourceMapText !== undefined) {
    const map = JSON.parse(result.sourceMapText);
    map.file = out.slice(dirname(out).length + 1);
    map.sources = [relative(join(root, relative(outRoot, dirname(out))), source)];
    writeFileSync(`${out}.map`, JSON.stringify(map));
  }
  return true;
}

const started = performance.now();
let written = 0;
let files = 0;
for (const reference of parsedConfig(join(root, 'tsconfig.json')).projectReferences ?? []) {
  const project = parsedConfig(ts.resolveProjectReferencePath(reference));
  if (project.options.outDir === undefined || project.options.rootDir === undefined) fail(`${relative(root, reference.path)} sets no rootDir and outDir`);
  const manifest = JSON.parse(readFileSync(join(reference.path, 'package.json'), 'utf8'));
  if (manifest.type !== 'module') fail(`${relative(root, reference.path)}/package.json is not "type": "module"; this build writes ES modules only`);
  for (const source of project.fileNames) {
    if (!source.endsWith('.ts') || source.endsWith('.d.ts')) continue;
    files += 1;
    if (emit(source, project.options)) written += 1;
  }
}
process.stderr.write(`build-runtime: ${written} of ${files} modules written in ${Math.round(performance.now() - started)} ms (types are checked by npm test)\n`);
