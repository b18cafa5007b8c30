/**
 * Full-text search on PostgreSQL with SQLite's rules. The embedded store indexes with FTS5's
 * `unicode61 remove_diacritics 2` tokenizer; here the store tokenizes in JavaScript by the same
 * rules and hands PostgreSQL finished `tsvector` and `tsquery` values, so neither the server's
 * parser nor its locale decides what a word is, and a search matches the same entries on both
 * stores:
 *
 * - a word is a run of letters, digits, private-use and unassigned characters (Unicode L*, N*,
 *   Co, Cn) and the common combining diacritics; every other character (punctuation, spaces,
 *   symbols, other marks) separates words;
 * - each character is case-folded ("Σ" and "ς" → "σ", "ſ" → "s"), then a letter that is an
 *   ASCII letter plus diacritics becomes that letter ("é" → "e", "İ" → "i"), and combining
 *   diacritics are dropped.
 *
 * SQLite's tables are Unicode 6.1's: characters assigned since that are not letters or digits
 * (most emoji, "₽", "₿") are word characters there and separators here.
 *
 * Snippets are cut here as FTS5's snippet() cuts them (a window of 16 words, preferring the
 * window with the most distinct terms, and one starting a sentence), from the path or from the
 * text, whichever matches better.
 *
 * PostgreSQL's limits, which SQLite does not have: a word longer than 2046 bytes is not indexed;
 * positions past 16,383 count as 16,383 (a phrase further into a text than that may not match);
 * each word keeps at most 256 positions; and a text's words stop being indexed once they and
 * their positions fill about 1 MB (a few hundred thousand words of prose).
 */
import type { SearchTerm } from '../sqlite/fts-query.js';

/**
 * The combining marks FTS5 counts as diacritics: inside a word they are dropped ("e\u0301tude" is
 * "etude"); every other mark separates words.
 */
const DIACRITICS = '\u0300-\u0304\u0306-\u030c\u030f\u0311\u031b\u0323-\u0328\u032d\u032e\u0330\u0331';
// Unassigned code points are word characters too, as in SQLite's tables.
const WORD = new RegExp(`[\\p{L}\\p{N}\\p{Co}\\p{Cn}${DIACRITICS}]+`, 'gu');
const DIACRITIC = new RegExp(`^[${DIACRITICS}]$`, 'u');
const ASCII = /^[\u0000-\u007f]*$/;
const ASCII_LETTER = /^[A-Za-z]$/;
const MARKS = /^\p{M}+$/u;

/** PostgreSQL refuses longer lexemes ("word is too long"). */
const MAX_WORD_BYTES = 2046;
/** tsvector positions run 1 to 16,383. */
const MAX_POSITION = 16_383;
/** A lexeme keeps at most 256 positions. */
const MAX_POSITIONS = 256;
/**
 * A tsvector's lexemes and their positions take less than 1 MiB (each lexeme's bytes, padded to
 * even, then 2 bytes of count and 2 per position); the path's words need room beside the text's.
 */
const MAX_TSVECTOR_BYTES = 1_000_000;

const foldedChars = new Map<string, string>();

function single(text: string): boolean {
  const code = text.codePointAt(0);
  return code !== undefined && text.length === (code > 0xffff ? 2 : 1);
}

function foldChar(char: string): string {
  let folded = foldedChars.get(char);
  if (folded !== undefined) return folded;
  if (DIACRITIC.test(char)) return '';
  // Simple case folding (ς → σ, ſ → s, µ → μ) is lower-case of upper-case; dotless ı folds to itself.
  const upper = char.toUpperCase();
  const viaUpper = single(upper) && char !== 'ı' ? upper.toLowerCase() : '';
  const lower = char.toLowerCase();
  folded = single(viaUpper) ? viaUpper : single(lower) ? lower : char;
  const decomposed = folded.normalize('NFD');
  if (decomposed !== folded) {
    const first = String.fromCodePoint(decomposed.codePointAt(0)!);
    if (ASCII_LETTER.test(first) && MARKS.test(decomposed.slice(first.length))) folded = first.toLowerCase();
  }
  // Bounded, though real text uses a few thousand distinct characters at most.
  if (foldedChars.size >= 65_536) foldedChars.clear();
  foldedChars.set(char, folded);
  return folded;
}

