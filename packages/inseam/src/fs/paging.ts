/**
 * Paged reads over a window reader: a whole object, a byte range or a line range per call, with
 * a per-message cap, the content once, and where to continue. The reader is the live port or the
 * catalog's synced text; this module does not care which.
 *
 * Text windows end on a character boundary: a range that cuts a UTF-8 sequence is shortened to
 * before it and `nextOffset` points at its first byte, so continuing never splits a character.
 * Line reads scan from the start of the object in cap-sized windows, so their cost grows with the
 * line number; continue with `nextOffset` to read on cheaply.
 */
import { InvalidArgumentError, TooLargeError, formatByteSize } from '@neuralis/package-system/contracts';
import type { FsReadOmission, FsReadOptions, FsReadResult, ReadEncoding } from './types.js';

/** What a reader returns for the bytes `[offset, offset + length)` (clipped to the object). */
export interface Window {
  readonly mime: string;
  readonly size: number;
  readonly etag?: string;
  readonly offset: number;
  /** Bytes covered. */
  readonly length: number;
  /** Text content (text types) or the connector's marker (binary types). */
  readonly text: string;
  /** Base64 bytes, for binary types within the inline cap. */
  readonly bytes?: string;
  readonly binary: boolean;
  /** The connector left the bytes out (over its inline cap). */
  readonly inlineCap?: number;
}

export type WindowReader = (offset: number, length: number) => Promise<Window>;

export interface PageRequest {
  readonly address: string;
  readonly cap: number;
  readonly model: { readonly image: boolean; readonly video: boolean } | undefined;
}

type Draft = Omit<FsReadResult, 'source'>;

/** Checks the read options (`invalid_argument` naming the field) and returns the cap to use. */
export function checkReadOptions(options: FsReadOptions, defaultCap: number, ceiling: number): { readonly cap: number; readonly mode: 'whole' | 'range' | 'lines' } {
  const cap = options.maxBytes ?? defaultCap;
  if (!Number.isSafeInteger(cap) || cap < 1 || cap > ceiling) {
    throw new InvalidArgumentError(`maxBytes must be a whole number from 1 to ${ceiling}.`, { details: { argument: 'maxBytes' } });
  }
  if (options.range !== undefined && options.lines !== undefined) {
    throw new InvalidArgumentError('Give either a byte range or a line range, not both.', { details: { argument: 'lines' } });
  }
  if (options.range !== undefined) {
    const { offset, length } = options.range;
    if (!Number.isSafeInteger(offset) || offset < 0) throw new InvalidArgumentError('range.offset must be a whole number of bytes, 0 or more.', { details: { argument: 'range.offset' } });
    if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
      throw new InvalidArgumentError('range.length must be a whole number of bytes, 0 or more.', { details: { argument: 'range.length' } });
    }
    return { cap, mode: 'range' };
  }
  if (options.lines !== undefined) {
    const { start, count } = options.lines;
    if (!Number.isSafeInteger(start) || start < 1) throw new InvalidArgumentError('lines.start must be a line number, 1 or more.', { details: { argument: 'lines.start' } });
    if (count !== undefined && (!Number.isSafeInteger(count) || count < 1)) {
      throw new InvalidArgumentError('lines.count must be a whole number of lines, 1 or more.', { details: { argument: 'lines.count' } });
    }
    return { cap, mode: 'lines' };
  }
  return { cap, mode: 'whole' };
}

/** One page of the object. Throws `too_large` for a whole text read over the cap, `invalid_argument` for lines of a non-text object. */
export async function readPage(read: WindowReader, options: FsReadOptions, request: PageRequest, mode: 'whole' | 'range' | 'lines'): Promise<Draft> {
  if (mode === 'lines') return readLines(read, options.lines!, request);
  if (mode === 'range') {
    const range = options.range!;
    return finish(await read(range.offset, Math.min(range.length ?? request.cap, request.cap)), request);
  }
  const window = await read(0, request.cap);
  if (window.size > request.cap) {
    if (!window.binary) {
      throw new TooLargeError(
        `The object is ${formatByteSize(window.size)}, over the ${formatByteSize(request.cap)} per-message cap for a whole read; read it in ranges (range: { offset: 0, length: ${request.cap} }, then the nextOffset each answer gives) or by lines.`,
        { details: { size: window.size, cap: request.cap } },
      );
    }
    const marker = `[${window.mime}, ${formatByteSize(window.size)}: over the ${formatByteSize(request.cap)} per-message cap; bytes not included. Read byte ranges of at most ${request.cap} bytes, or download ${request.address}.]`;
    return { ...base(window, request.address), encoding: 'marker', content: marker, offset: 0, length: 0, omitted: { reason: 'over_message_cap', cap: request.cap } };
  }
  return finish(window, request);
}

