/** Where a refused JSON argument goes wrong, and what was expected there, without echoing it. */
import { describe, expect, it } from 'vitest';
import { jsonFault } from './json-fault.js';

describe('jsonFault', () => {
  it('names the line, the column and what was expected at the first character that cannot be JSON', () => {
    const cases: [string, number, number, RegExp][] = [
      ['{bad', 1, 2, /^expected a property name in double quotes$/],
      ['', 1, 1, /ends where a value was expected/],
      ['{"a":1', 1, 7, /ends inside an object/],
      ['[1,]', 1, 4, /^expected a value/],
      ['[1 2]', 1, 4, /expected ',' or '\]'/],
      ['{"a" 1}', 1, 6, /expected ':' after the property name/],
      ['{"a":1 "b":2}', 1, 8, /expected ',' or '}'/],
      ['"abc', 1, 5, /ends inside a string/],
      ['{"a":1} x', 1, 9, /unexpected text after the JSON value/],
      ['01', 1, 2, /unexpected text after/],
      ['1.', 1, 3, /digit after the decimal point/],
      ['1e', 1, 3, /digit in the exponent/],
      ['-', 1, 2, /digit in the number/],
      ['"\\x"', 1, 2, /escape/],
      ['"\\u12g4"', 1, 2, /four hexadecimal digits/],
      ['"a\nb"', 1, 3, /control character/],
      ["{'root': 1}", 1, 2, /double quotes/],
      ['{\n  "root": "/srv",\n  "sync": tru\n}', 3, 11, /^expected a value/],
      ['{\n  "root": "/srv"\n  "x": 1\n}', 3, 3, /expected ',' or '}'/],
    ];
    for (const [text, line, column, problem] of cases) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      const fault = jsonFault(text);
      expect({ text, line: fault.line, column: fault.column }).toEqual({ text, line, column });
      expect(fault.problem, text).toMatch(problem);
    }
  });

  it('never repeats the text it was given', () => {
    const fault = jsonFault('{"token": "sk-SECRET-1", oops}');
    expect(fault).toMatchObject({ line: 1, column: 26 });
    expect(fault.problem).not.toContain('SECRET');
    expect(fault.problem).not.toContain('oops');
  });

  it('answers for nesting deeper than the stack, as JSON.parse refuses it', () => {
    expect(jsonFault('['.repeat(200_000)).problem).toMatch(/nested too deeply|ends inside a list|ends where a value/);
  });
});
