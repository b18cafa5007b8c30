/**
 * Text → chunks for embedding: by markdown headings and paragraphs, each chunk at most
 * `maxTokens` tokens, with `[start, end)` UTF-16 offsets into the source text so a hit can show
 * its passage (`text.slice(start, end)`). Pure: no I/O, no state.
 *
 * Tokens here are a model-independent count, not any embedder's own: a run of letters, digits
 * and marks (apostrophes inside a word kept, `don't` is one) is one token; each Han, Hiragana or
 * Katakana character is one (those scripts write no spaces, and one character is roughly one
 * model token); every other non-space character is one. Real subword tokenisers give more tokens
 * for rare words, so the default bound leaves room below the usual 512-token model inputs.
 *
 * How the text is cut:
 * - Blocks: a heading line (`#` to `######`, up to three spaces in front) is a block of its own;
 *   other lines group into paragraphs separated by blank lines; a fenced code block (``` or ~~~)
 *   is one paragraph, blank lines and `#` lines inside it included.
 * - Blocks pack into a chunk while it stays within `maxTokens`. A heading starts a new chunk
 *   unless the chunk so far is shorter than `minTokens` (so a run of tiny sections is not a run
 *   of tiny chunks); a chunk is never cut between a heading and what follows it.
 * - A chunk closed because the next block would not fit, and every window of a block too long
 *   for one chunk, is followed by a chunk that starts `overlapTokens` tokens before its end, so a
 *   sentence on the boundary is whole in one of them. No overlap crosses a heading.
 * - A block longer than `maxTokens` is cut into windows of at most `maxTokens`, each ending after
 *   the last sentence end (`.`, `!`, `?`, `。`, `！`, `？`, `…`) in its second half when there is
 *   one, else exactly at the bound.
 * Spans start at a token and end after one, so they never begin or end in whitespace; text with
 * no tokens (empty, only spaces) has no chunks.
 */

export interface ChunkOptions {
  /** Largest chunk, in tokens (see the module comment). Default 200; at least 8. */
  readonly maxTokens?: number;
  /** Tokens a chunk repeats from the end of the one before it when a cut is not at a heading. Default 24; less than half of maxTokens. */
  readonly overlapTokens?: number;
  /** A heading starts a new chunk only once the current one has this many tokens. Default 32. */
  readonly minTokens?: number;
}

export interface TextChunk {
  /** First UTF-16 offset of the chunk in the source text. */
  readonly start: number;
  /** Offset just after its last character. */
  readonly end: number;
  /** Its tokens, as counted here. */
  readonly tokens: number;
  /** The text of the nearest heading above the chunk's start (without `#`s), or null. */
  readonly heading: string | null;
}

export const DEFAULT_CHUNK_OPTIONS = Object.freeze({ maxTokens: 200, overlapTokens: 24, minTokens: 32 });

