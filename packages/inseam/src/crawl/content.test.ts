import { describe, expect, it } from 'vitest';
import type { Connector, Entry } from '@inseam/connector';
import { docxOf, pdfOf } from '../extract/__fixtures__/documents.js';
import { readContent } from './content.js';

function connector(read: Connector['read']): Connector {
  return { read } as Connector;
}

function stream(chunks: unknown[], options: { hang?: boolean } = {}): ReadableStream<Uint8Array> {
  let cancelled = false;
  const queue = [...chunks];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (queue.length > 0) controller.enqueue(queue.shift() as Uint8Array);
      else if (!options.hang) controller.close();
      else return new Promise(() => undefined);
      return undefined;
    },
    cancel() {
      cancelled = true;
    },
  });
  Object.defineProperty(body, 'cancelled', { get: () => cancelled });
  return body;
}

const entry: Entry = { path: 'a.txt' };
const options = { maxBytes: 10, timeoutMs: 200, key: 'e:1' };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('reading content for the index', () => {
  it('joins chunks into text', async () => {
    const result = await readContent(connector(async () => stream([bytes('hello '), bytes('you')])), entry, options);
    expect(result).toEqual({ update: { state: 'indexed', key: 'e:1', text: 'hello you', bytes: 9 }, failed: false });
  });

  it('stops reading as soon as the content passes the limit, and cancels the stream', async () => {
    const body = stream([bytes('12345678'), bytes('90ab'), bytes('never read')]);
    const result = await readContent(connector(async () => body), entry, options);
    expect(result.update).toEqual({ state: 'too_large', key: 'e:1' });
    expect((body as unknown as { cancelled: boolean }).cancelled).toBe(true);
    // A declared size over the limit is not read at all.
    let reads = 0;
    await readContent(connector(async () => (reads++, stream([]))), { path: 'b', size: 11 }, options);
    expect(reads).toBe(0);
  });

  it('turns a failing, hanging or misbehaving read into an error state, never a rejection', async () => {
    const failing = await readContent(connector(async () => Promise.reject(new Error('secret token abc'))), entry, options);
    expect(failing).toEqual({ update: { state: 'error', key: null }, failed: true });
    const hanging = await readContent(connector(async () => stream([bytes('a')], { hang: true })), entry, { ...options, timeoutMs: 30 });
    expect(hanging.update.state).toBe('error');
    const neverOpens = await readContent(connector(() => new Promise(() => undefined)), entry, { ...options, timeoutMs: 30 });
    expect(neverOpens.update.state).toBe('error');
    const strings = await readContent(connector(async () => stream(['not bytes'])), entry, options);
    expect(strings).toEqual({ update: { state: 'error', key: null }, failed: true });
    const notAStream = await readContent(connector(async () => 'text' as unknown as ReadableStream<Uint8Array>), entry, options);
    expect(notAStream.failed).toBe(true);
  });

  it('stops reading an unknown type at a first chunk with a NUL in it, and cancels the stream', async () => {
    const body = stream([new Uint8Array([0x89, 0x50, 0, 1]), bytes('never read')]);
    let pulled = 0;
    const counting = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const reader = body.getReader();
        const { done, value } = await reader.read();
        reader.releaseLock();
        pulled += 1;
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => body.cancel(reason),
    }, { highWaterMark: 0 });
    const result = await readContent(connector(async () => counting), { path: 'blob', mime: 'application/octet-stream' }, { ...options, maxBytes: 100 });
    expect(result).toEqual({ update: { state: 'binary', key: 'e:1' }, failed: false });
    expect(pulled).toBe(1);
    expect((body as unknown as { cancelled: boolean }).cancelled).toBe(true);
    // A type that names a binary format no worker reads is not opened at all.
    let reads = 0;
    for (const mime of ['application/vnd.sqlite3', 'application/x-xz', 'application/java-archive', 'application/msword', 'audio/mpeg']) {
      const skipped = await readContent(connector(async () => (reads++, stream([]))), { path: 'x', mime }, options);
      expect(skipped.update, mime).toEqual({ state: 'binary', key: 'e:1' });
    }
    expect(reads).toBe(0);
  });
});

describe('reading documents for the index', () => {
  const big = { ...options, maxBytes: 1024 * 1024, timeoutMs: 20_000 };

  it('indexes the text of a PDF (by type) and of a DOCX (by name), extracted in a worker', async () => {
    const pdf = pdfOf([['Invoice number 4711']]);
    const byType = await readContent(connector(async () => stream([pdf])), { path: 'scan', mime: 'application/pdf' }, big);
    expect(byType.update).toMatchObject({ state: 'indexed', key: 'e:1', bytes: pdf.byteLength });
    expect(byType.update.state === 'indexed' && byType.update.text).toContain('Invoice number 4711');
    const byName = await readContent(connector(async () => stream([docxOf(['Minutes of the meeting'])])), { path: 'notes/minutes.docx', mime: 'application/octet-stream' }, big);
    expect(byName.update).toMatchObject({ state: 'indexed', text: 'Minutes of the meeting' });
  });

  it('keeps an unreadable document as binary under its key, counted as an error, without stopping', async () => {
    const truncated = pdfOf([['Hello']]).subarray(0, 100);
    const result = await readContent(connector(async () => stream([truncated])), { path: 'broken.pdf' }, big);
    expect(result).toEqual({ update: { state: 'binary', key: 'e:1' }, failed: true });
    // A PDF over the content limit is not read at all, as any content.
    let reads = 0;
    await readContent(connector(async () => (reads++, stream([]))), { path: 'huge.pdf', size: 11 }, options);
    expect(reads).toBe(0);
  });
});
