/**
 * The text of DOCX, XLSX and PPTX files, read from their parts inside the zip. Only the parts
 * that hold text are decompressed, each no larger than its declared size (fflate writes into a
 * buffer of that size, so a part that lies about its size is cut, never grown), and their
 * declared sizes together must stay under `maxInflatedBytes`: a zip bomb fails before any of it
 * is inflated.
 */
import { unzipSync, type UnzipFileInfo } from 'fflate';
import type { DocumentKind } from './kinds.js';
import { tooLarge, unreadable, type ExtractLimits } from './limits.js';
import { gather, TextSink } from './sink.js';
import { attribute, scanXml } from './xml.js';

type OfficeKind = Extract<DocumentKind, 'docx' | 'xlsx' | 'pptx'>;

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
// A password-protected Office file is not a zip but an OLE compound file around the encrypted zip.
const COMPOUND_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const MAX_PARTS = 20_000;

const WANTED: Readonly<Record<OfficeKind, (name: string) => boolean>> = {
  docx: (name) => name === 'word/document.xml' || /^word\/(?:footnotes|endnotes|header\d*|footer\d*)\.xml$/u.test(name),
  xlsx: (name) => name === 'xl/sharedStrings.xml' || name === 'xl/workbook.xml' || /^xl\/worksheets\/sheet\d+\.xml$/u.test(name),
  pptx: (name) => /^ppt\/slides\/slide\d+\.xml$/u.test(name) || /^ppt\/notesSlides\/notesSlide\d+\.xml$/u.test(name),
};

const MAIN_PART: Readonly<Record<OfficeKind, RegExp>> = {
  docx: /^word\/document\.xml$/u,
  xlsx: /^xl\/worksheets\/sheet\d+\.xml$/u,
  pptx: /^ppt\/slides\/slide\d+\.xml$/u,
};

export async function officeText(kind: OfficeKind, bytes: Uint8Array, limits: ExtractLimits): Promise<{ text: string; truncated: boolean }> {
  const parts = unzipParts(kind, bytes, limits);
  if (![...parts.keys()].some((name) => MAIN_PART[kind].test(name))) throw unreadable(kind, 'wrong_type', 'it is a zip file without the parts of this kind of document');
  const sink = new TextSink(limits.maxTextChars);
  const decoder = new TextDecoder('utf-8');
  const part = (name: string): string | undefined => {
    const data = parts.get(name);
    return data === undefined ? undefined : decoder.decode(data);
  };
  await gather(sink, () => {
    if (kind === 'docx') docxText(parts, part, sink);
    else if (kind === 'pptx') pptxText(parts, part, sink);
    else xlsxText(parts, part, sink);
  });
  return { text: sink.text(), truncated: sink.truncated };
}

function unzipParts(kind: OfficeKind, bytes: Uint8Array, limits: ExtractLimits): Map<string, Uint8Array> {
  if (COMPOUND_MAGIC.every((byte, index) => bytes[index] === byte)) throw unreadable(kind, 'encrypted', 'it is password-protected (or an older binary Office file)');
  if (!ZIP_MAGIC.every((byte, index) => bytes[index] === byte)) throw unreadable(kind, 'wrong_type', 'it is not a zip file, as every Office document is');
  let declared = 0;
  let seen = 0;
  let over = false;
  const filter = (file: UnzipFileInfo): boolean => {
    seen += 1;
    if (seen > MAX_PARTS) over = true;
    if (over || !WANTED[kind](file.name)) return false;
    declared += file.originalSize;
    if (declared > limits.maxInflatedBytes) over = true;
    return !over;
  };
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(bytes, { filter });
  } catch {
    if (over) throw tooLarge(kind, 'inflated_too_large', `its parts decompress to more than ${limits.maxInflatedBytes} bytes`, limits.maxInflatedBytes);
    throw unreadable(kind, 'malformed', 'the zip file is damaged or truncated');
  }
  if (over) {
    throw seen > MAX_PARTS
      ? unreadable(kind, 'malformed', `it holds more than ${MAX_PARTS} parts`)
      : tooLarge(kind, 'inflated_too_large', `its parts decompress to more than ${limits.maxInflatedBytes} bytes`, limits.maxInflatedBytes);
  }
  return new Map(Object.entries(parts));
}

/** Part names in document order: slide2 before slide10. */
function numbered(parts: ReadonlyMap<string, Uint8Array>, pattern: RegExp): string[] {
  const number = (name: string): number => Number(/(\d+)\.xml$/u.exec(name)?.[1] ?? 0);
  return [...parts.keys()].filter((name) => pattern.test(name)).sort((a, b) => number(a) - number(b));
}

