/**
 * Globs, compiled once to a RegExp that matches a whole value.
 *
 * Path globs (on `path` dimensions) work segment by segment:
 * - `*` any run of characters inside one segment, `?` one character other than `/`;
 * - `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` one character from (or not from) a class, never `/`;
 * - `**` as a whole segment: any number of whole segments — `**` alone matches everything,
 *   `**\/x` matches `x` at any depth, `a/**\/b` matches `a/b` and `a/x/y/b`, and a trailing
 *   `a/**` matches everything below `a` (not `a` itself);
 * - `\` makes the next character literal. No empty segments (`/a`, `a//b`, `a/`).
 * There is no special case for names starting with `.`: `*` matches `.git`.
 *
 * Text globs (on `string` dimensions) have no segments: `*` and `**` match any run, `/` included.
 *
 * Matching never backtracks exponentially: each `*` (and each `**`) is compiled as an atomic
 * lazy search for the fixed-length piece that follows it — `(?=(run*?piece))\N` — which takes the
 * leftmost occurrence. That is the classic wildcard algorithm and is exact because every piece
 * has a fixed length and is followed by another wildcard (or anchored to its segment's end).
 */

export type GlobMode = 'path' | 'text';

export type GlobResult = { readonly regexp: RegExp } | { readonly problem: string };

type Item = { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'one'; readonly source: string } | { readonly kind: 'star' };
type Segment = readonly Item[] | 'globstar';

const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const CLASS_SYNTAX = new Set(['\\', ']', '[', '^', '-']);

class GlobProblem extends Error {}

export function compileGlob(pattern: string, mode: GlobMode): GlobResult {
  try {
    if (pattern === '') throw new GlobProblem('the glob is empty');
    const source = mode === 'path' ? new PathGlob(parsePath(pattern)).source() : `^${new Pieces('[^]').segment(parseItems(pattern, 'text'), '$')}`;
    return { regexp: new RegExp(source, 'u') };
  } catch (error) {
    if (error instanceof GlobProblem) return { problem: error.message };
    throw error;
  }
}

/**
 * The same glob as a PostgreSQL regular expression (an ARE, for `~`), or its problem. PostgreSQL's
 * matcher is not a backtracking one, so each `*` is a plain run: `[^/]*` inside a segment, `.*`
 * in text; `**` segments as in compileGlob. Matches exactly what compileGlob's RegExp matches.
 */
export function globPosixSource(pattern: string, mode: GlobMode): { readonly source: string } | { readonly problem: string } {
  try {
    if (pattern === '') throw new GlobProblem('the glob is empty');
    if (mode === 'text') return { source: `^${posixItems(parseItems(pattern, 'text'), '.')}$` };
    const segments = parsePath(pattern);
    let source = '^';
    segments.forEach((segment, index) => {
      const last = index === segments.length - 1;
      if (segment === 'globstar') source += last ? (index === 0 ? '.*' : '.+') : '(?:[^/]*/)*';
      else source += posixItems(segment, '[^/]') + (last ? '' : '/');
    });
    return { source: `${source}$` };
  } catch (error) {
    if (error instanceof GlobProblem) return { problem: error.message };
    throw error;
  }
}

function posixItems(items: readonly Item[], any: string): string {
  // A class compiled for a RegExp is valid in an ARE too: the same escapes inside brackets; only
  // "[^]" (any character, in text) has no ARE spelling.
  return items.map((item) => (item.kind === 'star' ? `${any}*` : item.kind === 'literal' ? literal(item.text) : item.source === '[^]' ? '.' : item.source)).join('');
}

function parsePath(pattern: string): Segment[] {
  const segments = pattern.split('/').map((text, index, all): Segment => {
    if (text === '') {
      if (index === 0) throw new GlobProblem('the glob starts with "/"; paths are relative, so drop it');
      if (index === all.length - 1) throw new GlobProblem('the glob ends with "/"; write "dir/**" for everything below a folder');
      throw new GlobProblem('the glob has an empty segment ("//"); paths never do');
    }
    if (text === '**') return 'globstar';
    if (text.includes('**')) throw new GlobProblem(`"**" must be a whole segment (as in "a/**/b"), not part of ${JSON.stringify(text)}; use "*" inside a segment`);
    if (index < all.length - 1 && /(?:^|[^\\])(?:\\\\)*\\$/.test(text)) throw new GlobProblem('"\\/" cannot match: "/" separates segments');
    return parseItems(text, 'path');
  });
  // "**/**" means no more than "**".
  return segments.filter((segment, index) => segment !== 'globstar' || segments[index - 1] !== 'globstar');
}

