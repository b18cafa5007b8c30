import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthPresent } from '@inseam/connector';
import { echoHandler, everything, readText, startServer } from './__fixtures__/servers.js';
import type { TestServer } from './__fixtures__/servers.js';
import { gateUnderTest } from './__fixtures__/gate-helpers.js';

const TOKEN = 'tok_live_51HxQ2eZvKYlo2C';
const PASSWORD = 'correct horse/battery+staple';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res, body) => {
    if (req.url?.startsWith('/dribble')) {
      // The secret comes back one byte per write, so it straddles every chunk boundary.
      const text = Buffer.from(`leaked: ${String(req.headers['authorization'])} ${String(req.headers['x-token'])} end`);
      res.setHeader('content-length', String(text.length));
      let at = 0;
      const next = (): void => {
        if (at >= text.length) {
          res.end();
          return;
        }
        res.write(text.subarray(at, at + 1));
        at += 1;
        setImmediate(next);
      };
      next();
      return;
    }
    void echoHandler(req, res, body);
  });
});
afterAll(async () => {
  await server.close();
});

function port(present: AuthPresent[], fields: Record<string, string>, secretFlags: { name: string; secret: boolean }[] = []) {
  const under = gateUnderTest();
  return {
    ...under,
    port: under.host({
      auth: { origins: [server.origin], present, fields: secretFlags.map((field) => ({ ...field, label: field.name })) },
      allowPrivateOrigins: [server.origin],
      credentials: { fields: async () => fields, tokens: async () => ({ token: TOKEN }) },
    }),
  };
}

describe('gate: nothing the connector gets back contains a secret', () => {
  it('redacts header, query and cookie credentials reflected in the body and in response headers', async () => {
    const { port: p } = port(
      [
        { in: 'header', name: 'X-Token', value: 'Bearer {{token}}' },
        { in: 'query', name: 'key', value: '{{token}}' },
        { in: 'cookie', name: 'sid', value: '{{token}}' },
      ],
      {},
    );
    const response = await p.fetch({ method: 'GET', url: `${server.origin}/echo?a=1` });
    const seen = await everything(response);
    expect(server.requests.at(-1)?.headers['x-token']).toBe(`Bearer ${TOKEN}`);
    expect(seen).not.toContain(TOKEN);
    expect(seen).not.toContain(encodeURIComponent(TOKEN).slice(0, 12));
    // The whole cookie line the gate wrote is one of the secret texts.
    expect(response.headers['x-echo-cookie']).toBe('[redacted]');
  });

  it('redacts basic credentials: the password and the base64 pair', async () => {
    const { port: p } = port([{ in: 'basic', username: '{{user}}', password: '{{password}}' }], { user: 'ada', password: PASSWORD }, [
      { name: 'user', secret: false },
      { name: 'password', secret: true },
    ]);
    // A body carrying the password is never sent (the outbound screen, gate.exfiltration.test.ts).
    const refused = await p.fetch({ method: 'POST', url: `${server.origin}/echo?user=ada`, body: new TextEncoder().encode(`my password is ${PASSWORD}`) }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ failure: 'origin_refused', reason: 'secret_in_request' });
    const response = await p.fetch({ method: 'POST', url: `${server.origin}/echo?user=ada`, body: new TextEncoder().encode('my password is not here') });
    const seen = await everything(response);
    const pair = Buffer.from(`ada:${PASSWORD}`).toString('base64');
    expect(server.requests.at(-1)?.headers['authorization']).toBe(`Basic ${pair}`);
    expect(seen).not.toContain(pair);
    expect(seen).not.toContain(PASSWORD);
    expect(seen).not.toContain(JSON.stringify(PASSWORD).slice(1, -1));
    // A field the AuthSpec marks as not secret is left readable.
    expect(seen).toContain('ada');
  });

  it('redacts the SigV4 signature and secret key; the access key id stays', async () => {
    const { port: p } = port(
      [{ in: 'aws_sigv4', accessKeyId: '{{id}}', secretAccessKey: '{{secret}}', region: 'us-east-1', service: 's3' }],
      { id: 'AKIDEXAMPLE', secret: SECRET_KEY },
      [
        { name: 'id', secret: false },
        { name: 'secret', secret: true },
      ],
    );
    const response = await p.fetch({ method: 'GET', url: `${server.origin}/echo` });
    const seen = await everything(response);
    const signature = /Signature=([0-9a-f]{64})/.exec(String(server.requests.at(-1)?.headers['authorization']))?.[1];
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(seen).not.toContain(signature);
    expect(seen).not.toContain(SECRET_KEY);
    expect(seen).toContain('AKIDEXAMPLE');
  });

  it('treats a field the AuthSpec does not declare as secret', async () => {
    const { port: p } = port([{ in: 'header', name: 'X-Token', value: '{{undeclared}}' }], { undeclared: 'hidden-value-77' });
    const seen = await everything(await p.fetch({ method: 'GET', url: `${server.origin}/echo` }));
    expect(seen).not.toContain('hidden-value-77');
  });

  it('redacts a secret that arrives one byte per chunk, keeping content-length true', async () => {
    const { port: p } = port([{ in: 'header', name: 'X-Token', value: '{{token}}' }, { in: 'basic', username: 'u', password: '{{token}}' }], {});
    const response = await p.fetch({ method: 'GET', url: `${server.origin}/dribble` });
    const body = await readText(response);
    expect(body).not.toContain(TOKEN);
    expect(body).not.toContain(Buffer.from(`u:${TOKEN}`).toString('base64'));
    expect(Buffer.byteLength(body)).toBe(Number(response.headers['content-length']));
    // `Basic …`, the whole header value the gate wrote, is masked whole.
    expect(body).toMatch(/^leaked: \*+ \*+ end$/);
  });

  it('keeps secrets out of log lines and records', async () => {
    const { port: p, logs, recorder } = port([{ in: 'query', name: 'key', value: '{{token}}' }], {});
    // A refused first request: the gate has attached nothing yet and still knows what to hide.
    await p.fetch({ method: 'GET', url: `https://${TOKEN}.example.test/` }).catch(() => undefined);
    await readText(await p.fetch({ method: 'GET', url: `${server.origin}/echo` }));
    const written = JSON.stringify({ logs, records: recorder.records }).toLowerCase();
    expect(logs.length).toBeGreaterThan(0);
    expect(written).not.toContain(TOKEN.toLowerCase());
  });
});
