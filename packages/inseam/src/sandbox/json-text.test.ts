/**
 * JSON text straight to QuickJS's binary form (json-text.ts). Its oracle is the long way it
 * replaces: for any bytes, it must write exactly what encodeBinaryJson(JSON.parse(decoded text))
 * writes, or give up. Response bodies are untrusted, so it is also fed malformed, mutated and
 * hostile text, which must never make it throw or write anything the long way would not.
 */
import { describe, expect, it } from 'vitest';
import { encodeBinaryJson } from './binary-json.js';
import { jsonTextToBinary } from './json-text.js';

const utf8 = new TextEncoder();

/** What the long way writes for these bytes; undefined where it gives up or JSON.parse throws. */
function longWay(bytes: Uint8Array, maxDepth?: number): Uint8Array | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8').decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
  return encodeBinaryJson(value, maxDepth);
}

function expectSame(text: string | Uint8Array, maxDepth?: number): Uint8Array | undefined {
  const bytes = typeof text === 'string' ? utf8.encode(text) : text;
  const direct = jsonTextToBinary(bytes, maxDepth);
  expect(direct, typeof text === 'string' ? text.slice(0, 200) : 'bytes').toEqual(longWay(bytes, maxDepth));
  return direct;
}

/** A page of a listing API, as bench/lib/sandbox-fixtures.mjs serves it. */
function listingPage(count: number): string {
  const items = Array.from({ length: count }, (_, i) => ({
    id: `it_${i.toString(36).padStart(8, '0')}`,
    folder: `d${Math.floor(i / 10000)}/e${Math.floor(i / 100) % 100}`,
    name: `file-${i}.txt`,
    bytes: 1024 + ((i * 7919) % 3072),
    modified: new Date(1700000000000 + i * 1000).toISOString(),
    owner: { id: `u_${i % 97}`, name: `User ${i % 97}` },
    shared: i % 3 === 0,
    size: i % 5 === 0 ? null : i * 1.5,
  }));
  return JSON.stringify({ items, next: 'p1' });
}

