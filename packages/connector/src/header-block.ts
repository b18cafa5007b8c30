/**
 * The header block of an RFC 5322 message as text fields: cut at the first empty line, unfolded,
 * each value decoded on its own (UTF-8 where its bytes are, RFC 6532; else Latin-1), so one
 * field's stray 8-bit byte cannot change how another reads. A connector that fetched only some
 * header fields (IMAP `HEADER.FIELDS`) and the trial, which reads the whole message, get the same
 * values for the fields both have.
 */

/** One header field: its name lowercased, its value unfolded and trimmed. */
export interface HeaderField {
  readonly name: string;
  readonly value: string;
}

/** A field name (RFC 5322 §3.6.8: printable ASCII but the colon), with obsolete WSP before the colon. */
const FIELD_LINE = /^([!-9;-~]+)[ \t]*:(.*)$/su;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** One char per byte (Latin-1), so a block can be cut and unfolded before any value is decoded. */
function byteString(header: string | Uint8Array): string {
  if (typeof header === 'string') return header;
  let out = '';
  for (let i = 0; i < header.length; i += 8192) out += String.fromCharCode(...header.subarray(i, i + 8192));
  return out;
}

function charBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A value's bytes (one char per byte) as text: UTF-8 when valid, else Latin-1 as they are. */
function decodeValue(bytes: string): string {
  if (!/[\u0080-\u00ff]/u.test(bytes)) return bytes;
  try {
    return UTF8.decode(charBytes(bytes));
  } catch {
    return bytes;
  }
}

/**
 * The fields of a header block, topmost first. `header` is the header block or the whole message
 * (read up to its first empty line); a string is taken as already-decoded text. A line that is no
 * field (an mbox `From ` line, garbage) is skipped, and so are continuation lines before any field.
 */
export function headerFields(header: string | Uint8Array): HeaderField[] {
  const text = byteString(header);
  const decode = typeof header === 'string' ? (value: string): string => value : decodeValue;
  const fields: HeaderField[] = [];
  let current: { name: string; value: string } | undefined;
  const flush = (): void => {
    if (current !== undefined) fields.push({ name: current.name, value: decode(current.value).trim() });
    current = undefined;
  };
  for (const line of text.split(/\r?\n/u)) {
    if (line === '' || line === '\r') break;
    if (line.startsWith(' ') || line.startsWith('\t')) {
      // Unfolding removes the line break only (RFC 5322 §2.2.3): the leading WSP stays.
      if (current !== undefined) current.value += line;
      continue;
    }
    flush();
    const match = FIELD_LINE.exec(line);
    if (match !== null) current = { name: match[1]!.toLowerCase(), value: match[2]! };
  }
  flush();
  return fields;
}

/** The values of every `name` field (case-insensitive), topmost first. */
export function headerValues(header: string | Uint8Array | readonly HeaderField[], name: string): string[] {
  const fields = typeof header === 'string' || header instanceof Uint8Array ? headerFields(header) : header;
  const wanted = name.toLowerCase();
  return fields.filter((field) => field.name === wanted).map((field) => field.value);
}

const ENCODED_WORD = /=\?([^?\s*]+)(?:\*[^?\s]*)?\?([BbQq])\?([^?\s]*)\?=/gu;

function wordBytes(encoding: string, text: string): Uint8Array | undefined {
  if (encoding === 'B' || encoding === 'b') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/u.test(text) || text.length % 4 === 1) return undefined;
    return charBytes(atob(text.replace(/=+$/u, '').padEnd(Math.ceil(text.replace(/=+$/u, '').length / 4) * 4, '=')));
  }
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === '_') bytes.push(0x20);
    else if (char === '=' && /^[0-9A-Fa-f]{2}$/u.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(char.charCodeAt(0) & 0xff);
  }
  return Uint8Array.from(bytes);
}

function decodeCharset(charset: string, bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder(charset.toLowerCase()).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Decodes RFC 2047 encoded words (`=?utf-8?Q?Gr=C3=BC=C3=9Fe?=`). Whitespace between two adjacent
 * encoded words is dropped (§6.2), and adjacent words of one charset are decoded together, so a
 * character split across two words (which senders do) survives. A word in an unknown charset or
 * with a malformed payload stays as written.
 */
export function decodeEncodedWords(text: string): string {
  let out = '';
  let at = 0;
  let pending: { charset: string; bytes: Uint8Array[]; raw: string } | undefined;
  const settle = (): void => {
    if (pending === undefined) return;
    out += decodeCharset(pending.charset, concat(pending.bytes)) ?? pending.raw;
    pending = undefined;
  };
  for (const match of text.matchAll(ENCODED_WORD)) {
    const between = text.slice(at, match.index);
    const charset = match[1]!;
    const bytes = wordBytes(match[2]!, match[3]!);
    at = match.index + match[0].length;
    if (bytes === undefined) {
      settle();
      out += between + match[0];
      continue;
    }
    const adjacent = pending !== undefined && /^[ \t\r\n]*$/u.test(between);
    if (adjacent && pending!.charset.toLowerCase() === charset.toLowerCase()) {
      pending!.bytes.push(bytes);
      pending!.raw += between + match[0];
      continue;
    }
    settle();
    if (!adjacent) out += between;
    pending = { charset, bytes: [bytes], raw: match[0] };
  }
  settle();
  return out + text.slice(at);
}
