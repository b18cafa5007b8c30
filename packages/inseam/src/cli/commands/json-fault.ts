/**
 * Where a text stops being JSON, and what was expected there. Worked out by a small scanner of
 * the JSON grammar (RFC 8259), not read from JSON.parse's message: that message differs between
 * Node versions, sometimes has no position, and sometimes quotes the text (which may hold a secret).
 */

export interface JsonFault {
  /** 0-based offset of the first character that cannot be JSON (the text's length when it ends too soon). */
  readonly position: number;
  /** 1-based. */
  readonly line: number;
  /** 1-based, in characters of that line. */
  readonly column: number;
  /** What is wrong there, in words; never the text itself. */
  readonly problem: string;
}

class Fault {
  constructor(
    readonly position: number,
    readonly problem: string,
  ) {}
}

const DIGITS = /[0-9]/;
const HEX = /^[0-9a-fA-F]{4}$/;
const WORDS = ['true', 'false', 'null'] as const;

function scan(text: string): Fault | null {
  let at = 0;
  const fail = (problem: string, position = at): never => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a Fault is caught within this module; it needs no stack
    throw new Fault(position, problem);
  };
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at += 1;
  };
  const digits = (what: string): void => {
    if (!DIGITS.test(text[at] ?? '')) fail(`expected a digit ${what}`);
    while (DIGITS.test(text[at] ?? '')) at += 1;
  };
  const string = (): void => {
    at += 1;
    for (;;) {
      const c = text[at];
      if (c === undefined) return fail('the text ends inside a string (a closing " is missing)');
      if (c === '"') {
        at += 1;
        return;
      }
      if (c === '\\') {
        const escaped = text[at + 1];
        if (escaped === 'u') {
          if (!HEX.test(text.slice(at + 2, at + 6))) fail('expected four hexadecimal digits after \\u');
          at += 6;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) at += 2;
        else fail('expected an escape such as \\n, \\" or \\u00e9 after the backslash');
        continue;
      }
      if (c < ' ') fail('a control character inside a string (write it as an escape, e.g. \\n)');
      at += 1;
    }
  };
  const number = (): void => {
    if (text[at] === '-') at += 1;
    if (text[at] === '0') at += 1;
    else digits('in the number');
    if (text[at] === '.') {
      at += 1;
      digits('after the decimal point');
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at += 1;
      if (text[at] === '+' || text[at] === '-') at += 1;
      digits('in the exponent');
    }
  };
  const object = (): void => {
    at += 1;
    space();
    if (text[at] === '}') {
      at += 1;
      return;
    }
    for (;;) {
      space();
      if (text[at] !== '"') fail(at >= text.length ? 'the text ends inside an object (a closing } is missing)' : 'expected a property name in double quotes');
      string();
      space();
      if (text[at] !== ':') fail(at >= text.length ? 'the text ends inside an object (a closing } is missing)' : "expected ':' after the property name");
      at += 1;
      value();
      space();
      if (text[at] === ',') at += 1;
      else if (text[at] === '}') {
        at += 1;
        return;
      } else fail(at >= text.length ? 'the text ends inside an object (a closing } is missing)' : "expected ',' or '}' after the property's value");
    }
  };
  const array = (): void => {
    at += 1;
    space();
    if (text[at] === ']') {
      at += 1;
      return;
    }
    for (;;) {
      value();
      space();
      if (text[at] === ',') at += 1;
      else if (text[at] === ']') {
        at += 1;
        return;
      } else fail(at >= text.length ? 'the text ends inside a list (a closing ] is missing)' : "expected ',' or ']' after the list item");
    }
  };
  const value = (): void => {
    space();
    const c = text[at];
    if (c === undefined) return fail('the text ends where a value was expected');
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === '-' || DIGITS.test(c)) return number();
    const word = WORDS.find((candidate) => text.startsWith(candidate, at));
    if (word === undefined) return fail('expected a value: an object, a list, a "string", a number, true, false or null');
    at += word.length;
  };
  try {
    value();
    space();
    if (at < text.length) fail('unexpected text after the JSON value');
    return null;
  } catch (error) {
    if (error instanceof Fault) return error;
    // Nesting deep enough to exhaust the stack: JSON.parse gave up there too.
    return new Fault(0, 'nested too deeply');
  }
}

/** The first fault of a text JSON.parse refused. */
export function jsonFault(text: string): JsonFault {
  const fault = scan(text) ?? new Fault(0, 'it is not JSON');
  const before = text.slice(0, fault.position);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { position: fault.position, line: before.split('\n').length, column: fault.position - lineStart + 1, problem: fault.problem };
}
