import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import { readText, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest, rejection } from './__fixtures__/gate-helpers.js';
import { egressErrorToConnectorError } from './errors.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Per-path counters and a queue of held responses, for retry and concurrency tests. */
let hits = new Map<string, number>();
let held: ServerResponse[] = [];
let inFlight = 0;
let maxInFlight = 0;
let written = 0;
let server: TestServer;

beforeAll(async () => {
  server = await startServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const count = (hits.get(url.pathname) ?? 0) + 1;
    hits.set(url.pathname, count);
    switch (url.pathname) {
      case '/busy-then-ok': {
        if (count <= 2) {
          res.statusCode = 429;
          res.setHeader('retry-after', '0');
          res.end('slow down');
        } else res.end(`ok after ${count} (${body.length} bytes)`);
        return;
      }
      case '/always-503':
        res.statusCode = 503;
        res.end('down');
        return;
      case '/retry-after-long':
        res.statusCode = 429;
        res.setHeader('retry-after', '3600');
        res.end('come back in an hour');
        return;
      case '/retry-after-date':
        if (count === 1) {
          res.statusCode = 503;
          res.setHeader('retry-after', new Date(Date.now() + 1000).toUTCString());
          res.end('soon');
        } else res.end('ok');
        return;
      case '/hold':
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        held.push(res);
        res.on('close', () => {
          inFlight -= 1;
        });
        return;
      case '/big': {
        // Writes only as fast as the reader drains: `written` shows how far backpressure let it get.
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const total = 64 * 1024 * 1024;
        const pump = (): void => {
          while (written < total) {
            written += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
        return;
      }
      case '/no-content':
        res.statusCode = 204;
        res.end();
        return;
      default:
        res.end('default');
    }
  });
});
afterAll(async () => {
  await server.close();
});

function setup(options: Parameters<typeof gateUnderTest>[0] = {}) {
  hits = new Map();
  const under = gateUnderTest(options);
  const port = under.host({ auth: { origins: [server.origin], present: [] }, allowPrivateOrigins: [server.origin] });
  return { ...under, port };
}

describe('gate: 429 and 503', () => {
  it('retries a GET after Retry-After and records each attempt', async () => {
    const { port, recorder } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/busy-then-ok` });
    expect(response.status).toBe(200);
    expect(await readText(response)).toBe('ok after 3 (0 bytes)');
    expect(recorder.records.map((entry) => [entry.attempt, entry.status])).toEqual([
      [0, 429],
      [1, 429],
      [2, 200],
    ]);
  });

  it('retries a POST whose body is buffered, sending the body again', async () => {
    const { port } = setup();
    const response = await port.fetch({ method: 'POST', url: `${server.origin}/busy-then-ok`, body: new Uint8Array(5) });
    expect(await readText(response)).toBe('ok after 3 (5 bytes)');
  });

  it('never retries a streamed body: the 429 is the answer', async () => {
    const { port } = setup();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(3));
        controller.close();
      },
    });
    const response = await port.fetch({ method: 'PUT', url: `${server.origin}/busy-then-ok`, body, headers: { 'content-length': '3' } });
    expect(response.status).toBe(429);
    await readText(response);
    expect(hits.get('/busy-then-ok')).toBe(1);
  });

  it('gives up after maxRetries and hands back the last answer', async () => {
    const { port } = setup({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 50 } });
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/always-503` });
    expect(response.status).toBe(503);
    expect(await readText(response)).toBe('down');
    expect(hits.get('/always-503')).toBe(3);
  });

  it('does not sit through a Retry-After longer than its cap', async () => {
    const { port } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/retry-after-long` });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('3600');
    await readText(response);
    expect(hits.get('/retry-after-long')).toBe(1);
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    const { port, logs } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/retry-after-date` });
    expect(response.status).toBe(200);
    await readText(response);
    expect(hits.get('/retry-after-date')).toBe(2);
    expect(logs.some((line) => line.includes('retrying GET'))).toBe(true);
  });

  it('stops waiting when the request is aborted during the backoff', async () => {
    const { port } = setup({ retry: { baseDelayMs: 10_000, maxDelayMs: 20_000 } });
    const controller = new AbortController();
    const pending = port.fetch({ method: 'GET', url: `${server.origin}/always-503`, signal: controller.signal });
    await wait(50);
    controller.abort();
    expect((await rejection(pending)).failure).toBe('aborted');
  });
});

