// What a child case measures beyond time, memory and one count (a crawl's counters, a database's
// size, per-query latencies) travels back in a side file: one JSON line a run, appended, since
// the runner reads only the last line of a case's stdout. The parent empties the file before the
// warm-up and, after the rounds, drops the warm-up's line.
import { appendFileSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** In a child case: records this run's extras. */
export function recordExtras(file, extras) {
  appendFileSync(file, `${JSON.stringify(extras)}\n`);
}

/** In the parent, before a case's runs: an empty side file. */
export async function resetExtras(file) {
  await mkdir(dirname(file), { recursive: true });
  await rm(file, { force: true });
}

/** In the parent, after the runs: the timed rounds' extras (the warm-up's, the first line, left out). */
export async function roundExtras(file) {
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  return lines.slice(1).map((line) => JSON.parse(line));
}

/** The `q` quantile (0–1) of `values`, nearest rank. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
