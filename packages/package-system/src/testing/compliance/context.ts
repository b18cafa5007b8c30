/**
 * State and helpers shared by the compliance checks: the subject, the capability gate that turns
 * "not declared" into a skip, the test data (scratch tree, fixture, or the bare root), and small
 * helpers for URIs, bytes, bounded iteration and typed-error expectations.
 */
import {
  ERROR_CLASSES,
  encodeSegment,
  formatSourceUri,
  parseSourceUri,
} from '../../contracts/index.js';
import type {
  ConnectorCapability,
  ConnectorEntry,
  ConnectorPort,
  DetachedExecFacet,
  ErrorCode,
  SessionContext,
  SourceConnectorEntry,
} from '../../contracts/index.js';
import { describeValue, ensure, expectErrorCode, listProblems, skip } from '../checks.js';
import type { CheckDefinition } from '../checks.js';
import type { ComplianceSubject } from './types.js';

// Byte comparison is shared with the conformance trial.
export { sameBytes } from '../checks.js';

/** One object the harness created under the scratch directory, with its exact content. */
export interface ScratchObject {
  readonly uri: string;
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly mime?: string;
}

/** What `scratch.setup` created: a fresh directory and the objects in it. */
export interface ScratchTree {
  readonly runDir: string;
  readonly objects: readonly ScratchObject[];
  /** Direct children of runDir by name, with their type. */
  readonly children: ReadonlyMap<string, 'file' | 'directory'>;
  /** The text file the read checks use. */
  readonly textFile: ScratchObject;
  /** The PNG the binary-read check uses. */
  readonly binaryFile: ScratchObject;
}

export interface KnownFile {
  readonly uri: string;
  readonly bytes: Uint8Array;
}

/** Where the data checks look: the scratch tree, the fixture's directory, or the source root. */
export interface DataTarget {
  readonly mode: 'scratch' | 'fixture' | 'root';
  readonly dir: string;
  readonly file?: KnownFile;
  readonly tree?: ScratchTree;
}

export interface ComplianceContext {
  readonly port: ConnectorPort;
  readonly manifest: SourceConnectorEntry;
  readonly subject: ComplianceSubject;
  /** The manifest's capabilities[] — what the platform trusts and gates on. */
  readonly declared: ReadonlySet<ConnectorCapability>;
  readonly source: string;
  /** `{source}://` */
  readonly root: string;
  readonly session: SessionContext;
  /** Random, per run: keeps names of created and missing objects unique. */
  readonly token: string;
  scratchTree?: ScratchTree;
  /** Detached runs started and not yet released; released when the run ends. */
  readonly openRuns: Set<string>;
}

export interface ComplianceCheck extends CheckDefinition<string> {
  run(context: ComplianceContext): Promise<string | void>;
}

export const MARKER = 'inseam-compliance';

export function createContext(subject: ComplianceSubject): ComplianceContext {
  const { port, manifest } = subject;
  const source = typeof port.source === 'string' ? port.source : manifest.kind;
  return {
    port,
    manifest,
    subject,
    declared: new Set(manifest.capabilities),
    source,
    root: `${source}://`,
    session: subject.session ?? {
      userId: MARKER,
      projectId: MARKER,
      features: new Set(manifest.execRequires ?? []),
    },
    token: globalThis.crypto.randomUUID().slice(0, 8),
    openRuns: new Set(),
  };
}

type MemberCapability = Exclude<ConnectorCapability, 'execDetached'>;

/**
 * The bound port member for `capability`, or a skip: "write: not declared" when the manifest
 * leaves it out, "…declared, but the port has no write member" when the member is missing (that
 * is capabilities.members' failure; the behaviour checks do not repeat it). list and read are
 * mandatory, so only a missing member skips them.
 */
export function usable<C extends MemberCapability>(context: ComplianceContext, capability: C): NonNullable<ConnectorPort[C]> {
  const mandatory = capability === 'list' || capability === 'read';
  if (!mandatory && !context.declared.has(capability)) skip(`${capability}: not declared`);
  const member = (context.port as unknown as Record<string, unknown>)[capability];
  if (typeof member !== 'function') {
    skip(`${capability}: declared, but the port has no ${capability} member (see capabilities.members)`);
  }
  return member.bind(context.port) as NonNullable<ConnectorPort[C]>;
}

