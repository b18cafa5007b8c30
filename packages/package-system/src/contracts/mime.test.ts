import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INLINE_MIME_CAPS,
  UNKNOWN_MIME,
  formatByteSize,
  inlineCapFor,
  isInlineBinaryMime,
  isTextMime,
  mimeEssence,
  mimeFromName,
  mimeReadClass,
} from './index.js';

describe('mimeFromName', () => {
  it('goes by the extension, case-insensitively', () => {
    expect(mimeFromName('Photo.JPG')).toBe('image/jpeg');
    expect(mimeFromName('notes.md')).toBe('text/markdown');
    expect(mimeFromName('archive.tar.gz')).toBe('application/gzip');
    expect(mimeFromName('data.parquet')).toBe('application/vnd.apache.parquet');
    expect(mimeFromName('clip.mp4')).toBe('video/mp4');
    expect(mimeFromName('paper.pdf')).toBe('application/pdf');
  });

  it('gives TypeScript a text type without the x- prefix', () => {
    for (const name of ['a.ts', 'a.mts', 'a.cts']) expect(mimeFromName(name)).toBe('text/typescript');
    expect(mimeFromName('a.tsx')).toBe('text/tsx');
  });

  it('knows extensionless names that are text by convention', () => {
    expect(mimeFromName('Makefile')).toBe('text/plain');
    expect(mimeFromName('README')).toBe('text/plain');
    expect(mimeFromName('.bashrc')).toBe('text/plain');
    expect(mimeFromName('.gitignore')).toBe('text/plain');
  });

  it('falls back to application/octet-stream', () => {
    expect(UNKNOWN_MIME).toBe('application/octet-stream');
    for (const name of ['archive.unknownext', 'notes', 'notes.', '.hidden', '', 'a.constructor', 'a.__proto__', 'a.toString']) {
      expect(mimeFromName(name), name).toBe(UNKNOWN_MIME);
    }
  });
});

describe('mimeEssence', () => {
  it('drops parameters and case', () => {
    expect(mimeEssence('Text/HTML; charset=UTF-8')).toBe('text/html');
    expect(mimeEssence(' application/pdf ;name=x')).toBe('application/pdf');
    expect(mimeEssence('')).toBe('');
  });
});

describe('read classes', () => {
  it('text wins over the family: SVG is text, not an inline image', () => {
    expect(mimeReadClass('image/svg+xml')).toBe('text');
    expect(isTextMime('image/svg+xml')).toBe(true);
    expect(isInlineBinaryMime('image/svg+xml')).toBe(false);
  });

  it('classes image, video and PDF as inline binary, anything else not text as binary', () => {
    expect(mimeReadClass('video/mp4')).toBe('video');
    expect(mimeReadClass('image/PNG')).toBe('image');
    expect(mimeReadClass('application/pdf; name=x')).toBe('pdf');
    expect(mimeReadClass('application/zip')).toBe('binary');
    expect(mimeReadClass('audio/mpeg')).toBe('binary');
    expect(mimeReadClass(UNKNOWN_MIME)).toBe('binary');
    expect(mimeReadClass('')).toBe('binary');
    expect(mimeReadClass('not a type')).toBe('binary');
    for (const mime of ['image/png', 'image/jpeg', 'video/webm', 'Application/PDF']) expect(isInlineBinaryMime(mime), mime).toBe(true);
    for (const mime of ['application/zip', 'audio/ogg', 'text/plain', 'font/woff2', '']) expect(isInlineBinaryMime(mime), mime).toBe(false);
  });

  it('counts structured text under application/ and message/ as text', () => {
    const text = [
      'text/plain; charset=utf-8',
      'text/typescript',
      'message/rfc822',
      'application/json',
      'application/jsonl',
      'application/x-ndjson',
      'application/geo+json',
      'application/x-ipynb+json',
      'application/xml',
      'application/xhtml+xml',
      'application/yaml',
      'application/x-yaml',
      'application/toml',
      'application/javascript',
      'application/sql',
      'application/x-sh',
      'application/graphql',
      'application/x-subrip',
      'application/rtf',
    ];
    for (const mime of text) expect(isTextMime(mime), mime).toBe(true);
    const binary = ['application/zip', 'application/epub+zip', 'application/octet-stream', 'image/png', 'application/pdf', 'application/vnd.sqlite3', ''];
    for (const mime of binary) expect(isTextMime(mime), mime).toBe(false);
  });

  it('agrees with the table: every text extension maps to a text type', () => {
    for (const name of ['a.txt', 'a.csv', 'a.json', 'a.yml', 'a.toml', 'a.sh', 'a.sql', 'a.eml', 'a.ipynb', 'a.srt', 'a.svg', 'Dockerfile']) {
      expect(mimeReadClass(mimeFromName(name)), name).toBe('text');
    }
    for (const name of ['a.zip', 'a.woff2', 'a.mp3', 'a.docx', 'a.wasm']) expect(mimeReadClass(mimeFromName(name)), name).toBe('binary');
  });
});

describe('inline caps', () => {
  it('defaults to 5 MiB for images, 20 MiB for video and 10 MiB for PDF', () => {
    expect(DEFAULT_INLINE_MIME_CAPS).toEqual({ 'image/*': 5 * 1024 * 1024, 'video/*': 20 * 1024 * 1024, 'application/pdf': 10 * 1024 * 1024 });
    expect(Object.isFrozen(DEFAULT_INLINE_MIME_CAPS)).toBe(true);
  });

  it('takes the exact type first, then its family, else 0', () => {
    const caps = { ...DEFAULT_INLINE_MIME_CAPS, 'image/png': 32 };
    expect(inlineCapFor('image/png', caps)).toBe(32);
    expect(inlineCapFor('Image/PNG; x=1', caps)).toBe(32);
    expect(inlineCapFor('image/jpeg', caps)).toBe(5 * 1024 * 1024);
    expect(inlineCapFor('application/pdf', caps)).toBe(10 * 1024 * 1024);
    expect(inlineCapFor('application/zip', caps)).toBe(0);
    expect(inlineCapFor('image/png', { 'image/png': 0, 'image/*': 8 })).toBe(0);
  });

  it('never finds Object.prototype members as caps', () => {
    expect(inlineCapFor('constructor', {})).toBe(0);
    expect(inlineCapFor('__proto__', {})).toBe(0);
  });
});

describe('formatByteSize', () => {
  it('prints bytes as is and larger sizes with one decimal, dropped when .0', () => {
    expect(formatByteSize(0)).toBe('0 B');
    expect(formatByteSize(67)).toBe('67 B');
    expect(formatByteSize(1023)).toBe('1023 B');
    expect(formatByteSize(1024)).toBe('1 KiB');
    expect(formatByteSize(1536)).toBe('1.5 KiB');
    expect(formatByteSize(2047)).toBe('2 KiB');
    expect(formatByteSize(5 * 1024 * 1024)).toBe('5 MiB');
    expect(formatByteSize(Math.round(12.4 * 1024 * 1024))).toBe('12.4 MiB');
    expect(formatByteSize(3 * 1024 ** 4)).toBe('3 TiB');
    expect(formatByteSize(2048 * 1024 ** 4)).toBe('2048 TiB');
  });
});