const CJK = String.raw`\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}`;
// One CJK character; a word (letters, digits, marks, inner apostrophes, no CJK); any other visible character.
const TOKEN = new RegExp(String.raw`[${CJK}]|(?:(?![${CJK}])[\p{L}\p{N}\p{M}])+(?:['’](?:(?![${CJK}])[\p{L}\p{N}\p{M}])+)*|[^\s\p{L}\p{N}\p{M}]|[\p{M}]`, 'gu');
const SENTENCE_END = /^[.!?。！？…]$/u;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;
const FENCE = /^ {0,3}(```|~~~)/;

interface Block {
  /** Index of its first token. */
  readonly first: number;
  /** Index after its last token. */
  readonly last: number;
  readonly heading: string | null;
  readonly isHeading: boolean;
}

/** Token offsets, kept in typed arrays so a huge text does not become millions of objects. */
class TokenSpans {
  starts = new Int32Array(1024);
  ends = new Int32Array(1024);
  sentenceEnd = new Uint8Array(1024);
  length = 0;

  push(start: number, end: number, sentenceEnd: boolean): void {
    if (this.length === this.starts.length) {
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
      const marks = new Uint8Array(this.sentenceEnd.length * 2);
      marks.set(this.sentenceEnd);
      this.sentenceEnd = marks;
    }
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    this.sentenceEnd[this.length] = sentenceEnd ? 1 : 0;
    this.length += 1;
  }
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** Counts tokens as the chunker does (see the module comment). */
export function countTokens(text: string): number {
  let count = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.exec(text) !== null) count += 1;
  return count;
}

/** Cuts `text` into chunks (see the module comment). Throws RangeError for options out of range. */
export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const { maxTokens, overlapTokens, minTokens } = checkOptions(options);
  const tokens = new TokenSpans();
  const blocks = splitBlocks(text, tokens);
  const chunks: TextChunk[] = [];
  const emit = (first: number, last: number, heading: string | null): void => {
    chunks.push({ start: tokens.starts[first]!, end: tokens.ends[last - 1]!, tokens: last - first, heading });
  };
  // The chunk being packed: token range [first, last), or none.
  let first = -1;
  let last = -1;
  let heading: string | null = null;
  for (const block of blocks) {
    const size = block.last - block.first;
    if (first >= 0 && block.isHeading && last - first >= minTokens) {
      emit(first, last, heading);
      first = -1;
    }
    let start = block.first;
    if (first >= 0 && last - first + size > maxTokens) {
      emit(first, last, heading);
      // Overlap from the chunk just closed (never back over a heading); beside a block that fits, only as much as fits with it.
      const carry = block.isHeading ? 0 : Math.min(overlapTokens, last - first - 1);
      start = block.first - (size > maxTokens ? carry : Math.max(0, Math.min(carry, maxTokens - size)));
      first = -1;
    }
    if (size > maxTokens) {
      heading = block.heading;
      // Windows over the block; the last one stays open so the next blocks may join it.
      for (;;) {
        if (block.last - start <= maxTokens) {
          first = start;
          last = block.last;
          break;
        }
        const end = windowEnd(tokens, start, start + maxTokens);
        emit(start, end, heading);
        start = Math.max(start + 1, end - overlapTokens);
      }
      continue;
    }
    if (first < 0) {
      first = start;
      heading = block.heading;
    }
    last = block.last;
  }
  if (first >= 0) emit(first, last, heading);
  return chunks;
}

function checkOptions(options: ChunkOptions): { maxTokens: number; overlapTokens: number; minTokens: number } {
  const maxTokens = options.maxTokens ?? DEFAULT_CHUNK_OPTIONS.maxTokens;
  const overlapTokens = options.overlapTokens ?? Math.min(DEFAULT_CHUNK_OPTIONS.overlapTokens, Math.floor((maxTokens - 1) / 2));
  const minTokens = options.minTokens ?? Math.min(DEFAULT_CHUNK_OPTIONS.minTokens, maxTokens);
  if (!Number.isInteger(maxTokens) || maxTokens < 8) throw new RangeError(`maxTokens must be a whole number of at least 8; it is ${String(maxTokens)}.`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens * 2 >= maxTokens) {
    throw new RangeError(`overlapTokens must be a whole number from 0 to less than half of maxTokens (${maxTokens}); it is ${String(overlapTokens)}.`);
  }
  if (!Number.isInteger(minTokens) || minTokens < 0 || minTokens > maxTokens) {
    throw new RangeError(`minTokens must be a whole number from 0 to maxTokens (${maxTokens}); it is ${String(minTokens)}.`);
  }
  return { maxTokens, overlapTokens, minTokens };
}

/** Where a window from `start` ends: after the last sentence end in its second half, else at `bound`. */
function windowEnd(tokens: TokenSpans, start: number, bound: number): number {
  const floor = start + Math.ceil((bound - start) / 2);
  for (let index = bound - 1; index >= floor; index -= 1) {
    if (tokens.sentenceEnd[index] === 1) return index + 1;
  }
  return bound;
}

/** Tokenises `text` into `tokens` and groups the tokens into heading and paragraph blocks. */
function splitBlocks(text: string, tokens: TokenSpans): Block[] {
  const blocks: Block[] = [];
  let heading: string | null = null;
  let paragraphFirst = -1;
  let fence: string | null = null;
  const closeParagraph = (): void => {
    if (paragraphFirst >= 0 && tokens.length > paragraphFirst) blocks.push({ first: paragraphFirst, last: tokens.length, heading, isHeading: false });
    paragraphFirst = -1;
  };
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
    const fenceMark = FENCE.exec(line)?.[1];
    const match = fence === null ? HEADING.exec(line) : null;
    if (fence === null && line.trim() === '') {
      closeParagraph();
    } else if (match !== null) {
      closeParagraph();
      const first = tokens.length;
      addTokens(text, lineStart, lineEnd, tokens);
      heading = (match[2] ?? '').trim() || null;
      if (tokens.length > first) blocks.push({ first, last: tokens.length, heading, isHeading: true });
    } else {
      if (paragraphFirst < 0) paragraphFirst = tokens.length;
      addTokens(text, lineStart, lineEnd, tokens);
    }
    if (fenceMark !== undefined) fence = fence === null ? fenceMark : fence === fenceMark ? null : fence;
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  closeParagraph();
  return blocks;
}

function addTokens(text: string, from: number, to: number, tokens: TokenSpans): void {
  const line = text.slice(from, to);
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(line); match !== null; match = TOKEN.exec(line)) {
    tokens.push(from + match.index, from + match.index + match[0].length, SENTENCE_END.test(match[0]));
  }
}
