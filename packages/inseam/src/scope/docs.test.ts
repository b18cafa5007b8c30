import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Description, Entry } from '@inseam/connector';
import { bucket, folder, mailbox } from './__fixtures__/descriptions.js';
import { compileHostScope } from './merge.js';
import { validateScope } from './validate.js';

const page = readFileSync(new URL('../../../../docs/scope.md', import.meta.url), 'utf8');
const examples = [...page.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);

describe('docs/scope.md', () => {
  it('has the five examples, each valid for the host it describes', () => {
    expect(examples).toHaveLength(5);
    const [folderDefault, folderHost, mail, bucketScope, enumFilter] = examples as [{ defaultScope: unknown }, unknown, unknown, unknown, unknown];
    const withDefault: Description = { ...folder, defaultScope: folderDefault.defaultScope as Description['defaultScope'] };
    const crawl = compileHostScope(withDefault, folderHost);
    const decide = (path: string): string => crawl.decide({ path } satisfies Entry);
    expect([decide('tools/node_modules/a.js'), decide('web/node_modules/a.js'), decide('a/.DS_Store'), decide('README.md')]).toEqual(['include', 'skip', 'skip', 'include']);
    expect(validateScope(mail, mailbox)).toEqual(mail);
    expect(validateScope(bucketScope, bucket)).toEqual(bucketScope);
    expect(validateScope(enumFilter, mailbox)).toEqual(enumFilter);
  });

  it('documents every type in its operator table', () => {
    for (const type of ['string', 'path', 'enum', 'boolean', 'bytes', 'integer', 'datetime']) expect(page).toContain(`| \`${type}\` |`);
  });
});
