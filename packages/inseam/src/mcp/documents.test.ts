/**
 * Documents as text, end to end: a folder host holding small real PDF, DOCX, XLSX, PPTX and HTML
 * files and a hostile corpus beside them, read through the SDK client over the MCP endpoint
 * (text by default, the original with format "bytes") and crawled into the catalog, where
 * keyword search finds words that exist only inside the documents and semantic search (the real
 * default embedder) finds a PDF by meaning.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { docxOf, pdfOf, pptxOf, withDeclaredSize, xlsxOf } from '../extract/__fixtures__/documents.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { errorCode, openMcpFixture, structured, textOf, type McpFixture } from './__fixtures__/mcp-fixture.js';

let fixture: McpFixture;
let ann: Client;
const PDF = pdfOf([['Zanzibar quarterly figures'], ['Page two mentions Quokka']]);
const DOCX = docxOf(['Minutes: Xylophone budget approved', 'Second paragraph', 'Third paragraph']);
const FILES: Readonly<Record<string, Uint8Array | string>> = {
  'docs/report.pdf': PDF,
  'docs/trip.pdf': pdfOf([["Low-cost airfare to Portugal's capital: book the budget carrier two months ahead."]]),
  'docs/minutes.docx': DOCX,
  'docs/budget.xlsx': xlsxOf('Plan', [['Marmalade', 42]]),
  'docs/deck.pptx': pptxOf([['Wombat roadmap']]),
  'docs/page.html': '<html><body><h1>Narwhal notes</h1><script>var hidden = "Pangolin";</script></body></html>',
  'docs/plain.txt': 'Ocelot in plain text',
  'bad/truncated.pdf': PDF.subarray(0, 300),
  'bad/bomb.docx': withDeclaredSize(DOCX, 'word/document.xml', 0xfffffff0),
  'bad/fake.xlsx': 'this is not a spreadsheet',
};

beforeAll(async () => {
  fixture = await openMcpFixture();
  for (const [path, data] of Object.entries(FILES)) {
    await mkdir(dirname(join(fixture.files, path)), { recursive: true });
    await writeFile(join(fixture.files, path), data);
  }
  await fixture.platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: fixture.files }, permissions: { default: { read: true, write: false, exec: false } } });
  fixture.tokens.set('ann-token', callerOf('ann'));
  ann = await fixture.client('ann-token');
});

afterAll(async () => {
  await fixture?.close();
});

function read(args: Record<string, unknown>): Promise<CallToolResult> {
  return ann.callTool({ name: 'read', arguments: args }) as Promise<CallToolResult>;
}

describe('reading documents over MCP', () => {
  it('gives a PDF as its text by default, and its bytes with format "bytes"', async () => {
    const text = await read({ address: 'notes://docs/report.pdf' });
    expect(text.isError).toBeFalsy();
    expect(text.content).toHaveLength(1);
    expect(textOf(text)).toMatch(/Zanzibar quarterly figures[\s\S]*Page two mentions Quokka/u);
    expect(structured(text)).toMatchObject({ address: 'inseam://home/notes/docs/report.pdf', format: 'text', extractedFrom: 'pdf', size: PDF.byteLength, done: true, source: 'live' });
    const bytes = await read({ address: 'notes://docs/report.pdf', format: 'bytes' });
    expect(bytes.content).toEqual([{ type: 'resource', resource: { uri: 'inseam://home/notes/docs/report.pdf', mimeType: 'application/pdf', blob: Buffer.from(PDF).toString('base64') } }]);
    // A byte range reads bytes, as before.
    const range = await read({ address: 'notes://docs/report.pdf', offset: 0, length: 5 });
    expect(range.content).toEqual([{ type: 'resource', resource: expect.objectContaining({ blob: Buffer.from('%PDF-').toString('base64') }) }]);
  });

  it('gives DOCX, XLSX and PPTX as text, paged by lines', async () => {
    expect(textOf(await read({ address: 'notes://docs/minutes.docx' }))).toBe('Minutes: Xylophone budget approved\nSecond paragraph\nThird paragraph');
    expect(textOf(await read({ address: 'notes://docs/budget.xlsx' }))).toBe('Plan\nMarmalade\t42');
    expect(textOf(await read({ address: 'notes://docs/deck.pptx' }))).toBe('Wombat roadmap');
    const page = await read({ address: 'notes://docs/minutes.docx', lineStart: 2, lineCount: 1 });
    expect(textOf(page)).toBe('Second paragraph');
    expect(structured(page)).toMatchObject({ lines: { start: 2, count: 1, total: 3, next: 3 }, done: false });
  });

  it('gives HTML as its source unless format is "text"', async () => {
    expect(textOf(await read({ address: 'notes://docs/page.html' }))).toContain('<h1>Narwhal notes</h1>');
    const words = await read({ address: 'notes://docs/page.html', format: 'text' });
    expect(textOf(words)).toContain('Narwhal notes');
    expect(textOf(words)).not.toContain('Pangolin');
    expect(errorCode(await read({ address: 'notes://docs/page.html', format: 'text', offset: 0 }))).toBe('invalid_argument');
  });

  it('fails a hostile document alone with a typed error that points at its bytes', async () => {
    const truncated = await read({ address: 'notes://bad/truncated.pdf', format: 'text' });
    expect(errorCode(truncated)).toBe('document_unreadable');
    expect(textOf(truncated)).toContain('format "bytes"');
    expect(structured(truncated)['error']).toMatchObject({ details: { reason: 'malformed', kind: 'pdf' } });
    expect(errorCode(await read({ address: 'notes://bad/bomb.docx' }))).toBe('too_large');
    // A name that lies is read as stored when no format was asked for.
    expect((await read({ address: 'notes://bad/fake.xlsx' })).content[0]).toMatchObject({ type: 'resource', resource: { blob: Buffer.from('this is not a spreadsheet').toString('base64') } });
    expect(errorCode(await read({ address: 'notes://bad/fake.xlsx', format: 'text' }))).toBe('document_unreadable');
    // The originals stay readable.
    expect((await read({ address: 'notes://bad/truncated.pdf', format: 'bytes' })).isError).toBeFalsy();
    expect(textOf(await read({ address: 'notes://docs/plain.txt' }))).toBe('Ocelot in plain text');
  });
});

describe('crawling documents into the catalog', () => {
  it('indexes each document\'s text for search; the hostile ones count as errors and stop nothing', async () => {
    const run = await (await fixture.platform.sync({ network: 'home', host: 'notes' })).result;
    expect(run.state).toBe('completed');
    expect(run.counters.errors).toBe(3);
    const hits = async (query: string): Promise<string[]> => {
      const found = await ann.callTool({ name: 'search', arguments: { query } });
      return ((structured(found)['hits'] ?? []) as { address: string }[]).map((hit) => hit.address);
    };
    expect(await hits('Quokka')).toEqual(['inseam://home/notes/docs/report.pdf']);
    expect(await hits('Xylophone')).toEqual(['inseam://home/notes/docs/minutes.docx']);
    expect(await hits('Marmalade')).toEqual(['inseam://home/notes/docs/budget.xlsx']);
    expect(await hits('Wombat')).toEqual(['inseam://home/notes/docs/deck.pptx']);
    expect(await hits('Narwhal')).toEqual(['inseam://home/notes/docs/page.html']);
    // Markup and scripts are not indexed.
    expect(await hits('Pangolin')).toEqual([]);
    expect(await hits('Ocelot')).toEqual(['inseam://home/notes/docs/plain.txt']);
  });

  it('embeds a document\'s text, so semantic search finds a PDF by meaning', async () => {
    await fixture.platform.vectors.request('home');
    const question = 'cheap flights to Lisbon';
    expect((await fixture.platform.search.search(question, { network: 'home', hosts: ['notes'], mode: 'keyword' })).hits).toEqual([]);
    const page = await fixture.platform.search.search(question, { network: 'home', hosts: ['notes'], mode: 'semantic' });
    expect(page.hits[0]).toMatchObject({ path: 'docs/trip.pdf', matched: ['semantic'] });
    expect(page.hits[0]!.passage!.text).toContain("Low-cost airfare to Portugal's capital");
  });
});
