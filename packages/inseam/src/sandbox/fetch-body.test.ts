/**
 * Fetch response bodies start with the stream window already granted (protocol.ts): the platform
 * sends the first chunks right behind the head, and the prelude asks for more only as the module
 * reads. Driven on a ModuleInstance in this process, so every message it sends is seen.
 */
import { describe, expect, it } from 'vitest';
import { decodeBinaryJson } from './binary-json.js';
import { STREAM_WINDOW, type WireMessage } from './protocol.js';
import { ModuleInstance } from './runtime.js';
import { OutboundPump } from './wire-streams.js';
import { connectorModule } from './__fixtures__/modules.js';

const FETCHER = connectorModule(`
    async list(opts) {
      if (opts.prefix === 'abort') {
        const controller = new AbortController();
        const pending = fetch('http://127.0.0.1/a', { signal: controller.signal });
        controller.abort();
        try { await pending; } catch (error) { return { entries: [{ path: 'aborted' }] }; }
        return { entries: [] };
      }
      const response = await fetch('http://127.0.0.1/b');
      return { entries: [{ path: await response.text() }] };
    },
    read() {}, stat() { return null; },`);

function instance(): { module: ModuleInstance; sent: WireMessage[]; next: (op: string) => Promise<WireMessage> } {
  const sent: WireMessage[] = [];
  const taken = new Set<WireMessage>();
  const waiters: { op: string; resolve: (message: WireMessage) => void }[] = [];
  const module = new ModuleInstance(1, { source: FETCHER, filename: 'fetcher.js', config: {}, memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024, loadTimeoutMs: 5000, listReadAhead: false }, (message) => {
    sent.push(message);
    const at = waiters.findIndex((waiter) => waiter.op === message.op);
    if (at >= 0) waiters.splice(at, 1)[0]?.resolve(message);
  });
  const next = (op: string): Promise<WireMessage> => {
    const seen = sent.find((message) => message.op === op && !taken.has(message));
    if (seen !== undefined) {
      taken.add(seen);
      return Promise.resolve(seen);
    }
    return new Promise((resolve) =>
      waiters.push({
        op,
        resolve: (message) => {
          taken.add(message);
          resolve(message);
        },
      }),
    );
  };
  return { module, sent, next };
}

function deliver(module: ModuleInstance, ...messages: WireMessage[]): void {
  for (const message of messages) module.handle(message);
  module.pump();
}

const call = (prefix: string): WireMessage => ({ i: 1, op: 'call', id: 1, j: JSON.stringify({ method: 'list', args: [{ prefix }], timeoutMs: 5000 }) });

describe('fetch response bodies', () => {
  it('ask for no credit when the head arrives, and only for what the module has taken after', async () => {
    const { module, sent, next } = instance();
    try {
      deliver(module, call('read'));
      const fetch = await next('fetch');
      deliver(module, { i: 1, op: 'fetchHead', id: fetch.id, j: JSON.stringify({ status: 200, headers: [], body: 77 }) });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(sent.filter((message) => message.op === 'credit')).toEqual([]);
      const chunks = ['ab', 'cd', 'ef'].map((text): WireMessage => ({ i: 1, op: 'chunk', id: 77, b: new TextEncoder().encode(text) }));
      deliver(module, ...chunks, { i: 1, op: 'end', id: 77 });
      const result = await next('result');
      expect(decodeBinaryJson(result.b ?? new Uint8Array(0))).toEqual({ entries: [{ path: 'abcdef' }] });
      const credits = sent.filter((message) => message.op === 'credit' && message.id === 77).reduce((sum, message) => sum + Number(message.j), 0);
      // The window was granted up front; what the module took is all it asked back, never more than it read.
      expect(credits).toBeLessThanOrEqual(chunks.length);
    } finally {
      module.dispose();
    }
  });

  it('a body whose fetch was aborted before the head is cancelled at once', async () => {
    const { module, next } = instance();
    try {
      deliver(module, call('abort'));
      const fetch = await next('fetch');
      await next('result');
      deliver(module, { i: 1, op: 'fetchHead', id: fetch.id, j: JSON.stringify({ status: 200, headers: [], body: 78 }) });
      expect((await next('cancel')).id).toBe(78);
    } finally {
      module.dispose();
    }
  });
});

describe('OutboundPump', () => {
  it('sends up to the credit granted from the start without being asked, then waits; chunks ready at once travel together, in order', async () => {
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new Uint8Array([pulls % 256]));
      },
    });
    const chunks: Uint8Array[] = [];
    const pump = new OutboundPump(source, { chunk: (bytes) => chunks.push(bytes), end: () => undefined, error: () => undefined }, () => undefined, STREAM_WINDOW);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // One message per credit; each carries many one-byte source chunks (the source always has one ready).
    expect(chunks).toHaveLength(STREAM_WINDOW);
    expect(chunks.every((bytes) => bytes.byteLength > 1)).toBe(true);
    pump.credit(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(chunks).toHaveLength(STREAM_WINDOW + 2);
    const bytes = chunks.flatMap((chunk) => [...chunk]);
    expect(bytes).toEqual(Array.from({ length: bytes.length }, (_, index) => (index + 1) % 256));
    // Each message is its own buffer, never a view into a larger one.
    expect(chunks.every((chunk) => chunk.byteOffset === 0 && chunk.buffer.byteLength === chunk.byteLength)).toBe(true);
    pump.cancel();
  });

  it('sends a finite body whole and in order, then end; a chunk that trickles in later is not held back', async () => {
    const events: string[] = [];
    let push: ((bytes: Uint8Array | null) => void) | undefined;
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 10; index++) controller.enqueue(new Uint8Array(1000).fill(index));
        push = (bytes) => (bytes === null ? controller.close() : controller.enqueue(bytes));
      },
    });
    const received: Uint8Array[] = [];
    new OutboundPump(source, { chunk: (bytes) => (received.push(bytes), events.push(`chunk ${bytes.byteLength}`)), end: () => events.push('end'), error: (message) => events.push(`error ${message}`) }, () => undefined, STREAM_WINDOW);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The ten chunks that were ready went as one message, and nothing waits for more.
    expect(events).toEqual(['chunk 10000']);
    push!(new Uint8Array([42]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['chunk 10000', 'chunk 1']);
    push!(null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['chunk 10000', 'chunk 1', 'end']);
    const all = received.flatMap((chunk) => [...chunk]);
    expect(all).toEqual([...Array.from({ length: 10 }, (_, index) => Array(1000).fill(index)).flat(), 42]);
  });
});