function parseItems(text: string, mode: GlobMode): Item[] {
  const chars = Array.from(text);
  const items: Item[] = [];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === '\\') {
      const next = chars[i + 1];
      if (next === undefined) throw new GlobProblem('the glob ends with a lone "\\"; escape a literal backslash as "\\\\"');
      items.push({ kind: 'literal', text: next });
      i++;
    } else if (char === '*') {
      if (items.at(-1)?.kind !== 'star') items.push({ kind: 'star' });
    } else if (char === '?') {
      items.push({ kind: 'one', source: mode === 'path' ? '[^/]' : '[^]' });
    } else if (char === '[') {
      const end = classEnd(chars, i);
      items.push({ kind: 'one', source: classSource(chars.slice(i + 1, end), mode) });
      i = end;
    } else {
      items.push({ kind: 'literal', text: char });
    }
  }
  return items;
}

/** Index of the `]` closing the class opened at `start`; a `]` right after `[` or `[!` is literal. */
function classEnd(chars: readonly string[], start: number): number {
  let i = start + 1;
  if (chars[i] === '!' || chars[i] === '^') i++;
  if (chars[i] === ']') i++;
  for (; i < chars.length; i++) {
    if (chars[i] === '\\') i++;
    else if (chars[i] === ']') return i;
  }
  throw new GlobProblem('a "[" is never closed by "]"; escape a literal "[" as "\\["');
}

function classSource(body: readonly string[], mode: GlobMode): string {
  let i = 0;
  const negated = body[0] === '!' || body[0] === '^';
  if (negated) i++;
  const members: string[] = [];
  const next = (): string => {
    const char = body[i++]!;
    return char === '\\' ? body[i++]! : char;
  };
  while (i < body.length) {
    const low = next();
    if (body[i] === '-' && i + 1 < body.length) {
      i++;
      const high = next();
      if (low.codePointAt(0)! > high.codePointAt(0)!) throw new GlobProblem(`the class range "${low}-${high}" is backwards`);
      if (mode === 'path' && low <= '/' && high >= '/') throw new GlobProblem(`the class range "${low}-${high}" covers "/", which never occurs inside a segment`);
      members.push(`${classChar(low)}-${classChar(high)}`);
    } else {
      if (mode === 'path' && low === '/') throw new GlobProblem('a class cannot match "/", which separates segments');
      members.push(classChar(low));
    }
  }
  if (negated) return `[^${mode === 'path' ? '/' : ''}${members.join('')}]`;
  return `[${members.join('')}]`;
}

function classChar(char: string): string {
  return CLASS_SYNTAX.has(char) ? `\\${char}` : char;
}

function literal(char: string): string {
  return SYNTAX.has(char) ? `\\${char}` : char;
}

/** Builds atomic wildcard searches, numbering capture groups in the order they open. */
class Pieces {
  private groups = 0;

  constructor(private readonly any: string) {}

  /** An atomic group around `inner`: the first way `inner` matches is the only one tried. */
  atomic(build: () => string): string {
    const group = ++this.groups;
    return `(?=(${build()}))\\${group}`;
  }

  /** One run of items; `end` (zero-width) anchors the last piece: `$` or the segment's end. */
  segment(items: readonly Item[], end: string): string {
    const pieces: string[][] = [[]];
    for (const item of items) {
      if (item.kind === 'star') pieces.push([]);
      else pieces.at(-1)!.push(item.kind === 'literal' ? literal(item.text) : item.source);
    }
    let source = pieces[0]!.join('');
    pieces.slice(1).forEach((piece, index, rest) => {
      const last = index === rest.length - 1;
      if (last && piece.length === 0) source += this.atomic(() => `${this.any}*`);
      else source += this.atomic(() => `${this.any}*?${piece.join('')}${last ? end : ''}`);
    });
    return source + (pieces.length === 1 ? end : '');
  }
}

class PathGlob {
  private readonly pieces = new Pieces('[^/]');

  constructor(private readonly segments: readonly Segment[]) {}

  source(): string {
    return `^${this.from(0)}`;
  }

  /** The source matching segments[index..] from the start of a segment. */
  private from(index: number): string {
    const segment = this.segments[index];
    if (segment === undefined) return '$';
    if (segment === 'globstar') {
      if (index === this.segments.length - 1) return index === 0 ? '[^]*$' : '[^]+$';
      const next = this.nextGlobstar(index + 1);
      const tail = next === this.segments.length ? '$' : '/';
      const search = this.pieces.atomic(() => `(?:[^/]*/)*?${this.run(index + 1, next)}${tail}`);
      return next === this.segments.length ? search : search + this.from(next);
    }
    const next = this.nextGlobstar(index);
    const run = this.run(index, next);
    return next === this.segments.length ? `${run}$` : `${run}/${this.from(next)}`;
  }

  private nextGlobstar(index: number): number {
    let next = index;
    while (next < this.segments.length && this.segments[next] !== 'globstar') next++;
    return next;
  }

  /** Segments [start, end), none a globstar, joined by `/`. */
  private run(start: number, end: number): string {
    const parts: string[] = [];
    for (let index = start; index < end; index++) parts.push(this.pieces.segment(this.segments[index] as readonly Item[], '(?=/|$)'));
    return parts.join('/');
  }
}
