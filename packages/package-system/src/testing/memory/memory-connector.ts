/**
 * The in-memory reference connector: a TEST DOUBLE that follows ConnectorPort v4 to the letter
 * and passes the compliance harness. Use it in loader, registry and platform tests wherever a
 * real connector would need a disk, a bucket or a network.
 *
 *   const port = createMemoryConnector({ source: 'notes', files: { 'a.md': '# A', 'img/x.png': png } });
 *   await port.read('notes://a.md');                 // { text: '# A', mime: 'text/markdown', … }
 *
 * - Objects live in memory only, per instance; paths in `files` are decoded and `/`-separated.
 * - Members exist exactly for the capabilities chosen (default: all nine), so a port built with
 *   `capabilities: ['list', 'read']` has no `write` member, and `capabilities()` says the same.
 * - MIME types come from the file name, by the shared table of contracts/mime.ts (or write's
 *   `mime` option). Text types read back as UTF-8 text; image/*, video/* and application/pdf as
 *   base64 `bytes` up to the per-MIME inline cap, and as a marker with `omitted` over it; any other
 *   type reads as a marker without bytes.
 * - exec and detached runs use a fake shell that knows only `echo`, `sleep` and `exit`; it never
 *   spawns a process. `env` is dropped (the allowlist is empty).
 * - resolveOsUri throws `os_uri_unresolvable`: memory has no host path, and none is invented.
 */
import {
  CONNECTOR_CAPABILITIES,
  DEFAULT_INLINE_MIME_CAPS,
  InvalidArgumentError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  OsUriUnresolvableError,
  TooLargeError,
  UnsupportedOperationError,
  encodeSegment,
  formatByteSize,
  formatSourceUri,
  inlineCapFor,
  isInlineBinaryMime,
  isTextMime,
  mimeFromName,
  parseSourceUri,
} from '../../contracts/index.js';
import type {
  ConnectorCapability,
  ConnectorEntry,
  ConnectorFactory,
  ConnectorListPage,
  ConnectorPort,
  ConnectorReadResult,
  ContentChunk,
  ExecRequest,
  ExecResult,
  ReadOptions,
  SourceConnectorEntry,
} from '../../contracts/index.js';
import { createDetachedRuns } from './detached-runs.js';
import { runFakeShell } from './fake-shell.js';
import { MemoryTree, sortedNames } from './memory-tree.js';
import type { MemoryDirectory, MemoryNode } from './memory-tree.js';

export const MEMORY_CONNECTOR_KIND = 'memory';

/** The feature id that opens the fake shell; the manifest's execRequires. */
export const MEMORY_EXEC_FEATURE = 'exec.memory';

/** Every capability; the default set of `createMemoryConnector`. */
export const MEMORY_CONNECTOR_CAPABILITIES: readonly ConnectorCapability[] = Object.freeze([...CONNECTOR_CAPABILITIES]);

const MIB = 1024 * 1024;

/** Default per-MIME inline caps for binary reads; keys are exact types or `type/*`. */
export const MEMORY_DEFAULT_INLINE_CAPS: Readonly<Record<string, number>> = DEFAULT_INLINE_MIME_CAPS;

export interface MemoryConnectorOptions {
  /** The bound source slug (the URI scheme). Default `mem`. */
  readonly source?: string;
  /** The connector kind. Default `memory`. */
  readonly kind?: string;
  /** Capabilities to offer; must include list and read. Default: all nine. */
  readonly capabilities?: readonly ConnectorCapability[];
  /** Initial files by decoded, `/`-separated path (e.g. `docs/a b.md`); parents are created. */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
  /** Per-MIME inline caps in bytes (exact type or `type/*`), merged over the defaults. */
  readonly inlineCaps?: Readonly<Record<string, number>>;
  /** Largest text a read returns without a range; larger is `too_large`. Default 1 MiB. */
  readonly textCapBytes?: number;
  /** Cap on each of stdout and stderr of an exec; over it the output is cut. Default 64 KiB. */
  readonly outputCapBytes?: number;
  /** Ceiling on an exec or detached run's timeout, in ms. Default 60,000. */
  readonly execTimeoutCeilingMs?: number;
}

const DEFAULT_LIST_LIMIT = 1000;
const LONG_POLL_CEILING_MS = 30_000;

/**
 * The manifest entry for a memory connector offering `capabilities`; exec and execDetached bring
 * `execRequires: ['exec.memory']`. Pass the same list to `createMemoryConnector`.
 */
