/**
 * The adapter that makes a sandboxed kind a package-system source kind: each binding gets a
 * ConnectorPort (v4) whose calls map onto the host Connector running in the sandbox, so the
 * filesystem, permissions and sync treat it like a built-in.
 *
 * Mapping.
 * - Addresses: `{source}://{seg}/{seg}` ↔ host path `seg/seg` (segments percent-decoded). A host
 *   path with an empty, `.` or `..` segment cannot be addressed: list leaves it out, stat/write
 *   fail with `connector_failed`.
 * - list(uri): host list({ prefix: 'path/' }) (no prefix at the root). Host listings are flat, so
 *   an entry deeper than one level below `uri` shows as its first segment, a `directory`, once
 *   (repeats are dropped within a page and across adjacent pages). `limit` slices a host page; the
 *   port cursor carries the host cursor, the offset in its page and the last directory shown. An
 *   empty first page of a non-root `uri` is `not_found`, or `not_a_directory` when stat finds an
 *   object there.
 * - read(uri): stat (when claimed) gives size, mime and etag, then the host stream is collected
 *   within the caps of ConnectorReadResult (see read-result.ts). Without stat the MIME type is
 *   guessed from the name and `size` is the bytes read (past the range's offset for a range).
 * - stat(uri) → Entry as a `file`; no object but entries below it → a `directory`; the root is a
 *   directory.
 * - write(uri, content) streams the content to the host's write(); `mime` is checked against
 *   `writes.mimes` and the size against `writes.maxBytes`; `createOnly` needs stat (checked
 *   first, best effort), else `unsupported`.
 * - delete(uri): objects only; `recursive` is `unsupported`; `ifMatch` is checked with stat.
 * - Extra members the crawler can call: `description`, `watch(emit)` (when claimed) and
 *   `webhook(request)`.
 */
import type { ChangeEvent, Description, EgressPort, Entry, HostCapability } from '@inseam/connector';
import { validateDescription } from '@inseam/connector';
import {
  AlreadyExistsError,
  ConnectorCapabilityMismatch,
  ConnectorFailedError,
  InvalidArgumentError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  TooLargeError,
  UnsupportedOperationError,
  formatByteSize,
  formatSourceUri,
  inlineCapFor,
  isInlineBinaryMime,
  isTextMime,
  mimeFromName,
  parseSourceUri,
  type ConfigSchema,
  type ConnectorCapability,
  type ConnectorEntry,
  type ConnectorListPage,
  type ConnectorPort,
  type ConnectorReadResult,
  type DeleteOptions,
  type ListOptions,
  type ReadOptions,
  type SourceConnectorEntry,
  type WriteOptions,
} from '@neuralis/package-system/contracts';
import type { ConnectorKindRuntime, SourceKindRegistration, ValidatedBindingRequest } from '@neuralis/package-system/registry';
import type { SandboxHost, SandboxLimits } from './host.js';
import { DEFAULT_READ_CAPS, readUpTo, type ReadCaps } from './read-result.js';
import type { SandboxedConnector } from './sandboxed-connector.js';

/** The package id sandboxed kinds are registered under: the adapter is platform code. */
export const SANDBOX_PACKAGE_ID = 'inseam.sandbox';

export interface SandboxedKindOptions {
  readonly host: SandboxHost;
  /** The module's text (what passed the trial). */
  readonly source: string;
  /** The description the trial validated; each binding's module must describe the same kind and capabilities. */
  readonly description: Description;
  /** Closed draft-07 schema of a binding's config (what createConnector receives). */
  readonly configSchema: ConfigSchema;
  /** The gate for one binding (its AuthSpec, credentials and origins). */
  readonly egressFor: (binding: { readonly kind: string; readonly source: string; readonly config: Readonly<Record<string, unknown>> }) => EgressPort;
  /** Human label; default the kind. */
  readonly name?: string;
  readonly limits?: Partial<SandboxLimits>;
  readonly readCaps?: Partial<ReadCaps>;
}

