import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from './redact.js';

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

describe('Redactor on strings', () => {
  const secret = 'sk_live "päss"/+=';
  const redactor = new Redactor([secret]);

  it('removes the secret in every form it travels in', () => {
    const forms = [
      secret,
      secret.toLowerCase(),
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret).toString('base64'),
    ];
    for (const form of forms) {
      const out = redactor.redact(`before ${form} after`);
      expect(out).toBe(`before ${REDACTED} after`);
    }
  });

  it('redacts header names and values', () => {
    expect(redactor.redactHeaders({ 'x-echo': `Bearer ${secret}`, a: 'b' })).toEqual({ 'x-echo': `Bearer ${REDACTED}`, a: 'b' });
  });

  it('removes a longer secret whole even when a shorter one is inside it', () => {
    const nested = new Redactor(['abc', 'xxabcxx']);
    expect(nested.redact('1 xxabcxx 2 abc')).toBe(`1 ${REDACTED} 2 ${REDACTED}`);
  });

  it('ignores empty secrets and leaves other text alone', () => {
    const none = new Redactor(['']);
    expect(none.empty).toBe(true);
    expect(none.redact('nothing to hide')).toBe('nothing to hide');
  });
});

describe('Redactor on byte streams', () => {
  it('masks a secret split across chunks at every possible boundary, keeping the length', async () => {
    const secret = 'TOKEN-12345';
    const text = `{"a":"${secret}","b":"x${secret}${secret}"}`;
    const bytes = Buffer.from(text);
    for (let first = 1; first < bytes.length; first++) {
      for (let second = first + 1; second <= bytes.length; second += 3) {
        const out = await collect(new Redactor([secret]).redactStream(streamOf([bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)])));
        expect(out.length).toBe(bytes.length);
        expect(out.toString()).not.toContain('TOKEN');
        expect(out.toString()).toBe(text.replaceAll(secret, '*'.repeat(secret.length)));
      }
    }
  });

  it('masks one byte at a time', async () => {
    const secret = 'päss-wörd';
    const bytes = Buffer.from(`<${secret}>`);
    const chunks = [...bytes].map((byte) => Uint8Array.of(byte));
    const out = await collect(new Redactor([secret]).redactStream(streamOf(chunks)));
    expect(out.toString()).not.toContain('päss');
    expect(out.length).toBe(bytes.length);
  });

  it('masks overlapping secrets without leaking the tail of either', async () => {
    const redactor = new Redactor(['xyab', 'abcd']);
    const out = await collect(redactor.redactStream(streamOf([Buffer.from('..xyab'), Buffer.from('cd..')])));
    expect(out.toString()).toBe('..******..');
  });

  it('passes the stream through untouched when there is nothing to redact', () => {
    const source = streamOf([Buffer.from('a')]);
    expect(new Redactor().redactStream(source)).toBe(source);
  });

  it('pulls from its source only when read (backpressure is kept)', async () => {
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls += 1;
          controller.enqueue(new Uint8Array(1024).fill(0x61));
        },
      },
      { highWaterMark: 0 },
    );
    const reader = new Redactor(['secret']).redactStream(source).getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pulls).toBeLessThanOrEqual(2);
    await reader.cancel();
  });

  it('cancels its source when cancelled', async () => {
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(8));
      },
      cancel() {
        cancelled = true;
      },
    });
    const reader = new Redactor(['secret']).redactStream(source).getReader();
    await reader.read();
    await reader.cancel();
    expect(cancelled).toBe(true);
  });
});
