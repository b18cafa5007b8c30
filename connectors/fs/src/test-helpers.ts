/** Shared set-up for this package's tests: a throwaway project folder and a bound fs source. */
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { ConnectorFactoryContext, SessionContext } from '@neuralis/package-system/contracts';
import { createFsConnector } from './index.js';
import type { FolderConnector } from './port.js';

export interface Sandbox {
  /** Real path of the temp folder holding everything below. */
  readonly base: string;
  readonly projectRoot: string;
  /** The source root (an existing folder). */
  readonly root: string;
  /** A folder beside the root, outside it, for escape attempts. */
  readonly outside: string;
  readonly connector: FolderConnector;
  context(config?: Record<string, unknown>): ConnectorFactoryContext;
  cleanup(): Promise<void>;
}

export async function makeSandbox(config: Record<string, unknown> = {}): Promise<Sandbox> {
  const base = realpathSync(await mkdtemp(`${tmpdir()}/inseam-fs-test-`));
  const projectRoot = `${base}/project`;
  const root = `${base}/root`;
  const outside = `${base}/outside`;
  await Promise.all([mkdir(projectRoot), mkdir(root), mkdir(outside)]);
  const context = (extra: Record<string, unknown> = {}): ConnectorFactoryContext => ({
    packageId: '@inseam/connector-fs',
    packageRoot: base,
    source: 'box',
    config: { root, ...config, ...extra },
    projectRoot,
    scope: 'project',
  });
  return {
    base,
    projectRoot,
    root,
    outside,
    connector: createFsConnector(context()),
    context,
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

export const EXEC_SESSION: SessionContext = {
  userId: 'user-1',
  projectId: 'project-1',
  features: new Set(['exec.machine']),
};

/** Collects an async iterable (walks, scans) into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Reads a whole web stream into one Buffer. */
export async function streamBytes(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
