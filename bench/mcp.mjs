// mcp: small-file reads and directory listings over MCP stdio — `inseam mcp` against the
// reference server `@modelcontextprotocol/server-filesystem`, on the same folder, both driven by
// the same SDK client in one run.
//
//   node bench/mcp.mjs [--rounds N] [--files N] [--big N] [--large MiB] [--case TEXT] [--profile DIR]
//
// `--case TEXT` runs only the cases whose name contains TEXT; `--profile DIR` starts `inseam mcp`
// under `node --cpu-prof` and writes its profile into DIR when the session ends (read it with
// `node bench/lib/profile-summary.mjs`).
//
// Cases, each a timed burst of tool calls on one warm session:
//   read 1 KiB ×N       every small file once, one call at a time (inseam `read`, reference `read_text_file`)
//   read 1 KiB ×N, 8 in flight   the same with 8 calls outstanding
//   list N entries      the folder of N small files, names and types only (inseam `list` with
//                       detail "names", one page; reference `list_directory`)
//   list M entries      a folder of M files (inseam in pages with the cursor: 5,000 names or 1,000 full entries; the reference one reply)
//   … with sizes        the same listings with size and time: inseam's default `list` against the
//                       reference's `list_directory_with_sizes`
//   read L MiB          one large text file whole (inseam in pages of 4 MiB, continuing with nextOffset;
//                       the reference in one reply, which carries the text twice)
//   read 10 at a time   the small files, 10 paths a call (inseam `read` with `addresses`,
//                       reference `read_multiple_files`)
//   tree                a nested folder (5 × 5 × 20 files), 3 levels (inseam `tree`, reference
//                       `directory_tree`, which has no depth bound and goes all the way)
//   edit                one exact-text replacement in a 1 KiB file ×100, each server on a file of its
//                       own (inseam `edit`, reference `edit_file`; both answer a diff)
//   move                a file renamed there and back ×100, each server on a file of its own
//                       (inseam `move`, reference `move_file`)
// Rounds interleave the two servers (inseam, reference, inseam, …) and the median counts.
// Besides wall time, each round reads the server process's CPU time (user + system, from
// /proc/<pid>/stat, in 10 ms ticks): on a shared machine wall time moves with other work, the
// server's own CPU per call much less, and it leaves out the client's share, which both pay.
// Reply bytes are the JSON-RPC result as the client received it.
// The small-read cases also time a third server, the SDK floor (bench/lib/mcp-floor-server.mjs):
// the SDK's low-level Server answering a fixed reply of the same size with no file work, the
// least any SDK-based stdio server can take per call.
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchRoot } from './lib/fixtures.mjs';
import { busyWarning, ensureBuiltEntries, machineFacts, median, repoRoot, roundsFromArgv, saveResults, wholeNumberOption } from './lib/measure.mjs';

const argv = process.argv.slice(2);
const rounds = roundsFromArgv(argv, 5);
const fileCount = wholeNumberOption(argv, '--files', 1000);
const bigCount = wholeNumberOption(argv, '--big', 5000);
const largeMiB = wholeNumberOption(argv, '--large', 16);
const PAGE = 4 * 1024 * 1024;
const CONCURRENCY = 8;
const only = stringOption(argv, '--case');
const profileDir = stringOption(argv, '--profile');

