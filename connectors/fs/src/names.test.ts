import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isConnectorError } from '@neuralis/package-system/contracts';
import type { ConnectorEntry, ListOptions } from '@neuralis/package-system/contracts';
import { makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
let socketServer: Server;

beforeAll(async () => {
  box = await makeSandbox();
  const mixed = `${box.root}/mixed`;
  await mkdir(`${mixed}/sub`, { recursive: true });
  await writeFile(`${mixed}/plain.txt`, 'plain');
  await writeFile(`${mixed}/photo.png`, 'png');
  await writeFile(`${mixed}/sub/inner.txt`, 'inner');
  await writeFile(`${mixed}/.inseam-0123456789abcdef.tmp`, 'half-written');
  await writeFile(`${mixed}/with space & %.md`, 'odd name');
  await writeFile(`${box.outside}/secret.txt`, 'secret');
  await symlink('plain.txt', `${mixed}/link-to-file`);
  await symlink('sub', `${mixed}/link-to-dir`);
  await symlink(`${box.outside}/secret.txt`, `${mixed}/link-out`);
  await symlink(box.outside, `${mixed}/link-out-dir`);
  await symlink('missing.txt', `${mixed}/dangling`);
  await symlink('/dev/null', `${mixed}/link-to-device`);
  execFileSync('mkfifo', [`${mixed}/fifo`]);
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(`${mixed}/socket`, resolve));
  // A name that is not valid UTF-8: Node cannot name it back to the kernel, so neither listing shows it.
  writeFileSync(Buffer.concat([Buffer.from(`${mixed}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'bytes');

  await mkdir(`${box.root}/many`);
  await Promise.all(Array.from({ length: 2500 }, (_, index) => writeFile(`${box.root}/many/f-${String(index * 7919 % 2500).padStart(4, '0')}.txt`, 'x')));
});

afterAll(async () => {
  await new Promise<void>((resolve) => socketServer.close(() => resolve()));
  await box.cleanup();
});

async function listAll(uri: string, options: ListOptions): Promise<{ entries: ConnectorEntry[]; pages: number }> {
  const entries: ConnectorEntry[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await box.connector.list(uri, { ...options, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...page.entries);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined);
  return { entries, pages };
}

const shape = (entry: ConnectorEntry): string => `${entry.uri} ${entry.name} ${entry.type}`;

async function codeOf(action: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await action();
    return undefined;
  } catch (error) {
    return isConnectorError(error) ? error.code : String(error);
  }
}

describe("fs list with detail: 'names'", () => {
  test('spec: lists exactly the entries the full listing lists, with the same uri, name and type', async () => {
    const full = await listAll('box://mixed', {});
    const names = await listAll('box://mixed', { detail: 'names' });
    expect(names.entries.map(shape)).toEqual(full.entries.map(shape));
    expect(names.entries.map((entry) => entry.name)).toEqual(['link-to-dir', 'link-to-file', 'photo.png', 'plain.txt', 'sub', 'with space & %.md']);
    // Symlinks inside are typed as their targets; every way out, dangling links and special files are left out.
    expect(names.entries.find((entry) => entry.name === 'link-to-dir')?.type).toBe('directory');
    expect(names.entries.find((entry) => entry.name === 'with space & %.md')?.uri).toBe('box://mixed/with%20space%20%26%20%25.md');
  });

  test('spec: entries carry name, type and uri only (nothing was stat-ed)', async () => {
    const { entries } = await listAll('box://mixed', { detail: 'names' });
    for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(['name', 'type', 'uri']);
  });

  test('spec: pages with cursors cover a large folder once, in name order, and match the full listing', async () => {
    const full = await listAll('box://many', { limit: 700 });
    const names = await listAll('box://many', { detail: 'names', limit: 700 });
    expect(names.pages).toBe(4);
    expect(names.entries.map(shape)).toEqual(full.entries.map(shape));
    expect(names.entries).toHaveLength(2500);
  });

  test('spec: a cursor names a position, not a session: used twice, it answers the same page', async () => {
    const first = await box.connector.list('box://many', { detail: 'names', limit: 10 });
    const again = await box.connector.list('box://many', { detail: 'names', limit: 10, cursor: first.cursor! });
    const replay = await box.connector.list('box://many', { detail: 'names', limit: 10, cursor: first.cursor! });
    expect(replay.entries.map(shape)).toEqual(again.entries.map(shape));
    expect(again.entries[0]!.name > first.entries[9]!.name).toBe(true);
  });

  test('spec: a cursor only continues a listing of the same folder and detail', async () => {
    const names = await box.connector.list('box://many', { detail: 'names', limit: 5 });
    const full = await box.connector.list('box://many', { limit: 5 });
    expect(await codeOf(() => box.connector.list('box://many', { cursor: names.cursor! }))).toBe('invalid_argument');
    expect(await codeOf(() => box.connector.list('box://many', { detail: 'names', cursor: full.cursor! }))).toBe('invalid_argument');
    expect(await codeOf(() => box.connector.list('box://mixed', { detail: 'names', cursor: names.cursor! }))).toBe('invalid_argument');
    expect(await codeOf(() => box.connector.list('box://many', { detail: 'names', cursor: 'not-a-cursor' }))).toBe('invalid_argument');
  });

  test('spec: the folder itself is opened contained: links out, files and missing folders are refused as in the full listing', async () => {
    for (const uri of ['box://mixed/link-out-dir', 'box://mixed/plain.txt', 'box://nothing', 'box://mixed/link-out-dir/secret.txt']) {
      expect(await codeOf(() => box.connector.list(uri, { detail: 'names' })), uri).toBe(await codeOf(() => box.connector.list(uri)));
    }
    expect(await codeOf(() => box.connector.list('box://mixed/link-out-dir', { detail: 'names' }))).toBe('containment_violation');
  });

  test("spec: a detail other than 'full' or 'names' is invalid_argument", async () => {
    expect(await codeOf(() => box.connector.list('box://mixed', { detail: 'sizes' as never }))).toBe('invalid_argument');
  });
});