/** A word as the index keeps it. */
function foldWord(word: string): string {
  if (ASCII.test(word)) return word.toLowerCase();
  let folded = '';
  for (const char of word) folded += foldChar(char);
  return folded;
}

/** The folded words of `text`, in order (a run of diacritics alone is no word). */
export function words(text: string): string[] {
  return Array.from(text.matchAll(WORD), (match) => foldWord(match[0])).filter((word) => word !== '');
}

function quoteLexeme(word: string): string {
  return `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** An entry's search vector: its `tsvector` literal, and how many words it counted (for ranking). */
export interface SearchVector {
  readonly literal: string;
  readonly words: number;
}

/** Positions a text's word keeps, leaving room for the path's under the 256 PostgreSQL allows. */
const TEXT_POSITIONS = MAX_POSITIONS - 6;
const PATH_POSITIONS = 6;

interface Lexeme {
  /** Positions, ascending; those from `pathFrom` on are the path's (weight A). */
  readonly at: number[];
  pathFrom: number;
}

interface Lexemes {
  readonly words: Map<string, Lexeme>;
  count: number;
  size: number;
}

function lexemes(): Lexemes {
  return { words: new Map(), count: 0, size: 0 };
}

const ASCII_WORD = /[a-z0-9]+/g;

/**
 * Calls `visit` with each folded word of `text`, in order. Text that is all ASCII — most of it —
 * takes a shorter way to the same words: lower-cased once, split on what is not a letter or digit.
 */
function eachWord(text: string, visit: (word: string, bytes: number) => void): void {
  if (ASCII.test(text)) {
    const lower = text.toLowerCase();
    ASCII_WORD.lastIndex = 0;
    for (let match = ASCII_WORD.exec(lower); match !== null; match = ASCII_WORD.exec(lower)) visit(match[0], match[0].length);
    return;
  }
  const folded = new Map<string, string>();
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    let word = folded.get(match[0]);
    if (word === undefined) {
      word = foldWord(match[0]);
      folded.set(match[0], word);
    }
    if (word !== '') visit(word, Buffer.byteLength(word, 'utf8'));
  }
}

/**
 * Adds the words of `text` at positions after `offset`, as the path's or the text's, keeping at
 * most `keep` positions per word; answers the last position used.
 */
function addWords(into: Lexemes, text: string, offset: number, path: boolean, keep: number): number {
  let position = offset;
  eachWord(text, (word, bytes) => {
    into.count += 1;
    position = Math.min(position + 1, MAX_POSITION);
    const lexeme = into.words.get(word);
    if (lexeme === undefined) {
      const cost = bytes + (bytes % 2) + 4;
      if (bytes > MAX_WORD_BYTES || into.size + cost > MAX_TSVECTOR_BYTES) return;
      into.size += cost;
      into.words.set(word, { at: [position], pathFrom: path ? 0 : Number.POSITIVE_INFINITY });
    } else if (lexeme.at.length < keep && lexeme.at[lexeme.at.length - 1] !== position && into.size + 2 <= MAX_TSVECTOR_BYTES) {
      into.size += 2;
      if (path && lexeme.pathFrom === Number.POSITIVE_INFINITY) lexeme.pathFrom = lexeme.at.length;
      lexeme.at.push(position);
    }
  });
  return position;
}

function literalOf(words: Lexemes): string {
  const parts: string[] = [];
  for (const [word, { at, pathFrom }] of words.words) {
    parts.push(`${quoteLexeme(word)}:${at.map((position, index) => (index >= pathFrom ? `${position}A` : String(position))).join(',')}`);
  }
  return parts.join(' ');
}

/**
 * The search vector of an indexed entry: its text's words with weight D at positions 1, 2, …,
 * then its path's words with weight A after them — where PostgreSQL's `||` puts the right-hand
 * vector, so that `ts_filter(search, '{d}') || pathVector(newPath)` gives a moved entry the
 * vector it would have been built with.
 */
export function searchVector(text: string, path: string): SearchVector {
  const words = lexemes();
  const last = addWords(words, text, 0, false, TEXT_POSITIONS);
  addWords(words, path, last, true, TEXT_POSITIONS + PATH_POSITIONS);
  return { literal: literalOf(words), words: words.count };
}

/** The words of a path alone, for a moved entry (see searchVector). */
export function pathVector(path: string): SearchVector {
  const words = lexemes();
  addWords(words, path, 0, true, PATH_POSITIONS);
  return { literal: literalOf(words), words: words.count };
}

/** A term's folded words; with `prefix`, the last one matches any word it starts. */
export interface TermWords {
  readonly words: readonly string[];
  readonly prefix: boolean;
}

export function termWords(terms: readonly SearchTerm[]): TermWords[] {
  return terms.map((term) => ({ words: words(term.text), prefix: term.prefix }));
}

/**
 * The `tsquery` literal of terms, all of which must match: a term of several words is a phrase
 * (`<->`), a prefix term's last word ends in `:*`. Null when a term can never match (a word longer
 * than any indexed word, or none at all), so the search has no hits.
 */
export function tsqueryLiteral(terms: readonly TermWords[]): string | null {
  const parts: string[] = [];
  for (const term of terms) {
    if (term.words.length === 0 || term.words.some((word) => Buffer.byteLength(word, 'utf8') > MAX_WORD_BYTES)) return null;
    const lexemes = term.words.map(quoteLexeme);
    if (term.prefix) lexemes[lexemes.length - 1] += ':*';
    parts.push(lexemes.length === 1 ? lexemes[0]! : `(${lexemes.join(' <-> ')})`);
  }
  return parts.length === 0 ? null : parts.join(' & ');
}

interface Token {
  readonly word: string;
  readonly start: number;
  readonly end: number;
  /** A sentence starts here: the first word, or one after whitespace that follows "." or ":". */
  readonly opensSentence: boolean;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = foldWord(match[0]);
    if (word === '') continue;
    const start = match.index;
    tokens.push({ word, start, end: start + match[0].length, opensSentence: tokens.length === 0 || followsSentenceEnd(text, start) });
  }
  return tokens;
}

function followsSentenceEnd(text: string, start: number): boolean {
  let index = start - 1;
  while (index >= 0 && ' \t\n\r'.includes(text[index]!)) index -= 1;
  return index !== start - 1 && index >= 0 && (text[index] === '.' || text[index] === ':');
}

interface Hit {
  readonly term: number;
  readonly first: number;
  /** One past the hit's last word. */
  readonly end: number;
}

function hitsIn(tokens: readonly Token[], terms: readonly TermWords[]): Hit[] {
  const hits: Hit[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    terms.forEach((term, number) => {
      const count = term.words.length;
      if (count === 0 || index + count > tokens.length) return;
      for (let offset = 0; offset < count; offset += 1) {
        const word = tokens[index + offset]!.word;
        const wanted = term.words[offset]!;
        const last = offset === count - 1;
        if (last && term.prefix ? !word.startsWith(wanted) : word !== wanted) return;
      }
      hits.push({ term: number, first: index, end: index + count });
    });
  }
  return hits;
}


/** Bodies up to this many bytes are read whole for a snippet; larger ones only around a hit. */
export const WHOLE_BODY_BYTES = 64 * 1024;
/** The excerpt of a larger body: this many characters, starting this many before the first hit found. */
export const EXCERPT_CHARS = 4096;
export const EXCERPT_LEAD = 1024;
/** Weights of ts_rank_cd, {D, C, B, A}: a word of the text counts half as much as a word of the path. */
export const RANK_WEIGHTS = '{0.5, 0, 0, 1}';

/** The word a large body's excerpt is cut around: the first term's first word, lower-cased as `lower()` finds it. */
export function anchorOf(terms: readonly TermWords[]): string {
  return terms[0]?.words[0] ?? '';
}

/** A text to cut a snippet from; `atStart`/`atEnd` say whether it is the whole text's start and end. */
export interface SnippetSource {
  readonly text: string;
  readonly atStart: boolean;
  readonly atEnd: boolean;
}

interface Window {
  readonly score: number;
  readonly start: number;
}

/** FTS5's window score: 1000 for each term's first hit in the window, 1 for every further hit. */
function windowScore(hits: readonly Hit[], start: number, size: number): { score: number; first: number; end: number } {
  const seen = new Set<number>();
  let score = 0;
  let first = -1;
  let end = 0;
  for (const hit of hits) {
    if (hit.first < start || hit.first >= start + size) continue;
    score += seen.has(hit.term) ? 1 : 1000;
    seen.add(hit.term);
    if (first < 0) first = hit.first;
    end = hit.end;
  }
  return { score, first, end };
}

function bestWindow(tokens: readonly Token[], hits: readonly Hit[], size: number): Window {
  let best: Window = { score: 0, start: 0 };
  const sentences = tokens.flatMap((token, index) => (token.opensSentence ? [index] : []));
  for (const hit of hits) {
    const { score, first, end } = windowScore(hits, hit.first, size);
    let start = first - Math.trunc((size - (end - first)) / 2);
    if (start + size > tokens.length) start = tokens.length - size;
    if (start < 0) start = 0;
    if (score > best.score) best = { score, start };
    if (tokens.length > size) {
      // A window opening the sentence the hit is in reads better, and wins a tie.
      const opening = sentences.filter((index) => index <= hit.first).pop();
      if (opening !== undefined && opening < hit.first) {
        const sentence = windowScore(hits, opening, size).score + (opening === 0 ? 120 : 100);
        if (sentence > best.score) best = { score: sentence, start: opening };
      }
    }
  }
  return best;
}

interface Snippet {
  readonly text: string;
  readonly highlights: readonly (readonly [number, number])[];
  readonly score: number;
}

/**
 * A snippet of up to `size` words of `source` around its best hits, with `…` where it is cut
 * and the `[start, end)` ranges of the hits in it. A source whose start or end is not the text's
 * own drops the word it may have cut in half.
 */
function snippet(source: SnippetSource, terms: readonly TermWords[], size = 16): Snippet {
  let tokens = tokenize(source.text);
  if (!source.atStart && tokens[0]?.start === 0) tokens = tokens.slice(1);
  if (!source.atEnd && tokens[tokens.length - 1]?.end === source.text.length) tokens = tokens.slice(0, -1);
  if (tokens.length === 0) return { text: source.atStart && source.atEnd ? source.text : '', highlights: [], score: 0 };
  const hits = hitsIn(tokens, terms);
  const { score, start } = bestWindow(tokens, hits, size);
  const end = Math.min(start + size, tokens.length);
  const fromStart = start === 0 && source.atStart;
  const toEnd = end === tokens.length && source.atEnd;
  const from = fromStart ? 0 : tokens[start]!.start;
  const to = toEnd ? source.text.length : tokens[end - 1]!.end;
  const lead = fromStart ? '' : '…';
  const ranges: [number, number][] = [];
  for (const hit of hits) {
    if (hit.first < start || hit.end > end) continue;
    const range: [number, number] = [tokens[hit.first]!.start - from + lead.length, tokens[hit.end - 1]!.end - from + lead.length];
    const previous = ranges[ranges.length - 1];
    if (previous !== undefined && range[0] <= previous[1]) previous[1] = Math.max(previous[1], range[1]);
    else ranges.push(range);
  }
  return { text: `${lead}${source.text.slice(from, to)}${toEnd ? '' : '…'}`, highlights: ranges, score };
}

/**
 * A search hit's snippet as FTS5's snippet() over all columns cuts it: from the path's words or
 * the text, whichever window scores better; the path on a tie, the text when neither matched.
 */
export function hitSnippet(path: string, body: SnippetSource, terms: readonly TermWords[]): Pick<Snippet, 'text' | 'highlights'> {
  const fromPath = snippet({ text: path, atStart: true, atEnd: true }, terms);
  const fromBody = snippet(body, terms);
  const best = fromPath.score > 0 && fromPath.score >= fromBody.score ? fromPath : fromBody;
  return { text: best.text, highlights: best.highlights };
}