export function memoryConnectorManifestFor(
  capabilities: readonly ConnectorCapability[],
  kind: string = MEMORY_CONNECTOR_KIND,
): SourceConnectorEntry {
  const runsCommands = capabilities.includes('exec') || capabilities.includes('execDetached');
  return Object.freeze({
    id: `${kind}-reference`,
    type: 'source',
    kind,
    transport: 'in-process',
    name: 'In-memory reference connector (test double)',
    category: 'test',
    description: 'Objects held in memory; a fake shell for exec. For tests only.',
    configSchema: Object.freeze({ type: 'object', additionalProperties: false, properties: {} }),
    capabilities: Object.freeze([...capabilities]),
    ...(runsCommands ? { execRequires: Object.freeze([MEMORY_EXEC_FEATURE]) } : {}),
    defaultPermissions: { default: { read: true, write: true, exec: runsCommands } },
    defaultScope: 'project',
    scopeSelectable: true,
    allowedScopes: Object.freeze(['project', 'user', 'agent'] as const),
    connectorFactory: './dist/testing/memory/memory-connector.js#memoryConnectorFactory',
  });
}

/** The manifest entry of the default (all-capability) memory connector. */
export const memoryConnectorManifest: SourceConnectorEntry = memoryConnectorManifestFor(MEMORY_CONNECTOR_CAPABILITIES);

/** A ConnectorFactory for loader tests: binds an empty memory connector to `ctx.source`. */
export const memoryConnectorFactory: ConnectorFactory = (context) => createMemoryConnector({ source: context.source });

function toBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? new TextEncoder().encode(content) : content;
}

function requireInteger(value: unknown, name: string, minimum: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    throw new InvalidArgumentError(`${name} must be an integer of at least ${minimum}; got ${String(value)}.`);
  }
  return value;
}

interface ListCursor {
  /** The listed directory, canonical. */
  readonly d: string;
  /** The last name returned; the next page starts after it. */
  readonly a: string;
}

function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodeCursor(raw: string, directory: string): ListCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const cursor = parsed as Partial<ListCursor> | undefined;
  if (typeof cursor?.d !== 'string' || typeof cursor.a !== 'string' || cursor.d !== directory) {
    throw new InvalidArgumentError('The cursor was not issued for this listing; start again without a cursor.');
  }
  return { d: cursor.d, a: cursor.a };
}

