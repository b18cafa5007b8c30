/**
 * What a new user trips on first, in-process against real folder hosts: `host ls` and
 * `search --host` in the only network, a mistyped `--kind`, a config refused by its schema's
 * pattern, JSON that does not parse, summaries numbered as the progress line is, and `host show`
 * saying the permissions, sync and last sync in force.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { cli, type CliRun } from './__fixtures__/cli.js';
import { nearestKind } from './kind-suggestion.js';

let dataDir: string;
let files: string;
let many: string;

beforeAll(async () => {
  dataDir = await tempDir('cli-usability');
  files = await tempDir('cli-usability-files');
  many = await tempDir('cli-usability-many');
  await writeFiles(files, { 'notes/plan.md': 'The plan, with a needle.\n' });
  await mkdir(join(many, 'items'));
  await Promise.all(Array.from({ length: 1_200 }, (_, index) => writeFile(join(many, 'items', `item-${index}.txt`), `item ${index}\n`)));
  for (const args of [
    ['network', 'init', 'home'],
    ['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--sync-mode', 'manual'],
  ]) {
    const done = await cli(dataDir, args);
    expect(done.code, done.stderr).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(files);
  await removeDir(many);
});

const run = (...args: string[]): Promise<CliRun> => cli(dataDir, args);

describe('the only network', () => {
  it('host ls and search --host use it; with two they ask, and --network or INSEAM_NETWORK answers', async () => {
    const listed = await run('host', 'ls');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^notes +fs +notes +- +inseam:\/\/home\/notes\/$/m);
    expect((await run('crawl', 'home/notes')).code).toBe(0);
    const found = await run('search', 'needle', '--host', 'notes');
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toContain('inseam://home/notes/notes/plan.md');

    expect((await run('network', 'init', 'work')).code).toBe(0);
    expect(await run('host', 'ls')).toMatchObject({ code: 2, stderr: expect.stringMatching(/Which network\?.*\[invalid_argument\]/) });
    expect(await run('search', 'needle', '--host', 'notes')).toMatchObject({ code: 2, stderr: expect.stringMatching(/Which network\?.*\[invalid_argument\]/) });
    expect((await run('host', 'ls', 'home')).stdout).toContain('inseam://home/notes/');
    expect((await cli(dataDir, ['host', 'ls'], { env: { INSEAM_NETWORK: 'home' } })).stdout).toContain('inseam://home/notes/');
    expect((await run('search', 'needle', '--host', 'notes', '--network', 'home')).stdout).toContain('inseam://home/notes/notes/plan.md');
    // Without --host every network is still searched.
    expect((await run('search', 'needle')).code).toBe(0);
  });
});

describe('refusals a person can act on', () => {
  it('an unknown --kind names the nearest real kind', async () => {
    const folder = await run('host', 'add', 'home/docs', '--kind', 'folder', '--config', JSON.stringify({ root: files }));
    expect(folder).toMatchObject({ code: 2, stderr: expect.stringContaining('No connector kind "folder" is registered. Did you mean fs? `inseam host kinds` lists the kinds there are. [kind_not_registered]') });
    expect((await run('host', 'add', 'home/docs', '--kind', 'bukcet', '--config', '{}')).stderr).toContain('Did you mean bucket?');
    const nothing = await run('host', 'add', 'home/docs', '--kind', 'spreadsheet', '--config', '{}');
    expect(nothing).toMatchObject({ code: 2, stderr: expect.stringContaining('[kind_not_registered]') });
    expect(nothing.stderr).not.toContain('Did you mean');
    expect((await run('host', 'ls', 'home')).stdout).not.toContain('docs');
  });

  it('nearestKind prefers a kind\'s name or whole label, forgives small typos, and keeps short names exact', () => {
    const kinds = [
      { kind: 'bucket', label: 'Bucket', category: 'disk' },
      { kind: 'fs', label: 'Folder', category: 'disk' },
      { kind: 'imap', label: 'Mailbox (IMAP)', category: 'mail' },
      { kind: 'local', label: 'Project folder', category: 'disk' },
    ];
    expect(['folder', 'Folder ', 'foldr', 'bukcet', 'mailbox', 'mail', 'imap', 'local', 'project'].map((given) => nearestKind(given, kinds))).toEqual(['fs', 'fs', 'fs', 'bucket', 'imap', 'imap', 'imap', 'local', 'local']);
    expect(['s3', 'sf', 'x', '', 'spreadsheet'].map((given) => nearestKind(given, kinds))).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('a config refused by a pattern says what the field must be, not the pattern', async () => {
    const relative = await run('host', 'add', 'home/docs', '--kind', 'fs', '--config', JSON.stringify({ root: 'relative/path' }));
    expect(relative).toMatchObject({ code: 2, stderr: expect.stringContaining('field "root" must be an absolute path (expected a string at least 1 character long, starting with /)') });
    expect(relative.stderr).not.toMatch(/pattern|\^\/|\/\^/);
  });

  it('JSON that does not parse is refused with its line and column, never echoed', async () => {
    const inline = await run('host', 'add', 'home/docs', '--kind', 'fs', '--config', '{bad');
    expect(inline).toMatchObject({ code: 2, stderr: 'inseam: --config is not JSON: expected a property name in double quotes at line 1, column 2; give a JSON value inline or as @file. [invalid_config]\n' });
    const file = join(dataDir, 'config.json');
    await writeFile(file, `{\n  "root": ${JSON.stringify(files)}\n  "secretish": "hunter2"\n}\n`);
    const fromFile = await run('host', 'add', 'home/docs', '--kind', 'fs', '--config', `@${file}`);
    expect(fromFile).toMatchObject({ code: 2, stderr: expect.stringContaining("--config is not JSON: expected ',' or '}' after the property's value at line 3, column 3") });
    expect(fromFile.stderr).not.toContain('hunter2');
    expect(await run('host', 'set', 'home/notes', '--permissions', '{"default": {"read": tru}}')).toMatchObject({ code: 2, stderr: expect.stringContaining('--permissions is not JSON: expected a value') });
  });
});

describe('summaries and host show', () => {
  it('a crawl summary groups its counts as the progress line does', async () => {
    expect((await run('host', 'add', 'home/many', '--kind', 'fs', '--config', JSON.stringify({ root: many }), '--sync-mode', 'manual')).code).toBe(0);
    const crawled = await run('crawl', 'home/many');
    expect(crawled.code, crawled.stderr).toBe(0);
    expect(crawled.stdout).toMatch(/^Crawled home\/many \(full\): 1,20\d entries \([\d.]+ KiB\), 1,200 indexed, 0 skipped, 0 errors in /);
  }, 60_000);

  it('host show says the permissions and sync in force and how the last sync went', async () => {
    const shown = await run('host', 'show', 'home/notes');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('permissions:  read, no write, no exec (its own)\n');
    expect(shown.stdout).toContain('sync:         manual: only when asked (`inseam crawl`)\n');
    expect(shown.stdout).toMatch(/\nlast sync: +\d{4}-\d\d-\d\dT\S+Z, full, completed: \+\d+ ~0 -0 \(\d+ entries\)\n/);

    const tree = JSON.stringify({ default: { read: true, write: true, exec: false }, paths: { drafts: { write: false } } });
    expect((await run('host', 'add', 'home/drafts', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--permissions', tree)).code).toBe(0);
    const drafts = await run('host', 'show', 'home/drafts');
    expect(drafts.stdout).toContain('permissions:  read, write, no exec (its own); drafts/: no write\n');
    expect(drafts.stdout).toContain('sync:         auto: every PT15M, and at each change (it watches)\n');
    expect(drafts.stdout).toContain('last sync:    never\n');
    const json = JSON.parse((await run('host', 'show', 'home/drafts', '--json')).stdout) as { effective: unknown };
    expect(json.effective).toEqual({
      permissions: { tree: JSON.parse(tree), from: 'host' },
      sync: { mode: 'auto', interval: 'PT15M', watches: true, exclude: [], alwaysActive: false },
      lastSync: null,
    });
  });
});
