/**
 * Listings read one page ahead in the sandbox process (read-ahead.ts), end to end: a real sandbox
 * process and a module that records every list() call it gets.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxHost } from './host.js';
import { ModuleInstance } from './runtime.js';
import type { WireMessage } from './protocol.js';
import { connectorModule } from './__fixtures__/modules.js';
import { cursorInOutcome, listCallOf, nextPageSpec, ReadAheads, READ_AHEAD_MAX_AGE_MS } from './read-ahead.js';

/**
 * Pages c0 (no cursor) … c4; each entry's extra says how often the module was asked for that page.
 * stat() answers the list() calls so far, in order. `config.delayMs` holds each page back;
 * `config.failOnce` fails the first call for that cursor.
 */
const PAGES = connectorModule(`
    async list(opts) {
      const cursor = opts.cursor === undefined ? 'c0' : opts.cursor;
      calls.push(cursor);
      if (config.delayMs) await new Promise((resolve) => setTimeout(resolve, config.delayMs));
      if (cursor === config.failOnce && !failed) { failed = true; const e = new Error('try again'); e.code = 'unavailable'; throw e; }
      const n = Number(cursor.slice(1));
      const entries = [{ path: (opts.prefix || '') + cursor, extra: { asked: calls.filter((c) => c === cursor).length } }];
      return n < 4 ? { entries, cursor: 'c' + (n + 1) } : { entries };
    },
    async stat() { return { path: 'log', extra: { calls } }; },
    async read() { return new ReadableStream({ start(c) { c.close(); } }); },
`).replace('return {', 'const calls = []; let failed = false;\n  return {');

const hosts: SandboxHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
});