type PartReader = (name: string) => string | undefined;

/** Paragraph text: `text` elements' content, tabs and breaks kept, one line per paragraph. */
function paragraphs(xml: string, sink: TextSink, names: { text: string; paragraph: string; tab?: string; breaks: readonly string[] }): void {
  let inText = false;
  scanXml(xml, {
    open(name, _attributes, selfClosing) {
      if (name === names.text) inText = !selfClosing;
      else if (name === names.tab) sink.push('\t');
      else if (names.breaks.includes(name)) sink.push('\n');
    },
    close(name) {
      if (name === names.text) inText = false;
      else if (name === names.paragraph) sink.line();
    },
    text(text) {
      if (inText) sink.push(text);
    },
  });
  sink.line();
}

const WORD = { text: 'w:t', paragraph: 'w:p', tab: 'w:tab', breaks: ['w:br', 'w:cr'] };
const DRAWING = { text: 'a:t', paragraph: 'a:p', breaks: ['a:br'] };

function docxText(parts: ReadonlyMap<string, Uint8Array>, part: PartReader, sink: TextSink): void {
  const order = ['word/document.xml', ...[...parts.keys()].filter((name) => name !== 'word/document.xml').sort()];
  for (const name of order) paragraphs(part(name)!, sink, WORD);
}

function pptxText(parts: ReadonlyMap<string, Uint8Array>, part: PartReader, sink: TextSink): void {
  for (const name of numbered(parts, /^ppt\/slides\/slide\d+\.xml$/u)) {
    paragraphs(part(name)!, sink, DRAWING);
    sink.line();
  }
  for (const name of numbered(parts, /^ppt\/notesSlides\/notesSlide\d+\.xml$/u)) paragraphs(part(name)!, sink, DRAWING);
}

/** Shared strings: each `si` is one string, the concatenation of its `t` runs (phonetic runs left out). */
function sharedStrings(xml: string | undefined): string[] {
  if (xml === undefined) return [];
  const strings: string[] = [];
  let current: string[] | null = null;
  let inText = false;
  let phonetic = 0;
  scanXml(xml, {
    open(name, _attributes, selfClosing) {
      if (name === 'si') current = selfClosing ? (strings.push(''), null) : [];
      else if (name === 'rPh' && !selfClosing) phonetic += 1;
      else if (name === 't') inText = !selfClosing;
    },
    close(name) {
      if (name === 'si' && current !== null) {
        strings.push(current.join(''));
        current = null;
      } else if (name === 'rPh') phonetic -= 1;
      else if (name === 't') inText = false;
    },
    text(text) {
      if (inText && phonetic === 0 && current !== null) current.push(text);
    },
  });
  return strings;
}

function sheetNames(xml: string | undefined): string[] {
  const names: string[] = [];
  if (xml === undefined) return names;
  scanXml(xml, {
    open(name, attributes) {
      if (name === 'sheet') names.push(attribute(attributes, 'name') ?? '');
    },
    close() {},
    text() {},
  });
  return names;
}

/** Each sheet under its name, one line per row, cells separated by tabs. */
function xlsxText(parts: ReadonlyMap<string, Uint8Array>, part: PartReader, sink: TextSink): void {
  const strings = sharedStrings(part('xl/sharedStrings.xml'));
  const names = sheetNames(part('xl/workbook.xml'));
  numbered(parts, /^xl\/worksheets\/sheet\d+\.xml$/u).forEach((name, index) => {
    const title = names[index];
    if (title !== undefined && title !== '') {
      sink.push(title);
      sink.line();
    }
    let type: string | undefined;
    let value: string[] | null = null;
    let cells = 0;
    let inText = false;
    scanXml(part(name)!, {
      open(tag, attributes, selfClosing) {
        if (tag === 'row') cells = 0;
        else if (tag === 'c') {
          type = attribute(attributes, 't');
          value = selfClosing ? null : [];
        } else if (tag === 'v' || tag === 't') inText = !selfClosing;
      },
      close(tag) {
        if (tag === 'v' || tag === 't') inText = false;
        else if (tag === 'c' && value !== null) {
          const raw = value.join('');
          const cell = type === 's' ? (strings[Number(raw)] ?? '') : raw;
          if (cell !== '') {
            if (cells > 0) sink.push('\t');
            sink.push(cell);
            cells += 1;
          }
          value = null;
        } else if (tag === 'row' && cells > 0) sink.line();
      },
      text(text) {
        if (inText && value !== null) value.push(text);
      },
    });
    sink.line();
  });
}