/** A window as an answer: text aligned to a character, bytes gated by the model. */
function finish(window: Window, request: PageRequest): Draft {
  if (!window.binary) {
    const { text, length } = alignText(window);
    return withNext({ ...base(window, request.address), encoding: 'text', content: text, offset: window.offset, length }, window.size);
  }
  const common = { ...base(window, request.address), offset: window.offset, length: window.length };
  if (window.bytes === undefined) {
    const omitted: FsReadOmission = window.inlineCap === undefined ? { reason: 'over_inline_cap' } : { reason: 'over_inline_cap', cap: window.inlineCap };
    return withNext({ ...common, encoding: 'marker', content: window.text, omitted }, window.size);
  }
  const missing = missingCapability(window.mime, request.model);
  if (missing !== undefined) {
    const what = missing === 'image' ? 'images' : 'video';
    const marker = `[${window.mime}, ${formatByteSize(window.size)}: the model in use does not take ${what}; bytes not included. Download ${request.address} instead.]`;
    return withNext({ ...common, encoding: 'marker', content: marker, omitted: { reason: 'model_capability', capability: missing } }, window.size);
  }
  return withNext({ ...common, encoding: 'base64', content: window.bytes }, window.size);
}

async function readLines(read: WindowReader, lines: NonNullable<FsReadOptions['lines']>, request: PageRequest): Promise<Draft> {
  let position = 0;
  let line = 1;
  while (line < lines.start) {
    const window = await read(position, request.cap);
    const { text, length } = lineText(window);
    if (length === 0) return endOfLines(window, lines.start, request.address);
    let next = position + length;
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) {
      line += 1;
      if (line === lines.start) {
        next = position + Buffer.byteLength(text.slice(0, index + 1));
        break;
      }
    }
    position = next;
  }
  const window = await read(position, request.cap);
  const { text, length } = lineText(window);
  if (length === 0) return endOfLines(window, lines.start, request.address);
  const atEnd = window.offset + length >= window.size;
  const wanted = lines.count ?? Number.MAX_SAFE_INTEGER;
  let taken = 0;
  let cut = 0;
  for (let index = text.indexOf('\n'); index >= 0 && taken < wanted; index = text.indexOf('\n', index + 1)) {
    taken += 1;
    cut = index + 1;
  }
  if (taken < wanted && atEnd && cut < text.length) {
    // The last line has no newline; at the end of the object it is a whole line.
    taken += 1;
    cut = text.length;
  }
  if (taken === 0) {
    // One line longer than the cap: its first part, continued by bytes from nextOffset.
    return withNext({ ...base(window, request.address), encoding: 'text', content: text, offset: window.offset, length, lines: { start: lines.start, count: 0, next: lines.start } }, window.size);
  }
  const content = text.slice(0, cut);
  const consumed = Buffer.byteLength(content);
  const more = window.offset + consumed < window.size;
  return withNext(
    {
      ...base(window, request.address),
      encoding: 'text',
      content,
      offset: window.offset,
      length: consumed,
      lines: more ? { start: lines.start, count: taken, next: lines.start + taken } : { start: lines.start, count: taken },
    },
    window.size,
  );
}

/** An empty line read at the end of the object (it has fewer lines than asked for). */
function endOfLines(window: Window, start: number, address: string): Draft {
  return { ...base(window, address), encoding: 'text', content: '', offset: window.offset, length: 0, lines: { start, count: 0 } };
}

/**
 * A window's text for counting lines: aligned, and valid UTF-8 — otherwise byte offsets cannot be
 * derived from the text and the read is refused.
 */
function lineText(window: Window): { readonly text: string; readonly length: number } {
  if (window.binary) {
    throw new InvalidArgumentError(`Line ranges apply to text; this object is ${window.mime}. Read it with byte ranges.`, { details: { argument: 'lines' } });
  }
  const aligned = alignText(window);
  if (Buffer.byteLength(aligned.text) !== aligned.length) {
    throw new InvalidArgumentError('This object is not valid UTF-8 text, so its lines cannot be counted; read it with byte ranges.', { details: { argument: 'lines' } });
  }
  return aligned;
}

/**
 * Drops a UTF-8 sequence cut by the end of the window: the decoder turned its bytes into one
 * U+FFFD, recognised by the byte count not adding up. Never drops everything, so a reader always
 * moves forward, even with a cap smaller than one character.
 */
export function alignText(window: Window): { readonly text: string; readonly length: number } {
  const { text, length } = window;
  if (window.offset + length >= window.size || !text.endsWith('\uFFFD')) return { text, length };
  const head = text.slice(0, -1);
  const tail = length - Buffer.byteLength(head);
  return tail >= 1 && tail <= 3 && tail < length ? { text: head, length: length - tail } : { text, length };
}

function base(window: Window, address: string): { address: string; mime: string; size: number; etag?: string } {
  return window.etag === undefined ? { address, mime: window.mime, size: window.size } : { address, mime: window.mime, size: window.size, etag: window.etag };
}

function withNext<T extends { readonly offset: number; readonly length: number; readonly encoding: ReadEncoding }>(draft: T, size: number): T & { nextOffset?: number } {
  const end = draft.offset + draft.length;
  return end < size && (draft.length > 0 || draft.encoding !== 'marker') ? { ...draft, nextOffset: end } : draft;
}

function missingCapability(mime: string, model: PageRequest['model']): 'image' | 'video' | undefined {
  if (model === undefined) return undefined;
  if (mime.startsWith('image/') && !model.image) return 'image';
  if (mime.startsWith('video/') && !model.video) return 'video';
  return undefined;
}