function stringOption(args, flag) {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value.`);
  return value;
}

/** Deterministic text of about 1 KiB: line-broken words, so both servers see ordinary text. */
function smallText(index) {
  const words = [];
  for (let word = 0; words.join(' ').length < 1000; word += 1) words.push(`w${(index * 7919 + word * 104729) % 100000}`);
  return `${words.join(' ').replace(/(\S+ ){12}/g, (line) => `${line.trim()}\n`)}\n`;
}

async function buildFixture(root) {
  await rm(root, { recursive: true, force: true });
  await mkdir(join(root, 'small'), { recursive: true });
  await mkdir(join(root, 'many'), { recursive: true });
  const writes = [];
  for (let index = 0; index < fileCount; index += 1) writes.push(writeFile(join(root, 'small', `note-${String(index).padStart(5, '0')}.txt`), smallText(index)));
  for (let index = 0; index < bigCount; index += 1) writes.push(writeFile(join(root, 'many', `f-${String(index).padStart(6, '0')}.txt`), 'x'));
  for (let a = 0; a < 5; a += 1) {
    for (let b = 0; b < 5; b += 1) {
      await mkdir(join(root, 'nested', `a${a}`, `b${b}`), { recursive: true });
      for (let f = 0; f < 20; f += 1) writes.push(writeFile(join(root, 'nested', `a${a}`, `b${b}`, `f${f}.txt`), 'x'));
    }
  }
  await mkdir(join(root, 'changes'), { recursive: true });
  for (const server of ['inseam', 'reference']) writes.push(writeFile(join(root, 'changes', `${server}-edit.txt`), smallText(1).replace(/^\S+/, 'marker-0')), writeFile(join(root, 'changes', `${server}-move-0.txt`), 'moved\n'));
  const line = `${'large text line '.repeat(6)}\n`;
  writes.push(writeFile(join(root, 'large.txt'), line.repeat(Math.ceil((largeMiB * 1024 * 1024) / line.length))));
  await Promise.all(writes);
}

async function inseamData(dataDir, folder) {
  const { openPlatform } = await import('inseam/platform');
  await rm(dataDir, { recursive: true, force: true });
  const platform = await openPlatform({ dataDir, env: {} });
  try {
    await platform.networks.init('bench');
    // Writable for the edit and move cases; a person (`--user`) holds the tree's rights, no grant needed.
    await platform.networks.addHost({ network: 'bench', slug: 'files', kind: 'fs', config: { root: folder }, writable: true });
  } finally {
    await platform.close();
  }
}

async function connect(command, args, env = {}) {
  const client = new Client({ name: 'inseam-bench', version: '1.0.0' });
  // The reference answers a whole file twice in one message: lift the client's 10 MB line limit.
  const transport = new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'ignore', maxBufferSize: 1024 * 2 ** 20 });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

const TICK_MS = 10;

/** A process's CPU time so far (user + system), in ms; fields 14 and 15 of /proc/<pid>/stat, after the command's closing parenthesis. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** The reply's size as sent: the result's JSON. */
function bytesOf(result) {
  return Buffer.byteLength(JSON.stringify(result));
}

function check(result, what) {
  if (result.isError) throw new Error(`${what} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result;
}

