// Prints where a Node CPU profile spent its time: the functions with the most self time, and the
// share of time under each of our source files, so "where does the time go" has a quick answer.
//
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/fs-list.mjs --case host <dir>
//   node bench/lib/profile-summary.mjs /tmp/prof/<file>.cpuprofile [top]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: node bench/lib/profile-summary.mjs <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));

// Sample time per node: timeDeltas[i] is the time before samples[i].
const selfUs = new Map();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((sum, us) => sum + us, 0);

const byFunction = new Map();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (us === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url === '' ? '' : ` ${url.replace(/^file:\/\/.*?\/(?=(connectors|packages|bench|node_modules)\/)/, '')}:${lineNumber + 1}`;
  const key = `${functionName || '(anonymous)'}${where}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
}

const percent = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms\n\nself time, top ${top}:`);
for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${percent(us)}  ${(us / 1000).toFixed(1).padStart(7)} ms  ${key}`);
}
