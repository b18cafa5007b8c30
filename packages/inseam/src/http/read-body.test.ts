/**
 * GET /v1/fs/read writes its body itself from two reused buffers (byte-body.ts), so what Fastify
 * did for it is pinned here over real HTTP: bytes exact across many chunks and ranges, HEAD, the
 * headers of the route and of the server's hooks (`Connection: close` while shutting down), a
 * stream failing before its first byte (the envelope) and after it (a broken body, never a
 * complete-looking one), a body short of its Content-Length, and a client going away releasing the
 * host's stream. The fs service is the real one over a real fs host; a subclass wraps the stream
 * it opens to make it fail, stall or report its cancel.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsService, type Caller, type FsReadStream, type FsReadStreamOptions } from '../fs/index.js';
import type { Platform } from '../platform/index.js';
import { BODY_CHUNK_BYTES } from './byte-body.js';
import { call, q, startApi, type Api } from './__fixtures__/api.js';

/** What the next readStream does to the stream it opens. */
interface Twist {
  /** Fail after this many bytes (0: before the first). */
  readonly failAfter?: number;
  /** End early, after this many bytes. */
  readonly endAfter?: number;
  /** Hand out the bytes as a default stream (a host without byte streams). */
  readonly plain?: boolean;
  /** Waited on before the stream is opened. */
  readonly gate?: Promise<void>;
  /** Told when readStream was entered. */
  readonly entered?: () => void;
  /** Waited on by every read after the first. */
  readonly stall?: Promise<void>;
  /** Told when the stream is cancelled, with the bytes read from the host's stream until then. */
  readonly cancelled?: (passed: number) => void;
}

class TwistedFs extends FsService {
  twist: Twist | undefined;

  override async readStream(caller: Caller, address: string, options: FsReadStreamOptions = {}): Promise<FsReadStream> {
    const twist = this.twist;
    this.twist = undefined;
    twist?.entered?.();
    if (twist?.gate !== undefined) await twist.gate;
    const opened = await super.readStream(caller, address, options);
    return twist === undefined ? opened : { ...opened, stream: twisted(opened.stream, twist) };
  }
}

/** The host's byte stream, passed on (as a byte stream unless `plain`) with the twist's failure, early end and cancel report. */
function twisted(inner: ReadableStream<Uint8Array>, twist: Twist): ReadableStream<Uint8Array> {
  const reader = inner.getReader({ mode: 'byob' });
  let passed = 0;
  const next = async (room: number): Promise<Uint8Array | undefined> => {
    if (twist.stall !== undefined && passed > 0) await twist.stall;
    if (twist.failAfter !== undefined && passed >= twist.failAfter) {
      await reader.cancel().catch(() => undefined);
      throw new UnavailableError('The disk went away.');
    }
    const limit = Math.min(room, twist.failAfter === undefined ? room : twist.failAfter - passed, twist.endAfter === undefined ? room : twist.endAfter - passed);
    if (limit <= 0) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    const { done, value } = await reader.read(new Uint8Array(limit));
    if (done) return undefined;
    passed += value.byteLength;
    return value;
  };
  const cancel = async (reason: unknown): Promise<void> => {
    twist.cancelled?.(passed);
    await reader.cancel(reason);
  };
  if (twist.plain === true) {
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const chunk = await next(256 * 1024);
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
      cancel,
    });
  }
  return new ReadableStream({
    type: 'bytes',
    autoAllocateChunkSize: 64 * 1024,
    async pull(controller) {
      const request = controller.byobRequest!;
      const view = request.view as Uint8Array;
      const chunk = await next(view.byteLength);
      if (chunk === undefined) {
        controller.close();
        request.respond(0);
        return;
      }
      view.set(chunk);
      request.respond(chunk.byteLength);
    },
    cancel,
  });
}

const BIG = 'big.bin';
// Several chunks of the server's, and not a multiple of one.
const BIG_BYTES = 5 * BODY_CHUNK_BYTES + 12_345;
let big: Buffer;
let api: Api;
let fs: TwistedFs;

