/** MIME handling of the memory connector: a guess from the file name, and which types are text. */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  ts: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
  webm: 'video/webm',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** The MIME type for a file name by its extension; `application/octet-stream` when unknown. */
export function guessMime(name: string): string {
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return BY_EXTENSION[extension] ?? 'application/octet-stream';
}

/** Types read back decoded as text (UTF-8). Everything else is binary. */
export function isTextMime(mime: string): boolean {
  const essence = mime.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return (
    essence.startsWith('text/') ||
    essence === 'application/json' ||
    essence === 'application/xml' ||
    essence === 'application/yaml' ||
    essence === 'application/javascript' ||
    essence.endsWith('+json') ||
    (essence.endsWith('+xml') && !essence.startsWith('image/'))
  );
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB'] as const;

/** `67 B`, `12.4 MiB`, `5 MiB`: sizes for the markers a model reads. */
export function formatSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = unit === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${rounded} ${UNITS[unit]}`;
}