/** The port of one sandboxed binding: ConnectorPort plus what the crawler needs from the host interface. */
export interface SandboxedSourcePort extends ConnectorPort {
  readonly description: Description;
  /** Present when the kind claims `watch`. Resolves to an async unsubscribe. */
  readonly watch?: (emit: (event: ChangeEvent) => void) => Promise<() => Promise<void>>;
  webhook(request: Request): Promise<ChangeEvent[]>;
  /** Unloads the binding's module from the sandbox. */
  dispose(): void;
}

export interface SandboxedKind {
  readonly kind: string;
  readonly description: Description;
  readonly capabilities: readonly ConnectorCapability[];
  readonly entry: SourceConnectorEntry;
  /** For SourceKindRegistry.register. */
  readonly registration: SourceKindRegistration;
  /** For ConnectorRegistry.registerKind; `instantiate` loads the module for one binding. */
  readonly runtime: ConnectorKindRuntime;
}

/** Host capability → port capability; `watch` has none (it is an extra member). */
const PORT_CAPABILITY: Readonly<Partial<Record<HostCapability, ConnectorCapability>>> = {
  list: 'list',
  read: 'read',
  stat: 'stat',
  write: 'write',
  delete: 'delete',
};

/**
 * Describes a sandboxed kind for the two registries. Throws `description_invalid` for a bad
 * description. Registration uses trust `first-party`: the in-host code is this adapter; the
 * module itself only ever runs in the sandbox.
 */
export function sandboxedSourceKind(options: SandboxedKindOptions): SandboxedKind {
  const description = validateDescription(options.description);
  const capabilities = portCapabilities(description);
  const entry: SourceConnectorEntry = Object.freeze({
    id: `sandboxed-${description.kind}`,
    type: 'source',
    kind: description.kind,
    transport: 'in-process',
    name: options.name ?? description.kind,
    // As describe() declares it, never derived: absent, the kind has no category.
    ...(description.category === undefined ? {} : { category: description.category }),
    description: `Sandboxed connector "${description.kind}".`,
    configSchema: options.configSchema,
    capabilities,
    defaultScope: 'project',
    connectorFactory: './dist/sandbox/adapter.js#sandboxedSourceKind',
  });
  const caps: ReadCaps = { ...DEFAULT_READ_CAPS, ...(options.readCaps ?? {}) };
  const runtime: ConnectorKindRuntime = {
    kind: description.kind,
    packageId: SANDBOX_PACKAGE_ID,
    trust: 'first-party',
    entry,
    instantiate: (request) => bindSandboxed(options, description, caps, request),
  };
  return Object.freeze({
    kind: description.kind,
    description,
    capabilities,
    entry,
    registration: Object.freeze({ packageId: SANDBOX_PACKAGE_ID, trust: 'first-party', entry }),
    runtime,
  });
}

function portCapabilities(description: Description): ConnectorCapability[] {
  return description.capabilities.flatMap((capability) => {
    const mapped = PORT_CAPABILITY[capability];
    return mapped === undefined ? [] : [mapped];
  });
}

