/**
 * Test support for the loader and registry tests: where the fixture packages are, a typed view of
 * what the fixture modules record, sessions, and temporary copies of fixtures for tests that
 * change files on disk.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConnectorFactoryContext, ConnectorInitContext, ExecRequest, SessionContext, SourceConnectorEntry } from '../../contracts/index.js';

export const FIXTURES = fileURLToPath(new URL('.', import.meta.url));

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** What the fixture modules record (see the `log` line at the top of each). */
export interface FixtureLog {
  imports: Record<string, number>;
  inits: ConnectorInitContext[];
  contexts: ConnectorFactoryContext[];
  events: string[];
  execRequests: ExecRequest[];
  capabilityCalls: Record<string, number>;
  gates: Record<string, Promise<void>>;
  instances: Record<string, object>;
}

export function fixtureLog(): FixtureLog {
  const global = globalThis as { __loaderFixtures?: FixtureLog };
  global.__loaderFixtures ??= { imports: {}, inits: [], contexts: [], events: [], execRequests: [], capabilityCalls: {}, gates: {}, instances: {} };
  return global.__loaderFixtures;
}

/** Clears what tests read between cases; import counters stay (modules stay cached). */
export function resetFixtureLog(): void {
  const log = fixtureLog();
  log.inits.length = 0;
  log.contexts.length = 0;
  log.events.length = 0;
  log.execRequests.length = 0;
  log.capabilityCalls = {};
  log.gates = {};
  log.instances = {};
}

export function session(...features: string[]): SessionContext {
  return { userId: 'u1', projectId: 'p1', features: new Set(features) };
}

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'inseam-loader-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export async function copyFixture(name: string, destination: string): Promise<string> {
  await cp(fixture(name), destination, { recursive: true });
  return destination;
}

/** A promise plus its resolver, to hold a slow factory until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** The spec's example source connector entry (the Notion workspace), with overrides. */
export function notionEntry(overrides: Partial<SourceConnectorEntry> = {}): SourceConnectorEntry {
  return {
    id: 'my-notion',
    type: 'source',
    kind: 'notion',
    transport: 'in-process',
    name: 'Notion Workspace',
    category: 'api',
    configSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { workspaceId: { type: 'string', minLength: 1 } },
      required: ['workspaceId'],
    },
    capabilities: ['list', 'read', 'write', 'walk', 'scanContent'],
    defaultPermissions: { default: { read: true, write: true, exec: false } },
    defaultScope: 'project',
    scopeSelectable: true,
    allowedScopes: ['project', 'user', 'agent'],
    connectorFactory: './dist/connectors/NotionConnector.js#createNotionConnector',
    ...overrides,
  };
}
