/**
 * The spellings of a secret a server may reflect, as a pattern tree for the automaton
 * (automaton.ts). Rules, rather than a list of strings: every character of a text may be spelled
 * on its own, so a value that a server escaped only in part (`/` as `\/`, a `+` as `%2B`, one
 * character as `&#x41;`) is still the same value.
 *
 * For one character, the alternatives are:
 * - itself, in any ASCII letter case (a text with other letters is matched in its JS upper and
 *   lower case too: `textsOf`);
 * - percent-encoded, per UTF-8 byte (`%2f`, `%2F`), and a space as `+` (forms);
 * - JSON-escaped: `\uXXXX` (surrogate pairs for astral characters), `\/`, `\"`, `\\`, `\'`,
 *   `\b \f \n \r \t`;
 * - an HTML character reference: decimal `&#47;` and hex `&#x2f;` (with up to three leading
 *   zeros), and the HTML5 name of ASCII punctuation (`&sol;`, `&amp;`…).
 * The `%`, `\` and `&` that start an escape may themselves be escaped once more, the way
 * double-encoding does it (`%252F`, `\\u002F`, `&amp;#47;`, `\u0026#47;`, `&#38;#47;`, `%26#47;`):
 * a value put into a URL that is itself put into a URL, or into JSON inside JSON, or an HTML page
 * escaped twice.
 *
 * Derived texts (hex and base64, see `textsOf`) are made of letters and digits that no server
 * escapes; only their other characters (`+ / - _`) get the escapes above.
 */

/**
 * Every spelling but a text's raw one holds one of these bytes: each escape starts with `%`, `\`
 * or `&` (or an escape of one of them, which starts with one of them too), and a form's space is
 * `+`. The automaton looks for raw spellings and for these bytes to know where to look closer.
 */
export const INTRODUCERS: readonly number[] = [0x25, 0x5c, 0x26, 0x2b];

/** A pattern: a set of bytes, a sequence, or alternatives. */
export type Spell = { readonly bytes: readonly number[] } | { readonly seq: readonly Spell[] } | { readonly alt: readonly Spell[] };

/** How the character that starts an escape is itself spelled when escaped again. */
const INTRO_ESCAPES: Readonly<Record<string, readonly string[]>> = {
  '%': ['%25'],
  '\\': ['\\\\', '%5c'],
  '&': ['&amp;', '\\u0026', '&#38;', '%26'],
};
/** Punctuation inside an escape, percent-encoded when the escaped text is put into a URL. */
const INNER_ESCAPES: Readonly<Record<string, string>> = { '#': '%23', ';': '%3b', '"': '%22', "'": '%27', '/': '%2f', '\\': '%5c' };
/** Leading zeros a numeric character reference may carry (`&#039;` is PHP's form). */
const MAX_LEADING_ZEROS = 3;
/** Derived forms shorter than this would mask unrelated text; the secret itself is always matched. */
export const MIN_DERIVED_LENGTH = 8;

const HTML_NAMES: Readonly<Record<string, readonly string[]>> = {
  '&': ['amp'],
  '<': ['lt'],
  '>': ['gt'],
  '"': ['quot'],
  "'": ['apos'],
  '/': ['sol'],
  '+': ['plus'],
  '=': ['equals'],
  '#': ['num'],
  '%': ['percnt'],
  '!': ['excl'],
  '?': ['quest'],
  ':': ['colon'],
  ';': ['semi'],
  ',': ['comma'],
  '.': ['period'],
  '(': ['lpar'],
  ')': ['rpar'],
  '[': ['lsqb', 'lbrack'],
  ']': ['rsqb', 'rbrack'],
  '{': ['lcub', 'lbrace'],
  '}': ['rcub', 'rbrace'],
  '|': ['verbar', 'vert', 'verticalline'],
  '*': ['ast', 'midast'],
  '@': ['commat'],
  $: ['dollar'],
  '^': ['hat'],
  '`': ['grave', 'diacriticalgrave'],
  _: ['lowbar', 'underbar'],
  '\\': ['bsol'],
  '\n': ['newline'],
  '\t': ['tab'],
};

const JSON_SHORT: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', "'": "'", '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };

const bytes = (...values: number[]): Spell => ({ bytes: values });
const seq = (parts: Spell[]): Spell => (parts.length === 1 ? parts[0]! : { seq: parts });
const alt = (options: Spell[]): Spell => (options.length === 1 ? options[0]! : { alt: options });

/** One byte, both cases when it is an ASCII letter. */
function foldedByte(byte: number): Spell {
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x7a ? bytes(lower, lower & ~0x20) : bytes(byte);
}

