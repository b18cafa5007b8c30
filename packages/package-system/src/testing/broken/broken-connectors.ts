/**
 * Deliberately broken connectors: each is the memory connector with ONE contract rule broken, so
 * a test can show the harness fails that rule's check and nothing else. They also serve the
 * loader's and registry's tests (a facet without the capability, a capability without the member).
 * Never register them anywhere real.
 */
import { ConnectorError } from '../../contracts/index.js';
import type {
  ConnectorCapability,
  ConnectorListPage,
  ConnectorPort,
  ProbeResult,
  SourceConnectorEntry,
} from '../../contracts/index.js';
import type { ComplianceSubject } from '../compliance/types.js';
import {
  MEMORY_CONNECTOR_CAPABILITIES,
  createMemoryConnector,
  memoryConnectorManifestFor,
} from '../memory/memory-connector.js';

export interface BrokenConnector {
  /** The rule it breaks, in words. */
  readonly breaks: string;
  /** A fresh subject (port, manifest, scratch, fixture) for runCompliance. */
  readonly subject: () => ComplianceSubject;
}

const SOURCE = 'broken';
const FIXTURE_PATH = 'fixture/readme.txt';
const FIXTURE_TEXT = 'read me, please\n';

type MutablePort = { -readonly [K in keyof ConnectorPort]: ConnectorPort[K] };

function without(capability: ConnectorCapability): ConnectorCapability[] {
  return MEMORY_CONNECTOR_CAPABILITIES.filter((item) => item !== capability);
}

/** A memory port with `capabilities`, as a mutable copy to break. */
function memoryPort(capabilities: readonly ConnectorCapability[] = MEMORY_CONNECTOR_CAPABILITIES): MutablePort {
  return { ...createMemoryConnector({ source: SOURCE, capabilities, files: { [FIXTURE_PATH]: FIXTURE_TEXT } }) };
}

function subject(port: MutablePort, manifest: SourceConnectorEntry = memoryConnectorManifestFor(MEMORY_CONNECTOR_CAPABILITIES)): ComplianceSubject {
  return {
    port: port,
    manifest,
    scratch: `${SOURCE}://scratch`,
    fixture: { uri: `${SOURCE}://${FIXTURE_PATH}`, content: FIXTURE_TEXT },
  };
}

/** Rethrows everything but `code`; for `code`, answers `replacement()` instead. */
async function instead<T>(action: () => Promise<T>, code: string, replacement: () => T | Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ConnectorError && error.code === code) return replacement();
    throw error;
  }
}

