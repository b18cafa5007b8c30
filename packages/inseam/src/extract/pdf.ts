/**
 * The text of a PDF, page by page, through pdf.js (its legacy build, the one meant for Node). It
 * runs inside an extraction worker, so pdf.js's own "fake worker" parses in that thread too; no
 * fonts are loaded and nothing is evaluated as code.
 */
import { unreadable, type ExtractLimits } from './limits.js';
import { gather, TextSink } from './sink.js';

const PDF_MAGIC = '%PDF-';
// pdf.js repairs a file without a trailer by scanning it, and reads whatever pages it finds; a
// file cut short is refused instead, so a half-copied PDF is reported rather than half-indexed.
const TAIL_BYTES = 2048;

interface TextItemLike {
  readonly str?: string;
  readonly hasEOL?: boolean;
}

export async function pdfText(bytes: Uint8Array, limits: ExtractLimits): Promise<{ text: string; truncated: boolean }> {
  if (!startsWithMagic(bytes)) throw unreadable('pdf', 'wrong_type', 'it does not start with the PDF signature');
  if (!latin1(bytes.subarray(Math.max(0, bytes.byteLength - TAIL_BYTES))).includes('%%EOF')) throw unreadable('pdf', 'malformed', 'the file is truncated (it has no end-of-file marker)');
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdf.js takes ownership of the buffer it is given; hand it a copy.
  const task = pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, verbosity: 0 });
  let document: Awaited<typeof task.promise>;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    const name = (error as { name?: unknown }).name;
    if (name === 'PasswordException') throw unreadable('pdf', 'encrypted', 'it is protected by a password');
    throw unreadable('pdf', 'malformed', 'the file is damaged');
  }
  const sink = new TextSink(limits.maxTextChars);
  let truncated = false;
  try {
    await gather(sink, async () => {
      const pages = Math.min(document.numPages, limits.maxPages);
      truncated = document.numPages > limits.maxPages;
      for (let number = 1; number <= pages; number++) {
        const page = await document.getPage(number);
        const content = await page.getTextContent();
        for (const item of content.items as TextItemLike[]) {
          if (typeof item.str === 'string') sink.push(item.str);
          if (item.hasEOL === true) sink.push('\n');
        }
        sink.line();
        page.cleanup();
      }
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== undefined) throw error;
    throw unreadable('pdf', 'malformed', 'a page is damaged');
  } finally {
    await document.destroy().catch(() => undefined);
  }
  return { text: sink.text(), truncated: truncated || sink.truncated };
}

function startsWithMagic(bytes: Uint8Array): boolean {
  // The signature may follow a little junk (pdf.js and Acrobat accept it within the first KiB).
  return latin1(bytes.subarray(0, 1024)).includes(PDF_MAGIC);
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}
