/**
 * copy, move and mkdir through the filesystem service on a real `fs` host: the rights each side
 * needs (a person's tree; an agent's grants on top), a denied child never taken along, a drop box
 * target, and a stream written as it comes.
 */
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionTree } from '@neuralis/package-system/contracts';
import { callerOf, openFsFixture, type FsFixture } from './__fixtures__/fs-service.js';

const TREE: PermissionTree = {
  default: { read: true, write: true, exec: false },
  paths: { 'box/private': { read: false }, frozen: { write: false }, drop: { read: false, write: true } },
};

let fixture: FsFixture;
const ann = callerOf('ann');

beforeAll(async () => {
  fixture = await openFsFixture({
    files: { 'box/a.md': 'alpha', 'box/private/p.md': 'private', 'frozen/f.md': 'frozen', 'plain/x.md': 'ex', 'solo.md': 'solo' },
  });
  await fixture.platform.networks.addHost({ network: 'home', slug: 'notes', kind: 'fs', config: { root: fixture.files }, permissions: TREE });
});

afterAll(async () => {
  await fixture.close();
});

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

describe('copy and move rights', () => {
  it('never takes a child the caller may not read along with its folder', async () => {
    await expect(fixture.fs.copy(ann, 'notes://box', 'notes://copy', { recursive: true })).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'read' } });
    await expect(fixture.fs.move(ann, 'notes://box', 'notes://moved')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(stat(join(fixture.files, 'copy'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(fixture.files, 'box/a.md'), 'utf8')).toBe('alpha');
  });

  it('moves only what the caller may delete, and writes only where it may write', async () => {
    await expect(fixture.fs.move(ann, 'notes://frozen/f.md', 'notes://f.md')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'delete' } });
    await expect(fixture.fs.copy(ann, 'notes://plain/x.md', 'notes://frozen/x.md')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'write' } });
    expect(await readFile(join(fixture.files, 'frozen/f.md'), 'utf8')).toBe('frozen');
  });

  it('an agent needs a delete grant at the source of a move and a write grant at its target', async () => {
    const writer = callerOf('ann', { agentId: 'helper', grants: [{ right: 'write', address: 'inseam://home/notes/out' }] });
    await expect(fixture.fs.move(writer, 'notes://solo.md', 'notes://out/solo.md')).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'no_grant', right: 'delete' } });
    expect((await fixture.fs.copy(writer, 'notes://solo.md', 'notes://out/solo.md')).files).toBe(1);
    const mover = callerOf('ann', { agentId: 'helper', grants: [{ right: 'delete', address: 'inseam://home/notes/solo.md' }] });
    await expect(fixture.fs.move(mover, 'notes://solo.md', 'notes://elsewhere.md')).rejects.toMatchObject({ code: 'permission_denied', details: { reason: 'no_grant', right: 'write' } });
    expect(await readFile(join(fixture.files, 'solo.md'), 'utf8')).toBe('solo');
  });

  it('copies into a drop box without looking into it: a taken name gets a new one beside it', async () => {
    await mkdir(join(fixture.files, 'drop'));
    await writeFile(join(fixture.files, 'drop/x.md'), 'already there');
    const done = await fixture.fs.copy(ann, 'notes://plain/x.md', 'notes://drop/x.md');
    expect(done).toMatchObject({ to: 'inseam://home/notes/drop/x.md', files: 1, bytes: 2 });
    expect(await readFile(join(fixture.files, 'drop/x.md'), 'utf8')).toBe('already there');
    const beside = (await readdir(join(fixture.files, 'drop'))).filter((name) => name !== 'x.md');
    expect(beside).toEqual([expect.stringMatching(/^x~[0-9a-f]{8}\.md$/)]);
    expect(await readFile(join(fixture.files, 'drop', beside[0]!), 'utf8')).toBe('ex');
  });
});

describe('writes, moves and mkdir', () => {
  it('writes a stream as it comes, and refuses one over a folder', async () => {
    const entry = await fixture.fs.write(ann, 'notes://streamed/s.txt', streamOf('one ', 'two ', 'three'));
    expect(entry).toMatchObject({ address: 'inseam://home/notes/streamed/s.txt', type: 'file', size: 13 });
    expect(await readFile(join(fixture.files, 'streamed/s.txt'), 'utf8')).toBe('one two three');
    await expect(fixture.fs.write(ann, 'notes://streamed', streamOf('x'))).rejects.toMatchObject({ code: 'is_a_directory' });
  });

  it('refuses a non-empty folder without recursive with reason not_empty', async () => {
    await expect(fixture.fs.delete(ann, 'notes://plain')).rejects.toMatchObject({ code: 'precondition_failed', details: { reason: 'not_empty' } });
  });

  it('mkdir needs write, makes the folders on the way and leaves no placeholder', async () => {
    await expect(fixture.fs.mkdir(ann, 'notes://frozen/sub')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'write' } });
    await expect(fixture.fs.mkdir(ann, 'notes://drop/sub')).rejects.toMatchObject({ code: 'permission_denied', details: { right: 'read' } });
    expect(await fixture.fs.mkdir(ann, 'notes://made/a/b')).toMatchObject({ address: 'inseam://home/notes/made/a/b', type: 'directory', created: true, implied: false });
    expect((await fixture.fs.list(ann, 'notes://made/a/b')).entries).toEqual([]);
  });
});
