/**
 * MIME types. An entry's `mime` comes from the key's extension, so a listing (which carries no
 * Content-Type on S3) and a stat of the same object always agree. A read uses the object's stored
 * Content-Type when it is more specific than the guess.
 */
import { baseName } from './keys.js';

export const UNKNOWN_MIME = 'application/octet-stream';

const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  jsonl: 'application/jsonl',
  ndjson: 'application/x-ndjson',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  ini: 'text/plain',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  tsx: 'text/x-typescript',
  py: 'text/x-python',
  rb: 'text/x-ruby',
  go: 'text/x-go',
  rs: 'text/x-rust',
  java: 'text/x-java',
  c: 'text/x-c',
  h: 'text/x-c',
  cpp: 'text/x-c++',
  sh: 'application/x-sh',
  sql: 'application/sql',
  eml: 'message/rfc822',
  ics: 'text/calendar',
  vcf: 'text/vcard',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  parquet: 'application/vnd.apache.parquet',
  wasm: 'application/wasm',
  woff2: 'font/woff2',
};

/** The MIME type the key's extension implies, or application/octet-stream. */
export function mimeFromKey(key: string): string {
  const name = baseName(key);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return UNKNOWN_MIME;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? UNKNOWN_MIME;
}

/** The type/subtype without parameters, lower-cased. */
export function mimeEssence(mime: string): string {
  return (mime.split(';', 1)[0] ?? '').trim().toLowerCase();
}

/** How a read returns an object of this type. */
export type ReadClass = 'text' | 'image' | 'video' | 'pdf' | 'binary' | 'unknown';

const TEXT_APPLICATION = new Set([
  'application/json',
  'application/jsonl',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'message/rfc822',
]);

export function readClassOf(mime: string): ReadClass {
  const essence = mimeEssence(mime);
  if (essence.startsWith('image/')) return 'image';
  if (essence.startsWith('video/')) return 'video';
  if (essence === 'application/pdf') return 'pdf';
  if (essence.startsWith('text/') || TEXT_APPLICATION.has(essence) || essence.endsWith('+json') || essence.endsWith('+xml')) return 'text';
  if (essence === UNKNOWN_MIME || essence === 'binary/octet-stream' || essence === '') return 'unknown';
  return 'binary';
}

/** The stored Content-Type when it says more than the extension does, else the guess. */
export function effectiveMime(guess: string, stored: string | undefined): string {
  if (stored === undefined) return guess;
  const essence = mimeEssence(stored);
  if (essence === '' || essence === UNKNOWN_MIME || essence === 'binary/octet-stream') return guess;
  return stored;
}
