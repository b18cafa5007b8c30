/**
 * `inseam ls -R`, `inseam tree` and `inseam du`/`size`, in-process against real folder hosts: one
 * small tree whose permission tree hides a folder, and one with a folder of more entries than a
 * listing page holds (so walks cross page boundaries), with a reader that goes away mid-walk.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NAMES_LIST_LIMIT } from '../../fs/index.js';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { runCli } from '../program.js';
import { cli, type CliRun } from './__fixtures__/cli.js';

let dataDir: string;
let small: string;
let big: string;
/** One more than a names page holds: the last entry of `many/` comes on a page of its own. */
const MANY = DEFAULT_NAMES_LIST_LIMIT + 1;
const name = (index: number): string => `f${String(index).padStart(5, '0')}.txt`;

beforeAll(async () => {
  dataDir = await tempDir('cli-listing');
  small = await tempDir('cli-listing-small');
  big = await tempDir('cli-listing-big');
  await writeFiles(small, {
    'a.txt': 'alpha',
    'docs/b.md': '# B\n',
    'docs/meeting notes.txt': 'mm',
    'docs/deep/c.txt': 'ccc',
    'docs/deep/deeper/d.txt': 'dddd',
    'private/secret.txt': 'nobody may read this',
    'z.txt': '',
  });
  await mkdir(join(big, 'many'));
  for (let start = 0; start < MANY; start += 500) {
    await Promise.all(Array.from({ length: Math.min(500, MANY - start) }, (_, offset) => writeFile(join(big, 'many', name(start + offset)), 'x')));
  }
  const permissions = JSON.stringify({ default: { read: true, write: false, exec: false }, paths: { private: { read: false } } });
  for (const args of [
    ['network', 'init', 'home'],
    ['host', 'add', 'home/files', '--kind', 'fs', '--config', JSON.stringify({ root: small }), '--permissions', permissions, '--sync-mode', 'manual'],
    ['host', 'add', 'home/big', '--kind', 'fs', '--config', JSON.stringify({ root: big }), '--sync-mode', 'manual'],
  ]) {
    const done = await cli(dataDir, args);
    expect(done.code, done.stderr).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(small);
  await removeDir(big);
});

const run = (...args: string[]): Promise<CliRun> => cli(dataDir, args);
const WALKED = ['a.txt', 'docs/', 'docs/b.md', 'docs/deep/', 'docs/deep/c.txt', 'docs/deep/deeper/', 'docs/deep/deeper/d.txt', 'docs/meeting notes.txt', 'z.txt'];

describe('inseam ls -R', () => {
  it('lists every entry below a folder depth first, paths relative to it, leaving out what may not be read', async () => {
    const names = await run('ls', '-R', '--names', 'files://');
    expect(names.code, names.stderr).toBe(0);
    expect(names.stdout).toBe(WALKED.map((path) => `${path}\n`).join(''));
    const long = await run('ls', '--recursive', 'inseam://home/files/docs');
    expect(long.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^- +4 B +2024-05-\d\dT\S+ +b\.md$/),
      expect.stringMatching(/^d +- +\S+ +deep\/$/),
      expect.stringMatching(/^- +3 B +\S+ +deep\/c\.txt$/),
      expect.stringMatching(/^d +- +\S+ +deep\/deeper\/$/),
      expect.stringMatching(/^- +4 B +\S+ +deep\/deeper\/d\.txt$/),
      expect.stringMatching(/^- +2 B +\S+ +meeting notes\.txt$/),
    ]);
  });

  it('--json prints what rclone lsjson -R prints, with the etag and the global address', async () => {
    const listed = await run('ls', '-R', '--json', 'files://');
    expect(listed.code, listed.stderr).toBe(0);
    const entries = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(entries.map((entry) => entry['Path'])).toEqual(WALKED.map((path) => path.replace(/\/$/, '')));
    expect(entries[0]).toEqual({ Path: 'a.txt', Name: 'a.txt', Size: 5, MimeType: 'text/plain', ModTime: expect.stringMatching(/^2024-05-01T00:00:00/), IsDir: false, ETag: expect.any(String), Address: 'inseam://home/files/a.txt' });
    expect(entries[1]).toMatchObject({ Path: 'docs', Name: 'docs', Size: -1, MimeType: 'inode/directory', IsDir: true, Address: 'inseam://home/files/docs' });
    expect(entries[7]).toMatchObject({ Path: 'docs/meeting notes.txt', Name: 'meeting notes.txt', Size: 2, Address: 'inseam://home/files/docs/meeting%20notes.txt' });
    expect(listed.stdout).not.toContain('secret');
    expect(JSON.parse((await run('ls', '-R', '--json', 'files://docs/deep/deeper')).stdout)).toEqual([expect.objectContaining({ Path: 'd.txt', Size: 4 })]);
  });

  it('refuses what may not be read and what is not there, as ls does', async () => {
    expect(await run('ls', '-R', 'files://private')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('[permission_denied]') });
    expect(await run('ls', '-R', '--json', 'files://nothing')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });

  it('walks a folder of more entries than a page holds, and writes as it goes: a reader that leaves stops it quietly', async () => {
    const all = await run('ls', '-R', '--names', 'big://');
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(MANY + 1);
    expect(lines.slice(0, 3)).toEqual(['many/', `many/${name(0)}`, `many/${name(1)}`]);
    expect(lines.at(-1)).toBe(`many/${name(MANY - 1)}`);

    // `inseam ls -R … | head -1`: the first write is taken, every later one fails as a closed pipe does.
    let writes = 0;
    const head = new Writable({
      write(_chunk, _encoding, done) {
        writes += 1;
        done(writes === 1 ? null : Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    }).on('error', () => undefined);
    const stderr = new PassThrough();
    let said = '';
    stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const code = await runCli(['--data', dataDir, 'ls', '-R', '--names', 'big://'], { stdout: head, stderr, stdin: new PassThrough(), env: {} });
    process.exitCode = undefined;
    expect({ code, said }).toEqual({ code: 0, said: '' });
    expect(writes).toBeLessThan(10);
  }, 60_000);
});

describe('inseam tree', () => {
  it('draws the tree below a folder, with a count of folders and files', async () => {
    const drawn = await run('tree', 'files://');
    expect(drawn.code, drawn.stderr).toBe(0);
    expect(drawn.stdout).toBe(
      [
        'inseam://home/files/',
        '├── a.txt',
        '├── docs/',
        '│   ├── b.md',
        '│   ├── deep/',
        '│   │   ├── c.txt',
        '│   │   └── deeper/',
        '│   │       └── d.txt',
        '│   └── meeting notes.txt',
        '└── z.txt',
        '',
        '3 folders, 6 files',
        '',
      ].join('\n'),
    );
  });

  it('--depth N stops N levels down; a bad depth is refused', async () => {
    const shallow = await run('tree', 'inseam://home/files/', '--depth', '2');
    expect(shallow.stdout).toBe(['inseam://home/files/', '├── a.txt', '├── docs/', '│   ├── b.md', '│   ├── deep/', '│   └── meeting notes.txt', '└── z.txt', '', '2 folders, 4 files', ''].join('\n'));
    expect((await run('tree', 'files://', '--depth', '1')).stdout).toBe(['inseam://home/files/', '├── a.txt', '├── docs/', '└── z.txt', '', '1 folder, 2 files', ''].join('\n'));
    for (const depth of ['0', 'two', '-1']) {
      expect(await run('tree', 'files://', '--depth', depth)).toMatchObject({ code: 2, stderr: expect.stringMatching(/--depth must be a whole number.*\[invalid_argument\]/) });
    }
    expect(await run('tree', 'files://private')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('[permission_denied]') });
    expect(await run('tree', 'files://a.txt')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('[not_a_directory]') });
  });

  it('knows the last entry of a folder whose listing spans pages, and counts with the progress line\'s separators', async () => {
    const drawn = await run('tree', 'big://');
    expect(drawn.code, drawn.stderr).toBe(0);
    const lines = drawn.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual(['inseam://home/big/', '└── many/', `    ├── ${name(0)}`]);
    expect(lines.filter((line) => line.includes('└──'))).toEqual(['└── many/', `    └── ${name(MANY - 1)}`]);
    expect(lines.at(-2)).toBe(`1 folder, ${MANY.toLocaleString('en-US')} files`);
  }, 60_000);
});

