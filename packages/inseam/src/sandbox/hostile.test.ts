/**
 * Hostile connectors. Each attack runs in a real sandbox; the platform (this test process) must
 * stay up and unaffected, and every failure must be typed. Time and memory bombs are in
 * host.test.ts ("limits"); the ones here target the boundary itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressError, type EgressRequest } from '@inseam/connector';
import type { ConnectorError } from '@neuralis/package-system/contracts';
import { SandboxHost, type SandboxLogRecord } from './host.js';
import type { SandboxedConnector } from './sandboxed-connector.js';
import { parseUntrustedJson } from './results.js';
import { passthroughEgress } from './__fixtures__/egress.js';
import { RUNNER, connectorModule } from './__fixtures__/modules.js';

const logs: SandboxLogRecord[] = [];
const host = new SandboxHost({ log: (record) => logs.push(record), limits: { callTimeoutMs: 2000 } });
let runner: SandboxedConnector;

beforeAll(async () => {
  runner = await host.load({ source: RUNNER, label: 'hostile-runner', egress: passthroughEgress() });
});
afterAll(() => host.close());

async function run(code: string): Promise<unknown> {
  const extra = (await runner.list({ prefix: code })).entries[0]?.extra as { value?: unknown; error?: string };
  if (extra.error !== undefined) return { threw: extra.error };
  return extra.value;
}

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    return error as ConnectorError;
  }
  throw new Error('expected the call to fail');
}

describe('escaping to the host', () => {
  it('no constructor chain reaches process, require or the host Function', async () => {
    const attempts = await run(`
      const probe = 'try { return typeof process + "," + typeof require + "," + typeof module + "," + typeof Buffer; } catch (e) { return "threw " + e.name; }';
      const chains = {
        connectorThis: () => this.constructor.constructor(probe)(),
        fetch: () => fetch.constructor(probe)(),
        consoleLog: () => console.log.constructor(probe)(),
        encode: () => TextEncoder.prototype.encode.constructor(probe)(),
        streamMethod: () => ReadableStream.prototype.getReader.constructor(probe)(),
        asyncFn: () => (async function () {}).constructor(probe)(),
        generator: () => Object.getPrototypeOf(function* () {}).constructor(probe)().next().value,
        arrayChain: () => [].constructor.constructor(probe)(),
        errorChain: () => new Error('x').constructor.constructor(probe)(),
        promiseChain: () => Promise.resolve().constructor.constructor(probe)(),
        reflect: () => Reflect.construct(Function, [probe])(),
        proxy: () => new Proxy(function () {}, {}).constructor(probe)(),
        symbolSpecies: () => Uint8Array[Symbol.species].constructor(probe)(),
      };
      const out = {};
      for (const [name, attempt] of Object.entries(chains)) {
        try { out[name] = await attempt(); } catch (e) { out[name] = 'threw ' + e.name; }
      }
      out.globals = Object.getOwnPropertyNames(globalThis).filter((k) => /^(process|require|module|Buffer|global|__dirname|__filename|setImmediate|WebAssembly)$/.test(k));
      out.hostFunctionIsSandboxFunction = fetch.constructor === Function && console.log.constructor === Function;
      try { this.constructor.constructor('globalThis.pwnedByModule = 1')(); } catch (e) {}
      try { Error.prepareStackTrace = (e, frames) => frames.map((f) => f.getFunction && f.getFunction()); out.stack = typeof new Error('x').stack; } catch (e) { out.stack = 'threw'; }
      return out;`);
    const expected = 'undefined,undefined,undefined,undefined';
    expect(attempts).toEqual({
      connectorThis: expected,
      fetch: expected,
      consoleLog: expected,
      encode: expected,
      streamMethod: expected,
      asyncFn: expected,
      generator: expected,
      arrayChain: expected,
      errorChain: expected,
      promiseChain: expected,
      reflect: expected,
      proxy: expected,
      symbolSpecies: expected,
      globals: [],
      hostFunctionIsSandboxFunction: true,
      stack: 'string',
    });
    expect((globalThis as Record<string, unknown>)['pwnedByModule']).toBeUndefined();
  });

  it('internal hooks are not reachable from the module', async () => {
    expect(
      await run(`return [typeof globalThis.__inseamInit, typeof globalThis.host, typeof globalThis.receive, typeof globalThis.post,
        Object.getOwnPropertySymbols(new Headers()).length > 0];`),
    ).toEqual(['undefined', 'undefined', 'undefined', 'undefined', true]);
  });

  it('errors handed back by host functions carry no host stack or path', async () => {
    const answer = (await run(`
      const out = [];
      try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xc3])); } catch (e) { out.push(e.message, String(e.stack)); }
      try { new URL('http://[bad'); } catch (e) { out.push(e.message, String(e.stack)); }
      return out;`)) as string[];
    expect(answer.join('\n')).not.toMatch(/node_modules|\/work\/|packages\/|\.ts:|file:/);
  });
});

describe('results cannot reach the platform prototypes', () => {
  it('__proto__ and constructor.prototype payloads are dropped; Object.prototype is untouched', async () => {
    const source = connectorModule(`
      async list() {
        const poisoned = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted2": "yes"}}, "ok": 1}');
        const page = JSON.parse('{"__proto__": {"isAdmin": true}, "entries": []}');
        page.entries.push({ path: 'a', extra: poisoned }, JSON.parse('{"path": "b", "__proto__": {"size": 1}, "prototype": {"x": 1}}'));
        return page;
      },
      async read() {}, async stat(path) { return JSON.parse('{"path": "s", "extra": {"nested": {"__proto__": {"deep": true}}}}'); },`);
    const connector = await host.load({ source, label: 'pollution', egress: passthroughEgress() });
    const page = await connector.list();
    const stat = await connector.stat('s');
    const probe = {} as Record<string, unknown>;
    expect(probe['polluted']).toBeUndefined();
    expect(probe['polluted2']).toBeUndefined();
    expect(probe['isAdmin']).toBeUndefined();
    expect(probe['deep']).toBeUndefined();
    expect(Object.getPrototypeOf(page)).toBe(Object.prototype);
    expect(page.entries[0]?.extra).toEqual({ ok: 1 });
    expect(Object.getOwnPropertyNames(page.entries[0]?.extra)).toEqual(['ok']);
    expect(page.entries[1]).toEqual({ path: 'b' });
    expect(stat?.extra).toEqual({ nested: {} });
    // A naive recursive merge of what came back (the classic gadget) pollutes nothing.
    const merge = (target: Record<string, unknown>, source: Record<string, unknown>): void => {
      for (const key of Object.keys(source)) {
        const value = source[key];
        if (typeof value === 'object' && value !== null) {
          if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
          merge(target[key] as Record<string, unknown>, value as Record<string, unknown>);
        } else target[key] = value;
      }
    };
    merge({}, page as unknown as Record<string, unknown>);
    merge({}, page.entries[0]?.extra as Record<string, unknown>);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted2']).toBeUndefined();
  });

  it('parseUntrustedJson drops the keys at any depth and leaves clean text alone', () => {
    expect(parseUntrustedJson('{"a":{"b":[{"__proto__":{"x":1},"constructor":2,"c":3}]}}')).toEqual({ a: { b: [{ c: 3 }] } });
    expect(parseUntrustedJson('{"name":"constructor","list":["__proto__"]}')).toEqual({ name: 'constructor', list: ['__proto__'] });
  });

  it('getters, toJSON and proxies in a result run inside the sandbox, under its limits', async () => {
    const source = connectorModule(`
      async list(opts) {
        if (opts.prefix === 'getter') return { entries: [{ get path() { for (;;) {} } }] };
        if (opts.prefix === 'toJSON') return { toJSON() { return { entries: [{ path: 'from toJSON' }] }; } };
        if (opts.prefix === 'proxy') return new Proxy({}, { ownKeys() { throw new Error('trap'); } });
        if (opts.prefix === 'cycle') { const a = { entries: [] }; a.self = a; return a; }
        if (opts.prefix === 'bigint') return { entries: [{ path: 'a', size: 10n }] };
        return { entries: [{ path: 'fine' }] };
      },
      async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'tricky-results', egress: passthroughEgress(), limits: { callTimeoutMs: 400 } });
    expect((await failure(connector.list({ prefix: 'getter' }))).code).toBe('sandbox_limit');
    expect((await connector.list({ prefix: 'toJSON' })).entries).toEqual([{ path: 'from toJSON' }]);
    expect((await failure(connector.list({ prefix: 'proxy' }))).code).toBe('connector_failed');
    const cycle = await failure(connector.list({ prefix: 'cycle' }));
    expect(cycle.code).toBe('connector_failed');
    expect(cycle.message).toMatch(/not JSON/);
    expect((await failure(connector.list({ prefix: 'bigint' }))).code).toBe('connector_failed');
    expect((await connector.list()).entries).toEqual([{ path: 'fine' }]);
  });
});

describe('bytes crossing the boundary', () => {
  it('a view of an ArrayBuffer resized or detached after it was handed over never yields bytes outside the buffer', async () => {
    const source = connectorModule(`
      async read(path) {
        const rab = new ArrayBuffer(8, { maxByteLength: 1 << 20 });
        new Uint8Array(rab).fill(7);
        const fixed = new Uint8Array(rab, 0, 8);
        const tracking = new Uint8Array(rab);
        return new ReadableStream({
          pull(c) {
            if (path === 'shrink') { c.enqueue(fixed); c.enqueue(tracking); rab.resize(2); c.close(); }
            else if (path === 'grow') { c.enqueue(tracking); rab.resize(1 << 20); c.close(); }
            else if (path === 'detach') { const b = new ArrayBuffer(16); c.enqueue(new Uint8Array(b)); b.transfer(); c.close(); }
            else { c.enqueue('not bytes'); }
          },
        });
      },
      async list() {
        const rab = new ArrayBuffer(16, { maxByteLength: 64 });
        const view = new Uint8Array(rab, 8, 8);
        rab.resize(4);
        const out = [];
        try { out.push(new TextDecoder().decode(view)); } catch (e) { out.push(e.name); }
        try { out.push(new TextEncoder().encodeInto('abc', view).written); } catch (e) { out.push(e.name); }
        try { out.push((await new Response(view).arrayBuffer()).byteLength); } catch (e) { out.push(e.name); }
        return { entries: [{ path: 'x', extra: { out } }] };
      },
      async stat() { return null; },`);
    const connector = await host.load({ source, label: 'resizer', egress: passthroughEgress() });
    for (const path of ['shrink', 'grow', 'detach']) {
      const outcome = await new Response(await connector.read(path)).arrayBuffer().then(
        (buffer) => ({ bytes: [...new Uint8Array(buffer)] }),
        (error: ConnectorError) => ({ code: error.code }),
      );
      if ('bytes' in outcome) {
        expect(outcome.bytes.every((byte) => byte === 7 || byte === 0)).toBe(true);
        expect(outcome.bytes.length).toBeLessThanOrEqual(1 << 20);
      } else {
        expect(['connector_failed']).toContain(outcome.code);
      }
    }
    const notBytes = await new Response(await connector.read('junk')).arrayBuffer().then(
      () => 'no error',
      (error: ConnectorError) => error.code,
    );
    expect(notBytes).toBe('connector_failed');
    expect((await connector.list()).entries[0]?.extra).toEqual({ out: expect.any(Array) });
  });
});

describe('fetch', () => {
  it('the platform side sees exactly what was asked; the gate decides', async () => {
    const seen: EgressRequest[] = [];
    const bodies: string[] = [];
    const egress = {
      async fetch(request: EgressRequest) {
        seen.push(request);
        if (request.body instanceof Uint8Array) bodies.push(Buffer.from(request.body).toString('utf8'));
        throw new EgressError('origin_refused', new URL(request.url).origin, 'refused by the test gate');
      },
    };
    const source = connectorModule(`
      async list() {
        const results = [];
        const tries = [
          ['http://169.254.169.254/latest/meta-data/iam?x=%2F..%2F&y=a b', { method: 'PATCH', body: 'payload', headers: { Authorization: 'Bearer forged', 'X-Amz-Date': '20200101T000000Z', 'x-custom': 'v' } }],
          ['file:///etc/passwd', {}],
          ['HTTP://LOCALHOST:80/../admin', { method: 'delete' }],
          ['https://example.com/x', { method: 'BREW' }],
        ];
        for (const [url, init] of tries) {
          try { await fetch(url, init); results.push('answered'); } catch (e) { results.push(e.name + ': ' + e.message); }
        }
        return { entries: [{ path: 'x', extra: { results } }] };
      },
      async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'asker', egress });
    const results = ((await connector.list()).entries[0]?.extra as { results: string[] }).results;
    expect(seen.map((request) => [request.method, request.url])).toEqual([
      ['PATCH', 'http://169.254.169.254/latest/meta-data/iam?x=%2F..%2F&y=a%20b'],
      ['GET', 'file:///etc/passwd'],
      ['DELETE', 'http://localhost/admin'],
    ]);
    expect(seen[0]?.headers).toEqual({ authorization: 'Bearer forged', 'content-type': 'text/plain;charset=UTF-8', 'x-amz-date': '20200101T000000Z', 'x-custom': 'v' });
    expect(bodies).toEqual(['payload']);
    expect(results.slice(0, 3).every((line) => line.startsWith('TypeError: fetch failed'))).toBe(true);
    expect(results[3]).toMatch(/TypeError: fetch failed: the method BREW is not one the egress gate sends/);
  });

  it('an abort reaches the egress port as an aborted signal', async () => {
    let aborted = false;
    const egress = {
      fetch: (request: EgressRequest) =>
        new Promise<never>((_, reject) => {
          request.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new EgressError('aborted', 'http://a.test', 'aborted'));
          });
        }),
    };
    const source = connectorModule(`
      async list() {
        const c = new AbortController();
        setTimeout(() => c.abort(), 20);
        try { await fetch('http://a.test/', { signal: c.signal }); } catch (e) { return { entries: [{ path: e.name }] }; }
      },
      async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'aborter', egress });
    expect((await connector.list()).entries).toEqual([{ path: 'AbortError' }]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(aborted).toBe(true);
  });
});

describe('resource exhaustion of the sandbox process', () => {
  it('timers are capped, log floods are cut, and work left behind when a call ends is dropped', async () => {
    const source = connectorModule(`
      async list(opts) {
        if (opts.prefix === 'timers') { let n = 0; try { for (let i = 0; i < 5000; i++) { setTimeout(() => {}, 100000); n++; } } catch (e) { return { entries: [{ path: e.name + ' after ' + n }] }; } }
        if (opts.prefix === 'flood') { for (let i = 0; i < 5000; i++) console.log('line ' + i); return { entries: [] }; }
        if (opts.prefix === 'leave') { setTimeout(() => { for (;;) {} }, 0); return { entries: [{ path: 'left a loop behind' }] }; }
        return { entries: [{ path: 'fine' }] };
      },
      async read() {}, async stat() { return null; },`);
    const connector = await host.load({ source, label: 'exhaust', egress: passthroughEgress() });
    expect((await connector.list({ prefix: 'timers' })).entries[0]?.path).toBe('TypeError after 1000');
    await connector.list({ prefix: 'flood' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = logs.filter((record) => record.module === 'exhaust' && record.origin === 'console').length;
    expect(lines).toBeLessThanOrEqual(200);
    expect((await connector.list({ prefix: 'leave' })).entries[0]?.path).toBe('left a loop behind');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    expect((await connector.list()).entries).toEqual([{ path: 'fine' }]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('the platform process stayed up through every attack', async () => {
    expect(process.connected === undefined || process.connected).toBe(true);
    expect((await run('return 1 + 1;'))).toBe(2);
  });
});
