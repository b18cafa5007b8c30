/**
 * AWS Signature Version 4 over the exact request the gate sends: method, host (with a non-default
 * port), path as written, the decoded query, every header the gate sends except the unsignable
 * ones, and `x-amz-content-sha256` — the SHA-256 of a buffered body, or `UNSIGNED-PAYLOAD` for a
 * streamed one (S3 accepts it; services that do not need a buffered body). For `s3` the path is
 * signed as sent; other services get AWS's second URI-encoding. No session token: `present`
 * has no field for one.
 */
import { createHash } from 'node:crypto';

const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export interface SigV4Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  readonly service: string;
}

export interface SignableRequest {
  readonly method: string;
  readonly url: URL;
  /** Lower-case names. Must already hold every header that will be sent. */
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | string[]>>;
  /** The buffered body, or 'stream' for one that is not, or null for none. */
  readonly body: Uint8Array | 'stream' | null;
}

export interface SignedHeaders {
  /** Headers to add: host, x-amz-date, x-amz-content-sha256, authorization. */
  readonly headers: Record<string, string>;
  /** The hex signature, so it can be redacted from what comes back. */
  readonly signature: string;
}

function payloadHash(body: Uint8Array | 'stream' | null): string {
  if (body === 'stream') return UNSIGNED_PAYLOAD;
  return createHash('sha256')
    .update(body ?? new Uint8Array(0))
    .digest('hex');
}

export async function signRequest(request: SignableRequest, credentials: SigV4Credentials, signingDate: Date = new Date()): Promise<SignedHeaders> {
  // Loaded with the first signed request: most processes never sign one.
  const [{ SignatureV4 }, { Sha256 }] = await Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]);
  const signer = new SignatureV4({
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    region: credentials.region,
    service: credentials.service,
    sha256: Sha256,
    uriEscapePath: credentials.service !== 's3',
    applyChecksum: true,
  });
  const port = request.url.port === '' ? undefined : Number(request.url.port);
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.url.host,
    'x-amz-content-sha256': payloadHash(request.body),
  };
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      ...(port === undefined ? {} : { port }),
      path: request.url.pathname,
      query: { ...request.query },
      headers,
    },
    { signingDate },
  );
  const out: Record<string, string> = {};
  for (const name of ['host', 'x-amz-date', 'x-amz-content-sha256', 'authorization']) {
    const value = signed.headers[name];
    if (value !== undefined) out[name] = value;
  }
  const signature = /Signature=([0-9a-f]+)/.exec(out['authorization'] ?? '')?.[1] ?? '';
  return { headers: out, signature };
}
