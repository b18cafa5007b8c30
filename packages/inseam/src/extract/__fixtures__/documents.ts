/**
 * Small real documents made in code — a PDF with a correct cross-reference table, and DOCX, XLSX
 * and PPTX zips with the parts Office writes — and a hostile corpus derived from them.
 */
import { zipSync } from 'fflate';

const encoder = new TextEncoder();

function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/gu, (char) => `\\${char}`)})`;
}

/** A PDF of one page per entry of `pages`, each line of a page drawn in Helvetica. */
export function pdfOf(pages: readonly (readonly string[])[]): Uint8Array {
  const objects: string[] = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  const kids: string[] = [];
  pages.forEach((lines, index) => {
    const page = 4 + index * 2;
    const content = page + 1;
    const stream = `BT /F1 12 Tf 14 TL 72 720 Td ${lines.map((line) => `${pdfString(line)} Tj T*`).join(' ')} ET`;
    objects[content] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
    objects[page] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`;
    kids.push(`${page} 0 R`);
  });
  objects[2] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages.length} >>`;
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let number = 1; number < objects.length; number++) {
    offsets[number] = body.length;
    body += `${number} 0 obj\n${objects[number]}\nendobj\n`;
  }
  const xref = body.length;
  body += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let number = 1; number < objects.length; number++) body += `${String(offsets[number]).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return encoder.encode(body);
}

function zipOf(parts: Readonly<Record<string, string | Uint8Array>>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(parts).map(([name, data]) => [name, typeof data === 'string' ? encoder.encode(data) : data])));
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';

function contentTypes(overrides: Readonly<Record<string, string>>): string {
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
    Object.entries(overrides).map(([part, type]) => `<Override PartName="/${part}" ContentType="${type}"/>`).join('') +
    '</Types>'
  );
}

function rels(target: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`;
}

function escapeXml(text: string): string {
  return text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
}

export function wordXml(paragraphs: readonly string[]): string {
  const body = paragraphs.map((text) => `<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`).join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ${W}><w:body>${body}<w:sectPr/></w:body></w:document>`;
}

/** A DOCX whose body has one paragraph per entry. */
export function docxOf(paragraphs: readonly string[], document: string | Uint8Array = wordXml(paragraphs)): Uint8Array {
  return zipOf({
    '[Content_Types].xml': contentTypes({ 'word/document.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml' }),
    '_rels/.rels': rels('word/document.xml'),
    'word/document.xml': document,
  });
}

/** An XLSX with one sheet named `sheet`: strings go to the shared table, numbers stay inline. */
export function xlsxOf(sheet: string, rows: readonly (readonly (string | number)[])[]): Uint8Array {
  const strings: string[] = [];
  const cells = rows
    .map((row, r) => {
      const values = row
        .map((value, c) => {
          const ref = `${String.fromCharCode(65 + c)}${r + 1}`;
          if (typeof value === 'number') return `<c r="${ref}"><v>${value}</v></c>`;
          strings.push(value);
          return `<c r="${ref}" t="s"><v>${strings.length - 1}</v></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${values}</row>`;
    })
    .join('');
  const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  return zipOf({
    '[Content_Types].xml': contentTypes({ 'xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml' }),
    '_rels/.rels': rels('xl/workbook.xml'),
    'xl/workbook.xml': `<workbook ${main} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${escapeXml(sheet)}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/sharedStrings.xml': `<sst ${main} count="${strings.length}" uniqueCount="${strings.length}">${strings.map((text) => `<si><t>${escapeXml(text)}</t></si>`).join('')}</sst>`,
    'xl/worksheets/sheet1.xml': `<worksheet ${main}><sheetData>${cells}</sheetData></worksheet>`,
  });
}

/** A PPTX with one slide per entry (slide files numbered 1, 2, … 10, so order is numeric). */
export function pptxOf(slides: readonly (readonly string[])[]): Uint8Array {
  const parts: Record<string, string> = {
    '[Content_Types].xml': contentTypes({ 'ppt/presentation.xml': 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml' }),
    '_rels/.rels': rels('ppt/presentation.xml'),
    'ppt/presentation.xml': `<p:presentation ${A}/>`,
  };
  slides.forEach((paragraphs, index) => {
    const body = paragraphs.map((text) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${escapeXml(text)}</a:t></a:r></a:p>`).join('');
    parts[`ppt/slides/slide${index + 1}.xml`] = `<p:sld ${A}><p:cSld><p:spTree><p:sp><p:txBody><a:bodyPr/>${body}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
  });
  return zipOf(parts);
}

/**
 * The zip with every central-directory and local size of `part` set to `size`: a bomb that
 * declares 4 GiB, or one that declares a few bytes and inflates to far more.
 */
export function withDeclaredSize(zip: Uint8Array, part: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const name = encoder.encode(part);
  for (let at = 0; at + 46 <= out.length; at++) {
    const signature = view.getUint32(at, true);
    const central = signature === 0x02014b50;
    if (!central && signature !== 0x04034b50) continue;
    const nameLength = view.getUint16(at + (central ? 28 : 26), true);
    const nameAt = at + (central ? 46 : 30);
    if (nameLength !== name.length || !name.every((byte, index) => out[nameAt + index] === byte)) continue;
    view.setUint32(at + (central ? 24 : 22), size, true);
  }
  return out;
}

/** `size` zero bytes as a DOCX's main part: a few KiB compressed. */
export function zerosDocx(size: number): Uint8Array {
  return docxOf([], new Uint8Array(size));
}
