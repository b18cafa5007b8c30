/**
 * Every section a trial failure can link, and every `authoring.md#…` link in the code, the examples
 * and the docs, is a heading of docs/connectors/authoring.md.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CheckFailure } from '@neuralis/package-system/testing';
import { AUTHORING_DOC, CHECK_SECTIONS, DOC_SECTIONS, SectionFailure, failAt, inSection, sectionOfIssue, withSection } from './docs.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const doc = readFileSync(join(ROOT, AUTHORING_DOC), 'utf8');

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as "-". */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headings(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const match = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (match !== null) found.add(slug(match[1]!));
  }
  return found;
}

const anchors = headings(doc);

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : files(path, keep);
    return keep(name) ? [path] : [];
  });
}

describe('links to the author\'s reference', () => {
  it('every section a failure can name is a heading', () => {
    const missing = Object.values(DOC_SECTIONS).filter((section) => !anchors.has(section));
    expect(missing).toEqual([]);
    expect(Object.keys(CHECK_SECTIONS).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('every link to one of its sections from the code, the examples and the docs exists, and so does every link inside it', () => {
    const sources = [
      ...files(join(ROOT, 'packages/connector/src'), (name) => name.endsWith('.ts')),
      ...files(join(ROOT, 'packages/inseam/src'), (name) => name.endsWith('.ts')),
      ...files(join(ROOT, 'examples/connectors'), (name) => /\.(js|md|json)$/.test(name)),
      ...files(join(ROOT, 'docs'), (name) => name.endsWith('.md')),
    ];
    const links: string[] = [];
    for (const file of sources) {
      for (const match of readFileSync(file, 'utf8').matchAll(/authoring\.md#([a-z0-9-]+)/g)) links.push(`${file.slice(ROOT.length)}: #${match[1]}`);
    }
    for (const match of doc.matchAll(/\]\(#([a-z0-9-]+)\)/g)) links.push(`${AUTHORING_DOC}: #${match[1]}`);
    expect(links.length).toBeGreaterThan(20);
    expect(links.filter((link) => !anchors.has(link.slice(link.lastIndexOf('#') + 1)))).toEqual([]);
  });

  it('a failure ends with the section it names, or its check\'s own', async () => {
    const named = (() => {
      try {
        failAt(DOC_SECTIONS.listingSince, 'inclusive', 'exclusive', 'use >=');
      } catch (error) {
        return error as SectionFailure;
      }
      throw new Error('unreachable');
    })();
    expect(named.message).toBe('expected: inclusive\nactual: exclusive\nfix: use >=\nsee: docs/connectors/authoring.md#listing-since');
    expect(withSection(named.message, 2)).toBe(named.message);
    expect(withSection('expected: a\nactual: b', 5)).toBe('expected: a\nactual: b\nsee: docs/connectors/authoring.md#reading-bytes');
    await expect(inSection(DOC_SECTIONS.writingDelete, async () => Promise.reject(new CheckFailure({ expected: 'x', actual: 'y' })))).rejects.toMatchObject({ section: 'writing-delete' });
    await expect(inSection(DOC_SECTIONS.writingDelete, async () => Promise.reject(named))).rejects.toBe(named);
  });

  it('a describe() problem links the section of its path', () => {
    expect(sectionOfIssue({ path: 'auth.present[0].value' })).toBe('auth-present-templates');
    expect(sectionOfIssue({ path: 'auth.origins[1]' })).toBe('origins');
    expect(sectionOfIssue({ path: 'dimensions' })).toBe('dimensions-ordering');
    expect(sectionOfIssue({ path: 'dimensions.flag.ordering' })).toBe('dimensions-ordering');
    expect(sectionOfIssue({ path: 'dimensions.owner.from' })).toBe('dimensions-from');
    expect(sectionOfIssue({ path: 'dimensions.owner.type' })).toBe('dimensions-value-formats');
    expect(sectionOfIssue({ path: 'writes.roundTrip' })).toBe('writing-normalising-hosts');
    expect(sectionOfIssue({ path: 'writes.delete' })).toBe('writing-create-and-replace');
    expect(sectionOfIssue({ path: 'kind' })).toBe('describe');
  });
});