/** Creates a memory connector. Throws invalid_argument for a capability list without list and read. */
export function createMemoryConnector(options: MemoryConnectorOptions = {}): ConnectorPort {
  const source = options.source ?? 'mem';
  const kind = options.kind ?? MEMORY_CONNECTOR_KIND;
  const capabilities = new Set(options.capabilities ?? MEMORY_CONNECTOR_CAPABILITIES);
  if (!capabilities.has('list') || !capabilities.has('read')) {
    throw new InvalidArgumentError('A memory connector needs the mandatory capabilities list and read.');
  }
  const inlineCaps = { ...MEMORY_DEFAULT_INLINE_CAPS, ...options.inlineCaps };
  const textCap = options.textCapBytes ?? MIB;
  const outputCap = options.outputCapBytes ?? 64 * 1024;
  const timeoutCeiling = options.execTimeoutCeilingMs ?? 60_000;
  const tree = new MemoryTree();
  for (const [path, content] of Object.entries(options.files ?? {})) {
    const segments = path.split('/').filter((segment) => segment !== '');
    tree.writeFile(segments, toBytes(content), mimeFromName(segments.at(-1) ?? ''));
  }

  const segmentsOf = (uri: string): readonly string[] => parseSourceUri(uri, source).segments;

  const entryOf = (segments: readonly string[], node: MemoryNode): ConnectorEntry => {
    const base = { uri: formatSourceUri(source, segments), name: segments.at(-1) ?? '', mtime: node.mtime };
    return node.type === 'directory'
      ? { ...base, type: 'directory' }
      : { ...base, type: 'file', size: node.bytes.byteLength, etag: node.etag, mime: node.mime };
  };

  const existing = (segments: readonly string[]): MemoryNode => {
    const node = tree.lookup(segments);
    if (node === undefined) throw new NotFoundError();
    return node;
  };

  const directoryAt = (segments: readonly string[]): MemoryDirectory => {
    const node = existing(segments);
    if (node.type !== 'directory') throw new NotADirectoryError('That address is a file, not a directory.');
    return node;
  };

  async function* below(segments: readonly string[], directory: MemoryDirectory, depth: number, maxDepth: number, signal?: AbortSignal): AsyncGenerator<[readonly string[], MemoryNode]> {
    for (const name of sortedNames(directory)) {
      signal?.throwIfAborted();
      const node = directory.children.get(name);
      if (node === undefined) continue; // removed while walking
      const childSegments = [...segments, name];
      yield [childSegments, node];
      if (node.type === 'directory' && depth < maxDepth) yield* below(childSegments, node, depth + 1, maxDepth, signal);
    }
  }

  /** Validates an exec request and returns the timeout to apply. */
  const admit = (request: ExecRequest): number => {
    if (typeof request?.command !== 'string' || request.command.trim() === '') {
      throw new InvalidArgumentError('command must be a non-empty string.');
    }
    directoryAt(segmentsOf(request.cwd));
    const timeout = request.timeout === undefined ? timeoutCeiling : requireInteger(request.timeout, 'timeout', 1);
    return Math.min(timeout, timeoutCeiling);
  };

  const port: {
    -readonly [K in keyof ConnectorPort]: ConnectorPort[K];
  } = {
    kind,
    source,
    portVersion: 4,

    capabilities: () => new Set(capabilities),

    async list(uri, listOptions = {}): Promise<ConnectorListPage> {
      const segments = segmentsOf(uri);
      const directory = directoryAt(segments);
      const limit = listOptions.limit === undefined ? DEFAULT_LIST_LIMIT : requireInteger(listOptions.limit, 'limit', 1);
      const names = sortedNames(directory);
      const canonical = formatSourceUri(source, segments);
      const after = listOptions.cursor === undefined ? undefined : decodeCursor(listOptions.cursor, canonical).a;
      const start = after === undefined ? 0 : names.findIndex((name) => name > after);
      const page = start < 0 ? [] : names.slice(start, start + limit);
      const entries = page.map((name) => entryOf([...segments, name], directory.children.get(name) as MemoryNode));
      const last = page.at(-1);
      const more = start >= 0 && start + limit < names.length && last !== undefined;
      return more ? { entries, cursor: encodeCursor({ d: canonical, a: last }) } : { entries };
    },

    async read(uri, readOptions: ReadOptions = {}): Promise<ConnectorReadResult> {
      const node = existing(segmentsOf(uri));
      if (node.type === 'directory') throw new IsADirectoryError('That address is a directory; list it instead of reading it.');
      const size = node.bytes.byteLength;
      let slice = node.bytes;
      let range: { offset: number; length: number } | undefined;
      if (readOptions.range !== undefined) {
        const offset = requireInteger(readOptions.range.offset, 'range.offset', 0);
        const length = readOptions.range.length === undefined ? undefined : requireInteger(readOptions.range.length, 'range.length', 0);
        const start = Math.min(offset, size);
        const end = length === undefined ? size : Math.min(size, offset + length);
        slice = node.bytes.subarray(start, Math.max(start, end));
        range = { offset, length: slice.byteLength };
      }
      const base = { mime: node.mime, size, etag: node.etag, ...(range === undefined ? {} : { range }) };
      if (isInlineBinaryMime(node.mime)) {
        const cap = inlineCapFor(node.mime, inlineCaps);
        if (slice.byteLength <= cap) {
          return { ...base, text: `[${node.mime}, ${formatByteSize(slice.byteLength)}: included as bytes]`, bytes: Buffer.from(slice).toString('base64') };
        }
        return {
          ...base,
          text: `[${node.mime}, ${formatByteSize(slice.byteLength)}: over the ${formatByteSize(cap)} inline cap; not included]`,
          omitted: { reason: 'over_inline_cap', cap },
        };
      }
      if (!isTextMime(node.mime)) return { ...base, text: `[${node.mime}, ${formatByteSize(slice.byteLength)}: binary content; not included]` };
      if (slice.byteLength > textCap) {
        throw new TooLargeError(
          `The text is ${formatByteSize(slice.byteLength)}, over the ${formatByteSize(textCap)} read cap; read it in ranges of at most ${textCap} bytes.`,
          { details: { cap: textCap, size } },
        );
      }
      return { ...base, text: new TextDecoder().decode(slice) };
    },

    async probeConnection() {
      return { connected: true };
    },

    async resolveOsUri(uri) {
      existing(segmentsOf(uri));
      throw new OsUriUnresolvableError('The memory connector holds objects in memory; they have no host filesystem path.');
    },
  };

  if (capabilities.has('write')) {
    port.write = async (uri, content, writeOptions = {}) => {
      const segments = segmentsOf(uri);
      if (writeOptions.mime !== undefined && (typeof writeOptions.mime !== 'string' || !writeOptions.mime.includes('/'))) {
        throw new InvalidArgumentError('mime must be a MIME type such as text/plain.');
      }
      const mime = writeOptions.mime ?? mimeFromName(segments.at(-1) ?? '');
      const file = tree.writeFile(segments, toBytes(content), mime, writeOptions);
      return entryOf(segments, file);
    };
  }

  if (capabilities.has('walk')) {
    port.walk = async function* walk(uri, walkOptions = {}) {
      const segments = segmentsOf(uri);
      const directory = directoryAt(segments);
      const maxDepth = walkOptions.maxDepth === undefined ? Infinity : requireInteger(walkOptions.maxDepth, 'maxDepth', 1);
      for await (const [childSegments, node] of below(segments, directory, 1, maxDepth, walkOptions.signal)) {
        yield entryOf(childSegments, node);
      }
    };
  }

  if (capabilities.has('scanContent')) {
    port.scanContent = async function* scanContent(uri, scanOptions = {}): AsyncGenerator<ContentChunk> {
      const segments = segmentsOf(uri);
      const directory = directoryAt(segments);
      const maxBytes = scanOptions.maxBytesPerObject === undefined ? textCap : requireInteger(scanOptions.maxBytesPerObject, 'maxBytesPerObject', 0);
      for await (const [childSegments, node] of below(segments, directory, 1, Infinity, scanOptions.signal)) {
        if (node.type !== 'file') continue;
        const entry = entryOf(childSegments, node);
        if (!isTextMime(node.mime)) yield { entry, skipped: 'binary' };
        else if (node.bytes.byteLength > maxBytes) yield { entry, skipped: 'too_large' };
        else yield { entry, text: new TextDecoder().decode(node.bytes) };
      }
    };
  }

  if (capabilities.has('stat')) {
    port.stat = async (uri) => {
      const segments = segmentsOf(uri);
      return entryOf(segments, existing(segments));
    };
  }

  if (capabilities.has('delete')) {
    port.delete = async (uri, deleteOptions = {}) => {
      tree.remove(segmentsOf(uri), deleteOptions);
    };
  }

  if (capabilities.has('exec')) {
    port.exec = async (request, context): Promise<ExecResult> => {
      const timeoutMs = admit(request);
      if (request.background === true) {
        if (!capabilities.has('execDetached')) throw new UnsupportedOperationError(kind, 'exec', 'background');
        throw new InvalidArgumentError('Background runs start through detached.start, which returns a run id to follow.');
      }
      const started = performance.now();
      const controller = new AbortController();
      const onAbort = (): void => controller.abort();
      context.signal?.addEventListener('abort', onAbort, { once: true });
      if (context.signal?.aborted === true) controller.abort();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const streams = { stdout: '', stderr: '' };
      let truncated = false;
      const append = (stream: 'stdout' | 'stderr') => (text: string): void => {
        const room = outputCap - Buffer.byteLength(streams[stream], 'utf8');
        const bytes = Buffer.from(text, 'utf8');
        if (bytes.byteLength > room) truncated = true;
        streams[stream] += bytes.subarray(0, Math.max(0, room)).toString('utf8');
      };
      try {
        const exitCode = await runFakeShell(request.command, { stdout: append('stdout'), stderr: append('stderr'), signal: controller.signal });
        return {
          exitCode,
          stdout: streams.stdout,
          stderr: streams.stderr,
          truncated,
          durationMs: Math.round(performance.now() - started),
          ...(timedOut ? { timedOut: true } : {}),
        };
      } finally {
        clearTimeout(timer);
        context.signal?.removeEventListener('abort', onAbort);
      }
    };
  }

  if (capabilities.has('execDetached')) {
    port.detached = createDetachedRuns({ admit, outputChunkBytes: outputCap, longPollCeilingMs: LONG_POLL_CEILING_MS });
  }

  return port;
}

/** The canonical URI of a decoded, `/`-separated path on a memory source, e.g. for test fixtures. */
export function memoryUri(source: string, path: string): string {
  return `${source}://${path.split('/').filter((segment) => segment !== '').map(encodeSegment).join('/')}`;
}
