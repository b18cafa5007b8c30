/**
 * Search text → an FTS5 MATCH expression, taken literally: words and "quoted phrases", all of
 * which must match, and a trailing `*` for a prefix. Every term is emitted as a quoted FTS5
 * string, so the query language's operators (AND, OR, NOT, NEAR, column filters, `^`, parentheses)
 * in a person's text are just words, and no input is a syntax error.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';

/** Markers snippet() puts around matched terms; control characters that text practically never holds. */
export const HIGHLIGHT_OPEN = '\u0002';
export const HIGHLIGHT_CLOSE = '\u0003';

const MAX_QUERY_LENGTH = 1000;
const MAX_TERMS = 32;
// A term the tokenizer would reduce to nothing (only punctuation) would match nothing at all.
const HAS_WORD = /[\p{L}\p{N}]/u;
const WORDS = /[\p{L}\p{N}\p{M}]+/gu;
const MIN_PREFIX_CHARACTERS = 2;

/**
 * One term of a search: a word or a quoted phrase, taken literally. The store's tokenizer splits
 * it into words, all of which must match in sequence; with `prefix`, the last one is a prefix.
 */
export interface SearchTerm {
  readonly text: string;
  readonly prefix: boolean;
}

/**
 * The terms of a person's search text: words, "quoted phrases" and `word*` prefixes; terms with
 * no letter or digit are dropped. Both stores read search text with it, so the same text means
 * the same search on either. Throws `invalid_argument` when no term is left, or the text is too
 * long or has too many terms, or a prefix has one character (`prefix_too_short`).
 */
export function searchTerms(text: string): SearchTerm[] {
  if (typeof text !== 'string') throw new InvalidArgumentError('A search query must be a string.');
  if (text.length > MAX_QUERY_LENGTH) throw new InvalidArgumentError(`A search query is at most ${MAX_QUERY_LENGTH} characters; this one has ${text.length}.`);
  const terms: SearchTerm[] = [];
  for (const match of text.matchAll(/"([^"]*)"|(\S+)/g)) {
    const phrase = match[1];
    const word = match[2];
    if (phrase !== undefined) {
      if (HAS_WORD.test(phrase)) terms.push({ text: phrase, prefix: false });
    } else if (word !== undefined) {
      const prefix = word.length > 1 && word.endsWith('*');
      const bare = prefix ? word.replace(/\*+$/, '') : word;
      if (prefix) refuseShortPrefix(bare);
      if (HAS_WORD.test(bare)) terms.push({ text: bare, prefix });
    }
  }
  if (terms.length === 0) throw new InvalidArgumentError('The search query has no word to look for; give at least one word.', { details: { reason: 'empty_query' } });
  if (terms.length > MAX_TERMS) throw new InvalidArgumentError(`A search query has at most ${MAX_TERMS} terms; this one has ${terms.length}.`);
  return terms;
}

/**
 * A one-character prefix expands to a large share of every indexed word (measured: 100–850 ms on
 * 100,000 documents, against 50 ms for two characters, which the catalog's prefix index serves)
 * and ranks nothing useful, so it is refused rather than left to tie the store up.
 */
function refuseShortPrefix(bare: string): void {
  // The prefix applies to the last word the tokenizer finds in the term (`a-b*` is `a` then `b*`).
  const last = bare.match(WORDS)?.at(-1);
  // Combining marks are not characters of their own to the tokenizer (`é` as e + U+0301 is `e`).
  if (last === undefined || [...last.replace(/\p{M}/gu, '')].length >= MIN_PREFIX_CHARACTERS) return;
  throw new InvalidArgumentError(`"${last}*" is too short to search by: a prefix needs at least ${MIN_PREFIX_CHARACTERS} letters or digits before the *.`, {
    details: { reason: 'prefix_too_short', minimum: MIN_PREFIX_CHARACTERS },
  });
}

/** Throws `invalid_argument` when the text holds no searchable word or is too long (see searchTerms). */
export function ftsQuery(text: string): string {
  return searchTerms(text)
    .map((term) => (term.prefix ? `${quote(term.text)}*` : quote(term.text)))
    .join(' ');
}

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** Removes the highlight markers from a snippet and returns where they were. */
export function readHighlights(marked: string): { text: string; highlights: [number, number][] } {
  let text = '';
  const highlights: [number, number][] = [];
  let start = -1;
  for (const char of marked) {
    if (char === HIGHLIGHT_OPEN) start = text.length;
    else if (char === HIGHLIGHT_CLOSE) {
      if (start >= 0) highlights.push([start, text.length]);
      start = -1;
    } else text += char;
  }
  return { text, highlights };
}
