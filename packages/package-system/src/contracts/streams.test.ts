import { describe, expect, it } from 'vitest';
import { collectCapped, concatBytes } from './streams.js';

function streamOf(chunks: readonly unknown[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index >= chunks.length) controller.close();
      else controller.enqueue(chunks[index++] as Uint8Array);
    },
    cancel() {
      onCancel?.();
    },
  });
}

const tooLarge = (): Error => new Error('too large');
const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

describe('collectCapped', () => {
  it('gathers every chunk in order', async () => {
    const got = await collectCapped(streamOf([bytes(1, 2), bytes(), bytes(3)]), { maxBytes: 3, tooLarge });
    expect([...got]).toEqual([1, 2, 3]);
  });

  it('cancels the stream and throws as soon as the cap is passed, without reading the rest', async () => {
    let cancelled = false;
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += 1;
          controller.enqueue(new Uint8Array(4));
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    await expect(collectCapped(stream, { maxBytes: 10, tooLarge })).rejects.toThrow('too large');
    await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled).toBe(true);
    expect(pulled).toBe(3);
  });

  it('refuses a chunk that is not bytes only when asked to', async () => {
    const notBytes = (): Error => new Error('not bytes');
    await expect(collectCapped(streamOf(['text']), { maxBytes: 100, tooLarge, notBytes })).rejects.toThrow('not bytes');
  });

  it('releases the reader so the stream can be cancelled afterwards', async () => {
    const stream = streamOf([bytes(1)]);
    await collectCapped(stream, { maxBytes: 1, tooLarge });
    expect(stream.locked).toBe(false);
  });
});

describe('concatBytes', () => {
  it('returns a lone chunk as it is and joins several', () => {
    const one = bytes(7, 8);
    expect(concatBytes([one], 2)).toBe(one);
    expect([...concatBytes([bytes(1), bytes(2, 3)], 3)]).toEqual([1, 2, 3]);
  });
});
