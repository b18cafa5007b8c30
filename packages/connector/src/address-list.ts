/**
 * RFC 5322 address lists (§3.4, with the obsolete forms §4.4 allows): mailboxes, `Name <addr>`,
 * groups (`Team: a@x, b@y;`), quoted display names holding commas or angle brackets, comments,
 * and `<@route:addr>`. Encoded words (RFC 2047) are decoded only in a display name, after the
 * address is found, so a name that decodes to `<forged@example.org>` never becomes an address.
 */
import { decodeEncodedWords } from './header-block.js';

/** One mailbox of an address header: the address, and the display name the header gave (unused for identity). */
export interface MailAddress {
  readonly address?: string;
  readonly name?: string;
}

type Token =
  | { readonly type: 'atom' | 'quoted' | 'literal'; readonly text: string }
  | { readonly type: 'special'; readonly text: string }
  | { readonly type: 'space' };

const SPECIALS = '<>,:;@.';

/** Splits a value into atoms, quoted strings, domain literals, specials and whitespace; comments are dropped. */
function tokenize(value: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const space = (): void => {
    if (tokens.at(-1)?.type !== 'space') tokens.push({ type: 'space' });
  };
  while (i < value.length) {
    const char = value[i]!;
    if (char === ' ' || char === '\t' || char === '\r' || char === '\n') {
      space();
      i += 1;
    } else if (char === '(') {
      // A comment nests and may hold quoted pairs; it separates like whitespace.
      let depth = 0;
      for (; i < value.length; i += 1) {
        const c = value[i]!;
        if (c === '\\') i += 1;
        else if (c === '(') depth += 1;
        else if (c === ')' && --depth === 0) break;
      }
      i += 1;
      space();
    } else if (char === '"' || char === '[') {
      const close = char === '"' ? '"' : ']';
      let text = '';
      for (i += 1; i < value.length && value[i] !== close; i += 1) {
        if (value[i] === '\\' && i + 1 < value.length) i += 1;
        text += value[i];
      }
      i += 1;
      tokens.push({ type: char === '"' ? 'quoted' : 'literal', text });
    } else if (SPECIALS.includes(char)) {
      tokens.push({ type: 'special', text: char });
      i += 1;
    } else {
      let text = '';
      while (i < value.length && !' \t\r\n()"[<>,:;@.'.includes(value[i]!)) text += value[i++];
      // A stray `)` or `]` is not a special: keep it in the atom so the token moves on.
      if (text === '') text = value[i++]!;
      tokens.push({ type: 'atom', text });
    }
  }
  return tokens;
}

/**
 * An addr-spec from its tokens: `local@domain`, whitespace allowed only beside `.` and `@`
 * (obs-local-part, obs-domain). Undefined when the tokens are no single address: two words run
 * together (`a@x.org bob`) must not become one address.
 */
function addrSpec(tokens: readonly Token[]): string | undefined {
  let text = '';
  let gap = false;
  let previous: Token | undefined;
  for (const token of tokens) {
    if (token.type === 'space') {
      gap = true;
      continue;
    }
    const joins = token.type === 'special' || previous?.type === 'special';
    if (gap && previous !== undefined && !joins) return undefined;
    if (token.type === 'quoted') text += `"${token.text}"`;
    else if (token.type === 'literal') text += `[${token.text}]`;
    else text += token.text;
    gap = false;
    previous = token;
  }
  if (text === '' || /[<>,:;]/u.test(text)) return undefined;
  return text.includes('@') ? text : undefined;
}

/** A display name: its words with single spaces, quoted strings unquoted, encoded words decoded. */
function displayName(tokens: readonly Token[]): string | undefined {
  const words: string[] = [];
  let spaced = false;
  for (const token of tokens) {
    if (token.type === 'space') {
      spaced = true;
      continue;
    }
    const text = token.type === 'literal' ? `[${token.text}]` : token.text;
    if (words.length > 0 && spaced) words.push(' ');
    words.push(text);
    spaced = false;
  }
  const name = decodeEncodedWords(words.join('')).trim();
  return name === '' ? undefined : name;
}

/**
 * The mailboxes of an address list, in order, group members included (a group's name is no
 * mailbox). A mailbox whose address cannot be read comes back with no address — never a guess —
 * and the parse carries on at the next comma.
 */
export function parseAddressList(value: string): MailAddress[] {
  const out: MailAddress[] = [];
  const tokens = tokenize(value);
  let phrase: Token[] = [];
  let angle: Token[] | undefined;
  // open: inside `<…>`; closed: after `>`; broken: something followed the `>`.
  let state: 'open' | 'closed' | 'broken' = 'open';
  let inGroup = false;
  const flush = (): void => {
    if (angle !== undefined) {
      // obs-route: `<@relay.example,@other.example:user@example.org>` keeps what follows the colon.
      const colon = angle.map((token) => token.type === 'special' && token.text === ':').lastIndexOf(true);
      const address = state === 'closed' ? addrSpec(angle.slice(colon + 1)) : undefined;
      const name = displayName(phrase);
      out.push({ ...(address === undefined ? {} : { address }), ...(name === undefined ? {} : { name }) });
    } else if (phrase.some((token) => token.type !== 'space')) {
      const address = addrSpec(phrase);
      const name = address === undefined ? displayName(phrase) : undefined;
      out.push({ ...(address === undefined ? {} : { address }), ...(name === undefined ? {} : { name }) });
    }
    phrase = [];
    angle = undefined;
    state = 'open';
  };
  for (const token of tokens) {
    if (angle !== undefined && state === 'open') {
      if (token.type === 'special' && token.text === '>') state = 'closed';
      else angle.push(token);
      continue;
    }
    if (token.type !== 'special') {
      // Words after a closed `<…>` (other than a comment) make the mailbox malformed: drop its address.
      if (angle !== undefined && token.type !== 'space') state = 'broken';
      if (angle === undefined) phrase.push(token);
      continue;
    }
    if (token.text === '<' && angle === undefined) angle = [];
    else if (token.text === ',') flush();
    else if (token.text === ':' && !inGroup && angle === undefined) {
      // A group: what came before is its name, not a mailbox.
      phrase = [];
      inGroup = true;
    } else if (token.text === ';' && inGroup) {
      flush();
      inGroup = false;
    } else if (angle === undefined) phrase.push(token);
    else state = 'broken';
  }
  flush();
  return out;
}
