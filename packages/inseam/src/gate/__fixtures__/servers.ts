/**
 * Real HTTP servers for the gate's tests, always on 127.0.0.1, with a count of the connections
 * they accepted (so a test can prove a refused request never reached the network).
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EgressResponse } from '@inseam/connector';

export interface ReceivedRequest {
  readonly method: string;
  /** Path and query exactly as they arrived. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export interface TestServer {
  readonly port: number;
  /** `http://127.0.0.1:{port}` */
  readonly origin: string;
  readonly requests: ReceivedRequest[];
  connections: number;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void | Promise<void>;

export async function startServer(handler: Handler, options: { readBody?: boolean } = {}): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  let server: Server;
  const state = {
    port: 0,
    origin: '',
    requests,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server = createServer((req, res) => {
    if (options.readBody === false) {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.alloc(0) });
      void handler(req, res, Buffer.alloc(0));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      void handler(req, res, body);
    });
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.origin = `http://127.0.0.1:${state.port}`;
  return state;
}

/** Reflects the request back: its headers in the body (JSON) and as `x-echo-*` response headers. */
export const echoHandler: Handler = (req, res, body) => {
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-echo-authorization', req.headers['authorization'] ?? '');
  res.setHeader('x-echo-cookie', req.headers['cookie'] ?? '');
  res.setHeader('x-echo-url', req.url ?? '');
  res.setHeader('x-echo-api-key', String(req.headers['x-api-key'] ?? ''));
  res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString('utf8') }));
};

export async function readText(response: EgressResponse): Promise<string> {
  if (response.body === null) return '';
  return new Response(response.body).text();
}

/** Everything the connector can see of an answer, as one string. */
export async function everything(response: EgressResponse): Promise<string> {
  return `${JSON.stringify(response.headers)}\n${await readText(response)}`;
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * An independent SigV4 check of a request as the server received it (no shared code with the
 * gate's signer). Returns the reason it fails, or null when the signature is right.
 */
export function sigV4Problem(request: ReceivedRequest, secretAccessKey: string, options: { readonly s3: boolean }): string | null {
  const authorization = String(request.headers['authorization'] ?? '');
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (match === null) return `malformed authorization: ${authorization}`;
  const [, , date, region, service, signedHeaderList, signature] = match as unknown as [string, string, string, string, string, string, string];
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host')) return 'host is not signed';
  if (!signedHeaders.includes('x-amz-content-sha256')) return 'x-amz-content-sha256 is not signed';
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const payload = String(request.headers['x-amz-content-sha256'] ?? '');
  if (payload !== 'UNSIGNED-PAYLOAD' && payload !== createHash('sha256').update(request.body).digest('hex')) return 'payload hash does not match the body';
  const [rawPath = '', rawQuery = ''] = request.url.split(/\?(.*)/s);
  const path = options.s3 ? rawPath : rawPath.split('/').map(rfc3986).join('/');
  const query = rawQuery
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1));
      return [rfc3986(name), rfc3986(value)] as const;
    })
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headerLines = signedHeaders.map((name) => `${name}:${String(request.headers[name] ?? '').trim().replace(/\s+/g, ' ')}`);
  const canonical = [request.method, path, query, ...headerLines, '', signedHeaderList, payload].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
  return expected === signature ? null : `signature mismatch; canonical request was:\n${canonical}`;
}
