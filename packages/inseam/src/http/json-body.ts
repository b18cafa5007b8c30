/**
 * JSON request bodies, refusing what `JSON.parse` would silently accept:
 *
 * - a key given twice in one object — `JSON.parse` keeps the last, so a body could mean one thing
 *   to a proxy, a log or a client's own checks (which saw the first) and another to the server;
 * - `__proto__` keys and `constructor.prototype` (prototype poisoning), as Fastify's own parser
 *   (secure-json-parse) refused them.
 *
 * Each refusal is `invalid_argument` naming where (`body.config.root`), never the text around
 * it: a body may hold a secret. The text is parsed by `JSON.parse` first (native, and the syntax
 * check), then its keys are walked once; a string is skipped with one `indexOf` per quote, so
 * long values (a base64 write over MCP) cost little (bench/json-body.mjs measures it).
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';

interface Frame {
  /** Keys seen so far, for an object; null for an array. */
  readonly keys: Set<string> | null;
  readonly path: string;
  /** The key this object or array is the value of, in its parent object. */
  readonly under: string | null;
  /** An object's last key, or an array's next index. */
  member: string;
  index: number;
  /** In an object: whether the next string is a key. */
  expectKey: boolean;
}

/** Parses a JSON body. Throws `invalid_argument` (`details.argument` and `reason`) for bad syntax, a repeated key or a prototype key. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw new InvalidArgumentError('The body is empty; send a JSON object.', { details: { argument: 'body', reason: 'empty_json_body' } });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text near the fault; only the position is passed on.
    const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    throw new InvalidArgumentError(`The body is not valid JSON${position === undefined ? '' : ` (at character ${position})`}; check its quoting and commas.`, {
      details: { argument: 'body', reason: 'invalid_json', ...(position === undefined ? {} : { position: Number(position) }) },
    });
  }
  if (typeof value === 'object' && value !== null) checkKeys(text);
  return value;
}

/** Walks the keys of `text`, known to be valid JSON. */
function checkKeys(text: string): void {
  const stack: Frame[] = [];
  const pathOf = (frame: Frame | undefined): string => {
    if (frame === undefined) return 'body';
    return `${frame.path}.${frame.keys === null ? String(frame.index) : frame.member}`;
  };
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      const end = closingQuote(text, i);
      const top = stack[stack.length - 1];
      if (top !== undefined && top.keys !== null && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        top.member = key;
        top.expectKey = false;
        const where = pathOf(top);
        if (top.keys.has(key)) throw new InvalidArgumentError(`The body gives the key "${key}" twice at ${where}; give each key once.`, { details: { argument: where, reason: 'duplicate_key' } });
        if (key === '__proto__' || (key === 'prototype' && top.under === 'constructor')) {
          throw new InvalidArgumentError(`The body has a key "${key}" at ${where}, which is not accepted anywhere.`, { details: { argument: where, reason: 'prototype_key' } });
        }
        top.keys.add(key);
      }
      i = end;
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      const parent = stack[stack.length - 1];
      stack.push({ keys: char === 0x7b ? new Set() : null, path: pathOf(parent), under: parent !== undefined && parent.keys !== null ? parent.member : null, member: '', index: 0, expectKey: true });
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop();
    } else if (char === 0x2c /* , */) {
      const top = stack[stack.length - 1]!;
      if (top.keys === null) top.index += 1;
      else top.expectKey = true;
    }
  }
}

/** The index of the quote closing the string that opens at `start`: the first not escaped by an odd run of backslashes. */
function closingQuote(text: string, start: number): number {
  let at = text.indexOf('"', start + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === 0x5c /* \ */) slashes += 1;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
}
