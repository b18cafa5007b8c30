import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { ChangeEvent } from '@inseam/connector';
import { createFsConnector } from './index.js';
import { makeSandbox } from './test-helpers.js';
import type { Sandbox } from './test-helpers.js';

let box: Sandbox;
let events: ChangeEvent[];
let stop: (() => void) | undefined;

beforeEach(async () => {
  box = await makeSandbox();
  events = [];
  await mkdir(`${box.root}/docs/old`, { recursive: true });
  await mkdir(`${box.root}/node_modules/pkg`, { recursive: true });
  await writeFile(`${box.root}/docs/old/inner.txt`, 'inner');
});
afterEach(async () => {
  stop?.();
  stop = undefined;
  await box.cleanup();
});

async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 20) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}`);
}

test('put, delete, move and rescan events, each path looked at through containment', async () => {
  stop = await box.connector.host().watch!((event) => events.push(event));

  await writeFile(`${box.root}/docs/a%b.md`, 'hello');
  await until(() => events.some((event) => event.type === 'put' && event.path === 'docs/a%25b.md'), 'put');
  const put = events.find((event) => event.path === 'docs/a%25b.md')!;
  expect(put.entry).toMatchObject({ path: 'docs/a%25b.md', size: 5, mime: 'text/markdown' });

  await rm(`${box.root}/docs/a%b.md`);
  await until(() => events.some((event) => event.type === 'delete' && event.path === 'docs/a%25b.md'), 'delete');

  await rename(`${box.root}/docs/old`, `${box.root}/docs/new`);
  await until(() => events.some((event) => event.type === 'move'), 'move');
  expect(events.find((event) => event.type === 'move')).toEqual({ type: 'move', path: 'docs/new', from: 'docs/old' });

  // The moved folder is watched under its new name.
  await writeFile(`${box.root}/docs/new/inner.txt`, 'changed');
  await until(() => events.some((event) => event.type === 'put' && event.path === 'docs/new/inner.txt'), 'put in the moved folder');

  await mkdir(`${box.root}/fresh`);
  await until(() => events.some((event) => event.type === 'rescan' && event.path === 'fresh'), 'rescan of a new folder');
  await writeFile(`${box.root}/fresh/x.txt`, 'x');
  await until(() => events.some((event) => event.type === 'put' && event.path === 'fresh/x.txt'), 'put in the new folder');
});

test('symlinks leading out, our temp files and node_modules produce no events', async () => {
  stop = await box.connector.host().watch!((event) => events.push(event));
  await symlink(box.outside, `${box.root}/link-out`);
  await writeFile(`${box.root}/.inseam-0123456789abcdef.tmp`, 'temp');
  await writeFile(`${box.root}/node_modules/pkg/index.js`, 'x');
  await writeFile(`${box.root}/marker.txt`, 'marker');
  await until(() => events.some((event) => event.path === 'marker.txt'), 'the marker');
  await writeFile(`${box.outside}/secret.txt`, 'secret');
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(events.map((event) => event.path)).toEqual(['marker.txt']);
});

test('a full watch set asks for a rescan of everything; stop ends the events', async () => {
  const small = createFsConnector(box.context({ watchMaxDirectories: 1 }));
  stop = await small.host().watch!((event) => events.push(event));
  expect(events).toEqual([{ type: 'rescan', path: '' }]);
  stop();
  stop = undefined;
  await writeFile(`${box.root}/after-stop.txt`, 'x');
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(events).toEqual([{ type: 'rescan', path: '' }]);
});
