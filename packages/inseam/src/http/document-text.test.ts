/**
 * `GET /v1/fs/text` over real HTTP: a document's extracted text paged by lines, under the same
 * permission tree as every read, and typed refusals for what is not a readable document.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxOf, pdfOf } from '../extract/__fixtures__/documents.js';
import { call, q, startApi, type Api } from './__fixtures__/api.js';

let api: Api;
const PDF = pdfOf([['Harbour crane schedule'], ['Tuesday delivery']]);

beforeAll(async () => {
  api = await startApi();
  await writeFile(join(api.folder, 'docs', 'schedule.pdf'), PDF);
  await writeFile(join(api.folder, 'docs', 'private', 'salaries.docx'), docxOf(['Secret salary table']));
  await writeFile(join(api.folder, 'docs', 'broken.pdf'), PDF.subarray(0, 200));
});

afterAll(async () => {
  await api?.close();
});

describe('GET /v1/fs/text', () => {
  it('answers a PDF\'s text with what the page covers, and pages it by lines', async () => {
    const answer = await call(api, 'GET', `/v1/fs/text?address=${q('files://docs/schedule.pdf')}`, { token: api.reader });
    expect(answer.status).toBe(200);
    const page = answer.json();
    expect(page).toMatchObject({ address: 'inseam://home/files/docs/schedule.pdf', mime: 'application/pdf', size: PDF.byteLength, format: 'text', extractedFrom: 'pdf', done: true, source: 'live' });
    expect(page.text).toMatch(/Harbour crane schedule[\s\S]*Tuesday delivery/u);
    const first = (await call(api, 'GET', `/v1/fs/text?address=${q('files://docs/schedule.pdf')}&line=1&lines=1`, { token: api.reader })).json();
    expect(first.text).toBe('Harbour crane schedule');
    expect(first.lines).toMatchObject({ start: 1, count: 1, next: 2 });
    expect(first.done).toBe(false);
  });

  it('refuses what the tree hides, what is not a document and a damaged document, with typed codes', async () => {
    const hidden = await call(api, 'GET', `/v1/fs/text?address=${q('files://docs/private/salaries.docx')}`, { token: api.reader });
    expect(hidden.status).toBe(403);
    expect(hidden.text).not.toContain('Secret');
    const plain = await call(api, 'GET', `/v1/fs/text?address=${q('files://docs/plan.md')}`, { token: api.reader });
    expect(plain.status).toBe(422);
    expect(plain.json().error).toMatchObject({ code: 'document_unreadable', details: { reason: 'wrong_type' } });
    const broken = await call(api, 'GET', `/v1/fs/text?address=${q('files://docs/broken.pdf')}`, { token: api.reader });
    expect(broken.status).toBe(422);
    expect(broken.json().error).toMatchObject({ code: 'document_unreadable', details: { reason: 'malformed', kind: 'pdf' } });
    expect(broken.json().error.message).toContain('GET /v1/fs/read');
  });
});