describe('jsonTextToBinary writes what the long way writes', () => {
  it('a listing page', () => {
    expect(expectSame(listingPage(1000))).toBeDefined();
  });

  it.each([
    ['scalars at the top', ['"text"', '0', '-0', '12', '-12', 'true', 'false', 'null', ' \t\r\n 5 \n']],
    ['numbers', ['[0,1,-1,2147483647,-2147483648,2147483648,999999999,1000000000,12345678901234567890]', '[1.5,-0.25,1e3,1E-7,2.5e+300,5e-324,0.1,-0.0,1e21]']],
    ['strings', ['["", "a", "\\"\\\\\\/\\b\\f\\n\\r\\t", "\\u0041\\u00e9\\u20ac", "é€😀", "\\ud83d\\ude00", "\\ud800", "ÿ"]', `"${'é'.repeat(100)}"`, `"${'x'.repeat(100)}€"`]],
    ['containers', ['{}', '[]', '[[],{},[[]]]', '{"a":{"b":{"c":[1,{"d":null}]}}}', '{ "a" : 1 , "b" : [ 1 , 2 ] }']],
    ['names', ['{"__proto__":{"x":1},"constructor":2,"prototype":3}', '{"é":1,"\\u0061":2,"a b":3,"":4}', '{"-1":1,"01":2,"1.5":3,"4294967295":4}']],
    ['a byte order mark', ['\ufeff{"bom":true}']],
    ['names in the same places, then in others', ['[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6},{"a":7},{"c":8,"a":9,"b":10}]', '[{"ab":1},{"ba":2},{"ab":3,"x":{"ab":4}}]']],
  ])('%s', (_, texts) => {
    for (const text of texts) expect(expectSame(text)).toBeDefined();
  });

  it('nesting up to the depth it is given, and not past it', () => {
    expect(expectSame(`${'['.repeat(8)}${']'.repeat(8)}`, 8)).toBeDefined();
    expect(jsonTextToBinary(utf8.encode(`${'['.repeat(9)}${']'.repeat(9)}`), 8)).toBeUndefined();
    expect(jsonTextToBinary(utf8.encode(`${'{"a":'.repeat(9)}1${'}'.repeat(9)}`), 8)).toBeUndefined();
    expect(jsonTextToBinary(utf8.encode(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toBeUndefined();
  });
});

describe('jsonTextToBinary gives up', () => {
  it.each([
    ['a repeated name (JSON.parse keeps its first place and its last value)', '{"a":1,"b":2,"a":3}'],
    ['a repeated name among many', `{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',')},"k39":0}`],
    ['a name repeated in an escaped form', '{"a":1,"\\u0061":2}'],
    ['an array index name (JSON.parse lists those first)', '{"b":1,"2":2}'],
    ['a number that is not finite', '[1e400]'],
  ])('on %s', (_, text) => {
    expect(jsonTextToBinary(utf8.encode(text))).toBeUndefined();
  });

  it.each(['', ' ', '{', '[1,]', '{"a":1,}', '[01]', '[1.]', '[.5]', '[+1]', '[-]', '[1e]', "['a']", '{a:1}', '"\t"', '"\\x"', '"abc', '[1 2]', 'tru', 'nul', 'true false', '\ufeff\ufeff1', '[NaN]', '{"a" 1}'])(
    'on text that is not JSON: %j',
    (text) => {
      expect(jsonTextToBinary(utf8.encode(text))).toBeUndefined();
      expect(longWay(utf8.encode(text))).toBeUndefined();
    },
  );

  it('on counts that would move the same bytes at every level: the long way is linear there', () => {
    // 40 levels, each an array of 127 numbers and the next level; a long string at the bottom.
    let text = JSON.stringify('x'.repeat(100_000));
    for (let level = 0; level < 40; level++) text = `[${'1,'.repeat(127)}${text}]`;
    const bytes = utf8.encode(text);
    expect(jsonTextToBinary(bytes)).toBeUndefined();
    expect(longWay(bytes)).toBeDefined();
    // A listing's one long array moves its entries once, well inside the allowance.
    expect(expectSame(`{"items":[${'{"a":1},'.repeat(5000)}{"a":2}],"next":null}`)).toBeDefined();
  });

  it('on bytes that are not UTF-8 outside a string, and reads them inside one as TextDecoder does', () => {
    expect(jsonTextToBinary(new Uint8Array([0x5b, 0xff, 0x5d]))).toBeUndefined();
    // In a string, a bad sequence is U+FFFD on both ways.
    expect(expectSame(new Uint8Array([0x22, 0x61, 0xff, 0xc3, 0x62, 0x22]))).toBeDefined();
    expect(expectSame(new Uint8Array([0x7b, 0x22, 0xe2, 0x82, 0x22, 0x3a, 0x31, 0x7d]))).toBeDefined();
  });
});

/** A random JSON value: names from a small pool (so some repeat), strings with every kind of unit. */
function randomValue(random: () => number, depth: number, names: readonly string[]): unknown {
  const pick = random();
  if (depth > 0 && pick < 0.2) return Array.from({ length: Math.floor(random() * 6) }, () => randomValue(random, depth - 1, names));
  if (depth > 0 && pick < 0.4) {
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(random() * 6); i > 0; i--) object[names[Math.floor(random() * names.length)] as string] = randomValue(random, depth - 1, names);
    return object;
  }
  if (pick < 0.55) return Math.floor(random() * 2 ** 34) - 2 ** 33;
  if (pick < 0.65) return (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
  if (pick < 0.7) return random() < 0.5 ? null : random() < 0.5;
  const units = ['a', 'Z', ' ', '"', '\\', '\n', '\u0000', '\u001f', 'é', 'ÿ', '€', '\ud800', '😀', '/'];
  return Array.from({ length: Math.floor(random() * 12) }, () => units[Math.floor(random() * units.length)]).join('');
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('jsonTextToBinary against the long way, at random', () => {
  const NAMES = ['id', 'name', 'a', 'é', '__proto__', 'x y', 'size', '😀', '-1'];

  it('takes every one of 3,000 random documents with no repeated or array-index name (compact and spaced out)', () => {
    const random = seeded(7);
    for (let i = 0; i < 3000; i++) {
      const text = JSON.stringify(randomValue(random, 4, NAMES), null, i % 2 === 0 ? undefined : ' \t');
      expect(expectSame(text)).toBeDefined();
    }
  });

  it('gives up, never differs, where names repeat or are array indices', () => {
    const random = seeded(9);
    let taken = 0;
    for (let i = 0; i < 3000; i++) {
      const text = JSON.stringify(randomValue(random, 4, [...NAMES, '7', '0']));
      // JSON.stringify writes each name once, so a repeat is written in on purpose now and then.
      const written = i % 5 === 0 ? text.replace(/\{"(\w+)":/, '{"$1":0,"$1":') : text;
      const bytes = utf8.encode(written);
      const direct = jsonTextToBinary(bytes);
      if (direct === undefined) continue;
      taken++;
      expect(direct).toEqual(longWay(bytes));
    }
    expect(taken).toBeGreaterThan(500);
  });

  it('never throws on mutated text, and what it writes is what the long way writes', () => {
    const random = seeded(11);
    const base = utf8.encode(listingPage(3).replace('User 0', 'Usér "0" 😀'));
    for (let i = 0; i < 4000; i++) {
      const mutated = base.slice();
      for (let j = 1 + Math.floor(random() * 3); j > 0; j--) {
        const at = Math.floor(random() * mutated.length);
        mutated[at] = random() < 0.5 ? Math.floor(random() * 256) : (mutated[(at + 1) % mutated.length] as number);
      }
      const cut = random() < 0.2 ? mutated.subarray(0, Math.floor(random() * mutated.length)) : mutated;
      const direct = jsonTextToBinary(cut);
      if (direct !== undefined) expect(direct).toEqual(longWay(cut));
    }
  });
});
