/**
 * The folder connector's own MIME pieces. Types come from the name alone (`mimeFromName` in
 * `@neuralis/package-system/contracts`), so listing and stat always agree; read and scanContent
 * refine an unknown name (`UNKNOWN_MIME`) by sniffing the bytes they read anyway. Unlike the shared
 * rule, every binary type is inlined here, `binary` (archives, fonts, unknown bytes) under its own cap.
 */
import type { MimeReadClass } from '@neuralis/package-system/contracts';
import type { InlineCaps } from './config.js';

export function inlineCapOf(readClass: Exclude<MimeReadClass, 'text'>, caps: InlineCaps): number {
  return caps[readClass];
}

/** Bytes a sniff looks at. */
export const SNIFF_BYTES = 8192;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Control characters text files use: tab, line feed, form feed, carriage return, escape, backspace. */
const TEXT_CONTROLS: ReadonlySet<number> = new Set([8, 9, 10, 12, 13, 27]);

/**
 * True when `sample` (the first bytes of a file) looks like text: no NUL byte, at most 1 in 10
 * bytes another control character, and valid UTF-8 (ignoring a multi-byte character cut off at
 * the end of the sample).
 */
export function looksLikeText(sample: Uint8Array, isWholeFile: boolean): boolean {
  if (sample.includes(0)) return false;
  let controls = 0;
  for (const byte of sample) if ((byte < 32 && !TEXT_CONTROLS.has(byte)) || byte === 127) controls += 1;
  if (controls * 10 > sample.length) return false;
  const checked = isWholeFile ? sample : sample.subarray(0, completeUtf8Length(sample));
  try {
    utf8.decode(checked);
    return true;
  } catch {
    return false;
  }
}

/** The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function completeUtf8Length(bytes: Uint8Array): number {
  const end = bytes.length;
  // A sequence is at most 4 bytes: look back at most 3 continuation bytes for its lead byte.
  for (let back = 1; back <= Math.min(4, end); back++) {
    const byte = bytes[end - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? end - back : end;
  }
  return end;
}
