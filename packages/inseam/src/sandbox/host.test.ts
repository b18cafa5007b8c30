/**
 * SandboxHost end to end: a real sandbox process, real QuickJS runtimes, a loopback HTTP server
 * behind a recording passthrough egress.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '@inseam/connector';
import { hasErrorCode, type ConnectorError } from '@neuralis/package-system/contracts';
import { SandboxHost, type SandboxLogRecord } from './host.js';
import { STREAM_WINDOW } from './protocol.js';
import { passthroughEgress, startLoopback, type Loopback } from './__fixtures__/egress.js';
import { DESCRIPTION, connectorModule } from './__fixtures__/modules.js';

const logs: SandboxLogRecord[] = [];
const host = new SandboxHost({ log: (record) => logs.push(record) });
let loop: Loopback;

beforeAll(async () => {
  loop = await startLoopback();
});
afterAll(async () => {
  await host.close();
  await loop.close();
});

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    return error as ConnectorError;
  }
  throw new Error('expected the call to fail');
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function pattern(bytes: Uint8Array): boolean {
  return bytes.every((byte, index) => byte === index % 251);
}

describe('loading', () => {
  it('hands the config to createConnector (sync or async) and validates describe()', async () => {
    const source = `export async function createConnector(config) {
      await null;
      return { describe() { return { ...${JSON.stringify(DESCRIPTION)}, kind: config.kind }; }, async list() { return { entries: [{ path: config.kind }] }; }, async read() {}, async stat() { return null; } };
    }`;
    const connector = await host.load({ source, label: 'async-factory', config: { kind: 'notion' }, egress: passthroughEgress() });
    expect(connector.describe().kind).toBe('notion');
    expect(Object.isFrozen(connector.describe())).toBe(true);
    expect((await connector.list()).entries).toEqual([{ path: 'notion' }]);
  });

  it('accepts a default export of a ready connector object', async () => {
    const source = `export default { describe() { return ${JSON.stringify(DESCRIPTION)}; }, async list() { return { entries: [] }; }, async read() {}, async stat() { return null; } };`;
    const connector = await host.load({ source, label: 'default-export', egress: passthroughEgress() });
    expect((await connector.list()).entries).toEqual([]);
  });

  it('refuses an invalid description with every problem and its path', async () => {
    const source = connectorModule('async list() { return { entries: [] }; }', { ...DESCRIPTION, capabilities: ['list', 'read', 'fly'], listing: 'cheap' });
    const error = await failure(host.load({ source, label: 'bad-description', egress: passthroughEgress() }));
    expect(error.code).toBe('description_invalid');
    expect(error.details['paths']).toEqual(expect.arrayContaining(['capabilities[2]', 'listing']));
  });

  it('fails typed when the module does not load, imports, or its factory throws', async () => {
    const broken = await failure(host.load({ source: 'export function createConnector( {', label: 'syntax', egress: passthroughEgress() }));
    expect(broken.code).toBe('connector_failed');
    expect(broken.message).toMatch(/SyntaxError/);
    const importing = await failure(host.load({ source: "import x from 'node:fs'; export default x;", label: 'imports', egress: passthroughEgress() }));
    expect(importing.code).toBe('connector_failed');
    expect(importing.message).toMatch(/Bundle the connector/);
    const throwing = await failure(host.load({ source: "export function createConnector() { throw new Error('no token field'); }", label: 'throws', egress: passthroughEgress() }));
    expect(throwing.code).toBe('connector_failed');
    expect(throwing.message).toMatch(/createConnector failed: no token field/);
    const neither = await failure(host.load({ source: 'export const x = 1;', label: 'neither', egress: passthroughEgress() }));
    expect(neither.message).toMatch(/createConnector\(config\)/);
  });

  it('refuses a spec without source, label or egress, and a config that is not JSON', async () => {
    expect((await failure(host.load({ source: '', label: 'x', egress: passthroughEgress() }))).code).toBe('invalid_argument');
    expect((await failure(host.load({ source: 'export default {}', label: '../etc', egress: passthroughEgress() }))).code).toBe('invalid_argument');
    expect((await failure(host.load({ source: 'export default {}', label: 'x', config: { n: 1n }, egress: passthroughEgress() }))).code).toBe('invalid_argument');
  });
});

describe('calls', () => {
  it('maps module errors: passthrough codes stay, the rest is connector_failed, undeclared capabilities are unsupported', async () => {
    const source = connectorModule(
      `async list(opts) { const e = new Error('no such folder'); e.code = opts.prefix; throw e; },
       async read() { throw new TypeError('bug'); },
       async stat(path) { return { path, size: -1 }; },`,
      { ...DESCRIPTION, capabilities: ['list', 'read', 'stat'], writes: undefined },
    );
    const connector = await host.load({ source, label: 'errors', egress: passthroughEgress() });
    expect((await failure(connector.list({ prefix: 'not_found' }))).code).toBe('not_found');
    expect((await failure(connector.list({ prefix: 'rate_limited' }))).code).toBe('rate_limited');
    // The kind describe() declared, not the label (a file name), and the module's own reason.
    const refused = await failure(connector.list({ prefix: 'unsupported' }));
    expect(refused.code).toBe('unsupported');
    expect(refused.details).toMatchObject({ kind: 'demo', operation: 'list', module: 'errors' });
    expect(refused.message).toBe('Connector kind "demo" does not support operation "list": no such folder');
    const forged = await failure(connector.list({ prefix: 'containment_violation' }));
    expect(forged.code).toBe('connector_failed');
    const bug = await failure(connector.read('a'));
    expect(bug.code).toBe('connector_failed');
    expect(bug.message).toContain('TypeError: bug');
    const contract = await failure(connector.stat('a'));
    expect(contract.code).toBe('connector_failed');
    expect(contract.message).toContain('the result.size');
    const unsupported = await failure(connector.write('a', new ReadableStream()));
    expect(unsupported.code).toBe('unsupported');
    expect(unsupported.details).toMatchObject({ kind: 'demo', operation: 'write' });
    expect(logs.some((record) => record.module === 'errors' && record.code === 'connector_failed')).toBe(true);
  });

  it('runs calls on one connector concurrently', async () => {
    const source = connectorModule(`async list(opts) { await new Promise((r) => setTimeout(r, Number(opts.prefix))); return { entries: [{ path: opts.prefix }] }; }, async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'concurrent', egress: passthroughEgress() });
    const started = Date.now();
    const pages = await Promise.all([connector.list({ prefix: '150' }), connector.list({ prefix: '100' }), connector.list({ prefix: '120' })]);
    expect(pages.map((page) => page.entries[0]?.path)).toEqual(['150', '100', '120']);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('bodies stream both ways with backpressure', () => {
  it('read(): chunks flow as the platform reads; the module is not drained ahead; cancel reaches it', async () => {
    const source = connectorModule(`
      async read(path) {
        let n = 0;
        return new ReadableStream({
          pull(c) { n++; console.log('pull ' + n); c.enqueue(new Uint8Array(1000).fill(n % 256)); },
          cancel() { console.log('cancelled after ' + n); },
        }, { highWaterMark: 1 });
      },
      async list() { return { entries: [] }; }, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'slow-reader', egress: passthroughEgress() });
    const stream = await connector.read('endless');
    const reader = stream.getReader();
    const first = await reader.read();
    expect(first.value?.byteLength).toBe(1000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pulls = logs.filter((record) => record.module === 'slow-reader' && record.message.startsWith('pull ')).length;
    // The credit window plus the module stream's own small queue: bounded, not "everything".
    expect(pulls).toBeGreaterThan(1);
    expect(pulls).toBeLessThanOrEqual(STREAM_WINDOW * 2 + 4);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(logs.some((record) => record.module === 'slow-reader' && record.message.startsWith('cancelled after'))).toBe(true);
  });

  it('read(): a large body arrives whole and in order through a fetch response', async () => {
    const source = connectorModule(`async read(path) { const r = await fetch(config.origin + '/bytes?n=' + path); return r.body; }, async list() { return { entries: [] }; }, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'big-read', config: { origin: loop.origin }, egress: passthroughEgress() });
    const bytes = await drain(await connector.read(String(3 * 1024 * 1024 + 7)));
    expect(bytes.byteLength).toBe(3 * 1024 * 1024 + 7);
    expect(pattern(bytes)).toBe(true);
  });

  it('write(): the body is pulled as the module consumes it, and arrives whole', async () => {
    const source = connectorModule(`
      async write(path, body, opts) {
        const reader = body.getReader();
        let size = 0, sum = 0, chunks = 0;
        for (;;) {
          const step = await reader.read();
          if (step.done) break;
          chunks++;
          if (chunks % 4 === 0) await new Promise((r) => setTimeout(r, 5));
          size += step.value.length;
          for (const b of step.value) sum = (sum + b) % 1000000007;
        }
        return { path, size, etag: String(sum), extra: { ifMatch: opts.ifMatch ?? null } };
      },
      async list() { return { entries: [] }; }, async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'writer', egress: passthroughEgress() });
    const total = 2 * 1024 * 1024;
    let produced = 0;
    let maxAhead = 0;
    let consumedSum = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (produced >= total) {
          controller.close();
          return;
        }
        const chunk = new Uint8Array(32 * 1024).map((_, i) => (produced + i) % 251);
        for (const b of chunk) consumedSum = (consumedSum + b) % 1_000_000_007;
        produced += chunk.byteLength;
        maxAhead = Math.max(maxAhead, produced);
        controller.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
    const entry = await connector.write('big.bin', body, { ifMatch: 'v1' });
    expect(entry).toEqual({ path: 'big.bin', size: total, etag: String(consumedSum), extra: { ifMatch: 'v1' } });
  });
});

describe('fetch goes through the egress port', () => {
  it('sends exactly what the module asked, and streams request and response bodies', async () => {
    const egress = passthroughEgress();
    const source = connectorModule(`
      async list(opts) {
        const got = await (await fetch(config.origin + '/json', { headers: { 'X-Trace': 'abc', Accept: 'application/json' } })).json();
        const posted = await (await fetch(config.origin + '/echo?q=a%20b', { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } })).json();
        let i = 0;
        const upload = new ReadableStream({ pull(c) { i++; if (i > 40) c.close(); else c.enqueue(new Uint8Array(50000).fill(1)); } });
        const put = await (await fetch(config.origin + '/echo', { method: 'PUT', body: upload, duplex: 'half' })).json();
        const missing = await fetch(config.origin + '/nothing');
        return { entries: [{ path: 'r', extra: { got, posted, put, missing: [missing.status, missing.ok, await missing.text()] } }] };
      },
      async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'fetcher', config: { origin: loop.origin }, egress });
    const extra = (await connector.list()).entries[0]?.extra as Record<string, unknown>;
    expect(extra['got']).toEqual({ items: [{ id: 'a', size: 3 }, { id: 'b', size: 5 }], auth: null });
    expect(extra['posted']).toEqual({ length: 5, sum: 532, method: 'POST', type: 'text/plain' });
    expect(extra['put']).toEqual({ length: 2_000_000, sum: 2_000_000, method: 'PUT', type: null });
    expect(extra['missing']).toEqual([404, false, 'missing']);
    expect(egress.requests.map((r) => [r.method, r.url])).toEqual([
      ['GET', `${loop.origin}/json`],
      ['POST', `${loop.origin}/echo?q=a%20b`],
      ['PUT', `${loop.origin}/echo`],
      ['GET', `${loop.origin}/nothing`],
    ]);
    expect(egress.requests[0]?.headers).toEqual({ accept: 'application/json', 'x-trace': 'abc' });
    expect(egress.requests[2]?.body).toBeInstanceOf(ReadableStream);
  });

  it('a refusal reaches the module as a TypeError and, rethrown, fails the call as egress_refused', async () => {
    const egress = passthroughEgress({ refuse: (url) => url.hostname === 'evil.test' });
    const source = connectorModule(`
      async list(opts) {
        try { await fetch('https://evil.test/steal'); } catch (e) {
          if (opts.prefix === 'swallow') return { entries: [{ path: e.name, extra: { message: e.message, cause: e.cause } }] };
          throw e;
        }
      },
      async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'refused', egress });
    const seen = (await connector.list({ prefix: 'swallow' })).entries[0];
    expect(seen?.path).toBe('TypeError');
    expect(seen?.extra).toMatchObject({ cause: { failure: 'origin_refused', origin: 'https://evil.test' } });
    const error = await failure(connector.list());
    expect(error.code).toBe('egress_refused');
    expect(error.details).toMatchObject({ origin: 'https://evil.test' });
  });
});

describe('limits', () => {
  const limits = { callTimeoutMs: 400, memoryBytes: 32 * 1024 * 1024 };
  const source = connectorModule(`
    async list(opts) {
      switch (opts.prefix) {
        case 'spin': for (;;) {}
        case 'spin-after-await': await new Promise((r) => setTimeout(r, 5)); for (;;) {}
        case 'hang': await new Promise(() => {}); return { entries: [] };
        case 'slow-fetch': await fetch(config.origin + '/slow'); return { entries: [] };
        case 'memory': { const keep = []; for (;;) keep.push(new Array(100000).fill(keep.length)); }
        case 'buffers': { const keep = []; for (;;) keep.push(new Uint8Array(1 << 20)); }
        case 'one-big-buffer': return { entries: [{ path: String(new ArrayBuffer(1.5e9).byteLength) }] };
        case 'strings': { const keep = []; for (;;) keep.push('x'.repeat(1 << 20) + keep.length); }
        case 'stack': { const f = (n) => f(n + 1) + 1; return f(0); }
        case 'json-depth': JSON.parse('['.repeat(200000) + ']'.repeat(200000)); return { entries: [] };
        case 'caught-memory': { let n = 0; try { const keep = []; for (;;) keep.push(new Array(100000).fill(1)); } catch (e) { n = String(e); } return { entries: [{ path: n }] }; }
        default: return { entries: [{ path: 'ok' }] };
      }
    },
    async read() {}, async stat() { return null; },`);

  it.each([
    ['spin', 'time'],
    ['spin-after-await', 'time'],
    ['hang', 'time'],
    ['slow-fetch', 'time'],
    ['memory', 'memory'],
    ['buffers', 'memory'],
    ['one-big-buffer', 'memory'],
    ['strings', 'memory'],
    ['stack', 'stack'],
    ['json-depth', 'stack'],
  ])('%s fails the call with sandbox_limit (%s), and the next call succeeds', async (prefix, limit) => {
    const connector = await host.load({ source, label: `limits-${prefix}`, config: { origin: loop.origin }, egress: passthroughEgress(), limits });
    const started = Date.now();
    const error = await failure(connector.list({ prefix }));
    expect(error.code).toBe('sandbox_limit');
    expect(error.details['limit']).toBe(limit);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await connector.list()).entries).toEqual([{ path: 'ok' }]);
    expect(logs.some((record) => record.module === `limits-${prefix}` && record.code === 'sandbox_limit')).toBe(true);
  });

  it('an out-of-memory the module catches is its own business; memory stayed bounded', async () => {
    const connector = await host.load({ source, label: 'limits-caught', egress: passthroughEgress(), limits });
    expect((await connector.list({ prefix: 'caught-memory' })).entries[0]?.path).toMatch(/out of memory/);
  });

  it('a breach fails the other calls in flight on that runtime too', async () => {
    const connector = await host.load({ source, label: 'limits-siblings', config: { origin: loop.origin }, egress: passthroughEgress(), limits });
    const [spin, hang] = await Promise.allSettled([connector.list({ prefix: 'spin-after-await' }), connector.list({ prefix: 'hang' })]);
    expect(spin.status === 'rejected' && hasErrorCode(spin.reason, 'sandbox_limit')).toBe(true);
    expect(hang.status === 'rejected' && hasErrorCode(hang.reason, 'sandbox_limit')).toBe(true);
  });
});

describe('watch and webhook', () => {
  const source = connectorModule(`
    async watch(emit) {
      let n = 0;
      const timer = setInterval(() => { n++; emit({ type: 'put', path: 'f' + n, entry: { path: 'f' + n, size: n } }); if (n === 2) emit({ type: 'move' , path: 'x' }); }, 10);
      return () => { clearInterval(timer); console.log('unwatched'); };
    },
    async webhook(req) {
      const body = await req.json();
      return body.changes.map((c) => ({ type: 'delete', path: c }));
    },
    async list() { return { entries: [] }; }, async read() {}, async stat() { return null; },`);

  it('emits checked events until unsubscribed', async () => {
    const connector = await host.load({ source, label: 'watcher', egress: passthroughEgress() });
    const events: ChangeEvent[] = [];
    const stop = await connector.watch((event) => events.push(event));
    await new Promise((resolve) => setTimeout(resolve, 120));
    await stop();
    const count = events.length;
    expect(count).toBeGreaterThanOrEqual(3);
    expect(events[0]).toEqual({ type: 'put', path: 'f1', entry: { path: 'f1', size: 1 } });
    // The malformed move (no `from`) was dropped and logged, never delivered.
    expect(events.some((event) => event.type === 'move')).toBe(false);
    expect(logs.some((record) => record.module === 'watcher' && record.message.includes('dropped'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(events.length).toBe(count);
    expect(logs.some((record) => record.module === 'watcher' && record.message === 'unwatched')).toBe(true);
  });

  it('turns a webhook request into change events', async () => {
    const connector = await host.load({ source, label: 'hooked', egress: passthroughEgress() });
    const request = new Request('https://inseam.test/hooks/x', { method: 'POST', body: JSON.stringify({ changes: ['a', 'b'] }), headers: { 'content-type': 'application/json' } });
    expect(await connector.webhook(request)).toEqual([
      { type: 'delete', path: 'a' },
      { type: 'delete', path: 'b' },
    ]);
  });
});

describe('the sandbox process', () => {
  it('holds no credential: its environment is empty but for the IPC channel and TZ=UTC', async () => {
    process.env['INSEAM_MASTER_KEY'] = 'secret-master-key';
    process.env['AWS_SECRET_ACCESS_KEY'] = 'secret-aws-key';
    const isolated = new SandboxHost();
    try {
      const connector = await isolated.load({ source: connectorModule('async list() { return { entries: [] }; }'), label: 'env', egress: passthroughEgress() });
      await connector.list();
      const environ = readFileSync(`/proc/${isolated.pid}/environ`, 'utf8').split('\0').filter((line) => line !== '');
      expect(environ.filter((line) => !line.startsWith('NODE_CHANNEL_'))).toEqual(['TZ=UTC']);
      expect(environ.join('\n')).not.toMatch(/secret|INSEAM|AWS/);
    } finally {
      delete process.env['INSEAM_MASTER_KEY'];
      delete process.env['AWS_SECRET_ACCESS_KEY'];
      await isolated.close();
    }
  });

  it('kill -9 mid-call: the call fails typed, the next call succeeds in a new process', async () => {
    const restartLogs: SandboxLogRecord[] = [];
    const isolated = new SandboxHost({ log: (record) => restartLogs.push(record) });
    try {
      const source = connectorModule(`async list(opts) { if (opts.prefix === 'slow') await fetch(config.origin + '/slow'); return { entries: [{ path: 'alive' }] }; }, async read() {}, async stat() { return null; },`);
      const connector = await isolated.load({ source, label: 'victim', config: { origin: loop.origin }, egress: passthroughEgress() });
      const firstPid = isolated.pid;
      const pending = connector.list({ prefix: 'slow' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      process.kill(firstPid!, 'SIGKILL');
      const error = await failure(pending);
      expect(error.code).toBe('connector_failed');
      expect(error.details['reason']).toBe('sandbox_exited');
      expect((await connector.list()).entries).toEqual([{ path: 'alive' }]);
      expect(isolated.pid).not.toBe(firstPid);
      expect(restartLogs.some((record) => record.message.includes('sandbox process stopped'))).toBe(true);
    } finally {
      await isolated.close();
    }
  });

  it('a process that keeps dying is held down with unavailable', async () => {
    const isolated = new SandboxHost({ maxRestarts: 1, restartWindowMs: 60_000 });
    try {
      const source = connectorModule(`async list(opts) { await new Promise(() => {}); }, async read() {}, async stat() { return null; },`);
      const connector = await isolated.load({ source, label: 'flappy', egress: passthroughEgress() });
      for (let i = 0; i < 2; i++) {
        const pending = connector.list();
        await new Promise((resolve) => setTimeout(resolve, 50));
        process.kill(isolated.pid!, 'SIGKILL');
        expect((await failure(pending)).code).toBe('connector_failed');
      }
      expect((await failure(connector.list())).code).toBe('unavailable');
    } finally {
      await isolated.close();
    }
  });

  it('unloading a connector fails its calls in flight with unavailable', async () => {
    const source = connectorModule(`async list() { await new Promise(() => {}); }, async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'unloaded', egress: passthroughEgress() });
    const pending = connector.list();
    connector.dispose();
    expect((await failure(pending)).code).toBe('unavailable');
    expect((await failure(connector.list())).code).toBe('unavailable');
  });
});
