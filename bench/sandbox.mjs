// sandbox: what running a connector in the sandbox (QuickJS in a separate process, results
// crossing as copies in QuickJS's binary form) costs against importing the same module into Node
// and calling it directly.
//
//   node bench/sandbox.mjs [--rounds N] [--count N] [--calls N] [--latency-ms N] [--only calls|cpu|http|http-latency]
//
// Groups, each case in its own child process (one warm-up round, then the median of N rounds;
// inside a case, one untimed pass warms it up before the timed pass):
//   calls    — N sequential stat() calls on a warm connector (per-call overhead);
//   cpu      — list() to the end over `count` entries a module generates in JS;
//   http     — list() to the end over `count` entries a module fetches as JSON pages from a
//              node:http server on loopback (this process), with no added latency and with
//              `--latency-ms` per page. The sandbox sends through the egress gate; the
//              in-process baseline sends through the same gate (a fetch over the gate's port),
//              and a second in-process case uses Node's own fetch directly, for reference.
// "list()" pages one call after the other; "as the crawler lists" asks for the next page as soon
// as a page arrives (crawl/run.ts reads one page ahead), for the sandbox and in process alike. The
// sandbox host reads ahead itself too (SandboxHost listReadAhead, on by default) in both.
//
// Run as `node bench/sandbox.mjs --case <id> <json args>` it is one case's child process.
import { fileURLToPath } from 'node:url';
import { childCase, machineFacts, nodeCase, progress, roundsFromArgv, runCases, runScript, saveResults, table } from './lib/measure.mjs';
import { BENCH_TOKEN, benchGatePort, cpuModule, ensureInseamBuilt, fetchOverPort, httpModule, importModule, startPagesServer } from './lib/sandbox-fixtures.mjs';

const script = fileURLToPath(import.meta.url);
const PAGE_SIZE = 1000;

async function sandboxed(source, label, config, egress) {
  const { SandboxHost } = await import('inseam/sandbox');
  const host = new SandboxHost({ limits: { callTimeoutMs: 120_000, memoryBytes: 512 * 1024 * 1024 } });
  const connector = await host.load({ source, label, config, egress });
  return { connector, close: () => host.close() };
}

async function inProcess(source, config) {
  const module = await importModule(source);
  return module.createConnector(config);
}

async function listAll(connector) {
  let count = 0;
  let cursor;
  do {
    const page = await connector.list(cursor === undefined ? {} : { cursor });
    count += page.entries.length;
    cursor = page.cursor;
  } while (cursor !== undefined);
  return count;
}

/** As crawl/run.ts lists: the next page is asked for as soon as a page arrives, before it is used. */
async function listAhead(connector) {
  let count = 0;
  let page = await connector.list({});
  while (page !== undefined) {
    const ahead = page.cursor === undefined ? undefined : connector.list({ cursor: page.cursor });
    count += page.entries.length;
    page = await ahead;
  }
  return count;
}

async function statCalls(connector, calls) {
  for (let i = 0; i < calls; i += 1) await connector.stat(`f${i}`);
  return calls;
}

/** Warms `work` up once, untimed, then times one more run. */
async function warmThenTime(work) {
  await work();
  await childCase(work);
}

const noEgress = { fetch: async () => Promise.reject(new Error('the CPU-bound module does not fetch')) };

const CASES = {
  async 'calls-sandbox'({ calls }) {
    const { connector, close } = await sandboxed(cpuModule(), 'bench-cpu', { count: 0, pageSize: PAGE_SIZE }, noEgress);
    await warmThenTime(() => statCalls(connector, calls));
    await close();
  },
  async 'calls-inproc'({ calls }) {
    const connector = await inProcess(cpuModule(), { count: 0, pageSize: PAGE_SIZE });
    await warmThenTime(() => statCalls(connector, calls));
  },
  async 'cpu-sandbox'({ count, ahead }) {
    const { connector, close } = await sandboxed(cpuModule(), 'bench-cpu', { count, pageSize: PAGE_SIZE }, noEgress);
    await warmThenTime(() => (ahead ? listAhead : listAll)(connector));
    await close();
  },
  async 'cpu-inproc'({ count, ahead }) {
    const connector = await inProcess(cpuModule(), { count, pageSize: PAGE_SIZE });
    await warmThenTime(() => (ahead ? listAhead : listAll)(connector));
  },
  async 'http-sandbox'({ origin, ahead }) {
    const { gate, port } = await benchGatePort(origin);
    const { connector, close } = await sandboxed(httpModule(origin), 'bench-http', { origin, pageSize: PAGE_SIZE }, port);
    await warmThenTime(() => (ahead ? listAhead : listAll)(connector));
    await close();
    await gate.close();
  },
  async 'http-inproc-gate'({ origin, ahead }) {
    const { gate, port } = await benchGatePort(origin);
    globalThis.fetch = fetchOverPort(port);
    const connector = await inProcess(httpModule(origin), { origin, pageSize: PAGE_SIZE });
    await warmThenTime(() => (ahead ? listAhead : listAll)(connector));
    await gate.close();
  },
  async 'http-inproc-direct'({ origin }) {
    const nodeFetch = globalThis.fetch;
    globalThis.fetch = (input, init = {}) => nodeFetch(input, { ...init, headers: { ...init.headers, authorization: `Bearer ${BENCH_TOKEN}` } });
    const connector = await inProcess(httpModule(origin), { origin, pageSize: PAGE_SIZE });
    await warmThenTime(() => listAll(connector));
  },
};

