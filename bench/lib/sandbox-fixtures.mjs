// Fixtures for bench/sandbox.mjs: the connector modules it runs (each both in the sandbox and
// imported straight into Node), the JSON-pages HTTP server the HTTP module lists, the gate port
// both sides send through, and the build check.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { repoRoot } from './measure.mjs';

const DESCRIPTION = {
  kind: 'bench',
  capabilities: ['list', 'stat', 'read'],
  auth: { acquire: { type: 'static' }, fields: [{ name: 'token', label: 'Token', secret: true }], present: [{ in: 'header', name: 'authorization', value: 'Bearer {{token}}' }], origins: [] },
  dimensions: { mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'When it changed.' } },
  listing: 'metered',
};

/** The bench host's AuthSpec for `origin`: a bearer token, the way most HTTP APIs want it. */
export function benchAuth(origin) {
  return { ...DESCRIPTION.auth, origins: [origin] };
}

/** A token the gate attaches (and redacts from answers); the modules never see it. */
export const BENCH_TOKEN = 'bench-token-5f0c1d2e3a4b';

/**
 * The CPU-bound module: list() builds `pageSize` entries a page from nothing but arithmetic
 * (a path three levels deep, a size, an ISO date, an etag, a MIME type — what a connector maps
 * from an API record), up to `count` entries; stat() answers one small entry (the per-call case).
 */
export function cpuModule() {
  return `export function createConnector(config) {
  const count = config.count;
  const pageSize = config.pageSize;
  const hex = (n) => (n >>> 0).toString(16).padStart(8, '0');
  return {
    describe() { return ${JSON.stringify({ ...DESCRIPTION, auth: { acquire: { type: 'none' }, present: [], origins: ['https://bench.invalid'] } })}; },
    list(options) {
      const start = options && options.cursor ? Number(options.cursor) : 0;
      const end = Math.min(count, start + pageSize);
      const entries = [];
      for (let i = start; i < end; i++) {
        entries.push({
          path: 'd' + Math.floor(i / 10000) + '/e' + (Math.floor(i / 100) % 100) + '/file-' + i + '.txt',
          size: 1024 + ((i * 7919) % 3072),
          mtime: new Date(1700000000000 + i * 1000).toISOString(),
          etag: hex(i * 2654435761) + hex(i * 40503) + hex(i + 17),
          mime: 'text/plain',
        });
      }
      return end < count ? { entries, cursor: String(end) } : { entries };
    },
    stat(path) { return { path, size: 1, mtime: '2024-01-01T00:00:00.000Z', etag: 'e1' }; },
    read() { return new ReadableStream({ start(c) { c.close(); } }); },
  };
}
`;
}

/**
 * The HTTP-bound module: list() fetches one page of the server's JSON listing and maps its items
 * to entries (the fields the server sends beyond these are dropped, as a real connector does).
 */
export function httpModule(origin) {
  return `export function createConnector(config) {
  return {
    describe() { return ${JSON.stringify({ ...DESCRIPTION, auth: benchAuth(origin) })}; },
    async list(options) {
      const after = options && options.cursor ? '&after=' + encodeURIComponent(options.cursor) : '';
      const response = await fetch(config.origin + '/v1/items?limit=' + config.pageSize + after, { headers: { accept: 'application/json' } });
      if (!response.ok) throw Object.assign(new Error('the server answered ' + response.status), { code: 'unavailable' });
      const body = await response.json();
      const entries = body.items.map((item) => ({ path: item.folder + '/' + item.name, size: item.bytes, mtime: item.modified, etag: item.hash, mime: item.type }));
      return body.next ? { entries, cursor: body.next } : { entries };
    },
    stat(path) { return null; },
    read() { return new ReadableStream({ start(c) { c.close(); } }); },
  };
}
`;
}

/**
 * A loopback server with `count` items in pages of `pageSize`, built once and kept as bytes so
 * the server costs next to nothing per request. `latencyMs` holds each answer back that long, as
 * a remote API's round trip would. Answers 401 without the bench token.
 */
