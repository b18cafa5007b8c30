import { describe, expect, test } from 'vitest';
import { foldWord, tokenize, type Vocabulary } from './tokenize.js';

// A vocabulary like wink's: lower case ASCII, no digits, no apostrophes, some hyphenated compounds.
const WORDS = ['the', 'portugal', 'capital', 'do', 'not', 'can', 'will', 'we', 'are', 'i', 'cafe', 'low-cost', 'low', 'cost', 'airfare', 'e-mail', 'flight', 'city', 'run', 'book', 'snake', 'case', 'u.s'];
const vocabulary: Vocabulary = { rank: (word) => WORDS.indexOf(word) };
const words = (text: string) => tokenize(text, vocabulary).ranks.map((rank) => WORDS[rank]);

describe('tokenize', () => {
  test('folds case and accents, drops punctuation', () => {
    expect(words('The CAPITAL, of... Portugal!')).toEqual(['the', 'capital', 'portugal']);
    expect(words('Café')).toEqual(['cafe']);
    expect(foldWord('Ünïcödé’S')).toBe("unicode's");
  });

  test('drops possessives and spells out clitics, curly apostrophes too', () => {
    expect(words("Portugal's capital")).toEqual(['portugal', 'capital']);
    expect(words('Portugal’s')).toEqual(['portugal']);
    expect(words("don't can't won't")).toEqual(['do', 'not', 'can', 'not', 'will', 'not']);
    expect(words("we're I'll")).toEqual(['we', 'are', 'i', 'will']);
  });

  test('keeps known compounds whole and splits unknown ones, camelCase and snake_case', () => {
    expect(words('low-cost e-mail')).toEqual(['low-cost', 'e-mail']);
    expect(words('low-cost-airfare')).toEqual(['low', 'cost', 'airfare']);
    expect(words('lowCostAirfare snake_case U.S.')).toEqual(['low', 'cost', 'airfare', 'snake', 'case', 'u.s']);
  });

  test('takes regular inflections off words it lacks', () => {
    expect(words('flights cities running booked')).toEqual(['flight', 'city', 'run', 'book']);
  });

  test('numbers, unknown words, other scripts and prototype names are skipped and counted', () => {
    const result = tokenize('2024 1,000 zorblax 里斯本 constructor __proto__ toString the', vocabulary);
    expect(result.ranks.map((rank) => WORDS[rank])).toEqual(['the']);
    // 2024, 1 and 000, zorblax, 里斯本, constructor, proto, toString (as to + string).
    expect(result.unknown).toBe(8);
    expect(tokenize('', vocabulary)).toEqual({ ranks: [], unknown: 0 });
  });
});