/** The two servers' ways of doing each thing; each returns { items, bytes }. */
function drivers(folder) {
  const smallNames = Array.from({ length: fileCount }, (_, index) => `note-${String(index).padStart(5, '0')}.txt`);
  const servers = {
    inseam: {
      read: async (client, name) => bytesOf(check(await client.callTool({ name: 'read', arguments: { address: `files://small/${name}` } }), `read ${name}`)),
      whole: async (client, path) => {
        let offset = 0;
        let items = 0;
        let bytes = 0;
        for (;;) {
          const result = check(await client.callTool({ name: 'read', arguments: { address: `files://${path}`, offset, maxBytes: PAGE } }, undefined, { timeout: 600_000 }), `read ${path}`);
          items += Buffer.byteLength(result.content[0].text);
          bytes += bytesOf(result);
          if (result.structuredContent.done) return { items, bytes };
          offset = result.structuredContent.nextOffset;
        }
      },
      // Names only, as the reference's plain listing: `detail: 'names'` skips the stat per entry.
      list: (client, dir) => listPages(client, dir, { detail: 'names' }),
      listSized: (client, dir) => listPages(client, dir, {}),
      readMany: async (client, names) => bytesOf(check(await client.callTool({ name: 'read', arguments: { addresses: names.map((name) => `files://small/${name}`) } }), 'read several')),
      tree: async (client, dir) => {
        const result = check(await client.callTool({ name: 'tree', arguments: { address: `files://${dir}`, depth: 3 } }), `tree ${dir}`);
        return { items: result.structuredContent.entries, bytes: bytesOf(result) };
      },
      edit: async (client, from, to) =>
        bytesOf(check(await client.callTool({ name: 'edit', arguments: { address: 'files://changes/inseam-edit.txt', edits: [{ oldText: from, newText: to }] } }), 'edit')),
      move: async (client, from, to) => bytesOf(check(await client.callTool({ name: 'move', arguments: { from: `files://changes/inseam-${from}`, to: `files://changes/inseam-${to}` } }), 'move')),
    },
    floor: {
      read: async (client, name) => bytesOf(check(await client.callTool({ name: 'read', arguments: { address: `files://small/${name}` } }), `read ${name}`)),
    },
    reference: {
      read: async (client, name) => bytesOf(check(await client.callTool({ name: 'read_text_file', arguments: { path: join(folder, 'small', name) } }), `read ${name}`)),
      whole: async (client, path) => {
        const result = check(await client.callTool({ name: 'read_text_file', arguments: { path: join(folder, path) } }, undefined, { timeout: 600_000 }), `read ${path}`);
        return { items: Buffer.byteLength(result.content[0].text), bytes: bytesOf(result) };
      },
      // Names only: the reference's plain listing says less than inseam's (no size, mtime or etag).
      list: async (client, dir) => {
        const result = check(await client.callTool({ name: 'list_directory', arguments: { path: join(folder, dir) } }), `list ${dir}`);
        return { items: result.content[0].text.split('\n').filter((line) => line !== '').length, bytes: bytesOf(result) };
      },
      // With sizes and times: the reference's listing that carries what inseam's does.
      listSized: async (client, dir) => {
        const result = check(await client.callTool({ name: 'list_directory_with_sizes', arguments: { path: join(folder, dir) } }), `list ${dir}`);
        return { items: result.content[0].text.split('\n').filter((line) => /^\[(FILE|DIR)\]/.test(line)).length, bytes: bytesOf(result) };
      },
      readMany: async (client, names) => bytesOf(check(await client.callTool({ name: 'read_multiple_files', arguments: { paths: names.map((name) => join(folder, 'small', name)) } }), 'read several')),
      tree: async (client, dir) => {
        const result = check(await client.callTool({ name: 'directory_tree', arguments: { path: join(folder, dir) } }), `tree ${dir}`);
        return { items: countJsonTree(JSON.parse(result.content[0].text)), bytes: bytesOf(result) };
      },
      edit: async (client, from, to) =>
        bytesOf(check(await client.callTool({ name: 'edit_file', arguments: { path: join(folder, 'changes', 'reference-edit.txt'), edits: [{ oldText: from, newText: to }] } }), 'edit')),
      move: async (client, from, to) =>
        bytesOf(check(await client.callTool({ name: 'move_file', arguments: { source: join(folder, 'changes', `reference-${from}`), destination: join(folder, 'changes', `reference-${to}`) } }), 'move')),
    },
  };
  return { ...servers, smallNames };
}

/** An inseam listing to the end, page by page with the cursor. */
async function listPages(client, dir, options) {
  let cursor;
  let items = 0;
  let bytes = 0;
  do {
    const result = check(await client.callTool({ name: 'list', arguments: { address: `files://${dir}`, ...options, ...(cursor === undefined ? {} : { cursor }) } }), `list ${dir}`);
    items += (result.structuredContent.names ?? result.structuredContent.entries).length;
    bytes += bytesOf(result);
    cursor = result.structuredContent.cursor;
  } while (cursor !== undefined);
  return { items, bytes };
}

/** Entries in the reference's JSON tree. */
function countJsonTree(nodes) {
  return nodes.reduce((total, node) => total + 1 + (node.children === undefined ? 0 : countJsonTree(node.children)), 0);
}

async function readBatches(driver, client, names, size) {
  let bytes = 0;
  for (let start = 0; start < names.length; start += size) bytes += await driver.readMany(client, names.slice(start, start + size));
  return { items: names.length, bytes };
}

/** `count` edits, each turning marker-i into marker-(i+1), so every one finds its text exactly once. */
async function edits(driver, client, count, state) {
  let bytes = 0;
  for (let i = 0; i < count; i += 1, state.edit += 1) bytes += await driver.edit(client, `marker-${state.edit}`, `marker-${state.edit + 1}`);
  return { items: count, bytes };
}

async function moves(driver, client, count, state) {
  let bytes = 0;
  for (let i = 0; i < count; i += 1, state.move += 1) bytes += await driver.move(client, `move-${state.move}.txt`, `move-${state.move + 1}.txt`);
  return { items: count, bytes };
}

async function readSequential(driver, client, names) {
  let bytes = 0;
  for (const name of names) bytes += await driver.read(client, name);
  return { items: names.length, bytes };
}

