// json-body: what the strict JSON body parser (packages/inseam/src/http/json-body.ts — JSON.parse,
// then one walk refusing repeated and prototype keys) costs over JSON.parse alone, on the bodies
// the server takes: a small API body, an MCP write of 16 MiB of base64, 1 MiB of keys, 1 MiB of
// numbers.
//
//   node bench/json-body.mjs [--rounds N]
//
// In-process (a parse is microseconds to milliseconds; a child process per case would measure
// Node's start): each round times every case's JSON.parse and parseJsonBody in turn, A B A B,
// and the table shows medians.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { ensureBuiltEntries, machineFacts, median, repoRoot, roundsFromArgv, saveResults } from './lib/measure.mjs';

const MiB = 1 << 20;

function bodies() {
  const keys = {};
  for (let index = 0, length = 0; length < MiB; index += 1) {
    keys[`field_${index}`] = { value: index, label: `entry ${index}` };
    length += JSON.stringify(keys[`field_${index}`]).length + `field_${index}`.length + 4;
  }
  const numbers = [];
  for (let length = 0; length < MiB; length += String(numbers[numbers.length - 1]).length + 1) numbers.push(Math.round(Math.random() * 1e9));
  return {
    'POST /v1/hosts body': JSON.stringify({ slug: 'notes', kind: 'fs', config: { root: '/srv/notes' }, label: 'Notes', sync: { trigger: 'auto', interval: 'PT15M' }, permissions: { default: { read: true, write: false, exec: false } } }),
    'MCP write, 16 MiB base64': JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'write', arguments: { address: 'inseam://home/files/big.bin', contentBase64: randomBytes(12 * MiB).toString('base64') } } }),
    '1 MiB of keys': JSON.stringify(keys),
    '1 MiB of numbers': JSON.stringify(numbers),
  };
}

/** Median ms of `fn` over enough repetitions to pass 20 ms per sample. */
function sample(fn) {
  let repeat = 1;
  for (;;) {
    const started = performance.now();
    for (let index = 0; index < repeat; index += 1) fn();
    const ms = performance.now() - started;
    if (ms >= 20) return ms / repeat;
    repeat *= 4;
  }
}

async function main(argv) {
  const rounds = roundsFromArgv(argv, 15);
  ensureBuiltEntries('packages/inseam', ['http/json-body.js']);
  const { parseJsonBody } = await import(pathToFileURL(join(repoRoot, 'packages/inseam/dist/http/json-body.js')).href);
  const cases = bodies();
  const times = Object.fromEntries(Object.keys(cases).map((name) => [name, { parse: [], strict: [] }]));
  for (let round = 0; round <= rounds; round += 1) {
    for (const [name, text] of Object.entries(cases)) {
      const parse = sample(() => JSON.parse(text));
      const strict = sample(() => parseJsonBody(text));
      // Round 0 warms the JIT and is not counted.
      if (round > 0) {
        times[name].parse.push(parse);
        times[name].strict.push(strict);
      }
    }
  }
  const rows = Object.entries(cases).map(([name, text]) => {
    const parse = median(times[name].parse);
    const strict = median(times[name].strict);
    return { name, bytes: Buffer.byteLength(text), parseMs: parse, strictMs: strict, extraMs: strict - parse, ratio: strict / parse };
  });
  const machine = machineFacts();
  process.stdout.write(`json-body: ${rounds} rounds, median per parse (${machine.cpu}, Node ${machine.node})\n\n`);
  const lines = ['| body | bytes | JSON.parse | parseJsonBody | extra | ratio |', '|---|---:|---:|---:|---:|---:|'];
  for (const row of rows) lines.push(`| ${row.name} | ${row.bytes.toLocaleString('en-US')} | ${row.parseMs.toFixed(3)} ms | ${row.strictMs.toFixed(3)} ms | ${row.extraMs.toFixed(3)} ms | ${row.ratio.toFixed(2)}× |`);
  process.stdout.write(`${lines.join('\n')}\n`);
  const file = await saveResults('json-body', { machine, rounds, rows });
  process.stdout.write(`\nRaw results: ${file}\n`);
}

await main(process.argv.slice(2));
