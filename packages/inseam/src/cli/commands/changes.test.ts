/**
 * `inseam put|rm|mkdir|mv|cp` in-process on a temp data directory, against a writable folder
 * host and an S3 bucket host (s3rver on loopback): what they change on the hosts, and that the
 * catalog and the search index show it when the command returns — no crawl in between.
 */
import { createHash, randomBytes } from 'node:crypto';
import { stat as statPath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverHandle } from '../../../../../connectors/bucket/src/__fixtures__/s3rver.js';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { cli, type CliRun } from './__fixtures__/cli.js';

let dataDir: string;
let folder: string;
let local: string;
let s3: S3rverHandle;

const run = (...args: string[]): Promise<CliRun> => cli(dataDir, args);

function stdin(content: string | Uint8Array): PassThrough {
  const stream = new PassThrough();
  stream.end(content);
  return stream;
}

/** The addresses `search` finds for a word (keyword mode: what the catalog indexed). */
async function found(word: string): Promise<string[]> {
  const searched = await run('search', word, '--mode', 'keyword', '--network', 'home', '--json');
  expect([0, 1], searched.stderr).toContain(searched.code);
  return (JSON.parse(searched.stdout) as { hits: { address: string }[] }).hits.map((hit) => hit.address).sort();
}

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  dataDir = await tempDir('cli-changes');
  folder = await tempDir('cli-changes-root');
  local = await tempDir('cli-changes-local');
  s3 = await startS3rver(['team']);
  await writeFiles(folder, { 'kept/readme.md': 'kept here\n', 'locked/rules.md': 'no changes\n' });
  const permissions = JSON.stringify({ default: { read: true, write: true, exec: false }, paths: { locked: { write: false } } });
  for (const args of [
    ['network', 'init', 'home'],
    ['host', 'add', 'home/files', '--kind', 'fs', '--config', JSON.stringify({ root: folder }), '--permissions', permissions, '--sync-mode', 'manual'],
    [
      'host', 'add', 'home/team', '--kind', 'bucket', '--writable', '--sync-mode', 'manual',
      '--config', JSON.stringify({ provider: 's3', bucket: 'team', endpoint: s3.endpoint }),
      '--credential', 'accessKeyId=S3RVER', '--credential', 'secretAccessKey=S3RVER', '--allow-private-origin', s3.endpoint,
    ],
    ['crawl', 'home/files'],
  ]) {
    const done = await run(...args);
    expect(done.code, done.stderr).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await s3?.stop();
  await removeDir(dataDir);
  await removeDir(folder);
  await removeDir(local);
});

describe('inseam put', () => {
  it('writes stdin to a folder host, searchable at once, and --if-match replaces only that version', async () => {
    const put = await cli(dataDir, ['put', 'files://drafts/plan.md', '--json'], { stdin: stdin('the zeppelin plan\n') });
    expect(put.code, put.stderr).toBe(0);
    const entry = JSON.parse(put.stdout) as { address: string; etag: string; size: number };
    expect(entry).toMatchObject({ address: 'inseam://home/files/drafts/plan.md', size: 18 });
    expect((await run('cat', 'files://drafts/plan.md')).stdout).toBe('the zeppelin plan\n');
    expect(await found('zeppelin')).toEqual(['inseam://home/files/drafts/plan.md']);

    const stale = await cli(dataDir, ['put', 'files://drafts/plan.md', '--if-match', 'not-the-etag'], { stdin: stdin('lost\n') });
    expect(stale).toMatchObject({ code: 2, stderr: expect.stringContaining('[precondition_failed]') });
    const matched = await cli(dataDir, ['put', 'files://drafts/plan.md', '--if-match', entry.etag], { stdin: stdin('the airship plan\n') });
    expect(matched.code, matched.stderr).toBe(0);
    expect(matched.stdout).toBe('');
    expect((await run('cat', 'files://drafts/plan.md')).stdout).toBe('the airship plan\n');
    expect(await found('zeppelin')).toEqual([]);
    expect(await found('airship')).toEqual(['inseam://home/files/drafts/plan.md']);
  });

  it('streams a local file to a bucket byte for byte', async () => {
    const big = randomBytes(5 * 1024 * 1024 + 17);
    await writeFile(join(local, 'big.bin'), big);
    const put = await run('put', 'team://blobs/big.bin', join(local, 'big.bin'));
    expect(put.code, put.stderr).toBe(0);
    const back = await run('cat', 'team://blobs/big.bin');
    expect(back.bytes.length).toBe(big.length);
    expect(sha(back.bytes)).toBe(sha(big));
    expect(await run('put', 'team://blobs/none.bin', join(local, 'missing.bin'))).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });

  it('refuses where the host does not let the caller write, and over a folder', async () => {
    const denied = await cli(dataDir, ['put', 'files://locked/new.md'], { stdin: stdin('x') });
    expect(denied).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    const onFolder = await cli(dataDir, ['put', 'team://blobs'], { stdin: stdin('x') });
    expect(onFolder).toMatchObject({ code: 2, stderr: expect.stringContaining('[is_a_directory]') });
    const belowFile = await cli(dataDir, ['put', 'team://blobs/big.bin/inner.txt'], { stdin: stdin('x') });
    expect(belowFile).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_a_directory]') });
  });
});