export async function startPagesServer({ count, pageSize, latencyMs = 0 }) {
  const pages = new Map();
  for (let start = 0, index = 0; start < count; start += pageSize, index += 1) {
    const items = [];
    for (let i = start; i < Math.min(count, start + pageSize); i += 1) {
      items.push({
        id: `it_${i.toString(36).padStart(8, '0')}`,
        folder: `d${Math.floor(i / 10000)}/e${Math.floor(i / 100) % 100}`,
        name: `file-${i}.txt`,
        bytes: 1024 + ((i * 7919) % 3072),
        modified: new Date(1700000000000 + i * 1000).toISOString(),
        hash: `${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}${(i * 40503 >>> 0).toString(16).padStart(8, '0')}`,
        type: 'text/plain',
        owner: { id: `u_${i % 97}`, name: `User ${i % 97}` },
        shared: i % 3 === 0,
      });
    }
    const next = start + pageSize < count ? `p${index + 1}` : null;
    pages.set(index === 0 ? '' : `p${index}`, Buffer.from(JSON.stringify({ items, next })));
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    const page = pages.get(url.searchParams.get('after') ?? '');
    const status = req.headers.authorization !== `Bearer ${BENCH_TOKEN}` ? 401 : page === undefined ? 404 : 200;
    const answer = () => {
      res.writeHead(status, { 'content-type': 'application/json', ...(page === undefined ? {} : { 'content-length': page.length }) });
      res.end(status === 200 ? page : undefined);
    };
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else answer();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Imports a module's text straight into this Node process. */
export function importModule(source) {
  return import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
}

/** A gate port for the bench host at `origin` (a loopback origin, approved as private). */
export async function benchGatePort(origin) {
  const { createEgressGate, InMemoryEgressRecorder } = await import('inseam/gate');
  const gate = createEgressGate({ recorder: new InMemoryEgressRecorder() });
  const port = gate.forHost({
    hostId: 'bench',
    auth: benchAuth(origin),
    credentials: { fields: async () => ({ token: BENCH_TOKEN }) },
    allowPrivateOrigins: [origin],
  });
  return { gate, port };
}

/**
 * `fetch` over an EgressPort, for the in-process case "through the gate": the module's requests
 * take the same path as in the sandbox, minus the sandbox.
 */
export function fetchOverPort(port) {
  return async (input, init = {}) => {
    const headers = Object.fromEntries(new Headers(init.headers ?? {}));
    const answer = await port.fetch({ method: init.method ?? 'GET', url: String(input), headers });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

/**
 * Builds packages/inseam (and what it references) so cases import the compiled sandbox and gate.
 * A build that reports errors elsewhere still emits; the benchmark goes on when every sandbox and
 * gate source has a compiled file at least as new, and stops otherwise.
 */
export function ensureInseamBuilt() {
  const result = spawnSync('npx', ['tsc', '-b', 'packages/inseam'], { cwd: repoRoot, encoding: 'utf8' });
  if (result.status === 0) return;
  const stale = ['sandbox', 'gate'].flatMap((folder) =>
    readdirSync(join(repoRoot, 'packages/inseam/src', folder))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
      .filter((name) => {
        const built = join(repoRoot, 'packages/inseam/dist', folder, name.replace(/\.ts$/, '.js'));
        return !existsSync(built) || statSync(built).mtimeMs < statSync(join(repoRoot, 'packages/inseam/src', folder, name)).mtimeMs;
      })
      .map((name) => `${folder}/${name}`),
  );
  if (stale.length > 0) throw new Error(`Could not build packages/inseam (${stale.join(', ')} not compiled); fix the build first:\n${result.stdout}${result.stderr}`.slice(0, 4000));
  process.stderr.write(`The build reported errors outside the sandbox and gate; their compiled files are current, so the benchmark runs.\n${result.stdout}`.slice(0, 2000));
}
