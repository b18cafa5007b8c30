// Module hooks that record every file the process loads, one URL a line, in the file named by
// INSEAM_IMPORT_TRACE: the lazy-loading test asserts on that list. Register these after the
// TypeScript hooks so every module is seen, TypeScript or not. CommonJS files a CommonJS package
// require()s internally are not seen; the package's entry file is, which is what the test needs.
import { appendFileSync } from 'node:fs';

const file = process.env.INSEAM_IMPORT_TRACE;

export async function load(url, context, nextLoad) {
  if (file !== undefined && url.startsWith('file:')) appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