describe('inseam rm', () => {
  it('removes a file, gone from search and stat, and a folder only with -r', async () => {
    for (const [path, word] of [['trash/one.md', 'quokka'], ['trash/deep/two.md', 'wombat'], ['single.md', 'platypus']] as const) {
      const put = await cli(dataDir, ['put', `files://${path}`], { stdin: stdin(`a ${word}\n`) });
      expect(put.code, put.stderr).toBe(0);
    }
    expect(await found('platypus')).toEqual(['inseam://home/files/single.md']);
    expect((await run('rm', 'files://single.md')).code).toBe(0);
    expect(await run('stat', 'files://single.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await found('platypus')).toEqual([]);

    const refused = await run('rm', 'files://trash');
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('[precondition_failed]') });
    expect(refused.stderr).toContain('inseam rm -r');
    expect(await found('wombat')).toEqual(['inseam://home/files/trash/deep/two.md']);
    const removed = await run('rm', '-r', 'files://trash');
    expect(removed.code, removed.stderr).toBe(0);
    await expect(statPath(join(folder, 'trash'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await found('wombat')).toEqual([]);
    expect(await found('quokka')).toEqual([]);
    expect(await run('rm', 'files://locked/rules.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
  });
});

describe('inseam mkdir', () => {
  it('makes a folder (and those on the way) on a folder host, and answers one that is there', async () => {
    const made = await run('mkdir', 'files://new/inner', '--json');
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ address: 'inseam://home/files/new/inner', type: 'directory', created: true, implied: false });
    expect((await statPath(join(folder, 'new', 'inner'))).isDirectory()).toBe(true);
    expect((await run('ls', '--names', 'files://new/inner')).stdout).toBe('');
    expect(JSON.parse((await run('mkdir', 'files://new/inner', '--json')).stdout)).toMatchObject({ created: false, implied: false });
    expect(await run('mkdir', 'files://kept/readme.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('[already_exists]') });
  });

  it('on a bucket, checks the name and makes nothing: the folder shows with its first object', async () => {
    const made = await run('mkdir', 'team://empty');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('keeps no empty folders');
    expect(await run('stat', 'team://empty')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await run('mkdir', 'team://blobs/big.bin/below')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_a_directory]') });
  });
});

describe('inseam mv and cp', () => {
  it('moves a file within a host: the old path is gone from search and stat, the new one found', async () => {
    expect((await cli(dataDir, ['put', 'files://inbox/memo.md'], { stdin: stdin('the narwhal memo\n') })).code).toBe(0);
    const moved = await run('mv', 'files://inbox/memo.md', 'files://archive/memo.md', '--json');
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toEqual({ from: 'inseam://home/files/inbox/memo.md', to: 'inseam://home/files/archive/memo.md', type: 'file', files: 1, bytes: 17 });
    expect(await run('stat', 'files://inbox/memo.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await found('narwhal')).toEqual(['inseam://home/files/archive/memo.md']);
    // Into a folder that is there, under the source's name.
    expect((await run('mv', 'files://archive/memo.md', 'files://kept')).code).toBe(0);
    expect((await run('cat', 'files://kept/memo.md')).stdout).toBe('the narwhal memo\n');
    expect(await found('narwhal')).toEqual(['inseam://home/files/kept/memo.md']);
  });

  it('copies a folder to a bucket with -r and moves it back across hosts, streaming', async () => {
    const files = { 'project/a.md': 'alpha axolotl\n', 'project/sub/b.md': 'beta axolotl\n', 'project/sub/deeper/c.bin': randomBytes(300_000) };
    for (const [path, content] of Object.entries(files)) expect((await cli(dataDir, ['put', `files://${path}`], { stdin: stdin(content) })).code).toBe(0);

    expect(await run('cp', 'files://project', 'team://copied')).toMatchObject({ code: 2, stderr: expect.stringContaining('inseam cp -r') });
    const copied = await run('cp', '-r', 'files://project', 'team://copied', '--json');
    expect(copied.code, copied.stderr).toBe(0);
    expect(JSON.parse(copied.stdout)).toMatchObject({ from: 'inseam://home/files/project', to: 'inseam://home/team/copied', type: 'directory', files: 3, bytes: 300_027 });
    expect(sha((await run('cat', 'team://copied/sub/deeper/c.bin')).bytes)).toBe(sha(files['project/sub/deeper/c.bin']));
    expect(await found('axolotl')).toEqual([
      'inseam://home/files/project/a.md',
      'inseam://home/files/project/sub/b.md',
      'inseam://home/team/copied/a.md',
      'inseam://home/team/copied/sub/b.md',
    ]);

    expect((await run('rm', '-r', 'files://project')).code).toBe(0);
    const back = await run('mv', 'team://copied', 'files://restored');
    expect(back.code, back.stderr).toBe(0);
    expect(await run('stat', 'team://copied/a.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect((await run('ls', '--names', 'team://')).stdout).not.toContain('copied');
    expect((await run('cat', 'files://restored/sub/b.md')).stdout).toBe('beta axolotl\n');
    expect(sha((await run('cat', 'files://restored/sub/deeper/c.bin')).bytes)).toBe(sha(files['project/sub/deeper/c.bin']));
    expect(await found('axolotl')).toEqual(['inseam://home/files/restored/a.md', 'inseam://home/files/restored/sub/b.md']);
  });

  it('refuses a move into itself, over a file with --no-clobber, and out of a folder it may not change', async () => {
    expect(await run('mv', 'files://restored', 'files://restored/sub/inner')).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_argument]') });
    expect(await run('cp', '-n', 'files://restored/a.md', 'files://restored/sub/b.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('[already_exists]') });
    expect((await run('cat', 'files://restored/sub/b.md')).stdout).toBe('beta axolotl\n');
    expect(await run('mv', 'files://locked/rules.md', 'files://rules.md')).toMatchObject({ code: 2, stderr: expect.stringContaining('[permission_denied]') });
    expect((await run('cat', 'files://locked/rules.md')).stdout).toBe('no changes\n');
  });
});
