import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { searchTerms } from '../sqlite/fts-query.js';
import { ftsQuery, readHighlights } from '../sqlite/fts-query.js';
import { hitSnippet, pathVector, searchVector, termWords, tsqueryLiteral, words } from './search-text.js';

// The embedded store's own index, to compare against: the same tokenizer, bm25 and snippet() call.
const sqlite = new Database(':memory:');
sqlite.exec(`CREATE VIRTUAL TABLE docs USING fts5 (path, body, tokenize = 'unicode61 remove_diacritics 2');
  CREATE VIRTUAL TABLE vocab USING fts5vocab (docs, instance);`);
let rowid = 0;

afterAll(() => sqlite.close());

function sqliteWords(text: string): string[] {
  rowid += 1;
  sqlite.prepare('INSERT INTO docs (rowid, path, body) VALUES (?, ?, ?)').run(rowid, '', text);
  return (sqlite.prepare("SELECT term FROM vocab WHERE doc = ? AND col = 'body' ORDER BY offset").all(rowid) as { term: string }[]).map((row) => row.term);
}

function sqliteSnippet(path: string, body: string, query: string): { text: string; highlights: [number, number][] } | undefined {
  sqlite.exec('DELETE FROM docs');
  sqlite.prepare('INSERT INTO docs (path, body) VALUES (?, ?)').run(path, body);
  const row = sqlite.prepare("SELECT snippet(docs, -1, char(2), char(3), '…', 16) AS s FROM docs WHERE docs MATCH ?").get(ftsQuery(query)) as { s: string } | undefined;
  return row === undefined ? undefined : readHighlights(row.s);
}

describe('words', () => {
  it('splits and folds every character of the common scripts as SQLite\'s unicode61 tokenizer does', () => {
    const ranges: [number, number][] = [
      [0x20, 0x24f],
      [0x300, 0x36f],
      [0x370, 0x3ff],
      [0x400, 0x4ff],
      [0x590, 0x5ff],
      [0x900, 0x97f],
      [0x1e00, 0x1eff],
      [0x2000, 0x206f],
      [0x3040, 0x30ff],
      [0x4e00, 0x4e80],
      [0xac00, 0xac80],
      [0xe000, 0xe010],
      [0xff00, 0xffef],
    ];
    const differing: number[] = [];
    for (const [low, high] of ranges) {
      for (let code = low; code <= high; code += 1) {
        const char = String.fromCodePoint(code);
        const text = `a${char}b ${char} x${char}`;
        if (JSON.stringify(words(text)) !== JSON.stringify(sqliteWords(text))) differing.push(code);
      }
    }
    // Ǡ and ǡ keep their marks in SQLite's table; the others were assigned after Unicode 6.1, SQLite's tables.
    expect(differing.map((code) => code.toString(16))).toEqual(['1e0', '1e1', '37f', '2066', '2067', '2068', '2069']);
  });

  it('agrees with SQLite on mixed text', () => {
    for (const text of [
      'water-bill.txt Café ÆSIR straße İstanbul ǅemal',
      '日本語のテキスト ١٢٣ x²³ ½ €5 a_b ñ हिन्दी ℃ ﬁne Ǆ',
      "don't v1.2.3 #tag @me ΣΊΣΥΦΟΣ σίσυφος Ωmega",
      'e\u0301tude \u0301 naïve coöperate Ｆｕｌｌ ＷＩＤＴＨ ǆ ß ẞ µ ſ',
    ]) {
      expect(words(text), text).toEqual(sqliteWords(text));
    }
  });
});

describe('tsvector and tsquery literals', () => {
  it('lists each word once with its positions, the text\'s first, then the path\'s with weight A', () => {
    expect(searchVector('The cat, the HAT; the cät.', 'notes/a cat.md')).toEqual({ literal: "'the':1,3,5 'cat':2,6,9A 'hat':4 'notes':7A 'a':8A 'md':10A", words: 10 });
    expect(pathVector('notes/a report.md')).toEqual({ literal: "'notes':1A 'a':2A 'report':3A 'md':4A", words: 4 });
    expect(searchVector('!!! ...', '')).toEqual({ literal: '', words: 0 });
    // Positions stop at 16,383; a text's word keeps 250 of them, leaving room for the path's.
    const many = searchVector(`${'x '.repeat(300)}${'filler '.repeat(17_000)}late`, 'x.txt');
    expect(many.literal.match(/'x':([\dA,]+)/)![1]!.split(',')).toHaveLength(251);
    expect(many.literal).toContain("'late':16383");
    expect(many.literal).toContain("'txt':16383A");
    expect(many.words).toBe(300 + 17_000 + 1 + 2);
  });

  it('makes terms a conjunction of words, phrases and prefixes', () => {
    expect(tsqueryLiteral(termWords(searchTerms('Water "the roses" tom* x-yz*')))).toBe("'water' & ('the' <-> 'roses') & 'tom':* & ('x' <-> 'yz':*)");
    // Operators of tsquery's own syntax are only words.
    expect(tsqueryLiteral(termWords(searchTerms("a&b !c 'd' ee:* (f)")))).toBe("('a' <-> 'b') & 'c' & 'd' & 'ee':* & 'f'");
    expect(tsqueryLiteral(termWords(searchTerms('語'.repeat(700))))).toBeNull();
  });
});

describe('snippets', () => {
  const sentences = 'The garden needs water. Water the tomatoes and water the roses every morning. The kitchen has a kettle: boil water for tea. Nothing else happens here, nothing at all, until the very end of the story.';
  const long = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' ');
  const cases: [path: string, body: string, query: string][] = [
    ['garden.md', sentences, 'water'],
    ['garden.md', sentences, 'kettle'],
    ['garden.md', sentences, 'story'],
    ['garden.md', sentences, 'water tea'],
    ['garden.md', sentences, '"the roses"'],
    ['garden.md', sentences, 'tom*'],
    ['garden.md', sentences, 'garden'],
    ['water-bill.txt', 'Invoice for March.', 'water'],
    ['notes/ideas.md', '# Ideas\n\n- Mount the team drive next to this folder.\n- Let an agent search across both. The end.', 'ideas'],
    ['notes/ideas.md', '# Ideas\n\n- Mount the team drive next to this folder.\n- Let an agent search across both. The end.', 'the end'],
    ['long.txt', long, 'w40'],
    ['long.txt', long, 'w2'],
    ['long.txt', long, 'w78'],
    ['long.txt', long, 'w10 w60'],
    ['short.txt', '  — Café, naïve!  ', 'cafe'],
  ];

  it.each(cases)('cuts %s for %j as SQLite does', (path, body, query) => {
    const expected = sqliteSnippet(path, body, query);
    expect(expected).toBeDefined();
    expect(hitSnippet(path, { text: body, atStart: true, atEnd: true }, termWords(searchTerms(query)))).toEqual(expected);
  });

  it('marks where an excerpt of a longer text is cut, dropping the words it may have cut in half', () => {
    const excerpt = 'ipsum dolor needle sit amet consectetur adipis';
    const cut = hitSnippet('big.txt', { text: excerpt, atStart: false, atEnd: false }, termWords(searchTerms('needle')));
    expect(cut.text).toBe('…dolor needle sit amet consectetur…');
    expect(cut.highlights.map(([start, end]) => cut.text.slice(start, end))).toEqual(['needle']);
  });
});