/** ASCII text matched in any letter case. */
function literal(text: string): Spell {
  return seq([...Buffer.from(text, 'latin1')].map(foldedByte));
}

function hexDigits(value: number, width: number): Spell {
  return literal(value.toString(16).padStart(width, '0'));
}

/** The character's own UTF-8 bytes, ASCII letters in either case. */
function raw(char: string): Spell {
  return seq([...Buffer.from(char, 'utf8')].map(foldedByte));
}

function leadingZeros(digits: string): Spell {
  return alt(Array.from({ length: MAX_LEADING_ZEROS + 1 }, (_, zeros) => literal('0'.repeat(zeros) + digits)));
}

function intro(char: string): Spell {
  return alt([bytes(char.charCodeAt(0)), ...(INTRO_ESCAPES[char] ?? []).map(literal)]);
}

/** ASCII text inside an escape; its punctuation may be percent-encoded. */
function inner(text: string): Spell {
  return seq([...text].map((char) => (INNER_ESCAPES[char] === undefined ? literal(char) : alt([literal(char), literal(INNER_ESCAPES[char])]))));
}

function escapes(char: string): Spell[] {
  const out: Spell[] = [];
  // Percent-encoding, per UTF-8 byte; a form turns a space into '+'.
  out.push(seq([...Buffer.from(char, 'utf8')].map((byte) => seq([intro('%'), hexDigits(byte, 2)]))));
  if (char === ' ') out.push(bytes(0x2b));
  // JSON: \uXXXX per UTF-16 unit, and the short escapes.
  const units: Spell[] = [];
  for (let i = 0; i < char.length; i++) units.push(seq([intro('\\'), literal('u'), hexDigits(char.charCodeAt(i), 4)]));
  out.push(seq(units));
  const short = JSON_SHORT[char];
  if (short !== undefined) {
    out.push(seq([intro('\\'), inner(short)]));
    // JSON inside JSON: the escape's own `\` and, for `"` and `\`, the escaped character are escaped again.
    if (short === '"' || short === '\\') out.push(seq([intro('\\'), intro('\\'), literal(short)]));
  }
  // HTML character references.
  const point = char.codePointAt(0)!;
  out.push(seq([intro('&'), inner('#'), leadingZeros(String(point)), inner(';')]));
  out.push(seq([intro('&'), inner('#'), literal('x'), leadingZeros(point.toString(16)), inner(';')]));
  for (const name of HTML_NAMES[char] ?? []) out.push(seq([intro('&'), literal(name), inner(';')]));
  return out;
}

const ALNUM = /^[A-Za-z0-9]$/;

/**
 * Every spelling of one character. `full`: letters and digits get escapes too (a secret's own
 * characters, which a server escaping everything would encode); otherwise only other characters do.
 */
function spellChar(char: string, full: boolean): Spell {
  if (!full && ALNUM.test(char)) return raw(char);
  return alt([raw(char), ...escapes(char)]);
}

/** A text as the automaton matches it. */
export function spellText(text: string, full: boolean): Spell {
  return seq([...text].map((char) => spellChar(char, full)));
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * The run of base64 characters that encodes `bytes` wherever they sit in a longer base64 text:
 * for an offset `k` (0, 1, 2) of their first byte in a 3-byte group, the characters that depend
 * on those bytes alone. The characters before and after also carry the neighbours' bits.
 */
function base64Core(data: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), data, Buffer.alloc(2)]).toString('base64');
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + data.length)) / 6);
  return encoded.slice(first, end);
}

/**
 * The texts to match for one secret value: `full` ones (the value itself, matched with every
 * character escapable) and derived ones (its UTF-8 bytes in hex, and the three base64 and
 * base64url alignment cores), each derived form only when it is long enough to be specific.
 */
export function textsOf(secret: string): { readonly text: string; readonly full: boolean }[] {
  const data = Buffer.from(secret, 'utf8');
  const out: { text: string; full: boolean }[] = [{ text: secret, full: true }];
  // ASCII letters fold in the automaton; other letters in another case are other bytes.
  for (const variant of new Set([secret.toLowerCase(), secret.toUpperCase()])) {
    if (asciiLower(variant) !== asciiLower(secret)) out.push({ text: variant, full: true });
  }
  const derived = new Set<string>([data.toString('hex')]);
  for (let offset = 0; offset < 3; offset++) {
    const core = base64Core(data, offset);
    derived.add(core);
    derived.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  for (const text of derived) if (text.length >= MIN_DERIVED_LENGTH && text !== secret) out.push({ text, full: false });
  return out;
}
