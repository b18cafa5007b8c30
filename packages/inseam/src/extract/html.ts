/** The text of an HTML page as a reader sees it: no markup, scripts or styles; links by their words. */
import { convert } from 'html-to-text';
import { unreadable, type ExtractLimits } from './limits.js';

export function htmlText(bytes: Uint8Array, limits: ExtractLimits): { text: string; truncated: boolean } {
  // A page in a legacy charset still gives its words, a few letters replaced; a NUL says binary.
  const html = new TextDecoder('utf-8').decode(bytes);
  if (html.slice(0, 8192).includes('\u0000')) throw unreadable('html', 'wrong_type', 'it is binary, not text');
  const text = convert(html, {
    wordwrap: false,
    limits: { maxInputLength: limits.maxInputBytes },
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      // Headings keep their letters as written, so the text matches what was searched for.
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
      { selector: 'table', options: { uppercaseHeaderCells: false } },
    ],
  }).trim();
  const truncated = text.length > limits.maxTextChars;
  return { text: truncated ? text.slice(0, limits.maxTextChars) : text, truncated };
}