async function load(config: Record<string, unknown> = {}, listReadAhead?: boolean) {
  const host = new SandboxHost(listReadAhead === undefined ? {} : { listReadAhead });
  hosts.push(host);
  const connector = await host.load({ source: PAGES, label: 'pages', config, egress: { fetch: async () => Promise.reject(new Error('no fetch')) } });
  const calls = async (): Promise<string[]> => ((await connector.stat('log'))?.extra as { calls: string[] }).calls;
  /** The module's calls once `cursor` has been asked for (or after 0.6 s, whichever is first). */
  const callsOnce = async (cursor: string): Promise<string[]> => {
    for (let waited = 0; waited < 600; waited += 20) {
      const seen = await calls();
      if (seen.includes(cursor)) return seen;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return calls();
  };
  return { connector, calls, callsOnce };
}

describe('list read-ahead', () => {
  it('reads the next page once the caller continues a listing, and answers it from there (run once)', async () => {
    const { connector, callsOnce } = await load();
    expect((await connector.list()).cursor).toBe('c1');
    // A first page does not read ahead: nothing shows the caller will page on.
    expect(await callsOnce('c1')).toEqual(['c0']);
    const second = await connector.list({ cursor: 'c1' });
    expect(second.cursor).toBe('c2');
    expect(await callsOnce('c2')).toEqual(['c0', 'c1', 'c2']);
    const third = await connector.list({ cursor: 'c2' });
    expect(third.entries).toEqual([{ path: 'c2', extra: { asked: 1 } }]);
    expect(third.cursor).toBe('c3');
    const pages = [await connector.list({ cursor: 'c3' }), await connector.list({ cursor: 'c4' })];
    expect(pages.map((page) => page.entries[0]?.path)).toEqual(['c3', 'c4']);
    expect(pages[1]?.cursor).toBeUndefined();
    // Every page once, and nothing read past the end of the listing.
    expect(await callsOnce('c5')).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  it('a call still waiting on the read-ahead takes its page instead of running the module again', async () => {
    const { connector, calls } = await load({ delayMs: 150 });
    await connector.list();
    await connector.list({ cursor: 'c1' });
    const page = await connector.list({ cursor: 'c2' });
    expect(page.entries).toEqual([{ path: 'c2', extra: { asked: 1 } }]);
    expect((await calls()).filter((cursor) => cursor === 'c2')).toEqual(['c2']);
  });

  it('drops the read-ahead when the caller asks for another cursor or another listing', async () => {
    const { connector, callsOnce, calls } = await load();
    await connector.list();
    await connector.list({ cursor: 'c1' });
    await callsOnce('c2');
    // Asked for c1 again (a caller slicing a page re-lists it): c2's page is dropped, and this
    // call, not continuing from the last cursor, reads nothing ahead.
    expect((await connector.list({ cursor: 'c1' })).entries[0]?.extra).toEqual({ asked: 2 });
    const page = await connector.list({ cursor: 'c2' });
    expect(page.entries[0]?.extra).toEqual({ asked: 2 });
    // Another prefix is another listing: its first page reads nothing ahead and keeps c3's read-ahead apart.
    await callsOnce('c3');
    const other = await connector.list({ prefix: 'x/', cursor: 'c3' });
    expect(other.entries[0]).toEqual({ path: 'x/c3', extra: { asked: 2 } });
    // The page read ahead before x/c3 ran (asked once then), handed out without a third call.
    expect((await connector.list({ cursor: 'c3' })).entries[0]?.extra).toEqual({ asked: 1 });
    expect((await calls()).filter((cursor) => cursor === 'c3')).toHaveLength(2);
  });

  it('a read-ahead that failed is not handed out: the call runs afresh', async () => {
    const { connector, callsOnce } = await load({ failOnce: 'c2' });
    await connector.list();
    await connector.list({ cursor: 'c1' });
    await callsOnce('c2');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const page = await connector.list({ cursor: 'c2' });
    expect(page.entries[0]).toEqual({ path: 'c2', extra: { asked: 2 } });
  });

  it('a failure of the read-ahead a call is waiting on is that call’s failure', async () => {
    const { connector } = await load({ failOnce: 'c2', delayMs: 100 });
    await connector.list();
    await connector.list({ cursor: 'c1' });
    await expect(connector.list({ cursor: 'c2' })).rejects.toMatchObject({ code: 'unavailable' });
    expect((await connector.list({ cursor: 'c2' })).entries[0]?.extra).toEqual({ asked: 2 });
  });

  it('listReadAhead: false runs every list() when it is asked for, and no other', async () => {
    const { connector, callsOnce } = await load({}, false);
    await connector.list();
    await connector.list({ cursor: 'c1' });
    expect(await callsOnce('c2')).toEqual(['c0', 'c1']);
  });
});

/**
 * When the page after a continued one starts, seen from the sandbox process's side: the messages a
 * ModuleInstance sends, with a mark where the turn after the page's result begins. The module logs
 * each list() as it starts; `wait` makes list() wait on a timer first, as a fetch would.
 */
async function readAheadOrder(wait: boolean): Promise<string[]> {
  const source = connectorModule(`
    async list(opts) {
      const cursor = opts.cursor === undefined ? 'c0' : opts.cursor;
      console.log('list ' + cursor);
      ${wait ? 'await new Promise((resolve) => setTimeout(resolve, 1));' : ''}
      return { entries: [{ path: cursor }], cursor: 'c' + (Number(cursor.slice(1)) + 1) };
    },
    async read() {}, async stat() { return null; },`);
  const seen: string[] = [];
  let answered: () => void = () => undefined;
  const second = new Promise<void>((resolve) => {
    answered = resolve;
  });
  let firstOut: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    firstOut = resolve;
  });
  const spec = { source, filename: 'order.js', config: {}, memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024, loadTimeoutMs: 5000, listReadAhead: true };
  const instance = new ModuleInstance(1, spec, (message: WireMessage) => {
    if (message.op === 'log') seen.push(JSON.parse(message.j ?? '""') as string);
    if (message.op !== 'result') return;
    seen.push(`page ${message.id}`);
    if (message.id === 1) firstOut();
    if (message.id === 2) setImmediate(() => {
      seen.push('next turn');
      setTimeout(answered, 20);
    });
  });
  const call = (id: number, cursor?: string): void => {
    instance.handle({ i: 1, op: 'call', id, j: JSON.stringify({ method: 'list', args: [cursor === undefined ? {} : { cursor }], timeoutMs: 5000 }) });
    instance.pump();
  };
  try {
    call(1);
    // The second call follows the first page, however long the module took to load and run.
    await first;
    call(2, 'c1');
    await second;
    return seen;
  } finally {
    instance.dispose();
  }
}

describe('when the page ahead starts', () => {
  it('a list() that waited on something starts the next page before the turn ends, after its own page', async () => {
    // Its request then leaves in the same batch as the page, behind it.
    expect(await readAheadOrder(true)).toEqual(['list c0', 'page 1', 'list c1', 'page 2', 'list c2', 'next turn']);
  });

  it('a list() that did not wait starts the next page only after its own page has gone out', async () => {
    expect(await readAheadOrder(false)).toEqual(['list c0', 'page 1', 'list c1', 'page 2', 'next turn', 'list c2']);
  });

  it('a read-ahead that breaks its memory limit as it starts does not take the page before it down', async () => {
    const source = connectorModule(`
      async list(opts) {
        const cursor = opts.cursor === undefined ? 'c0' : opts.cursor;
        if (cursor === 'c2') { const keep = []; for (;;) keep.push(new Array(100000).fill(keep.length)); }
        await new Promise((resolve) => setTimeout(resolve, 1));
        return { entries: [{ path: cursor }], cursor: 'c' + (Number(cursor.slice(1)) + 1) };
      },
      async read() {}, async stat() { return null; },`);
    const host = new SandboxHost({ limits: { callTimeoutMs: 2000, memoryBytes: 32 * 1024 * 1024 } });
    hosts.push(host);
    const connector = await host.load({ source, label: 'bomb-ahead', egress: { fetch: async () => Promise.reject(new Error('no fetch')) } });
    await connector.list();
    // The page for c2 starts in the same turn as c1's page is sent, and breaks the limit there:
    // the reset follows c1's page in one batch, and c1 still arrives whole.
    expect(await connector.list({ cursor: 'c1' })).toEqual({ entries: [{ path: 'c1' }], cursor: 'c2' });
    await expect(connector.list({ cursor: 'c2' })).rejects.toMatchObject({ code: 'sandbox_limit', details: { limit: 'memory' } });
    expect((await connector.list()).entries).toEqual([{ path: 'c0' }]);
  });
});

describe('read-ahead rules', () => {
  const call = (options: Record<string, unknown>, method = 'list') => listCallOf({ method, args: [options], timeoutMs: 1000 }, 1000);

  it('takes only list() calls of string prefix, cursor, since and order', () => {
    expect(call({ cursor: 'a' })?.cursor).toBe('a');
    expect(call({ cursor: 'a' }, 'stat')).toBeUndefined();
    expect(call({ cursor: 1 })).toBeUndefined();
    expect(call({ cursor: 'a', extra: 'x' })).toBeUndefined();
    expect(listCallOf({ method: 'list', args: [{}, {}] }, 1)).toBeUndefined();
    expect(listCallOf('list', 1)).toBeUndefined();
    expect(listCallOf({ method: 'list', args: [] }, 1)?.cursor).toBeUndefined();
    expect(call({ prefix: 'p/', since: 's' })?.key).not.toBe(call({ prefix: 'p/' })?.key);
  });

  it('writes the next page’s call with the same options and the new cursor', () => {
    const first = call({ prefix: 'p/', cursor: 'a', order: 'newest' });
    expect(first).toBeDefined();
    expect(JSON.parse(nextPageSpec(first!, 'b'))).toEqual({ method: 'list', args: [{ prefix: 'p/', cursor: 'b', order: 'newest' }], timeoutMs: 1000 });
  });

  it('reads a cursor from an outcome text, and nothing from anything else', () => {
    expect(cursorInOutcome('{"ok":true,"value":{"entries":[],"cursor":"n"}}')).toBe('n');
    expect(cursorInOutcome('{"ok":true,"value":{"entries":[],"cursor":5}}')).toBeUndefined();
    expect(cursorInOutcome('{"ok":true,"value":null}')).toBeUndefined();
    expect(cursorInOutcome('{"ok":tr')).toBeUndefined();
  });

  it('hands out a finished page only for the same listing and cursor, and not once it is stale', () => {
    const aheads = new ReadAheads();
    const first = call({ cursor: 'a' })!;
    expect(aheads.pageSent(call({})!, 'a')).toBe(false);
    expect(aheads.pageSent(first, 'b')).toBe(true);
    const ahead = aheads.start(-1, first, 'b');
    ahead.outcome = '{"ok":true,"value":{"entries":[]}}';
    ahead.settledAt = 1_000;
    expect(aheads.take(call({ prefix: 'q/', cursor: 'b' })!, 1_000)).toBeUndefined();
    expect(aheads.holds(ahead)).toBe(true);
    expect(aheads.take(call({ cursor: 'b' })!, 1_000 + READ_AHEAD_MAX_AGE_MS + 1)).toBeUndefined();
    expect(aheads.holds(ahead)).toBe(false);
    const again = aheads.start(-2, first, 'b');
    expect(aheads.take(call({ cursor: 'c' })!, 0)).toBeUndefined();
    expect(aheads.holds(again)).toBe(false);
    const running = aheads.start(-3, first, 'b');
    expect(aheads.take(call({ cursor: 'b' })!, 0)).toBe(running);
    running.claimedBy = 7;
    // A second call for the same page while the first waits runs on its own.
    expect(aheads.take(call({ cursor: 'b' })!, 0)).toBeUndefined();
    expect(aheads.byId(-3)).toBe(running);
  });
});