async function bindSandboxed(options: SandboxedKindOptions, expected: Description, caps: ReadCaps, request: ValidatedBindingRequest): Promise<ConnectorPort> {
  const connector = await options.host.load({
    source: options.source,
    label: `${expected.kind}:${request.source}`,
    config: request.config,
    egress: options.egressFor({ kind: expected.kind, source: request.source, config: request.config }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const actual = connector.describe();
  const same = actual.kind === expected.kind && [...actual.capabilities].sort().join() === [...expected.capabilities].sort().join();
  if (!same) {
    connector.dispose();
    throw new ConnectorCapabilityMismatch(
      `The sandboxed module for source "${request.source}" describes kind "${actual.kind}" with [${actual.capabilities.join(', ')}], but kind "${expected.kind}" was registered with [${expected.capabilities.join(', ')}].`,
      { details: { kind: expected.kind, source: request.source } },
    );
  }
  return createSandboxedPort(connector, request.source, caps);
}

interface PortCursor {
  /** Host cursor of the page being sliced (absent: the first page). */
  readonly c?: string;
  /** Offset into that page. */
  readonly o: number;
  /** The last directory name shown, so a directory spanning pages shows once. */
  readonly d?: string;
  /** The prefix the cursor belongs to. */
  readonly p: string;
}

const DEFAULT_LIMIT = 1000;

/**
 * The ConnectorPort of one binding over a loaded sandboxed connector (exported for tests and for
 * callers that load modules themselves).
 */
export function createSandboxedPort(connector: SandboxedConnector, source: string, caps: ReadCaps = DEFAULT_READ_CAPS): SandboxedSourcePort {
  const description = connector.describe();
  const kind = description.kind;
  const claims = new Set(description.capabilities);
  const capabilities = new Set(portCapabilities(description));

  const segmentsOf = (uri: string): readonly string[] => parseSourceUri(uri, source).segments;
  const hostPath = (segments: readonly string[]): string => segments.join('/');
  const entryUri = (path: string, method: string): { uri: string; name: string } => {
    const segments = addressable(path);
    if (segments === undefined) throw new ConnectorFailedError(`The ${kind} connector's ${method}() returned a path that cannot be addressed (an empty, "." or ".." segment).`);
    return { uri: formatSourceUri(source, segments), name: segments[segments.length - 1] ?? '' };
  };
  const toPortEntry = (entry: Entry, method: string): ConnectorEntry => ({ ...entryUri(entry.path, method), type: 'file', ...fileFields(entry) });

  async function statEntry(segments: readonly string[]): Promise<Entry | null> {
    return claims.has('stat') ? connector.stat(hostPath(segments)) : null;
  }

  async function hasChildren(segments: readonly string[]): Promise<boolean> {
    const page = await connector.list({ prefix: `${hostPath(segments)}/` });
    return page.entries.some((entry) => entry.path.startsWith(`${hostPath(segments)}/`));
  }

  const port: Record<string, unknown> & Omit<SandboxedSourcePort, 'watch'> = {
    kind,
    source,
    portVersion: 4,
    description,
    capabilities: () => new Set(capabilities),

    async list(uri: string, options: ListOptions = {}): Promise<ConnectorListPage> {
      const segments = segmentsOf(uri);
      const prefix = segments.length === 0 ? '' : `${hostPath(segments)}/`;
      const limit = options.limit ?? DEFAULT_LIMIT;
      if (!Number.isSafeInteger(limit) || limit <= 0) throw new InvalidArgumentError('limit must be a positive integer.');
      const cursor = options.cursor === undefined ? { o: 0, p: prefix } : decodeCursor(options.cursor, prefix);
      const page = await connector.list({ ...(prefix === '' ? {} : { prefix }), ...(cursor.c === undefined ? {} : { cursor: cursor.c }) });
      if (options.cursor === undefined && segments.length > 0 && page.entries.length === 0 && page.cursor === undefined) {
        const here = await statEntry(segments);
        if (here !== null) throw new NotADirectoryError('That address is an object, not a directory; read it instead.');
        throw new NotFoundError('No object or directory exists at that address.');
      }
      const entries: ConnectorEntry[] = [];
      const shownDirs = new Set<string>(cursor.d === undefined ? [] : [cursor.d]);
      let lastDir = cursor.d;
      let index = cursor.o;
      for (; index < page.entries.length && entries.length < limit; index++) {
        const entry = page.entries[index]!;
        if (!entry.path.startsWith(prefix)) continue;
        const rest = addressable(entry.path.slice(prefix.length));
        if (rest === undefined || rest.length === 0) continue;
        const name = rest[0]!;
        if (rest.length === 1) {
          entries.push({ uri: formatSourceUri(source, [...segments, name]), name, type: 'file', ...fileFields(entry) });
        } else if (!shownDirs.has(name)) {
          shownDirs.add(name);
          lastDir = name;
          entries.push({ uri: formatSourceUri(source, [...segments, name]), name, type: 'directory' });
        }
      }
      let next: PortCursor | undefined;
      if (index < page.entries.length) next = { ...(cursor.c === undefined ? {} : { c: cursor.c }), o: index, p: prefix, ...(lastDir === undefined ? {} : { d: lastDir }) };
      else if (page.cursor !== undefined) next = { c: page.cursor, o: 0, p: prefix, ...(lastDir === undefined ? {} : { d: lastDir }) };
      return { entries, ...(next === undefined ? {} : { cursor: encodeCursor(next) }) };
    },

    async read(uri: string, options: ReadOptions = {}): Promise<ConnectorReadResult> {
      const segments = segmentsOf(uri);
      if (segments.length === 0) throw new IsADirectoryError('The root is a directory; list it instead of reading it.');
      const range = options.range;
      if (range !== undefined) {
        if (!Number.isSafeInteger(range.offset) || range.offset < 0) throw new InvalidArgumentError('range.offset must be a non-negative integer.');
        if (range.length !== undefined && (!Number.isSafeInteger(range.length) || range.length < 0)) throw new InvalidArgumentError('range.length must be a non-negative integer.');
      }
      const entry = await statEntry(segments);
      if (entry === null && claims.has('stat')) {
        if (await hasChildren(segments)) throw new IsADirectoryError('That address is a directory; list it instead of reading it.');
        throw new NotFoundError('No object exists at that address.');
      }
      const name = segments[segments.length - 1]!;
      const mime = entry?.mime ?? mimeFromName(name);
      const size = entry?.size;
      const etag = entry?.etag;
      const offset = range?.offset ?? 0;
      const wanted = range?.length ?? (size === undefined ? undefined : Math.max(0, size - offset));
      const base = { mime, ...(etag === undefined ? {} : { etag }) };
      const marker = (bytes: number | undefined, what: string): string => `[${mime}${bytes === undefined ? '' : `, ${formatByteSize(bytes)}`}: ${what}]`;

      if (!isTextMime(mime) && !isInlineBinaryMime(mime)) {
        return { ...base, size: size ?? 0, text: marker(wanted, 'binary content; not included'), ...(range === undefined ? {} : { range: { offset, length: 0 } }) };
      }
      const inline = isInlineBinaryMime(mime);
      const cap = inline ? inlineCapFor(mime, caps.inline) : caps.textBytes;
      if (inline && wanted !== undefined && wanted > cap) {
        return { ...base, size: size ?? offset + wanted, text: marker(wanted, `over the ${formatByteSize(cap)} inline cap; not included`), omitted: { reason: 'over_inline_cap', cap } };
      }
      if (!inline && range === undefined && size !== undefined && size > cap) {
        throw new TooLargeError(`The text is ${formatByteSize(size)}, over the ${formatByteSize(cap)} read cap; read it in ranges of at most ${cap} bytes.`, { details: { cap, size } });
      }
      const hostRange: [number, number] | undefined = range === undefined ? undefined : [offset, offset + Math.min(range.length ?? Number.MAX_SAFE_INTEGER - offset, cap + 1)];
      const stream = await connector.read(hostPath(segments), hostRange === undefined ? {} : { range: hostRange });
      const { bytes, overflowed } = await readUpTo(stream, range === undefined || inline ? cap : Math.min(cap, range.length ?? cap));
      if (overflowed && inline) {
        return { ...base, size: size ?? offset + cap + 1, text: marker(undefined, `over the ${formatByteSize(cap)} inline cap; not included`), omitted: { reason: 'over_inline_cap', cap } };
      }
      if (overflowed && range === undefined) {
        throw new TooLargeError(`The text is over the ${formatByteSize(cap)} read cap; read it in ranges of at most ${cap} bytes.`, { details: { cap } });
      }
      const total = size ?? offset + bytes.byteLength;
      const returned = range === undefined ? {} : { range: { offset, length: bytes.byteLength } };
      if (inline) return { ...base, size: total, text: marker(bytes.byteLength, 'included as bytes'), bytes: Buffer.from(bytes).toString('base64'), ...returned };
      return { ...base, size: total, text: new TextDecoder().decode(bytes), ...returned };
    },

    webhook: (request: Request) => connector.webhook(request),
    dispose: () => connector.dispose(),
  };

  if (claims.has('stat')) {
    port['stat'] = async (uri: string): Promise<ConnectorEntry> => {
      const segments = segmentsOf(uri);
      if (segments.length === 0) return { uri: formatSourceUri(source, []), name: '', type: 'directory' };
      const entry = await connector.stat(hostPath(segments));
      if (entry !== null) return toPortEntry(entry, 'stat');
      if (await hasChildren(segments)) return { uri: formatSourceUri(source, segments), name: segments[segments.length - 1]!, type: 'directory' };
      throw new NotFoundError('No object exists at that address.');
    };
  }

  if (claims.has('write')) {
    const writes = description.writes;
    port['write'] = async (uri: string, content: string | Uint8Array, options: WriteOptions = {}): Promise<ConnectorEntry> => {
      const segments = segmentsOf(uri);
      if (segments.length === 0) throw new IsADirectoryError('The root is a directory; name an object inside it.');
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      if (!(bytes instanceof Uint8Array)) throw new InvalidArgumentError('Content must be a string or bytes.');
      const mime = options.mime ?? mimeFromName(segments[segments.length - 1]!);
      if (writes !== undefined && writes.mimes !== '*' && !writes.mimes.some((accepted) => mimeMatches(accepted, mime))) {
        throw new UnsupportedOperationError(kind, 'write', `mime ${mime}`);
      }
      if (writes?.maxBytes !== undefined && bytes.byteLength > writes.maxBytes) {
        throw new TooLargeError(`Kind "${kind}" accepts writes of at most ${formatByteSize(writes.maxBytes)}.`, { details: { cap: writes.maxBytes } });
      }
      if (options.createOnly === true) {
        if (!claims.has('stat')) throw new UnsupportedOperationError(kind, 'write', 'createOnly');
        if ((await connector.stat(hostPath(segments))) !== null) throw new AlreadyExistsError();
      }
      const written = await connector.write(hostPath(segments), bytesStream(bytes), options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch });
      return toPortEntry(written, 'write');
    };
  }

  if (claims.has('delete')) {
    port['delete'] = async (uri: string, options: DeleteOptions = {}): Promise<void> => {
      const segments = segmentsOf(uri);
      if (segments.length === 0) throw new PermissionDeniedError('The root of a source cannot be deleted.');
      if (options.recursive === true) throw new UnsupportedOperationError(kind, 'delete', 'recursive');
      if (options.ifMatch !== undefined) {
        if (!claims.has('stat')) throw new UnsupportedOperationError(kind, 'delete', 'ifMatch');
        const entry = await connector.stat(hostPath(segments));
        if (entry === null) throw new NotFoundError();
        if (entry.etag !== options.ifMatch) throw new PreconditionFailedError('The object changed since it was read (etag mismatch); nothing was deleted.');
      }
      await connector.delete(hostPath(segments));
    };
  }

  if (claims.has('watch')) port['watch'] = (emit: (event: ChangeEvent) => void) => connector.watch(emit);

  return Object.freeze(port);
}

/** The decoded segments of a host path, or undefined when it cannot be an address. */
function addressable(path: string): string[] | undefined {
  if (path === '') return [];
  const segments = path.split('/');
  return segments.every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\0')) ? segments : undefined;
}

function fileFields(entry: Entry): Pick<ConnectorEntry, 'size' | 'mtime' | 'etag' | 'mime'> {
  return {
    ...(entry.size === undefined ? {} : { size: entry.size }),
    ...(entry.mtime === undefined ? {} : { mtime: entry.mtime }),
    ...(entry.etag === undefined ? {} : { etag: entry.etag }),
    ...(entry.mime === undefined ? {} : { mime: entry.mime }),
  };
}

function mimeMatches(accepted: string, mime: string): boolean {
  const want = accepted.toLowerCase();
  const have = mime.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return want.endsWith('/*') ? have.startsWith(want.slice(0, -1)) : want === have;
}

function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

function encodeCursor(cursor: PortCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string, prefix: string): PortCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const cursor = value as Partial<PortCursor> | undefined;
  if (
    typeof cursor !== 'object' ||
    cursor === null ||
    cursor.p !== prefix ||
    !Number.isSafeInteger(cursor.o) ||
    (cursor.o as number) < 0 ||
    (cursor.c !== undefined && typeof cursor.c !== 'string') ||
    (cursor.d !== undefined && typeof cursor.d !== 'string')
  ) {
    throw new InvalidArgumentError('The cursor is not one this listing issued; start the listing again without a cursor.');
  }
  return cursor as PortCursor;
}
