/**
 * Test egress ports: a recording passthrough to loopback servers (what the gate will do minus its
 * checks), and a loopback HTTP server with a few routes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressError, type EgressPort, type EgressRequest, type EgressResponse } from '@inseam/connector';

export interface RecordingEgress extends EgressPort {
  readonly requests: EgressRequest[];
}

/** Sends every request as asked (redirects returned, not followed) and records it. */
export function passthroughEgress(options: { refuse?: (url: URL) => boolean } = {}): RecordingEgress {
  const requests: EgressRequest[] = [];
  return {
    requests,
    async fetch(request) {
      requests.push(request);
      const url = new URL(request.url);
      if (options.refuse?.(url) === true) throw new EgressError('origin_refused', url.origin, `The origin ${url.origin} is not declared.`);
      const response = await fetch(request.url, {
        method: request.method,
        ...(request.headers === undefined ? {} : { headers: request.headers }),
        ...(request.body === undefined ? {} : { body: request.body, duplex: 'half' }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        redirect: 'manual',
      });
      const answer: EgressResponse = { status: response.status, headers: Object.fromEntries(response.headers), body: response.body };
      return answer;
    },
  };
}

export interface Loopback {
  readonly origin: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Routes: GET /json (a small JSON document), GET /bytes?n=N (N bytes, pattern i % 251),
 * PUT|POST /echo (answers the body's length and sha-free sum), GET /slow (never answers).
 */
export async function startLoopback(): Promise<Loopback> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ items: [{ id: 'a', size: 3 }, { id: 'b', size: 5 }], auth: req.headers['authorization'] ?? null }));
      return;
    }
    if (url.pathname === '/bytes') {
      const n = Number(url.searchParams.get('n') ?? '0');
      const chunk = Buffer.alloc(Math.min(n, 65536));
      let sent = 0;
      res.setHeader('content-type', 'application/octet-stream');
      const write = (): void => {
        while (sent < n) {
          const size = Math.min(chunk.length, n - sent);
          for (let i = 0; i < size; i++) chunk[i] = (sent + i) % 251;
          sent += size;
          if (!res.write(chunk.subarray(0, size))) {
            res.once('drain', write);
            return;
          }
        }
        res.end();
      };
      write();
      return;
    }
    if (url.pathname === '/echo') {
      let length = 0;
      let sum = 0;
      req.on('data', (data: Buffer) => {
        length += data.length;
        for (const byte of data) sum = (sum + byte) % 1_000_000_007;
      });
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ length, sum, method: req.method, type: req.headers['content-type'] ?? null }));
      });
      return;
    }
    if (url.pathname === '/slow') return;
    res.statusCode = 404;
    res.end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
