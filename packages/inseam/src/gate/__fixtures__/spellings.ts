/**
 * The corpus of reflected-secret spellings: how real servers hand a value back (each form named
 * after what produces it), and an independent oracle, `leaks`, that undoes every one of those
 * encodings (and two-deep chains of them) to tell whether a text still gives a secret away. No
 * code is shared with the gate's spellings.ts.
 */

/** Base64 of `secret` embedded at byte offset `offset` (0, 1, 2) of a longer run. */
export function base64Embedded(secret: string, offset: number, url = false): string {
  const data = Buffer.concat([Buffer.from('QZXWV'.slice(0, offset + 3)), Buffer.from(secret), Buffer.from('~tail!')]);
  const encoded = data.toString('base64');
  return url ? encoded.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : encoded;
}

const htmlNamed = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const every = (text: string, spell: (char: string) => string): string => [...text].map(spell).join('');
const utf16 = (char: string, upper: boolean): string =>
  [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).map((unit) => (upper ? unit.toUpperCase().replace('\\U', '\\u') : unit)).join('');

/** Name → how a server spells a reflected value. */
export const REFLECTIONS: Readonly<Record<string, (secret: string) => string>> = {
  raw: (s) => s,
  'upper case': (s) => s.toUpperCase(),
  'lower case': (s) => s.toLowerCase(),
  'alternating case': (s) => [...s].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase())).join(''),
  encodeURIComponent: (s) => encodeURIComponent(s),
  'percent, lower-case hex': (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
  'percent, every byte': (s) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
  'form (URLSearchParams)': (s) => new URLSearchParams({ v: s }).toString().slice(2),
  'percent twice (a URL in a URL)': (s) => encodeURIComponent(encodeURIComponent(s)),
  'encodeURI (path)': (s) => encodeURI(s),
  'JSON string': (s) => JSON.stringify(s).slice(1, -1),
  'JSON, slashes escaped (PHP)': (s) => JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/'),
  'JSON, non-ASCII as \\u (Python ensure_ascii)': (s) => JSON.stringify(s).slice(1, -1).replace(/[^\x00-\x7f]/g, (c) => utf16(c, false)),
  'JSON, HTML-safe (Go: \\u0026 \\u003c \\u003e)': (s) => JSON.stringify(s).slice(1, -1).replace(/[&<>]/g, (c) => utf16(c, false)),
  'JSON, every character \\u, upper-case hex': (s) => every(s, (c) => utf16(c, true)),
  'JSON inside JSON': (s) => JSON.stringify(JSON.stringify(s)).slice(1, -1),
  'JSON string, then percent': (s) => encodeURIComponent(JSON.stringify(s).slice(1, -1)),
  'HTML, named entities': htmlNamed,
  'HTML, PHP &#039;': (s) => htmlNamed(s).replace(/&#39;/g, '&#039;'),
  'HTML, decimal references': (s) => every(s, (c) => `&#${c.codePointAt(0)};`),
  'HTML, hex references': (s) => every(s, (c) => `&#x${c.codePointAt(0)!.toString(16)};`),
  'HTML, upper-case hex references': (s) => every(s, (c) => `&#X${c.codePointAt(0)!.toString(16).toUpperCase()};`),
  'HTML escaped twice': (s) => htmlNamed(htmlNamed(s)),
  'HTML, only specials as numbers': (s) => s.replace(/[^A-Za-z0-9 ]/g, (c) => `&#${c.codePointAt(0)};`),
  'hex, lower': (s) => Buffer.from(s).toString('hex'),
  'hex, upper': (s) => Buffer.from(s).toString('hex').toUpperCase(),
  'base64 at offset 0': (s) => base64Embedded(s, 0),
  'base64 at offset 1': (s) => base64Embedded(s, 1),
  'base64 at offset 2': (s) => base64Embedded(s, 2),
  'base64url at offset 0': (s) => base64Embedded(s, 0, true),
  'base64url at offset 1': (s) => base64Embedded(s, 1, true),
  'base64url at offset 2': (s) => base64Embedded(s, 2, true),
  'base64, then percent': (s) => encodeURIComponent(base64Embedded(s, 1)),
  'base64, then JSON-escaped slashes': (s) => base64Embedded(s, 2).replace(/\//g, '\\/'),
};

// ---- The oracle -------------------------------------------------------------------------------

const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", sol: '/', plus: '+', equals: '=', percnt: '%', num: '#', bsol: '\\' };

function percentDecode(text: string): string {
  return text.replace(/\+/g, ' ').replace(/(%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return Buffer.from(run.replace(/%/g, ''), 'hex').toString('latin1');
    }
  });
}

function jsonUnescape(text: string): string {
  return text
    .replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\(["\\/'bfnrt])/g, (_, c: string) => ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' })[c] ?? c);
}

function htmlUnescape(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') return String.fromCodePoint(ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10));
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

function hexDecoded(text: string): string[] {
  return [...text.matchAll(/[0-9a-f]{8,}/gi)].flatMap(([run]) => [Buffer.from(run, 'hex').toString('utf8'), Buffer.from(run.slice(1), 'hex').toString('utf8')]);
}

function base64Decoded(text: string): string[] {
  const out: string[] = [];
  for (const [run] of text.matchAll(/[A-Za-z0-9+/_-]{8,}/g)) {
    const standard = run.replace(/-/g, '+').replace(/_/g, '/');
    for (let skip = 0; skip < 4; skip++) out.push(Buffer.from(standard.slice(skip), 'base64').toString('utf8'));
  }
  return out;
}

const DECODERS: readonly ((text: string) => string[])[] = [
  (text) => [text],
  (text) => [percentDecode(text), percentDecode(text.replace(/\+/g, '%2B'))],
  (text) => [jsonUnescape(text)],
  (text) => [htmlUnescape(text)],
  hexDecoded,
  base64Decoded,
];

/** Whether `text` gives `secret` away under any one or two of the decodings above (any letter case). */
export function leaks(text: string, secret: string): boolean {
  const wanted = secret.toLowerCase();
  for (const first of DECODERS) {
    for (const once of first(text)) {
      for (const second of DECODERS) {
        for (const twice of second(once)) if (twice.toLowerCase().includes(wanted)) return true;
      }
    }
  }
  return false;
}
