/**
 * State the trial's checks share, and the small helpers they use: the loaded connector (or why
 * there is none), the entries check 2 listed, the watch subscription and its events, the scratch
 * names, and byte-stream helpers. A check that needs something an earlier check could not provide
 * skips, naming that check.
 */
import type { ChangeEvent, Connector, Description, Entry, HostCapability } from '@inseam/connector';
import { CheckFailure, describeError, describeValue, fail, skip, type FailureDetail } from '@neuralis/package-system/testing';
import type { DocSection } from './docs.js';
import type { TrialEgress } from './egress.js';
import type { TrialOptions, TrialPhase } from './types.js';

/** A watch subscription opened before the checks run, so it sees the install phase's writes. */
export interface WatchState {
  /** Why subscribing failed, when it did. */
  readonly error?: string;
  readonly unsubscribe?: () => unknown;
  readonly events: ChangeEvent[];
  /** Events the sandbox dropped as malformed, with its reason. */
  readonly dropped: string[];
}

export interface TrialContext {
  readonly options: TrialOptions;
  readonly phase: TrialPhase;
  /** Random, per run: keeps scratch names unique. */
  readonly token: string;
  /** Picks check 5's random reads (TrialOptions.seed, else random); named in its detail. */
  readonly seed: number;
  /** The canonical scratch prefix (no trailing `/`), in the install phase. */
  readonly scratchPrefix?: string;
  /** The gate, for a sandboxed module; absent for an in-process connector. */
  readonly egress?: TrialEgress;
  readonly connector?: Connector;
  readonly description?: Description;
  /** Why the connector could not be loaded or described (check 1's failure). */
  readonly loadFailure?: FailureDetail;
  /** The reference section that explains the load failure. */
  readonly loadSection?: DocSection;
  /** What check 2 listed (all the pages it followed). */
  entries?: Entry[];
  /** How many pages check 2 followed. */
  pages?: number;
  /** Check 2 saw `list({ order: "newest" })` list newest first (over at least two ordering values). */
  newestVerified?: boolean;
  watch?: WatchState;
  /** Paths the trial wrote and has not yet removed. */
  readonly created: Set<string>;
  /** When a write, rename or delete of the trial's last succeeded (ms since epoch); 0 before. */
  lastWriteAt: number;
}

export const TRIAL_MARKER = 'inseam-trial';

/** Why checks after a failed load skip. */
export const NOT_LOADED = 'the connector could not be loaded or described (see check 1)';

/** The reason the write checks skip in the submit phase. */
export const AFTER_INSTALL = 'runs after install on a scratch prefix a person names';

export function requireConnector(context: TrialContext): { connector: Connector; description: Description } {
  if (context.connector === undefined || context.description === undefined) skip(NOT_LOADED);
  return { connector: context.connector, description: context.description };
}

export function requireEntries(context: TrialContext): Entry[] {
  requireConnector(context);
  if (context.entries === undefined || context.entries.length === 0) skip('no listed entry to check (see check 2)');
  return context.entries;
}

export function claims(description: Description, capability: HostCapability): boolean {
  return description.capabilities.includes(capability);
}

const FIX_BY_CODE: Readonly<Record<string, string>> = {
  egress_refused: 'the egress gate refused a request the connector sent: check 11 names the origin and why',
  connector_failed: 'the connector threw or broke the Connector contract: the message says where (its console output is in the sandbox log)',
  sandbox_limit: 'the call broke a sandbox limit (time, memory or stack): stream instead of buffering, and bound loops and waits',
  permission_denied: 'the host refused the credential: check the credentials in the trial config and how auth.present presents them',
  unsupported: 'the connector answered unsupported for what its description declares: declare only what the host can do (capabilities; writes.mimes; writes.replace: false when it cannot honour ifMatch), or implement the call',
  not_found: 'the host answered not found: for a write, the scratch prefix must exist on the host (or the connector must create the folders it writes into); for a read or stat, list() must give paths the host can find',
  conflict: 'the host refused the call as a conflict: a create-only write must not find an object at the path, and ifMatch is sent only when the caller gave one',
  invalid_argument: 'the host or the connector refused the arguments: the message says which; map the trial\'s path and body to what the host accepts',
  timeout: 'the host did not answer in time: bound the call (fewer requests, smaller pages) or check that the host is reachable from the trial',
};

