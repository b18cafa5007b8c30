/** The text of an HTML page as a reader sees it: no markup, scripts or styles; links by their words. */
import { convert } from 'html-to-text';
import { unreadable, type ExtractLimits } from './limits.js';

export function htmlText(bytes: Uint8Array, limits: ExtractLimits): { text: string; truncated: boolean } {
  let html: string;
  try {
    html = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw unreadable('html', 'wrong_type', 'it is not UTF-8 text');
  }
  if (html.slice(0, 8192).includes('\u0000')) throw unreadable('html', 'wrong_type', 'it is binary, not text');
  const text = convert(html, {
    wordwrap: false,
    limits: { maxInputLength: limits.maxInputBytes },
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
    ],
  }).trim();
  const truncated = text.length > limits.maxTextChars;
  return { text: truncated ? text.slice(0, limits.maxTextChars) : text, truncated };
}
