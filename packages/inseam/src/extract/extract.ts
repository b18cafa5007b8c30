/**
 * One document's text, in the calling thread. The pool runs this inside a worker; nothing else
 * should call it on the main thread, where a hostile document would stall everything.
 */
import type { DocumentKind } from './kinds.js';
import { htmlText } from './html.js';
import { tooLarge, type ExtractedText, type ExtractLimits } from './limits.js';
import { officeText } from './ooxml.js';
import { pdfText } from './pdf.js';

export async function extractText(kind: DocumentKind, bytes: Uint8Array, limits: ExtractLimits): Promise<ExtractedText> {
  if (bytes.byteLength > limits.maxInputBytes) throw tooLarge(kind, 'document_too_large', `it is over ${limits.maxInputBytes} bytes`, limits.maxInputBytes);
  const { text, truncated } = kind === 'pdf' ? await pdfText(bytes, limits) : kind === 'html' ? htmlText(bytes, limits) : await officeText(kind, bytes, limits);
  return { kind, text, truncated };
}