export const BROKEN_CONNECTORS = {
  writeDeclaredWithoutMember: {
    breaks: 'declares write (manifest and capabilities()) but has no write member',
    subject: () => {
      const port = memoryPort();
      delete port.write;
      return subject(port);
    },
  },

  detachedFacetUndeclared: {
    breaks: 'has a detached facet but declares no execDetached',
    subject: () => {
      const capabilities = without('execDetached');
      const port = memoryPort(capabilities);
      port.detached = createMemoryConnector({ source: SOURCE }).detached;
      return subject(port, memoryConnectorManifestFor(capabilities));
    },
  },

  claimsUndeclaredCapability: {
    breaks: 'capabilities() claims stat, which the manifest does not declare',
    subject: () => {
      const capabilities = without('stat');
      const port = memoryPort(capabilities);
      port.capabilities = () => new Set([...capabilities, 'stat']);
      return subject(port, memoryConnectorManifestFor(capabilities));
    },
  },

  missingExecRequires: {
    breaks: 'declares exec without execRequires',
    subject: () => {
      const { execRequires: _dropped, ...manifest } = memoryConnectorManifestFor(MEMORY_CONNECTOR_CAPABILITIES);
      return subject(memoryPort(), manifest);
    },
  },

  portVersion3: {
    breaks: 'reports portVersion 3',
    subject: () => subject({ ...memoryPort(), portVersion: 3 } as unknown as MutablePort),
  },

  statDisagreesWithList: {
    breaks: 'stat reports a different size than the listing',
    subject: () => {
      const port = memoryPort();
      const stat = port.stat as NonNullable<ConnectorPort['stat']>;
      port.stat = async (uri) => {
        const entry = await stat(uri);
        return entry.size === undefined ? entry : { ...entry, size: entry.size + 1 };
      };
      return subject(port);
    },
  },

  cursorDoesNotRoundTrip: {
    breaks: 'the cursor it returns points at the start of the page just served, not after it',
    subject: () => {
      const port = memoryPort();
      const list = port.list;
      port.list = async (uri, options = {}): Promise<ConnectorListPage> => {
        const all = (await list(uri, { limit: 100_000 })).entries;
        const limit = options.limit ?? 1000;
        const match = options.cursor === undefined ? ['', '0'] : /^page:(\d+)$/.exec(options.cursor);
        if (match === null) return list(uri, options); // unknown cursors are still refused
        const offset = Number(match[1]);
        const entries = all.slice(offset, offset + limit);
        return offset + limit < all.length ? { entries, cursor: `page:${offset}` } : { entries };
      };
      return subject(port);
    },
  },

  listOfFileSucceeds: {
    breaks: 'list of a file answers an empty page instead of not_a_directory',
    subject: () => {
      const port = memoryPort();
      const list = port.list;
      port.list = (uri, options) => instead(() => list(uri, options), 'not_a_directory', () => ({ entries: [] }));
      return subject(port);
    },
  },

  plainErrorForMissing: {
    breaks: 'read of a missing object throws a plain Error instead of not_found',
    subject: () => {
      const port = memoryPort();
      const read = port.read;
      port.read = (uri, options) =>
        instead(() => read(uri, options), 'not_found', () => {
          throw new Error('ENOENT: no such file or directory');
        });
      return subject(port);
    },
  },

  dotDotAccepted: {
    breaks: 'read resolves ".." segments instead of refusing them with invalid_uri',
    subject: () => {
      const port = memoryPort();
      const read = port.read;
      port.read = (uri, options) => {
        if (!/\/(\.\.|%2E%2E)(\/|$)/i.test(uri)) return read(uri, options);
        return Promise.resolve({ text: '', mime: 'text/plain', size: 0 });
      };
      return subject(port);
    },
  },

  binaryWithoutBytes: {
    breaks: 'a small image reads back as a marker with neither bytes nor omitted',
    subject: () => {
      const port = memoryPort();
      const read = port.read;
      port.read = async (uri, options) => {
        const result = await read(uri, options);
        if (!result.mime.startsWith('image/')) return result;
        const { bytes: _bytes, omitted: _omitted, ...rest } = result;
        return { ...rest, text: `[${result.mime}]` };
      };
      return subject(port);
    },
  },

  walkIgnoresMaxDepth: {
    breaks: 'walk ignores maxDepth and always yields the whole tree',
    subject: () => {
      const port = memoryPort();
      const walk = port.walk as NonNullable<ConnectorPort['walk']>;
      port.walk = (uri, options = {}) => walk(uri, { ...options, maxDepth: undefined });
      return subject(port);
    },
  },

  scanContentLeaksBinary: {
    breaks: 'scanContent yields image bytes as text',
    subject: () => {
      const port = memoryPort();
      const scan = port.scanContent as NonNullable<ConnectorPort['scanContent']>;
      port.scanContent = async function* leaking(uri, options) {
        for await (const chunk of scan(uri, options)) {
          yield chunk.skipped === 'binary' ? { entry: chunk.entry, text: '\u0089PNG' } : chunk;
        }
      };
      return subject(port);
    },
  },

  ignoresIfMatch: {
    breaks: 'write ignores ifMatch and overwrites a changed object',
    subject: () => {
      const port = memoryPort();
      const write = port.write as NonNullable<ConnectorPort['write']>;
      port.write = (uri, content, { ifMatch: _ignored, ...options } = {}) => write(uri, content, options);
      return subject(port);
    },
  },

  createOnlyOverwrites: {
    breaks: 'write ignores createOnly and replaces an existing object',
    subject: () => {
      const port = memoryPort();
      const write = port.write as NonNullable<ConnectorPort['write']>;
      port.write = (uri, content, { createOnly: _ignored, ...options } = {}) => write(uri, content, options);
      return subject(port);
    },
  },

  deleteLeavesObject: {
    breaks: 'delete resolves but leaves the object in place',
    subject: () => {
      const port = memoryPort();
      const stat = port.stat as NonNullable<ConnectorPort['stat']>;
      port.delete = async (uri) => {
        await stat(uri); // a missing object is still not_found
      };
      return subject(port);
    },
  },

  backgroundNotRefused: {
    breaks: 'exec with background: true runs in the foreground although execDetached is not declared',
    subject: () => {
      const capabilities = without('execDetached');
      const port = memoryPort(capabilities);
      const exec = port.exec as NonNullable<ConnectorPort['exec']>;
      port.exec = (request, context) => exec({ ...request, background: false }, context);
      return subject(port, memoryConnectorManifestFor(capabilities));
    },
  },

  execWithoutDuration: {
    breaks: 'exec results lack durationMs',
    subject: () => {
      const port = memoryPort();
      const exec = port.exec as NonNullable<ConnectorPort['exec']>;
      port.exec = async (request, context) => {
        const { durationMs: _dropped, ...result } = await exec(request, context);
        return result as Awaited<ReturnType<typeof exec>>;
      };
      return subject(port);
    },
  },

  releaseKeepsRun: {
    breaks: 'detached.release does not forget the run',
    subject: () => {
      const port = memoryPort();
      const facet = port.detached as NonNullable<ConnectorPort['detached']>;
      port.detached = { ...facet, release: async (runId) => void (await facet.kill(runId)) };
      return subject(port);
    },
  },

  statInventsMissing: {
    breaks: 'stat of a missing object answers a made-up entry instead of not_found',
    subject: () => {
      const port = memoryPort();
      const stat = port.stat as NonNullable<ConnectorPort['stat']>;
      port.stat = (uri) => instead(() => stat(uri), 'not_found', () => ({ uri, name: '', type: 'file' as const }));
      return subject(port);
    },
  },

  probeLeaksPath: {
    breaks: 'probeConnection answers a free-text reason carrying a host path instead of the fixed enum',
    subject: () => {
      const port = memoryPort();
      port.probeConnection = async () => ({ connected: false, reason: 'ENOENT /srv/data' }) as unknown as ProbeResult;
      return subject(port);
    },
  },

  osUriRelative: {
    breaks: 'resolveOsUri invents a relative, plausible-looking path',
    subject: () => {
      const port = memoryPort();
      port.resolveOsUri = async (uri) => `data/${uri.slice(uri.indexOf('://') + 3)}`;
      return subject(port);
    },
  },

  runtimeGatedWithoutProbe: {
    breaks: 'declares runtimeGated but has no isRuntimeActive member',
    subject: () => subject(memoryPort(), { ...memoryConnectorManifestFor(MEMORY_CONNECTOR_CAPABILITIES), runtimeGated: true }),
  },
} as const satisfies Record<string, BrokenConnector>;

export type BrokenConnectorName = keyof typeof BROKEN_CONNECTORS;