/** When a call fails with a code the table does not know (or none): what every failure can act on. */
const FIX_OTHERWISE = 'the call failed with the error shown (the connector\'s own message): fix what it names, and throw errors with a code from the reference (not_found, conflict, permission_denied, invalid_argument, …) so a caller can act on them';

/** Runs a connector call; an error fails the check, saying which call and what came back. */
export async function call<T>(doing: string, action: () => Promise<T>, fix?: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof CheckFailure) throw error;
    const code = errorCode(error);
    return fail(`${doing} succeeds`, `it failed with ${describeError(error)}`, fix ?? (code === undefined ? undefined : FIX_BY_CODE[code]) ?? FIX_OTHERWISE);
  }
}

/** Up to `count` entries spread over the listing: the first, the last, and evenly between. */
export function sampleEntries(entries: readonly Entry[], count: number): Entry[] {
  if (entries.length <= count) return [...entries];
  const picked = new Set<number>();
  for (let index = 0; index < count; index += 1) picked.add(Math.round((index * (entries.length - 1)) / (count - 1)));
  return [...picked].sort((a, b) => a - b).map((index) => entries[index]!);
}

export interface StreamRead {
  readonly bytes: Uint8Array;
  /** True when `cap` bytes were reached and the rest was cancelled. */
  readonly truncated: boolean;
}

/**
 * Reads a stream to its end (or `cap` bytes, then cancels it). Fails the check when the value is
 * not a ReadableStream or a chunk is not a Uint8Array.
 */
export async function readStream(stream: unknown, cap: number, doing: string): Promise<StreamRead> {
  if (!(stream instanceof ReadableStream)) {
    fail(`${doing} resolves to a ReadableStream of Uint8Array chunks`, `it resolved to ${shownKind(stream)}`, 'return new ReadableStream({ ... }) or a fetch response body');
  }
  const reader = (stream as ReadableStream<unknown>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const step = await reader.read();
      if (step.done) return { bytes: concat(chunks, total), truncated: false };
      if (!(step.value instanceof Uint8Array)) {
        fail(`${doing} streams Uint8Array chunks`, `a chunk was ${typeof step.value === 'string' ? 'a string' : typeof step.value}`, 'enqueue bytes (Uint8Array), e.g. new TextEncoder().encode(text)');
      }
      chunks.push(step.value);
      total += step.value.byteLength;
      if (total >= cap) {
        await reader.cancel().catch(() => undefined);
        return { bytes: concat(chunks, total).subarray(0, cap), truncated: true };
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A one-chunk byte stream, as a write body. */
export function bodyStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice());
      controller.close();
    },
  });
}

/**
 * Runs one of the trial's own writes: the gate lets writes through only inside it. Only a write
 * that succeeded changed the host, so only it makes check 8 wait for an event.
 */
export async function trialWrite<T>(context: TrialContext, action: () => Promise<T>): Promise<T> {
  const result = context.egress === undefined ? await action() : await context.egress.duringWrites(action);
  context.lastWriteAt = Date.now();
  return result;
}

/** Resolves after `ms` milliseconds. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `found()` is true or `ms` have passed since `since`; resolves with the last answer. */
export async function waitFor(found: () => boolean, since: number, ms: number): Promise<boolean> {
  while (!found()) {
    if (Date.now() - since >= ms) return false;
    await delay(25);
  }
  return true;
}

/** A value named for a detail: objects by their class, everything else as a short value. */
export function shownKind(value: unknown): string {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== 'Object' ? `a ${name}` : describeValue(value);
  }
  return describeValue(value);
}

/** The MIME type without parameters, lower-cased. */
export function mimeEssence(mime: string): string {
  return mime.split(';')[0]!.trim().toLowerCase();
}

/** An error's string `code`, if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error).code;
  return typeof code === 'string' ? code : undefined;
}