const argOf = (argv, name, fallback) => {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} takes a whole number.`);
  return value;
};

const caseOf = (name, id, args) => nodeCase(name, script, id, [JSON.stringify(args)]);

async function main(argv) {
  const rounds = roundsFromArgv(argv, 5);
  const count = argOf(argv, '--count', 100_000);
  const calls = argOf(argv, '--calls', 5_000);
  const latencyMs = argOf(argv, '--latency-ms', 20);
  ensureInseamBuilt();
  const machine = machineFacts();
  const results = { benchmark: 'sandbox', machine, rounds, count, calls, latencyMs, groups: [] };
  console.log(`sandbox — ${machine.date}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.node}, load ${machine.loadAverageAtStart}`);
  const n = count.toLocaleString('en-US');
  const groups = [
    {
      id: 'calls',
      title: `calls: ${calls.toLocaleString('en-US')} sequential stat() calls`,
      perCall: calls,
      cases: () => [caseOf('sandbox stat()', 'calls-sandbox', { calls }), caseOf('in-process stat()', 'calls-inproc', { calls })],
      baseline: 'in-process stat()',
    },
    {
      id: 'cpu',
      title: `cpu: list() to the end, ${n} entries generated in JS, pages of ${PAGE_SIZE}`,
      cases: () => [
        caseOf('sandbox list()', 'cpu-sandbox', { count }),
        caseOf('in-process list()', 'cpu-inproc', { count }),
        caseOf('sandbox, as the crawler lists', 'cpu-sandbox', { count, ahead: true }),
        caseOf('in-process, as the crawler lists', 'cpu-inproc', { count, ahead: true }),
      ],
      baseline: 'in-process list()',
    },
    ...[0, latencyMs].map((latency) => ({
      id: latency === 0 ? 'http' : 'http-latency',
      title: `http: list() to the end, ${n} entries from JSON pages of ${PAGE_SIZE} on loopback, ${latency === 0 ? 'no added latency' : `${latency} ms a page`}`,
      latency,
      cases: (origin) => [
        caseOf('sandbox list(), via the gate', 'http-sandbox', { origin }),
        caseOf('in-process list(), via the gate', 'http-inproc-gate', { origin }),
        caseOf('in-process list(), Node fetch', 'http-inproc-direct', { origin }),
        ...(latency === 0
          ? []
          : [caseOf('sandbox, as the crawler lists', 'http-sandbox', { origin, ahead: true }), caseOf('in-process, as the crawler lists', 'http-inproc-gate', { origin, ahead: true })]),
      ],
      baseline: 'in-process list(), via the gate',
    })),
  ];
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
  if (only !== undefined && !groups.some((group) => group.id === only)) throw new Error(`--only takes one of ${groups.map((group) => group.id).join(', ')}.`);
  for (const group of groups.filter((candidate) => only === undefined || candidate.id === only)) {
    const server = group.latency === undefined ? undefined : await startPagesServer({ count, pageSize: PAGE_SIZE, latencyMs: group.latency });
    try {
      const rows = await runCases(group.cases(server?.origin), { rounds, onProgress: progress(group.title) });
      results.groups.push({ title: group.title, rows });
      console.log(`\n${group.title}\n`);
      console.log(table(rows, { inProcessBaseline: group.baseline }));
      if (group.perCall !== undefined) {
        for (const row of rows) console.log(`  ${row.name}: ${((row.workMs * 1000) / group.perCall).toFixed(1)} µs a call`);
      }
    } finally {
      await server?.close();
    }
  }
  console.log(`\nraw results: ${await saveResults('sandbox', results)}`);
}

await runScript(CASES, main, (args) => [JSON.parse(args[0] ?? '{}')]);
