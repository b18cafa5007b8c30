/**
 * The extraction pool with real worker threads: documents extracted off the main thread, a
 * hostile corpus failing document by document while good documents beside it succeed, and a
 * worker that hangs, exhausts its heap or dies being stopped and replaced. The misbehaving
 * worker (`__fixtures__/hostile-worker.mjs`) stands in for a parser caught in a hostile
 * document's trap, which no small file triggers on purpose.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { docxOf, pdfOf, pptxOf, withDeclaredSize, xlsxOf } from './__fixtures__/documents.js';
import { ExtractorPool } from './pool.js';

const HOSTILE = new URL('./__fixtures__/hostile-worker.mjs', import.meta.url);
const pools: ExtractorPool[] = [];

function pool(options: ConstructorParameters<typeof ExtractorPool>[0] = {}): ExtractorPool {
  const made = new ExtractorPool(options);
  pools.push(made);
  return made;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((made) => made.close()));
});

async function codeOf(promise: Promise<unknown>): Promise<{ code: unknown; reason: unknown }> {
  const error = (await promise.then(
    () => ({}),
    (caught: unknown) => caught,
  )) as { code?: unknown; details?: { reason?: unknown } };
  return { code: error.code, reason: error.details?.reason };
}

describe('extraction in worker threads', () => {
  it('extracts each kind, and a hostile corpus fails document by document beside good ones', async () => {
    const extractor = pool({ size: 2 });
    const pdf = pdfOf([['Alpha page']]);
    const docx = docxOf(['Bravo paragraph']);
    const outcomes = await Promise.allSettled([
      extractor.extract('pdf', pdf),
      extractor.extract('pdf', pdf.subarray(0, 200)),
      extractor.extract('docx', docx),
      extractor.extract('docx', withDeclaredSize(docx, 'word/document.xml', 0xfffffff0)),
      extractor.extract('xlsx', new TextEncoder().encode('PK? no, plain text')),
      extractor.extract('xlsx', xlsxOf('Sheet', [['Charlie cell']])),
      extractor.extract('pptx', docx),
      extractor.extract('pptx', pptxOf([['Delta slide']])),
    ]);
    const texts = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.text : null));
    expect(texts[0]).toContain('Alpha page');
    expect(texts[2]).toBe('Bravo paragraph');
    expect(texts[5]).toContain('Charlie cell');
    expect(texts[7]).toBe('Delta slide');
    const failures = outcomes.map((outcome) => (outcome.status === 'rejected' ? { code: outcome.reason.code, reason: outcome.reason.details.reason } : null));
    expect(failures[1]).toEqual({ code: 'document_unreadable', reason: 'malformed' });
    expect(failures[3]).toEqual({ code: 'too_large', reason: 'inflated_too_large' });
    expect(failures[4]).toEqual({ code: 'document_unreadable', reason: 'wrong_type' });
    expect(failures[6]).toEqual({ code: 'document_unreadable', reason: 'wrong_type' });
  });

  it('leaves the caller\'s bytes usable and refuses a document over maxInputBytes without a worker', async () => {
    const extractor = pool({ limits: { maxInputBytes: 1000 } });
    const docx = docxOf(['Echo']);
    await extractor.extract('docx', docx);
    expect(docx.byteLength).toBeGreaterThan(0);
    expect(await codeOf(extractor.extract('pdf', new Uint8Array(1001)))).toEqual({ code: 'too_large', reason: 'document_too_large' });
  });
});

describe('a worker that overruns is stopped and replaced', () => {
  it('a document past its deadline fails timeout, and the next one gets a fresh worker', async () => {
    const extractor = pool({ entry: HOSTILE, size: 1, timeoutMs: 300 });
    const started = Date.now();
    expect(await codeOf(extractor.extract('pdf', new Uint8Array(1)))).toEqual({ code: 'timeout', reason: 'extract_timeout' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await extractor.extract('html', new Uint8Array(1))).text).toBe('ok');
  });

  it('a worker past its heap limit is killed: too_large (extract_memory), and the pool goes on', async () => {
    const extractor = pool({ entry: HOSTILE, size: 1, memoryMb: 32, timeoutMs: 20_000 });
    expect(await codeOf(extractor.extract('docx', new Uint8Array(1)))).toEqual({ code: 'too_large', reason: 'extract_memory' });
    expect((await extractor.extract('html', new Uint8Array(1))).text).toBe('ok');
  });

  it('a worker that dies fails its document as crashed; queued documents still run', async () => {
    const extractor = pool({ entry: HOSTILE, size: 1 });
    const [dead, queued] = await Promise.allSettled([extractor.extract('pptx', new Uint8Array(1)), extractor.extract('html', new Uint8Array(1))]);
    expect(dead.status === 'rejected' && dead.reason.code).toBe('document_unreadable');
    expect(dead.status === 'rejected' && dead.reason.details.reason).toBe('crashed');
    expect(queued.status === 'fulfilled' && queued.value.text).toBe('ok');
  });

  it('an aborted extraction stops its worker, and a closed pool refuses work', async () => {
    const extractor = pool({ entry: HOSTILE, size: 1, timeoutMs: 60_000 });
    const stop = new AbortController();
    const hanging = extractor.extract('pdf', new Uint8Array(1), { signal: stop.signal });
    setTimeout(() => stop.abort(new Error('caller gave up')), 100);
    await expect(hanging).rejects.toThrow('caller gave up');
    expect((await extractor.extract('html', new Uint8Array(1))).text).toBe('ok');
    await extractor.close();
    expect(await codeOf(extractor.extract('html', new Uint8Array(1)))).toEqual({ code: 'unavailable', reason: undefined });
  });
});
