import { execFileSync } from 'node:child_process';
/**
 * Test scaffolding for the containment primitives: a throw-away tree with a source root, a
 * sibling whose name shares the root's prefix, and an outside directory holding a unique marker,
 * plus an assertion that an error is a contained one and leaks no path.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { isConnectorError } from '../../contracts/errors.js';
import { CONTAINMENT_ERROR_CODES } from '../errors.js';
import type { ContainmentErrorCode } from '../errors.js';

export interface Sandbox {
  /** Real path of the temporary base directory. */
  readonly base: string;
  /** `base/data` — the source root. */
  readonly root: string;
  /** `base/data-evil` — a sibling sharing the root's name as a prefix. */
  readonly sibling: string;
  /** `base/outside` — never reachable; holds `secret.txt` containing `marker`. */
  readonly outside: string;
  readonly marker: string;
  /** Every string a contained error must never mention. */
  readonly forbidden: readonly string[];
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'inseam-paths-')));
  const root = join(base, 'data');
  const sibling = join(base, 'data-evil');
  const outside = join(base, 'outside');
  const marker = `OUTSIDE-MARKER-${randomUUID()}`;
  await Promise.all([mkdir(root), mkdir(sibling), mkdir(outside)]);
  await Promise.all([writeFile(join(outside, 'secret.txt'), marker), writeFile(join(sibling, 'secret.txt'), marker)]);
  return {
    base,
    root,
    sibling,
    outside,
    marker,
    forbidden: [base, root, sibling, outside, marker, 'secret', tmpdir()],
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** Asserts `error` is a ConnectorError with `code`, from the fixed set, naming none of `forbidden`. */
export function expectContainedError(error: unknown, code: ContainmentErrorCode, forbidden: readonly string[]): void {
  expect(isConnectorError(error), `expected a ConnectorError, got ${String(error)}`).toBe(true);
  if (!isConnectorError(error)) return;
  expect(error.code).toBe(code);
  expect(CONTAINMENT_ERROR_CODES).toContain(error.code);
  expectNoLeak(error, forbidden);
}

/** The message, the details and the cause chain mention none of `forbidden`. */
export function expectNoLeak(error: unknown, forbidden: readonly string[]): void {
  const text = [String((error as Error).message), JSON.stringify((error as { details?: unknown }).details ?? {})];
  expect((error as Error).cause).toBeUndefined();
  for (const needle of forbidden) {
    for (const part of text) expect(part.includes(needle), `error text leaks "${needle}": ${part}`).toBe(false);
  }
}

/** Runs `action` and returns what it threw; fails the test when it does not throw. */
export async function caught(action: () => Promise<unknown> | AsyncIterable<unknown>): Promise<unknown> {
  try {
    const result = action();
    if (Symbol.asyncIterator in Object(result)) {
      for await (const entry of result as AsyncIterable<unknown>) void entry;
    } else {
      const value = await (result as Promise<unknown>);
      await (value as { close?: () => Promise<void> } | undefined)?.close?.();
    }
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

/**
 * Plants the shared test tree inside `sandbox.root`:
 * `notes/a.txt`, `notes/sub/b.txt`, a directory literally named `%2e%2e`, internal links that stay
 * inside (`alias`, `abs-alias`, `up-and-in`, `self`), and links that try to leave (to a file, a
 * directory, the prefix sibling, a chain, `/proc/self/root`, `/proc/self/cwd`, dangling targets,
 * a loop).
 */
export async function plantTree(sandbox: Sandbox): Promise<void> {
  const { root, outside } = sandbox;
  await mkdir(join(root, 'notes', 'sub'), { recursive: true });
  await mkdir(join(root, '%2e%2e'));
  await Promise.all([
    writeFile(join(root, 'notes', 'a.txt'), 'inside a'),
    writeFile(join(root, 'notes', 'sub', 'b.txt'), 'inside b'),
    writeFile(join(root, '%2e%2e', 'inner.txt'), 'percent is literal'),
  ]);
  const links: Array<[string, string]> = [
    ['alias', 'notes'],
    ['abs-alias', join(root, 'notes')],
    ['up-and-in', '../data/notes'],
    ['self', '.'],
    ['a-link', 'notes/a.txt'],
    ['to-outside-file', join(outside, 'secret.txt')],
    ['to-outside-dir', '../outside'],
    ['to-sibling', '../data-evil'],
    ['chain-1', 'chain-2'],
    ['chain-2', 'notes/../chain-3'],
    ['chain-3', '../outside/secret.txt'],
    ['via-proc-root', `/proc/self/root${outside}/secret.txt`],
    ['via-proc-root-dir', `/proc/self/root${outside}`],
    ['via-proc-cwd', '/proc/self/cwd'],
    ['dangling-out', join(outside, 'planted.txt')],
    ['dangling-dir', join(outside, 'planted-dir')],
    ['dangling-in', 'notes/not-yet.txt'],
    ['loop-a', 'loop-b'],
    ['loop-b', 'loop-a'],
  ];
  await Promise.all(links.map(([name, target]) => symlink(target, join(root, name))));
}

export interface Attack {
  /** The rule the attack breaks, as it appears in the test name. */
  readonly rule: string;
  readonly relative: (sandbox: Sandbox) => string;
  readonly code: ContainmentErrorCode;
  /** The last name is itself the symlink (a create-only open answers `already_exists`). */
  readonly leafIsLink?: boolean;
}

/** Inputs both resolveContained and openContainedHandle must refuse, with the code each gets. */
export const ATTACKS: readonly Attack[] = [
  { rule: "'..' above the root", relative: () => '../outside/secret.txt', code: 'containment_violation' },
  { rule: "'..' above the root after a name", relative: () => 'notes/../../outside/secret.txt', code: 'containment_violation' },
  { rule: "'..' into the prefix sibling", relative: () => '../data-evil/secret.txt', code: 'containment_violation' },
  { rule: 'absolute input', relative: (sandbox) => join(sandbox.outside, 'secret.txt'), code: 'invalid_path' },
  { rule: 'absolute input naming the root', relative: (sandbox) => sandbox.root, code: 'invalid_path' },
  { rule: 'a NUL byte', relative: () => 'notes/a.txt\0../../outside/secret.txt', code: 'invalid_path' },
  { rule: 'a backslash', relative: () => '..\\outside\\secret.txt', code: 'invalid_path' },
  { rule: 'a backslash inside a name', relative: () => 'notes\\a.txt', code: 'invalid_path' },
  { rule: 'percent-encoded dots are not decoded', relative: () => '%2e%2e%2f%2e%2e%2foutside%2fsecret.txt', code: 'not_found' },
  { rule: 'percent-encoded dot segments are names', relative: () => '%2e%2e/%2e%2e/outside/secret.txt', code: 'not_found' },
  { rule: 'a symlink to an outside file', relative: () => 'to-outside-file', code: 'containment_violation', leafIsLink: true },
  { rule: 'a symlink to an outside directory', relative: () => 'to-outside-dir/secret.txt', code: 'containment_violation' },
  { rule: 'a symlink to the prefix sibling', relative: () => 'to-sibling/secret.txt', code: 'containment_violation' },
  { rule: 'a chain of symlinks ending outside', relative: () => 'chain-1', code: 'containment_violation', leafIsLink: true },
  { rule: 'a symlink through /proc/self/root', relative: () => 'via-proc-root', code: 'containment_violation', leafIsLink: true },
  { rule: 'a directory symlink through /proc/self/root', relative: () => 'via-proc-root-dir/secret.txt', code: 'containment_violation' },
  { rule: 'a symlink to /proc/self/cwd', relative: () => 'via-proc-cwd/package.json', code: 'containment_violation' },
  { rule: 'a symlink loop', relative: () => 'loop-a', code: 'invalid_path', leafIsLink: true },
  { rule: 'a dangling symlink to outside', relative: () => 'dangling-out', code: 'containment_violation', leafIsLink: true },
  { rule: 'a dangling directory symlink to outside', relative: () => 'dangling-dir/child.txt', code: 'containment_violation' },
  {
    rule: 'a missing name beneath a link to outside (no existence oracle)',
    relative: () => 'to-outside-dir/missing.txt',
    code: 'containment_violation',
  },
  {
    rule: 'an outside file used as a directory (no existence oracle)',
    relative: () => 'to-outside-dir/secret.txt/child.txt',
    code: 'containment_violation',
  },
];

/** `special/fifo`, `special/to-dev-null` (a link to a device) and `base/root-link` (a link to the root). */
export async function plantSpecialFiles(sandbox: Sandbox): Promise<void> {
  await mkdir(join(sandbox.root, 'special'));
  execFileSync('mkfifo', [join(sandbox.root, 'special', 'fifo')]);
  await symlink('/dev/null', join(sandbox.root, 'special', 'to-dev-null'));
  await symlink(sandbox.root, join(sandbox.base, 'root-link'));
}