describe('gate: per-origin concurrency budget', () => {
  it('holds every host of one gate to the origin’s budget until bodies are done', async () => {
    held = [];
    maxInFlight = 0;
    const under = gateUnderTest({ perOriginConcurrency: 2 });
    const auth = { origins: [server.origin], present: [] };
    const first = under.host({ hostId: 'one', auth, allowPrivateOrigins: [server.origin] });
    const second = under.host({ hostId: 'two', auth, allowPrivateOrigins: [server.origin] });
    const calls = [first, second, first, second, first].map((port) => port.fetch({ method: 'GET', url: `${server.origin}/hold` }));
    const bodies: Promise<string>[] = [];
    calls.forEach((call) => bodies.push(call.then(readText)));
    for (let served = 0; served < 5; ) {
      await wait(20);
      expect(inFlight).toBeLessThanOrEqual(2);
      const next = held.shift();
      if (next === undefined) continue;
      next.end('done');
      served += 1;
    }
    expect(await Promise.all(bodies)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(maxInFlight).toBe(2);
    expect(new Set(under.recorder.records.map((entry) => entry.hostId))).toEqual(new Set(['one', 'two']));
  });

  it('frees the slot when the connector cancels a body it does not want', async () => {
    const { port } = setup({ perOriginConcurrency: 1 });
    const first = await port.fetch({ method: 'GET', url: `${server.origin}/default` });
    await first.body?.cancel();
    const second = await port.fetch({ method: 'GET', url: `${server.origin}/default` });
    expect(await readText(second)).toBe('default');
  });
});

describe('gate: streaming', () => {
  it('streams a response with backpressure: an unread body stops the server', async () => {
    written = 0;
    const { port } = setup();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/big` });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.value?.byteLength).toBeGreaterThan(0);
    await wait(300);
    // 64 MiB on offer; socket buffers hold a few MiB at most when nobody reads.
    expect(written).toBeLessThan(24 * 1024 * 1024);
    await reader.cancel();
  });

  it('streams a request body: the server sees the first part before the connector writes the rest', async () => {
    const received: string[] = [];
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      firstArrived = resolve;
    });
    const upload = await startServer(
      (req, res) => {
        req.on('data', (chunk: Buffer) => {
          received.push(chunk.toString());
          firstArrived();
        });
        req.on('end', () => res.end(received.join('|')));
      },
      { readBody: false },
    );
    const under = gateUnderTest();
    const port = under.host({ auth: { origins: [upload.origin], present: [] }, allowPrivateOrigins: [upload.origin] });
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        step += 1;
        if (step === 1) controller.enqueue(new TextEncoder().encode('first'));
        else if (step === 2) {
          const timeout = wait(5000).then(() => {
            throw new Error('the gate buffered the body instead of streaming it');
          });
          await Promise.race([arrived, timeout]);
          controller.enqueue(new TextEncoder().encode('second'));
        } else controller.close();
      },
    });
    const response = await port.fetch({ method: 'PUT', url: `${upload.origin}/up`, body });
    expect(await readText(response)).toBe('first|second');
    await upload.close();
  });

  it('gives a null body for HEAD and 204', async () => {
    const { port } = setup();
    expect((await port.fetch({ method: 'HEAD', url: `${server.origin}/default` })).body).toBeNull();
    expect((await port.fetch({ method: 'GET', url: `${server.origin}/no-content` })).body).toBeNull();
  });

  it('aborts a request waiting for its answer, and errors a body being read', async () => {
    held = [];
    const { port } = setup();
    const controller = new AbortController();
    const pending = port.fetch({ method: 'GET', url: `${server.origin}/hold`, signal: controller.signal });
    await wait(30);
    controller.abort();
    expect((await rejection(pending)).failure).toBe('aborted');
    held.forEach((res) => res.end());

    written = 0;
    const reading = new AbortController();
    const response = await port.fetch({ method: 'GET', url: `${server.origin}/big`, signal: reading.signal });
    const reader = response.body!.getReader();
    await reader.read();
    reading.abort();
    let failure: unknown;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ failure: 'aborted' });
  });

  it('cancels the connector’s request body when the request is aborted mid-upload', async () => {
    held = [];
    const { port } = setup();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(16));
        return wait(20).then(() => undefined);
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const pending = port.fetch({ method: 'PUT', url: `${server.origin}/hold`, body, signal: controller.signal });
    await wait(60);
    controller.abort();
    expect((await rejection(pending)).failure).toBe('aborted');
    await wait(20);
    expect(cancelled).toBe(true);
  });

  it('cancels the request body of a refused request, which was never sent', async () => {
    const { port } = setup();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      cancel() {
        cancelled = true;
      },
    });
    await rejection(port.fetch({ method: 'PUT', url: 'https://undeclared.example.test/x', body }));
    await wait(5);
    expect(cancelled).toBe(true);
  });

  it('rejects a request aborted before it starts', async () => {
    const { port, recorder } = setup();
    const error = await rejection(port.fetch({ method: 'GET', url: `${server.origin}/`, signal: AbortSignal.abort() }));
    expect(error.failure).toBe('aborted');
    expect(recorder.records).toEqual([]);
  });
});

describe('gate: records and typed errors', () => {
  it('records origin, method, decision, status and duration for each attempt — no path or query', async () => {
    const { port, recorder } = setup();
    await readText(await port.fetch({ method: 'get' as 'GET', url: `${server.origin}/default?q=private-words` }));
    const [entry] = recorder.records;
    expect(entry).toMatchObject({ hostId: 'test-host', origin: server.origin, method: 'GET', decision: 'allow', status: 200, hop: 0, attempt: 0, credentialed: false });
    expect(entry?.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(entry?.at ?? '')).not.toBeNaN();
    expect(JSON.stringify(recorder.records)).not.toContain('private-words');
  });

  it('maps a refusal to egress_refused and other failures to their ConnectorError codes', async () => {
    const { port } = setup();
    const refused = egressErrorToConnectorError(await rejection(port.fetch({ method: 'GET', url: 'https://undeclared.example.test/p?token=1' })));
    expect(hasErrorCode(refused, 'egress_refused')).toBe(true);
    expect(refused.details).toEqual({ origin: 'https://undeclared.example.test', reason: 'origin_not_declared' });
    expect(refused.message).toContain('https://undeclared.example.test');
    expect(refused.message).not.toContain('token');
    const invalid = egressErrorToConnectorError(await rejection(port.fetch({ method: 'GET', url: 'nope' })));
    expect(hasErrorCode(invalid, 'invalid_argument')).toBe(true);
    const aborted = egressErrorToConnectorError(await rejection(port.fetch({ method: 'GET', url: `${server.origin}/`, signal: AbortSignal.abort() })));
    expect(hasErrorCode(aborted, 'timeout')).toBe(true);
  });
});