export function usableDetached(context: ComplianceContext): DetachedExecFacet {
  if (!context.declared.has('execDetached')) skip('execDetached: not declared');
  const facet = context.port.detached;
  const verbs = ['start', 'status', 'output', 'kill', 'release'] as const;
  if (typeof facet !== 'object' || facet === null || verbs.some((verb) => typeof facet[verb] !== 'function')) {
    skip('execDetached: declared, but the port has no complete detached facet (see capabilities.members)');
  }
  return facet;
}

export function knownFixture(context: ComplianceContext): KnownFile | undefined {
  const fixture = context.subject.fixture;
  if (fixture === undefined) return undefined;
  return { uri: fixture.uri, bytes: toBytes(fixture.content) };
}

export function dataTarget(context: ComplianceContext): DataTarget {
  const tree = context.scratchTree;
  if (tree !== undefined) return { mode: 'scratch', dir: tree.runDir, file: { uri: tree.textFile.uri, bytes: tree.textFile.bytes }, tree };
  const fixture = knownFixture(context);
  if (fixture !== undefined) return { mode: 'fixture', dir: parentUri(fixture.uri), file: fixture };
  return { mode: 'root', dir: context.root };
}

/** The known file of the data target, or a skip saying how to provide one. */
export function requireKnownFile(context: ComplianceContext): KnownFile {
  const file = dataTarget(context).file;
  if (file === undefined) skip('no known file: give a scratch directory (with write declared) or a fixture');
  return file;
}

/** The scratch tree, or a skip saying why there is none. */
export function requireScratch(context: ComplianceContext, capability: ConnectorCapability): ScratchTree {
  if (context.scratchTree !== undefined) return context.scratchTree;
  if (context.subject.scratch === undefined) skip(`${capability}: no scratch directory given`);
  skip(`${capability}: the scratch directory could not be prepared (see scratch.setup)`);
}

export function toBytes(content: Uint8Array | string): Uint8Array {
  return typeof content === 'string' ? new TextEncoder().encode(content) : content;
}

export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}


/** Decodes base64, or undefined when the text is not canonical base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? new Uint8Array(bytes) : undefined;
}

/** The canonical form of a URI (so `src://a/` and `src://a` compare equal). */
export function canonicalUri(uri: string): string {
  const parsed = parseSourceUri(uri);
  return formatSourceUri(parsed.source, parsed.segments);
}

export function childUri(directory: string, name: string): string {
  const canonical = canonicalUri(directory);
  return canonical.endsWith('://') ? `${canonical}${encodeSegment(name)}` : `${canonical}/${encodeSegment(name)}`;
}

export function parentUri(uri: string): string {
  const parsed = parseSourceUri(uri);
  return formatSourceUri(parsed.source, parsed.segments.slice(0, -1));
}

/** A slug for "some other source", to address a URI this connector must refuse. */
export function otherSource(context: ComplianceContext): string {
  return `${context.source}-other`;
}

const FIX_IMPORT = '@neuralis/package-system/contracts';

/** "throw NotFoundError (code "not_found") from @neuralis/package-system/contracts" */
export function throwFix(code: ErrorCode, when?: string): string {
  const thrown = `throw ${ERROR_CLASSES[code].name} (code "${code}") from ${FIX_IMPORT}`;
  return when === undefined ? thrown : `${thrown} ${when}`;
}

/** Requires `action` to fail with the typed error `code`; the fix names the class to throw. */
export function expectCode(action: () => unknown, code: ErrorCode, doing: string, fix?: string): Promise<Error> {
  return expectErrorCode(action, code, { doing, fix: fix ?? throwFix(code) });
}

/** Awaits a promise, or takes the first step of an async iterable (where walk/scanContent throw). */
export async function settle(result: unknown): Promise<unknown> {
  if (typeof result === 'object' && result !== null && Symbol.asyncIterator in result) {
    const iterator = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    const step = await iterator.next();
    await iterator.return?.();
    return step.value;
  }
  return result;
}

