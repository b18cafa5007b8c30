/**
 * MIME types by file name (a small built-in table: a map lookup per entry keeps listing fast) and
 * a cheap text-versus-binary sniff for names the table does not know. Listing and stat use the
 * name alone, so they always agree; read may refine an unknown name to `text/plain` after sniffing
 * the bytes it reads anyway.
 */
import type { InlineCaps } from './config.js';

export const UNKNOWN_MIME = 'application/octet-stream';

const BY_EXTENSION: ReadonlyMap<string, string> = new Map(
  Object.entries({
    txt: 'text/plain', text: 'text/plain', log: 'text/plain', md: 'text/markdown', markdown: 'text/markdown', mdx: 'text/markdown',
    rst: 'text/x-rst', adoc: 'text/asciidoc', org: 'text/plain', tex: 'text/x-tex', bib: 'text/x-bibtex',
    csv: 'text/csv', tsv: 'text/tab-separated-values', html: 'text/html', htm: 'text/html', css: 'text/css', scss: 'text/x-scss',
    less: 'text/x-less', xml: 'application/xml', xsl: 'application/xml', svg: 'image/svg+xml', json: 'application/json',
    jsonl: 'application/jsonl', ndjson: 'application/x-ndjson', geojson: 'application/geo+json', yaml: 'application/yaml',
    yml: 'application/yaml', toml: 'application/toml', ini: 'text/plain', cfg: 'text/plain', conf: 'text/plain', env: 'text/plain',
    properties: 'text/plain', js: 'text/javascript', mjs: 'text/javascript', cjs: 'text/javascript', jsx: 'text/jsx',
    ts: 'text/typescript', mts: 'text/typescript', cts: 'text/typescript', tsx: 'text/tsx', py: 'text/x-python',
    rb: 'text/x-ruby', go: 'text/x-go', rs: 'text/x-rust', java: 'text/x-java', kt: 'text/x-kotlin', swift: 'text/x-swift',
    c: 'text/x-c', h: 'text/x-c', cc: 'text/x-c++', cpp: 'text/x-c++', hpp: 'text/x-c++', cs: 'text/x-csharp', php: 'text/x-php',
    pl: 'text/x-perl', lua: 'text/x-lua', r: 'text/x-r', scala: 'text/x-scala', sql: 'application/sql', sh: 'application/x-sh',
    bash: 'application/x-sh', zsh: 'application/x-sh', fish: 'application/x-sh', ps1: 'text/plain', bat: 'text/plain',
    vue: 'text/plain', svelte: 'text/plain', graphql: 'application/graphql', proto: 'text/plain', lock: 'text/plain',
    diff: 'text/x-diff', patch: 'text/x-diff', ics: 'text/calendar', vcf: 'text/vcard', eml: 'message/rfc822',
    srt: 'application/x-subrip', vtt: 'text/vtt', ipynb: 'application/x-ipynb+json',
    png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
    bmp: 'image/bmp', ico: 'image/vnd.microsoft.icon', tif: 'image/tiff', tiff: 'image/tiff', heic: 'image/heic', heif: 'image/heif',
    mp4: 'video/mp4', m4v: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', mkv: 'video/x-matroska', avi: 'video/x-msvideo',
    mpeg: 'video/mpeg', mpg: 'video/mpeg', ogv: 'video/ogg',
    mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', oga: 'audio/ogg', flac: 'audio/flac', m4a: 'audio/mp4', aac: 'audio/aac', opus: 'audio/opus',
    pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip', tgz: 'application/gzip', bz2: 'application/x-bzip2',
    xz: 'application/x-xz', zst: 'application/zstd', '7z': 'application/x-7z-compressed', tar: 'application/x-tar',
    rar: 'application/vnd.rar', jar: 'application/java-archive', wasm: 'application/wasm',
    doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    odt: 'application/vnd.oasis.opendocument.text', epub: 'application/epub+zip', rtf: 'application/rtf',
    woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf', sqlite: 'application/vnd.sqlite3', db: 'application/octet-stream',
  }),
);

/** Extensionless names that are text by convention. */
const TEXT_NAMES: ReadonlySet<string> = new Set([
  'readme', 'license', 'licence', 'copying', 'authors', 'changelog', 'notice', 'makefile', 'dockerfile', 'containerfile',
  'gemfile', 'rakefile', 'procfile', 'vagrantfile', 'justfile', '.gitignore', '.gitattributes', '.dockerignore', '.npmrc',
  '.editorconfig', '.env', '.bashrc', '.profile', '.zshrc',
]);

/** The MIME type for `name` by extension; UNKNOWN_MIME when the table does not know it. */
export function mimeOfName(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot > 0 && dot < name.length - 1) {
    const known = BY_EXTENSION.get(name.slice(dot + 1).toLowerCase());
    if (known !== undefined) return known;
  }
  return TEXT_NAMES.has(name.toLowerCase()) ? 'text/plain' : UNKNOWN_MIME;
}

const TEXT_APPLICATION_TYPES: ReadonlySet<string> = new Set([
  'application/xml', 'application/json', 'application/jsonl', 'application/x-ndjson', 'application/geo+json', 'application/yaml',
  'application/toml', 'application/sql', 'application/x-sh', 'application/graphql', 'application/x-subrip',
  'application/x-ipynb+json', 'application/rtf', 'message/rfc822', 'image/svg+xml',
]);

/** How read returns a type: decoded text, or base64 bytes under a per-category inline cap. */
export type ContentClass = 'text' | 'image' | 'video' | 'pdf' | 'binary';

export function contentClassOf(mime: string): ContentClass {
  if (mime.startsWith('text/') || TEXT_APPLICATION_TYPES.has(mime)) return 'text';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('video/')) return 'video';
  if (mime === 'application/pdf') return 'pdf';
  return 'binary';
}

export function inlineCapOf(contentClass: Exclude<ContentClass, 'text'>, caps: InlineCaps): number {
  return caps[contentClass];
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

/** A short human-readable size, e.g. "12.4 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}
