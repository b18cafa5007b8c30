// The "10 changes" of the incremental-sync benchmark, made to a `manyTextFiles` tree and undone
// again: 3 files modified, 2 added, 3 deleted and 2 renamed into another folder (a rename keeps
// the mtime, so only a diff of the names finds it), spread over the tree. Undoing writes the
// original bytes back with the original modification time, so the tree is exactly as built and a
// catalog crawled before the changes is up to date with it again.
import { rename, rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { textFileAt } from './fixtures.mjs';
import { documentPath, documentText } from './text-corpus.mjs';

/** Which files change in a tree of `count` documents (count ≥ 1,000). */
export function changePlan(count) {
  const at = (fraction, offset) => Math.floor(count * fraction) + offset;
  const modified = [0, 0.4, 0.8].map((fraction) => at(fraction, 11));
  const deleted = [0.1, 0.6, 0.7].map((fraction) => at(fraction, 77));
  const added = [0.3, 0.9].map((fraction, k) => `${dirname(documentPath(at(fraction, 50)))}/added-${k}.txt`);
  // From early in the tree to late in it: the two names of a move lie far apart in path order.
  const renamed = [
    { index: at(0.2, 33), to: `${dirname(documentPath(at(0.85, 50)))}/renamed-0.txt` },
    { index: at(0.5, 33), to: `${dirname(documentPath(at(0.05, 50)))}/renamed-1.txt` },
  ];
  return { modified, deleted, added, renamed };
}

/** Puts the tree back as `manyTextFiles(count)` built it (a no-op when it already is). */
export async function restoreTree(dir, count) {
  const { modified, deleted, added, renamed } = changePlan(count);
  await Promise.all([...added, ...renamed.map((move) => move.to)].map((path) => rm(join(dir, path), { force: true })));
  await Promise.all(
    [...modified, ...deleted, ...renamed.map((move) => move.index)].map(async (index) => {
      const file = textFileAt(index);
      const path = join(dir, file.path);
      await writeFile(path, file.text);
      await utimes(path, file.mtime, file.mtime);
    }),
  );
}

/**
 * Makes the 10 changes (the tree must be as built) and returns them as the change events the fs
 * host's watch reports for them (`put` for a modified or added file, `delete` for a removed one, a
 * `delete` and a `put` for a renamed one), without entries, so whoever applies them stats each path.
 */
export async function applyChanges(dir, count) {
  const { modified, deleted, added, renamed } = changePlan(count);
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
  for (const { index, to } of renamed) {
    const from = documentPath(index);
    await rename(join(dir, from), join(dir, to));
    events.push({ type: 'delete', path: from }, { type: 'put', path: to });
  }
  return events;
}