async function startTwisted(): Promise<{ api: Api; fs: TwistedFs }> {
  let made: TwistedFs | undefined;
  const started = await startApi({ fsOf: (platform: Platform) => (made = new TwistedFs(platform)) });
  await writeFile(join(started.folder, BIG), big);
  return { api: started, fs: made! };
}

beforeAll(async () => {
  big = randomBytes(BIG_BYTES);
  ({ api, fs } = await startTwisted());
});

afterAll(async () => {
  await api?.close();
});

const readPath = (name: string): string => `/v1/fs/read?address=${q(`files://${name}`)}`;

/** Waits until `check` holds, or fails after two seconds. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('GET /v1/fs/read writes its body itself', () => {
  it('sends a many-chunk object byte for byte, with the route\'s headers', async () => {
    const answer = await call(api, 'GET', readPath(BIG), { token: api.reader });
    expect(answer.status).toBe(200);
    expect(answer.bytes.equals(big)).toBe(true);
    expect(answer.headers).toMatchObject({
      'content-length': String(BIG_BYTES),
      'accept-ranges': 'bytes',
      'inseam-source': 'live',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    });
    expect(answer.headers['etag']).toMatch(/^".+"$/);
    expect(answer.headers['connection']).not.toBe('close');
  });

  it('sends a range across chunk boundaries with 206 and Content-Range', async () => {
    const first = BODY_CHUNK_BYTES - 7;
    const last = 3 * BODY_CHUNK_BYTES + 99;
    const answer = await call(api, 'GET', readPath(BIG), { token: api.reader, headers: { range: `bytes=${first}-${last}` } });
    expect(answer.status).toBe(206);
    expect(answer.headers['content-range']).toBe(`bytes ${first}-${last}/${BIG_BYTES}`);
    expect(answer.headers['content-length']).toBe(String(last - first + 1));
    expect(answer.bytes.equals(big.subarray(first, last + 1))).toBe(true);
    const tail = await call(api, 'GET', readPath(BIG), { token: api.reader, headers: { range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(big.subarray(BIG_BYTES - 10))).toBe(true);
    expect((await call(api, 'GET', readPath(BIG), { token: api.reader, headers: { range: `bytes=${BIG_BYTES}-` } })).status).toBe(416);
  });

  it('answers HEAD with the headers alone, never reading the stream', async () => {
    let cancelled = false;
    fs.twist = { failAfter: 0, cancelled: () => (cancelled = true) };
    const answer = await request(`${api.url}${readPath(BIG)}`, { method: 'HEAD', headers: { authorization: `Bearer ${api.reader}`, range: 'bytes=10-19' } });
    expect(answer.statusCode).toBe(206);
    expect(answer.headers['content-length']).toBe('10');
    expect(answer.headers['content-range']).toBe(`bytes 10-19/${BIG_BYTES}`);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect((await answer.body.arrayBuffer()).byteLength).toBe(0);
    await eventually(() => cancelled, 'the HEAD stream to be cancelled');
  });

  it('sends a host\'s default (non-byte) stream whole', async () => {
    fs.twist = { plain: true };
    const answer = await call(api, 'GET', readPath(BIG), { token: api.reader });
    expect(answer.status).toBe(200);
    expect(answer.bytes.equals(big)).toBe(true);
  });

  it('answers a stream failing before its first byte with the error envelope', async () => {
    for (const plain of [false, true]) {
      fs.twist = { failAfter: 0, plain };
      const answer = await call(api, 'GET', readPath(BIG), { token: api.reader });
      expect(answer.status).toBe(503);
      expect(answer.json().error).toMatchObject({ code: 'unavailable', message: 'The disk went away.' });
    }
  });

  it('breaks the body of a stream failing after the headers went out: never a complete-looking 200', async () => {
    for (const plain of [false, true]) {
      fs.twist = { failAfter: 2 * BODY_CHUNK_BYTES + 5, plain };
      const answer = await request(`${api.url}${readPath(BIG)}`, { headers: { authorization: `Bearer ${api.reader}` } });
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-length']).toBe(String(BIG_BYTES));
      await expect(answer.body.arrayBuffer()).rejects.toThrow();
    }
    // The server goes on answering.
    expect((await call(api, 'GET', readPath(BIG), { token: api.reader })).bytes.equals(big)).toBe(true);
  });

  it('breaks a body that ends short of its Content-Length (the object shrank while read)', async () => {
    fs.twist = { endAfter: BODY_CHUNK_BYTES + 3 };
    const answer = await request(`${api.url}${readPath(BIG)}`, { headers: { authorization: `Bearer ${api.reader}` } });
    expect(answer.headers['content-length']).toBe(String(BIG_BYTES));
    await expect(answer.body.arrayBuffer()).rejects.toThrow();
  });

  it('releases the host\'s stream when the client goes away mid-body', async () => {
    for (const plain of [false, true]) {
      let cancelled = false;
      fs.twist = { plain, cancelled: () => (cancelled = true) };
      const url = new URL(api.url);
      const socket = connect(Number(url.port), url.hostname);
      let received = 0;
      await new Promise<void>((resolve, reject) => {
        socket.on('error', reject);
        socket.on('data', (chunk: Buffer) => {
          received += chunk.length;
          // The headers and some of the body, then gone: a download cancelled in a browser.
          if (received > 64 * 1024) {
            socket.destroy();
            resolve();
          }
        });
        socket.write(`GET ${readPath(BIG)} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${api.reader}\r\n\r\n`);
      });
      expect(received).toBeLessThan(BIG_BYTES);
      await eventually(() => cancelled, 'the host stream to be cancelled');
    }
  });

  it('releases the host\'s stream when the client goes away while the host is slow to answer', async () => {
    let cancelled = false;
    let release: () => void = () => undefined;
    // Every read after the first waits: the response closes while the server waits on the host.
    fs.twist = { stall: new Promise<void>((resolve) => (release = resolve)), cancelled: () => (cancelled = true) };
    const url = new URL(api.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => {
      socket.once('data', () => resolve());
      socket.write(`GET ${readPath(BIG)} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${api.reader}\r\n\r\n`);
    });
    socket.destroy();
    await eventually(() => cancelled, 'the stalled host stream to be cancelled');
    release();
  });

  it('releases the host\'s stream when the client went away before the answer started', async () => {
    let readBeforeCancel: number | undefined;
    let entered: () => void = () => undefined;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let open: () => void = () => undefined;
    fs.twist = { gate: new Promise<void>((resolve) => (open = resolve)), entered, cancelled: (passed) => (readBeforeCancel = passed) };
    const url = new URL(api.url);
    // The server's end of this request's connection, to know when the server has seen it close.
    const serverSide = new Promise<Socket>((resolve) => api.app.server.once('connection', resolve));
    const socket = connect(Number(url.port), url.hostname);
    socket.write(`GET ${readPath(BIG)} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${api.reader}\r\n\r\n`);
    await inHandler;
    const closedThere = new Promise((resolve) => void serverSide.then((peer) => (peer.destroyed ? resolve(undefined) : peer.once('close', resolve))));
    socket.destroy();
    await closedThere;
    open();
    await eventually(() => readBeforeCancel !== undefined, 'the host stream to be cancelled');
    // Released unread: a server that only noticed the client gone when a write failed would have
    // read (and tried to send) at least one chunk first.
    expect(readBeforeCancel).toBe(0);
  });
});

describe('the server\'s own headers', () => {
  it('a read that answers while the server shuts down says Connection: close, and is sent whole', async () => {
    const own = await startTwisted();
    let entered: () => void = () => undefined;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let open: () => void = () => undefined;
    own.fs.twist = { gate: new Promise<void>((resolve) => (open = resolve)), entered };
    const reading = request(`${own.api.url}${readPath(BIG)}`, { headers: { authorization: `Bearer ${own.api.reader}` } });
    await inHandler;
    // Shutdown begins while the read is in flight; it waits for it.
    const closing = own.api.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    open();
    const answer = await reading;
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['connection']).toBe('close');
    expect(Buffer.from(await answer.body.arrayBuffer()).equals(big)).toBe(true);
    await closing;
  });
});