describe('inseam du and size', () => {
  it('totals the bytes and counts the files and folders below an address', async () => {
    const used = await run('du', 'files://');
    expect(used).toMatchObject({ code: 0, stdout: '18 B (18 bytes) in 6 files and 3 folders: inseam://home/files/\n' });
    expect(JSON.parse((await run('size', 'inseam://home/files/docs', '--json')).stdout)).toEqual({ address: 'inseam://home/files/docs', bytes: 13, files: 4, folders: 2, unsized: 0 });
    expect((await run('du', 'files://', '--depth', '1')).stdout).toBe('5 B (5 bytes) in 2 files and 1 folder: inseam://home/files/\n');
    expect((await run('du', 'files://a.txt')).stdout).toBe('5 B (5 bytes) in 1 file and 0 folders: inseam://home/files/a.txt\n');
  });

  it('groups large counts as the progress line does', async () => {
    const used = await run('du', 'big://');
    expect(used.stdout).toBe(`4.9 KiB (${MANY.toLocaleString('en-US')} bytes) in ${MANY.toLocaleString('en-US')} files and 1 folder: inseam://home/big/\n`);
  }, 60_000);

  it('refuses what may not be read and what is not there', async () => {
    expect(await run('du', 'files://private')).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    expect(await run('du', 'files://private/secret.txt')).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    expect(await run('size', 'files://gone.txt')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });
});
