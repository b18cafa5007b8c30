/**
 * The prelude's web APIs, exercised inside a real sandbox (QuickJS in the sandbox process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxedConnector } from './sandboxed-connector.js';
import { SandboxHost, type SandboxLogRecord } from './host.js';
import { passthroughEgress } from './__fixtures__/egress.js';
import { RUNNER } from './__fixtures__/modules.js';

const logs: SandboxLogRecord[] = [];
const host = new SandboxHost({ log: (record) => logs.push(record) });
let runner: SandboxedConnector;

beforeAll(async () => {
  runner = await host.load({ source: RUNNER, label: 'runner', egress: passthroughEgress() });
});
afterAll(() => host.close());

async function run(code: string): Promise<unknown> {
  const page = await runner.list({ prefix: code });
  const extra = page.entries[0]?.extra as { value?: unknown; error?: string };
  if (extra.error !== undefined) throw new Error(extra.error);
  return extra.value;
}

describe('prelude: what a module sees', () => {
  it('has the web APIs a connector needs and nothing of the host', async () => {
    const kinds = await run(`return [
      typeof fetch, typeof ReadableStream, typeof WritableStream, typeof TextEncoder, typeof TextDecoder, typeof URL,
      typeof URLSearchParams, typeof Headers, typeof Request, typeof Response, typeof AbortController, typeof atob,
      typeof btoa, typeof setTimeout, typeof clearTimeout, typeof console,
      typeof process, typeof require, typeof module, typeof Buffer, typeof globalThis.__inseamInit, typeof host,
    ];`);
    expect(kinds).toEqual([...Array<string>(15).fill('function'), 'object', ...Array<string>(6).fill('undefined')]);
  });

  it('TextEncoder and TextDecoder speak UTF-8, including split sequences, BOMs and fatal mode', async () => {
    expect(
      await run(`
        const bytes = new TextEncoder().encode('zß€😀');
        const d = new TextDecoder();
        let streamed = '';
        for (const b of bytes) streamed += d.decode(new Uint8Array([b]), { stream: true });
        streamed += d.decode();
        let fatal = null;
        try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { fatal = e.name; }
        const into = new Uint8Array(4);
        const r = new TextEncoder().encodeInto('a€b', into);
        return [Array.from(bytes), streamed, new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])),
          new TextDecoder().decode(new Uint8Array([0x41, 0xff])), fatal, r, Array.from(into)];`),
    ).toEqual([
      [0x7a, 0xc3, 0x9f, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80],
      'zß€😀',
      'A',
      'A\ufffd',
      'TypeError',
      { read: 2, written: 4 },
      [0x61, 0xe2, 0x82, 0xac],
    ]);
  });

  it('atob and btoa round-trip and refuse what the spec refuses', async () => {
    expect(
      await run(`
        const errors = [];
        try { btoa('€'); } catch (e) { errors.push(e.name); }
        try { atob('a'); } catch (e) { errors.push(e.name); }
        return [btoa('hello'), atob('aGVsbG8='), atob(' aGVs bG8 '), btoa(''), atob(btoa('\\x00\\xff')).length, errors];`),
    ).toEqual(['aGVsbG8=', 'hello', 'hello', '', 2, ['InvalidCharacterError', 'InvalidCharacterError']]);
  });

  it('URL and URLSearchParams follow the WHATWG parser, with linked search params', async () => {
    expect(
      await run(`
        const u = new URL('../b/c?x=1#f', 'https://Example.COM:443/a/d');
        u.searchParams.append('y', 'a b&c');
        u.pathname = '/p q';
        const sp = new URLSearchParams('?b=2&a=1&b=1');
        sp.sort();
        let invalid = null;
        try { new URL('not a url'); } catch (e) { invalid = e.name; }
        return [u.href, u.origin, u.host, u.search, u.hash, sp.toString(), sp.getAll('b'), URL.canParse('x:/y'), invalid,
          new URLSearchParams({ k: 'v w' }).toString(), String(new URL('http://[::1]:8080/').hostname)];`),
    ).toEqual([
      'https://example.com/p%20q?x=1&y=a+b%26c#f',
      'https://example.com',
      'example.com',
      '?x=1&y=a+b%26c',
      '#f',
      'a=1&b=2&b=1',
      ['2', '1'],
      true,
      'TypeError',
      'k=v+w',
      '[::1]',
    ]);
  });

  it('Headers are case-insensitive, combine repeats and refuse bad names and values', async () => {
    expect(
      await run(`
        const h = new Headers({ 'Content-Type': 'text/plain' });
        h.append('X-A', '1'); h.append('x-a', '2'); h.append('Set-Cookie', 'a=1'); h.append('set-cookie', 'b=2');
        const errors = [];
        try { h.set('bad name', 'x'); } catch (e) { errors.push(e.name); }
        try { h.set('x-b', 'a\\r\\nb'); } catch (e) { errors.push(e.name); }
        return [h.get('content-type'), h.get('X-A'), [...h], h.has('X-a'), h.getSetCookie(), errors];`),
    ).toEqual([
      'text/plain',
      '1, 2',
      [['content-type', 'text/plain'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['x-a', '1, 2']],
      true,
      ['a=1', 'b=2'],
      ['TypeError', 'TypeError'],
    ]);
  });

  it('Response and Request bodies read as text, JSON and bytes, once, and clone', async () => {
    expect(
      await run(`
        const r = new Response('{"a":[1,2]}', { status: 201, headers: { 'x-y': 'z' } });
        const c = r.clone();
        const json = await r.json();
        let again = null;
        try { await r.text(); } catch (e) { again = e.name; }
        const bytes = new Uint8Array(await new Response(new Uint8Array([1, 2, 3])).arrayBuffer());
        const streamed = await new Response(new ReadableStream({ start(ctl) { ctl.enqueue(new TextEncoder().encode('ab')); ctl.enqueue(new TextEncoder().encode('c')); ctl.close(); } })).text();
        const req = new Request('https://h.test/x', { method: 'post', body: 'hi' });
        let badStatus = null;
        try { new Response('', { status: 99 }); } catch (e) { badStatus = e.name; }
        const j = Response.json({ k: 1 });
        return [json, await c.text(), r.status, r.ok, c.headers.get('x-y'), again, Array.from(bytes), streamed,
          req.method, req.headers.get('content-type'), await req.text(), badStatus, j.headers.get('content-type'), await j.json(), r.bodyUsed];`),
    ).toEqual([
      { a: [1, 2] },
      '{"a":[1,2]}',
      201,
      true,
      'z',
      'TypeError',
      [1, 2, 3],
      'abc',
      'POST',
      'text/plain;charset=UTF-8',
      'hi',
      'RangeError',
      'application/json',
      { k: 1 },
      true,
    ]);
  });

  it('ReadableStream pulls with backpressure, tees, iterates, pipes and builds from iterables', async () => {
    expect(
      await run(`
        const pulls = [];
        let n = 0;
        const s = new ReadableStream({ pull(c) { pulls.push(c.desiredSize); n++; if (n > 3) c.close(); else c.enqueue(n); } }, { highWaterMark: 2 });
        await new Promise((r) => setTimeout(r, 0));
        const beforeRead = pulls.length;
        const [a, b] = s.tee();
        const seenA = [];
        for await (const v of a) seenA.push(v);
        const seenB = [];
        const reader = b.getReader();
        for (;;) { const step = await reader.read(); if (step.done) break; seenB.push(step.value); }
        const written = [];
        await ReadableStream.from([1, 2, 3]).pipeTo(new WritableStream({ write(chunk) { written.push(chunk * 10); } }));
        const cancelled = [];
        const cs = new ReadableStream({ pull(c) { c.enqueue(1); }, cancel(reason) { cancelled.push(reason); } });
        const r2 = cs.getReader();
        await r2.read();
        await r2.cancel('enough');
        let locked = null;
        const ls = new ReadableStream();
        ls.getReader();
        try { ls.getReader(); } catch (e) { locked = e.name; }
        return [beforeRead, seenA, seenB, written, cancelled, locked];`),
    ).toEqual([2, [1, 2, 3], [1, 2, 3], [10, 20, 30], ['enough'], 'TypeError']);
  });

  it('WritableStream writes in order, signals backpressure and reports sink errors', async () => {
    expect(
      await run(`
        const seen = [];
        const ws = new WritableStream({ async write(chunk) { await null; seen.push(chunk); } }, { highWaterMark: 1 });
        const w = ws.getWriter();
        const sizes = [w.desiredSize];
        const p1 = w.write('a');
        sizes.push(w.desiredSize);
        await p1;
        await w.write('b');
        await w.close();
        const failing = new WritableStream({ write() { throw new Error('sink says no'); } }).getWriter();
        let error = null;
        try { await failing.write('x'); } catch (e) { error = e.message; }
        return [seen, sizes, error];`),
    ).toEqual([['a', 'b'], [1, 0], 'sink says no']);
  });

  it('AbortController, timers and queueMicrotask behave within a call', async () => {
    expect(
      await run(`
        const order = [];
        const c = new AbortController();
        c.signal.addEventListener('abort', () => order.push('abort:' + c.signal.reason));
        c.abort('why');
        const t = setTimeout(() => order.push('cleared'), 5);
        clearTimeout(t);
        await new Promise((r) => setTimeout(() => { order.push('timeout'); r(); }, 10));
        let ticks = 0;
        await new Promise((r) => { const i = setInterval(() => { ticks++; if (ticks === 3) { clearInterval(i); r(); } }, 1); });
        queueMicrotask(() => order.push('micro'));
        await null;
        const timedOut = await new Promise((r) => { const s = AbortSignal.timeout(5); s.onabort = () => r(s.reason.name); });
        let thrown = null;
        try { c.signal.throwIfAborted(); } catch (e) { thrown = e; }
        return [order, ticks, timedOut, thrown, AbortSignal.abort().reason.name];`),
    ).toEqual([['abort:why', 'timeout', 'micro'], 3, 'TimeoutError', 'why', 'AbortError']);
  });

  it('console writes to the log sink, cut to a line cap, and never to the platform console', async () => {
    logs.length = 0;
    await run(`console.log('hello', { a: 1 }, [2]); console.error(new TypeError('boom')); console.warn('x'.repeat(10000)); return null;`);
    const lines = logs.filter((record) => record.origin === 'console');
    expect(lines.map((record) => record.level)).toEqual(['info', 'error', 'warn']);
    expect(lines[0]).toMatchObject({ module: 'runner', message: 'hello {"a":1} [2]' });
    expect(lines[1]?.message).toContain('TypeError: boom');
    expect(lines[2]?.message.length).toBeLessThan(4200);
  });

  it('timers cannot evaluate strings', async () => {
    await expect(run(`setTimeout('globalThis.x = 1', 0); return null;`)).rejects.toThrow(/TypeError/);
  });
});
