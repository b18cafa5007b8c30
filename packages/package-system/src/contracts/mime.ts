/**
 * MIME types, one table for every connector, the memory connector and the sandbox adapter, so a
 * file name means the same type and a type reads back the same way wherever it is served.
 *
 * - `UNKNOWN_MIME` — `application/octet-stream`, the type of a name nothing else matches.
 * - `mimeFromName(name)` — the type a file name (one path segment, not a path) implies: by its
 *   extension, case-insensitive; else `text/plain` for an extensionless name that is text by
 *   convention (`README`, `Makefile`, `.gitignore`, …); else `UNKNOWN_MIME`. The name alone
 *   decides, so a listing and a stat of one object always agree; a connector may refine
 *   `UNKNOWN_MIME` by sniffing bytes it reads anyway. A leading dot is not an extension
 *   (`.bashrc`), nor is a trailing one (`notes.`).
 * - `mimeEssence(mime)` — `type/subtype` lower-cased, parameters (`; charset=…`) dropped.
 * - `mimeReadClass(mime)` — how a read returns the type: `text` (decoded UTF-8), `image`, `video`
 *   or `pdf` (base64 `bytes` within the per-MIME inline cap, a marker and `omitted` over it), or
 *   `binary` (anything else). Text wins over the family: `image/svg+xml` is text.
 * - `isTextMime(mime)` — `text/*`, `message/rfc822`, `*+json`, `*+xml` and the structured-text
 *   `application/*` types (JSON, JSON Lines, XML, YAML, TOML, JavaScript, SQL, shell, GraphQL,
 *   SubRip, RTF).
 * - `isInlineBinaryMime(mime)` — `image/*`, `video/*` and `application/pdf`, the binary types
 *   whose reads carry base64 `bytes`; false for the text types among them (`image/svg+xml`).
 * - `DEFAULT_INLINE_MIME_CAPS` — their default inline caps, keyed by pattern (`InlineMimePattern`):
 *   `image/*` 5 MiB, `video/*` 20 MiB, `application/pdf` 10 MiB.
 * - `inlineCapFor(mime, caps)` — the cap in `caps` (keyed by exact type or `type/*`) for a type:
 *   the exact type's, else its family's, else 0 (nothing inlined).
 * - `formatByteSize(bytes)` — `67 B`, `5 MiB`, `12.4 MiB`: sizes in the markers a model reads.
 *
 * Every function takes any string and never throws: an empty or malformed type is `binary`, not
 * text and not inline.
 */

export const UNKNOWN_MIME = 'application/octet-stream';

// A Map, not an object: one lookup per listed entry keeps listings fast, and no prototype key
// (`constructor`, `__proto__`) can match an extension.
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
    rar: 'application/vnd.rar', jar: 'application/java-archive', wasm: 'application/wasm', parquet: 'application/vnd.apache.parquet',
    doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ppt: 'application/vnd.ms-powerpoint', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    odt: 'application/vnd.oasis.opendocument.text', epub: 'application/epub+zip', rtf: 'application/rtf',
    woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf', sqlite: 'application/vnd.sqlite3',
  }),
);

/** Extensionless names (lower-cased) that are text by convention. */
const TEXT_NAMES: ReadonlySet<string> = new Set([
  'readme', 'license', 'licence', 'copying', 'authors', 'changelog', 'notice', 'makefile', 'dockerfile', 'containerfile',
  'gemfile', 'rakefile', 'procfile', 'vagrantfile', 'justfile', '.gitignore', '.gitattributes', '.dockerignore', '.npmrc',
  '.editorconfig', '.env', '.bashrc', '.profile', '.zshrc',
]);

/** The MIME type `name` implies; `UNKNOWN_MIME` when neither its extension nor the name is known. */
export function mimeFromName(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot > 0 && dot < name.length - 1) {
    const known = BY_EXTENSION.get(name.slice(dot + 1).toLowerCase());
    if (known !== undefined) return known;
  }
  return TEXT_NAMES.has(name.toLowerCase()) ? 'text/plain' : UNKNOWN_MIME;
}

/** `type/subtype` without parameters, lower-cased; '' for ''. */
export function mimeEssence(mime: string): string {
  return (mime.split(';', 1)[0] ?? '').trim().toLowerCase();
}

/** Structured text under `application/` or `message/`; `text/*`, `*+json` and `*+xml` are text by pattern. */
const TEXT_TYPES: ReadonlySet<string> = new Set([
  'application/json', 'application/jsonl', 'application/x-ndjson', 'application/xml', 'application/yaml', 'application/x-yaml',
  'application/toml', 'application/javascript', 'application/sql', 'application/x-sh', 'application/graphql',
  'application/x-subrip', 'application/rtf', 'message/rfc822',
]);

function isTextEssence(essence: string): boolean {
  return essence.startsWith('text/') || TEXT_TYPES.has(essence) || essence.endsWith('+json') || essence.endsWith('+xml');
}

/** How a read returns a type; see the module comment. */
export type MimeReadClass = 'text' | 'image' | 'video' | 'pdf' | 'binary';

export function mimeReadClass(mime: string): MimeReadClass {
  const essence = mimeEssence(mime);
  if (isTextEssence(essence)) return 'text';
  if (essence.startsWith('image/')) return 'image';
  if (essence.startsWith('video/')) return 'video';
  if (essence === 'application/pdf') return 'pdf';
  return 'binary';
}

/** True for the types a read returns as decoded UTF-8 text. */
export function isTextMime(mime: string): boolean {
  return isTextEssence(mimeEssence(mime));
}

/** True for image/*, video/* and application/pdf that are not text: reads carry base64 `bytes`. */
export function isInlineBinaryMime(mime: string): boolean {
  const readClass = mimeReadClass(mime);
  return readClass === 'image' || readClass === 'video' || readClass === 'pdf';
}

/** The keys of the default inline caps: one per inline binary family. */
export type InlineMimePattern = 'image/*' | 'video/*' | 'application/pdf';

const MIB = 1024 * 1024;

export const DEFAULT_INLINE_MIME_CAPS: Readonly<Record<InlineMimePattern, number>> = Object.freeze({
  'image/*': 5 * MIB,
  'video/*': 20 * MIB,
  'application/pdf': 10 * MIB,
});

/** The cap `caps` sets for `mime`: its exact type's, else its `type/*`, else 0. */
export function inlineCapFor(mime: string, caps: Readonly<Record<string, number>>): number {
  const essence = mimeEssence(mime);
  // Own keys only: a type such as `constructor/x` must not find Object.prototype members.
  const own = (key: string): number | undefined => (Object.hasOwn(caps, key) ? caps[key] : undefined);
  return own(essence) ?? own(`${essence.split('/', 1)[0] ?? ''}/*`) ?? 0;
}

const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** A non-negative byte count for people: `67 B`, `5 MiB`, `12.4 MiB` (one decimal, dropped when .0). */
export function formatByteSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = Math.round(value * 10) / 10;
  return `${Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(1)} ${SIZE_UNITS[unit]}`;
}
