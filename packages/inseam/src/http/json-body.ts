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

/**
 * Walks the keys of `text`, known to be valid JSON, throwing at the first repeated or prototype
 * key. Only strings and objects matter (arrays hold no keys): a string is a key when `:` follows
 * it, and an object is a key's value when it starts right after that `:`. Where a refused key is
 * (`body.items.1.name`) is worked out only then.
 */
function checkKeys(text: string): void {
  const objects: { readonly keys: Set<string>; readonly under: string | null }[] = [];
  let valueAt = -1;
  let lastKey: string | null = null;
  // The next `{`, `}` and `"`, each found by indexOf: long runs without them (numbers, base64) cost one scan.
  let open = text.indexOf('{');
  let close = text.indexOf('}');
  let quote = text.indexOf('"');
  for (;;) {
    const at = Math.min(open < 0 ? Infinity : open, close < 0 ? Infinity : close, quote < 0 ? Infinity : quote);
    if (at === Infinity) return;
    if (at === open) {
      objects.push({ keys: new Set(), under: at === valueAt ? lastKey : null });
      open = text.indexOf('{', at + 1);
      continue;
    }
    if (at === close) {
      objects.pop();
      close = text.indexOf('}', at + 1);
      continue;
    }
    const end = closingQuote(text, at);
    quote = text.indexOf('"', end + 1);
    if (open >= 0 && open < end) open = text.indexOf('{', end + 1);
    if (close >= 0 && close < end) close = text.indexOf('}', end + 1);
    const colon = nextNonSpace(text, end + 1);
    if (text.charCodeAt(colon) !== 0x3a /* : */) continue;
    const raw = text.slice(at + 1, end);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
    const top = objects[objects.length - 1]!;
    if (top.keys.has(key)) {
      const where = pathAt(text, at);
      throw new InvalidArgumentError(`The body gives the key "${key}" twice at ${where}; give each key once.`, { details: { argument: where, reason: 'duplicate_key' } });
    }
    if (key === '__proto__' || (key === 'prototype' && top.under === 'constructor')) {
      const where = pathAt(text, at);
      throw new InvalidArgumentError(`The body has a key "${key}" at ${where}, which is not accepted anywhere.`, { details: { argument: where, reason: 'prototype_key' } });
    }
    top.keys.add(key);
    lastKey = key;
    valueAt = nextNonSpace(text, colon + 1);
  }
}

/** The index of the first character from `from` on that is not JSON whitespace. */
function nextNonSpace(text: string, from: number): number {
  let at = from;
  for (let char = text.charCodeAt(at); char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09; char = text.charCodeAt(at)) at += 1;
  return at;
}

/** Where the key whose string starts at `offset` is: `body.config.root`, `body.items.1.name`. A full walk, for a refusal only. */
function pathAt(text: string, offset: number): string {
  const stack: { readonly array: boolean; readonly path: string; member: string; index: number }[] = [];
  const pathOf = (frame: (typeof stack)[number] | undefined): string => (frame === undefined ? 'body' : `${frame.path}.${frame.array ? String(frame.index) : frame.member}`);
  for (let at = 0; at < offset; at += 1) {
    const char = text.charCodeAt(at);
    if (char === 0x22 /* " */) {
      const end = closingQuote(text, at);
      const top = stack[stack.length - 1];
      if (top !== undefined && !top.array && text.charCodeAt(nextNonSpace(text, end + 1)) === 0x3a) top.member = JSON.parse(text.slice(at, end + 1)) as string;
      at = end;
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      stack.push({ array: char === 0x5b, path: pathOf(stack[stack.length - 1]), member: '', index: 0 });
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop();
    } else if (char === 0x2c /* , */ && stack[stack.length - 1]?.array === true) {
      stack[stack.length - 1]!.index += 1;
    }
  }
  const top = stack[stack.length - 1]!;
  top.member = JSON.parse(text.slice(offset, closingQuote(text, offset) + 1)) as string;
  return pathOf(top);
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