async function readConcurrent(driver, client, names) {
  let next = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < names.length) {
      const got = await driver.read(client, names[next++]);
      bytes += got;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { items: names.length, bytes };
}

async function main() {
  ensureBuiltEntries('packages/inseam', ['cli/main.js', 'mcp/index.js', 'platform/index.js']);
  const warning = busyWarning();
  if (warning !== '') process.stderr.write(`${warning}\n`);
  const root = join(benchRoot, 'mcp');
  const folder = join(root, 'files');
  const dataDir = join(root, 'data');
  await buildFixture(folder);
  await inseamData(dataDir, folder);
  const { smallNames, ...servers } = drivers(folder);
  const servers_ = {
    inseam: await connect(process.execPath, [...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]), join(repoRoot, 'packages/inseam/bin/inseam.js'), 'mcp', '--data', dataDir, '--network', 'bench', '--user', 'bench']),
    reference: await connect(process.execPath, [join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), folder]),
    floor: await connect(process.execPath, [join(repoRoot, 'bench/lib/mcp-floor-server.mjs')]),
  };
  const clients = { inseam: servers_.inseam.client, reference: servers_.reference.client, floor: servers_.floor.client };
  const pids = { inseam: servers_.inseam.pid, reference: servers_.reference.pid, floor: servers_.floor.pid };
  const allCases = [
    { name: `read 1 KiB ×${fileCount}, one at a time`, unit: 'calls', floor: true, run: (driver, client) => readSequential(driver, client, smallNames) },
    { name: `read 1 KiB ×${fileCount}, ${CONCURRENCY} in flight`, unit: 'calls', floor: true, run: (driver, client) => readConcurrent(driver, client, smallNames) },
    { name: `list ${fileCount} entries ×20`, unit: 'entries', run: async (driver, client) => sum(await repeat(20, () => driver.list(client, 'small'))) },
    { name: `list ${bigCount} entries ×5`, unit: 'entries', run: async (driver, client) => sum(await repeat(5, () => driver.list(client, 'many'))) },
    { name: `list ${fileCount} entries with sizes ×20`, unit: 'entries', run: async (driver, client) => sum(await repeat(20, () => driver.listSized(client, 'small'))) },
    { name: `list ${bigCount} entries with sizes ×5`, unit: 'entries', run: async (driver, client) => sum(await repeat(5, () => driver.listSized(client, 'many'))) },
    { name: `read a ${largeMiB} MiB text file whole`, unit: 'bytes', run: (driver, client) => driver.whole(client, 'large.txt') },
    { name: `read 1 KiB ×${fileCount}, 10 paths a call`, unit: 'files', run: (driver, client) => readBatches(driver, client, smallNames, 10) },
    { name: 'tree of 5×5×20 files, 3 levels', unit: 'entries', run: (driver, client) => driver.tree(client, 'nested') },
    { name: 'edit one line of a 1 KiB file ×100', unit: 'calls', run: (driver, client, state) => edits(driver, client, 100, state) },
    { name: 'move a file ×100', unit: 'calls', run: (driver, client, state) => moves(driver, client, 100, state) },
  ];
  const cases = only === undefined ? allCases : allCases.filter((benchCase) => benchCase.name.includes(only));
  if (cases.length === 0) throw new Error(`No case's name contains "${only}".`);
  const results = [];
  // Where each server's edit and move cases have got to: the file's marker and name change each call.
  const state = { inseam: { edit: 0, move: 0 }, reference: { edit: 0, move: 0 } };
  try {
    for (const benchCase of cases) {
      const times = { inseam: [], reference: [], floor: [] };
      const cpu = { inseam: [], reference: [], floor: [] };
      const outcome = {};
      // One warm-up of each, then interleaved rounds.
      for (let round = 0; round <= rounds; round += 1) {
        for (const server of ['inseam', 'reference', ...(benchCase.floor === true ? ['floor'] : [])]) {
          const cpuBefore = cpuMs(pids[server]);
          const started = performance.now();
          const done = await benchCase.run(servers[server], clients[server], state[server]);
          const ms = performance.now() - started;
          if (round > 0) times[server].push(ms);
          if (round > 0) cpu[server].push(cpuMs(pids[server]) - cpuBefore);
          outcome[server] = done;
        }
      }
      if (outcome.inseam.items !== outcome.reference.items) throw new Error(`${benchCase.name}: inseam saw ${outcome.inseam.items} ${benchCase.unit}, the reference ${outcome.reference.items}.`);
      results.push({ name: benchCase.name, unit: benchCase.unit, items: outcome.inseam.items, inseamMs: median(times.inseam), referenceMs: median(times.reference), inseamRange: range(times.inseam), referenceRange: range(times.reference), inseamBytes: outcome.inseam.bytes, referenceBytes: outcome.reference.bytes, inseamCpuMs: sumOf(cpu.inseam), referenceCpuMs: sumOf(cpu.reference), ...(benchCase.floor === true ? { floorMs: median(times.floor), floorCpuMs: sumOf(cpu.floor) } : {}) });
    }
  } finally {
    await Promise.allSettled(Object.values(clients).map((client) => client.close()));
  }
  const machine = machineFacts();
  const lines = [
    `| case | inseam | reference | reference ÷ inseam | inseam ${'/s'} | reference ${'/s'} | server CPU ${'µs'} per ${'item'}, inseam / reference (ratio) | reply bytes inseam / reference |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((row) =>
      [
        row.name,
        `${row.inseamMs.toFixed(0)} ms`,
        `${row.referenceMs.toFixed(0)} ms`,
        `${(row.referenceMs / row.inseamMs).toFixed(2)}×`,
        rate(row.items, row.inseamMs, row.unit),
        rate(row.items, row.referenceMs, row.unit),
        cpuPer(row, rounds),
        row.unit === 'bytes' ? `${(row.inseamBytes / 2 ** 20).toFixed(1)} / ${(row.referenceBytes / 2 ** 20).toFixed(1)} MiB` : `${(row.inseamBytes / row.items).toFixed(0)} / ${(row.referenceBytes / row.items).toFixed(0)} per ${row.unit === 'calls' ? 'call' : 'entry'}`,
      ].join(' | '),
    ).map((line) => `| ${line} |`),
  ];
  const floors = results
    .filter((row) => row.floorMs !== undefined)
    .map((row) => `${row.name}: ${row.floorMs.toFixed(0)} ms, server CPU ${((row.floorCpuMs * 1000) / (row.items * rounds)).toFixed(0)} µs a call (reference ÷ floor ${(row.referenceMs / row.floorMs).toFixed(2)}×)`);
  process.stdout.write(`mcp over stdio, ${rounds} rounds (median; ranges in the saved results), Node ${process.version}, load ${machine.loadAverageAtStart}\n${lines.join('\n')}\n`);
  if (floors.length > 0) process.stdout.write(`SDK floor (fixed reply, no file work):\n${floors.map((line) => `  ${line}`).join('\n')}\n`);
  const file = await saveResults('mcp', { machine, rounds, fileCount, bigCount, results });
  process.stdout.write(`results: ${file}\n`);
}

function sumOf(values) {
  return values.reduce((total, value) => total + value, 0);
}

/** Server CPU per item over all timed rounds, both servers, and reference ÷ inseam. */
function cpuPer(row, roundCount) {
  const per = (ms) => {
    if (row.unit === 'bytes') return `${Math.round(ms / roundCount)} ms`;
    const us = (ms * 1000) / (row.items * roundCount);
    return us < 10 ? us.toFixed(1) : us.toFixed(0);
  };
  const ratio = row.inseamCpuMs === 0 ? '–' : `${(row.referenceCpuMs / row.inseamCpuMs).toFixed(2)}×`;
  return `${per(row.inseamCpuMs)} / ${per(row.referenceCpuMs)} (${ratio})`;
}

async function repeat(count, work) {
  const outcomes = [];
  for (let index = 0; index < count; index += 1) outcomes.push(await work());
  return outcomes;
}

function sum(outcomes) {
  return outcomes.reduce((total, outcome) => ({ items: total.items + outcome.items, bytes: total.bytes + outcome.bytes }), { items: 0, bytes: 0 });
}

function rate(items, ms, unit) {
  if (unit === 'bytes') return `${((items / 2 ** 20 / ms) * 1000).toFixed(0)} MiB`;
  return `${Math.round((items / ms) * 1000).toLocaleString('en-US')} ${unit}`;
}

function range(values) {
  return [Math.min(...values), Math.max(...values)];
}

await main();
