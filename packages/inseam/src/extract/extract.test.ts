/**
 * Each extractor in the calling thread, on real small documents made in code, and on a hostile
 * corpus that must fail with a typed reason (the pool's tests run the same in workers).
 */
import { describe, expect, it } from 'vitest';
import { docxOf, pdfOf, pptxOf, withDeclaredSize, xlsxOf, zerosDocx } from './__fixtures__/documents.js';
import { extractText } from './extract.js';
import { documentKind } from './kinds.js';
import { DEFAULT_EXTRACT_LIMITS, ExtractFailure } from './limits.js';

const limits = DEFAULT_EXTRACT_LIMITS;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

async function failure(promise: Promise<unknown>): Promise<{ code: string; reason: unknown; message: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ExtractFailure);
  const { code, details, message } = error as ExtractFailure;
  return { code, reason: details['reason'], message };
}

describe('recognising documents', () => {
  it('by media type, and by extension only when the type is missing or generic', () => {
    expect(documentKind('application/pdf', 'x')).toBe('pdf');
    expect(documentKind('text/html; charset=utf-8', 'page')).toBe('html');
    expect(documentKind(undefined, 'dir/Report.PDF')).toBe('pdf');
    expect(documentKind('application/octet-stream', 'a/b.docx')).toBe('docx');
    expect(documentKind('application/zip', 'sheet.xlsx')).toBe('xlsx');
    expect(documentKind('', 'deck.pptx')).toBe('pptx');
    expect(documentKind('text/plain', 'notes.pdf')).toBeNull();
    expect(documentKind(undefined, '.pdf')).toBeNull();
    expect(documentKind(undefined, 'a.txt')).toBeNull();
  });
});

describe('extracting text', () => {
  it('reads every page of a PDF in order', async () => {
    const pdf = pdfOf([['Quarterly report', 'Revenue rose (sharply)'], ['Second page here']]);
    const { text, truncated } = await extractText('pdf', pdf, limits);
    expect(text).toMatch(/Quarterly report[\s\S]*Revenue rose \(sharply\)[\s\S]*Second page here/u);
    expect(truncated).toBe(false);
    const short = await extractText('pdf', pdf, { ...limits, maxPages: 1 });
    expect(short.text).not.toContain('Second page');
    expect(short.truncated).toBe(true);
  });

  it('reads a DOCX body as one line per paragraph, entities decoded', async () => {
    const { text } = await extractText('docx', docxOf(['Dear Ann,', 'Fish & chips <tonight>.']), limits);
    expect(text).toBe('Dear Ann,\nFish & chips <tonight>.');
  });

  it('reads an XLSX sheet under its name, one line per row, shared strings and numbers', async () => {
    const { text } = await extractText('xlsx', xlsxOf('Budget', [['Item', 'Cost'], ['Rent', 1200]]), limits);
    expect(text).toBe('Budget\nItem\tCost\nRent\t1200');
  });

  it('reads PPTX slides in numeric order (slide2 before slide10)', async () => {
    const slides = Array.from({ length: 10 }, (_, index) => [`Slide ${index + 1} title`]);
    const { text } = await extractText('pptx', pptxOf(slides), limits);
    expect(text.split('\n').filter((line) => line !== '')).toEqual(slides.map(([title]) => title));
  });

  it('reads HTML as its words: no markup, script or style', async () => {
    const html = '<html><head><style>p{color:red}</style><script>alert("x")</script></head><body><h1>Title</h1><p>Some <b>bold</b> words &amp; a <a href="https://x.test/">link</a>.</p></body></html>';
    const { text } = await extractText('html', bytes(html), limits);
    expect(text).toContain('Some bold words & a link.');
    expect(text).not.toMatch(/alert|color|<|https:/u);
  });

  it('cuts text at maxTextChars and says so', async () => {
    const { text, truncated } = await extractText('docx', docxOf(['a'.repeat(100), 'b'.repeat(100)]), { ...limits, maxTextChars: 150 });
    expect(text.length).toBeLessThanOrEqual(150);
    expect(truncated).toBe(true);
  });
});

describe('the hostile corpus fails with a typed reason', () => {
  const pdf = pdfOf([['Hello']]);
  const docx = docxOf(['Hello']);

  it('a truncated PDF, a PDF that is not one, and garbage after a PDF signature', async () => {
    expect(await failure(extractText('pdf', pdf.subarray(0, Math.floor(pdf.length / 2)), limits))).toMatchObject({ code: 'document_unreadable', reason: 'malformed' });
    expect(await failure(extractText('pdf', bytes('just some text, named .pdf'), limits))).toMatchObject({ code: 'document_unreadable', reason: 'wrong_type' });
    expect(await failure(extractText('pdf', bytes('%PDF-1.7\n\u0001\u0002 garbage garbage\n%%EOF\n'), limits))).toMatchObject({ code: 'document_unreadable', reason: 'malformed' });
  });

  it('a truncated DOCX, a text file named .docx, a zip without a document in it, and an encrypted one', async () => {
    expect(await failure(extractText('docx', docx.subarray(0, docx.length - 40), limits))).toMatchObject({ code: 'document_unreadable', reason: 'malformed' });
    expect(await failure(extractText('docx', bytes('not a zip at all'), limits))).toMatchObject({ code: 'document_unreadable', reason: 'wrong_type' });
    expect(await failure(extractText('docx', xlsxOf('S', [['x']]), limits))).toMatchObject({ code: 'document_unreadable', reason: 'wrong_type' });
    // Office encrypts a document by wrapping it in an OLE compound file.
    const compound = new Uint8Array(512);
    compound.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    expect(await failure(extractText('xlsx', compound, limits))).toMatchObject({ code: 'document_unreadable', reason: 'encrypted' });
  });

  it('a zip bomb: declared sizes over the limit fail before anything is inflated', async () => {
    const bomb = withDeclaredSize(docx, 'word/document.xml', 0xfffffff0);
    const result = await failure(extractText('docx', bomb, limits));
    expect(result).toMatchObject({ code: 'too_large', reason: 'inflated_too_large' });
    expect(result.message).toContain(String(limits.maxInflatedBytes));
    // An honest one, over a configured limit.
    expect(await failure(extractText('docx', zerosDocx(4 * 1024 * 1024), { ...limits, maxInflatedBytes: 1024 * 1024 }))).toMatchObject({ code: 'too_large', reason: 'inflated_too_large' });
  });

  it('a zip bomb that lies about its size is cut at the size it declared', async () => {
    const liar = withDeclaredSize(zerosDocx(8 * 1024 * 1024), 'word/document.xml', 1000);
    const outcome = await extractText('docx', liar, limits).then(
      (extracted) => extracted.text.length,
      (error: unknown) => (error as ExtractFailure).code,
    );
    // Either no text or a refusal; never 8 MiB of inflated zeros.
    expect([0, 'document_unreadable']).toContain(outcome);
  });

  it('a document over maxInputBytes is refused unread', async () => {
    expect(await failure(extractText('pdf', pdf, { ...limits, maxInputBytes: 10 }))).toMatchObject({ code: 'too_large', reason: 'document_too_large' });
  });
});