/** Collects at most `max` items; `complete` is false when the iterable had more. */
export async function collect<T>(iterable: AsyncIterable<T>, max: number): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  const iterator = iterable[Symbol.asyncIterator]();
  for (;;) {
    const step = await iterator.next();
    if (step.done === true) return { items, complete: true };
    if (items.length === max) {
      await iterator.return?.();
      return { items, complete: false };
    }
    items.push(step.value);
  }
}

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** What is wrong with an entry listed (or walked) under `parent`; [] when it is well formed. */
export function entryProblems(entry: ConnectorEntry, parent: string, source: string): string[] {
  const problems: string[] = [];
  const label = describeValue(entry?.uri);
  if (typeof entry !== 'object' || entry === null) return [`an entry is ${describeValue(entry)}, not an object`];
  let segments: readonly string[] | undefined;
  try {
    segments = parseSourceUri(entry.uri, source).segments;
  } catch (error) {
    problems.push(`${label} is not a URI on source "${source}" (${(error as Error).message})`);
  }
  if (segments !== undefined) {
    if (formatSourceUri(source, segments) !== entry.uri) {
      problems.push(`${label} is not canonical; expected ${describeValue(formatSourceUri(source, segments))}`);
    }
    if (formatSourceUri(source, segments.slice(0, -1)) !== canonicalUri(parent) || segments.length === 0) {
      problems.push(`${label} is not a child of ${describeValue(parent)}`);
    }
    if (entry.name !== (segments.at(-1) ?? '')) problems.push(`${label} has name ${describeValue(entry.name)}, not its decoded last segment`);
  }
  if (entry.type !== 'file' && entry.type !== 'directory') problems.push(`${label} has type ${describeValue(entry.type)}`);
  if (entry.size !== undefined && (!Number.isInteger(entry.size) || entry.size < 0)) problems.push(`${label} has size ${describeValue(entry.size)}`);
  if (entry.type === 'directory' && entry.size !== undefined) problems.push(`${label} is a directory with a size`);
  if (entry.mtime !== undefined && (typeof entry.mtime !== 'string' || !RFC3339_UTC.test(entry.mtime))) {
    problems.push(`${label} has mtime ${describeValue(entry.mtime)}, not RFC 3339 UTC`);
  }
  if (entry.etag !== undefined && (typeof entry.etag !== 'string' || entry.etag === '')) problems.push(`${label} has etag ${describeValue(entry.etag)}`);
  if (entry.mime !== undefined && (typeof entry.mime !== 'string' || !entry.mime.includes('/'))) problems.push(`${label} has mime ${describeValue(entry.mime)}`);
  return problems;
}

/** Fails the check when any entry is malformed or listed twice. */
export function ensureWellFormed(entries: readonly ConnectorEntry[], parentOf: (entry: ConnectorEntry) => string, source: string, doing: string): void {
  const problems = entries.flatMap((entry) => entryProblems(entry, parentOf(entry), source));
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.uri)) problems.push(`${describeValue(entry.uri)} appears twice`);
    seen.add(entry.uri);
  }
  ensure(problems.length === 0, () => ({
    expected: `${doing} yields well-formed entries: canonical {source}://{path} URIs, the decoded last segment as name, type file|directory, RFC 3339 UTC mtime`,
    actual: listProblems(problems),
  }));
}

/**
 * Lists `directory` and everything below it through `list` alone (first page of each directory),
 * as the reference the walk and scanContent checks compare with. `complete` is false when a page
 * had a cursor or `max` entries were reached.
 */
export async function listTree(context: ComplianceContext, directory: string, max = 500): Promise<{ entries: ConnectorEntry[]; complete: boolean }> {
  const list = usable(context, 'list');
  const entries: ConnectorEntry[] = [];
  const pending = [directory];
  let complete = true;
  while (pending.length > 0) {
    const next = pending.shift() as string;
    const page = await list(next);
    if (page.cursor !== undefined) complete = false;
    for (const entry of page.entries) {
      if (entries.length === max) return { entries, complete: false };
      entries.push(entry);
      if (entry.type === 'directory') pending.push(entry.uri);
    }
  }
  return { entries, complete };
}

/** Names what is in one set of URIs and not the other, for a failure detail. */
export function describeSetDifference(expected: ReadonlySet<string>, actual: ReadonlySet<string>): string {
  const missing = [...expected].filter((uri) => !actual.has(uri));
  const extra = [...actual].filter((uri) => !expected.has(uri));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.slice(0, 5).map(describeValue).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
  if (extra.length > 0) parts.push(`unexpected ${extra.slice(0, 5).map(describeValue).join(', ')}${extra.length > 5 ? ` and ${extra.length - 5} more` : ''}`);
  return parts.join('; ');
}

export function setsEqual(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((item) => b.has(item));
}
