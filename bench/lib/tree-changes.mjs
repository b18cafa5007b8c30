// The "10 changes" of the incremental-sync benchmark, made to a `manyTextFiles` tree and undone
// again: 5 files modified, 3 added, 2 deleted, spread over the tree. Undoing writes the original
// bytes back with the original modification time, so the tree is exactly as built and a catalog
// crawled before the changes is up to date with it again.
import { rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { textFileAt } from './fixtures.mjs';
import { documentPath, documentText } from './text-corpus.mjs';

/** Which files change in a tree of `count` documents (count ≥ 1,000). */
export function changePlan(count) {
  const at = (fraction, offset) => Math.floor(count * fraction) + offset;
  const modified = [0, 0.2, 0.4, 0.6, 0.8].map((fraction) => at(fraction, 11));
  const deleted = [0.1, 0.7].map((fraction) => at(fraction, 77));
  const added = [0.3, 0.5, 0.9].map((fraction, k) => `${dirname(documentPath(at(fraction, 50)))}/added-${k}.txt`);
  return { modified, deleted, added };
}

/** Puts the tree back as `manyTextFiles(count)` built it (a no-op when it already is). */
export async function restoreTree(dir, count) {
  const { modified, deleted, added } = changePlan(count);
  await Promise.all(
    [...modified, ...deleted].map(async (index) => {
      const file = textFileAt(index);
      const path = join(dir, file.path);
      await writeFile(path, file.text);
      await utimes(path, file.mtime, file.mtime);
    }),
  );
  await Promise.all(added.map((path) => rm(join(dir, path), { force: true })));
}

/**
 * Makes the 10 changes (the tree must be as built) and returns them as the change events the fs
 * host's watch reports for them (`put` for a modified or added file, `delete` for a removed one),
 * without entries, so whoever applies them stats each path.
 */
export async function applyChanges(dir, count) {
  const { modified, deleted, added } = changePlan(count);
  const events = [];
  for (const index of modified) {
    const file = textFileAt(index);
    await writeFile(join(dir, file.path), `${file.text}\nedited by the catalog benchmark\n`);
    events.push({ type: 'put', path: file.path });
  }
  for (const [k, path] of added.entries()) {
    await writeFile(join(dir, path), documentText(count + k, 2048));
    events.push({ type: 'put', path });
  }
  for (const index of deleted) {
    const path = documentPath(index);
    await rm(join(dir, path));
    events.push({ type: 'delete', path });
  }
  return events;
}

