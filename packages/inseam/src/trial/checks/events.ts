/**
 * Check 8: parsed change events have a type, a path and, for a move, a from.
 *
 * watch: the trial subscribes after check 2 (`openWatch`; check 2 counts what its listings send,
 * which a polling watch would add to), so the install phase's writes, rename and deletes produce
 * events; it requires at least one event for them then. In
 * the submit phase nothing changes the host, so events are checked only if the host changed on
 * its own (or the connector emits on subscribing). Events the sandbox dropped as malformed fail.
 * webhook: a sample delivery (`webhookSample`) is parsed and its events checked; without one, a
 * sandboxed module is asked with an empty delivery only to learn whether it has webhook() at all.
 */
import type { ChangeEvent, Connector } from '@inseam/connector';
import { describeError, describeValue, listProblems, skip, type FailureDetail, CheckFailure } from '@neuralis/package-system/testing';
import { claims, errorCode, requireConnector, waitFor, type TrialContext, type WatchState } from '../context.js';
import { isCanonicalPath } from './entry-forms.js';
import type { TrialWebhookSample } from '../types.js';

const DEFAULT_EVENT_WAIT_MS = 3000;
const EVENT_TYPES: ReadonlySet<string> = new Set(['put', 'delete', 'move', 'rescan']);
const WEBHOOK_URL = 'https://webhook.trial.invalid/';
const DROPPED = 'A watch event was dropped: ';

/** Subscribes when watch is claimed. Never throws: a failure is kept for check 8. */
export async function openWatch(context: TrialContext): Promise<void> {
  const { connector, description } = context;
  if (connector === undefined || description === undefined || !claims(description, 'watch') || connector.watch === undefined) return;
  const events: ChangeEvent[] = [];
  const state: { -readonly [K in keyof WatchState]: WatchState[K] } = { events, dropped: [] };
  context.watch = state;
  try {
    const unsubscribe = await connector.watch((event) => events.push(event));
    if (typeof unsubscribe === 'function') state.unsubscribe = once(unsubscribe);
    else state.error = `watch() resolved to ${describeValue(unsubscribe)}, not an unsubscribe function`;
  } catch (error) {
    state.error = `watch() failed with ${describeError(error)}`;
  }
}

/** The unsubscribe function, callable any number of times (check 8 calls it, and so does the end of the run). */
function once(unsubscribe: () => unknown): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= Promise.resolve().then(unsubscribe).then(() => undefined));
}

/** Stops the watch subscription, if one is open; never throws. */
export async function closeWatch(context: TrialContext): Promise<void> {
  await Promise.resolve(context.watch?.unsubscribe?.()).catch(() => undefined);
}

/** Why an event breaks the ChangeEvent shape, or undefined. */
export function eventProblem(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return `${describeValue(event)} is not an event object`;
  const { type, path, from, entry } = event as Record<string, unknown>;
  const label = `a ${typeof type === 'string' ? `"${type}"` : 'typeless'} event`;
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return `${label} has type ${describeValue(type)}, not put, delete, move or rescan`;
  if (typeof path !== 'string') return `${label} has path ${describeValue(path)}, not a string`;
  if (path === '' && type !== 'rescan') return `${label} has an empty path`;
  if (type === 'move' && (typeof from !== 'string' || from === '')) return `a "move" event to ${describeValue(path)} has no from`;
  if (from !== undefined && typeof from !== 'string') return `${label} has from ${describeValue(from)}, not a string`;
  if (path !== '' && !isCanonicalPath(path)) return `${label} has path ${describeValue(path)}, which is not canonical (spell it as Entry.path is)`;
  if (typeof from === 'string' && !isCanonicalPath(from)) return `${label} has from ${describeValue(from)}, which is not canonical (spell it as Entry.path is)`;
  if (entry !== undefined && (typeof entry !== 'object' || entry === null || (entry as { path?: unknown }).path !== path)) {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc -b fails without it; the lint program, built from every workspace's sources, types this differently
    return `${label} for ${describeValue(path)} carries an entry whose path is ${describeValue((entry as { path?: unknown } | null)?.path)}`;
  }
  return undefined;
}

const EVENT_FIX = 'emit { type: "put" | "delete" | "move" | "rescan", path } with the object\'s canonical path, and from (the old path) on a move';

interface WebhookOutcome {
  readonly claimed: boolean;
  readonly events?: readonly ChangeEvent[];
  readonly note: string;
}

function sampleRequest(sample: TrialWebhookSample): Request {
  const body = typeof sample.body === 'string' ? sample.body : JSON.stringify(sample.body);
  const headers = new Headers(sample.headers ?? {});
  if (typeof sample.body !== 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return new Request(WEBHOOK_URL, { method: sample.method ?? 'POST', headers, body });
}

async function exerciseWebhook(context: TrialContext, connector: Connector): Promise<WebhookOutcome> {
  if (typeof connector.webhook !== 'function') return { claimed: false, note: '' };
  const sample = context.options.webhookSample;
  const inProcess = context.egress === undefined;
  if (sample === undefined && inProcess) return { claimed: true, note: 'webhook() exists but no sample delivery was given (webhookSample), so its parsing was not checked' };
  const request = sample === undefined ? new Request(WEBHOOK_URL, { method: 'POST', body: '' }) : sampleRequest(sample);
  try {
    const events = await connector.webhook(request);
    if (sample === undefined) return { claimed: true, events, note: 'webhook() answered an empty delivery' };
    return { claimed: true, events, note: `the sample delivery parsed into ${Array.isArray(events) ? events.length : 0} event(s)` };
  } catch (error) {
    if (errorCode(error) === 'unsupported') {
      if (sample === undefined) return { claimed: false, note: '' };
      throw new CheckFailure({
        expected: 'a connector given a sample webhook delivery parses it with webhook(request)',
        actual: 'the connector has no webhook()',
        fix: 'implement webhook(request) returning ChangeEvent[], or remove webhookSample from the trial config',
      });
    }
    if (sample === undefined) return { claimed: true, note: 'webhook() exists but no sample delivery was given (webhookSample in the config file), so its parsing was not checked' };
    throw new CheckFailure({
      expected: 'webhook(request) parses the sample delivery into change events',
      actual: `it failed with ${describeError(error)}`,
      fix: 'read the delivery\'s body (await request.text() or .json()) and map each change the host reports to { type, path, from? }',
    });
  }
}

function failWith(detail: FailureDetail): never {
  throw new CheckFailure(detail);
}

/** Check 8. Closes the watch subscription. */
export async function checkEvents(context: TrialContext, logs: readonly { readonly message: string }[]): Promise<string> {
  const { connector, description } = requireConnector(context);
  const watching = claims(description, 'watch');
  const state = context.watch;
  if (watching && state === undefined) {
    failWith({ expected: 'a connector that claims watch has a watch(emit) method', actual: 'it has none', fix: 'implement watch(emit), or drop "watch" from capabilities' });
  }
  const webhook = await exerciseWebhook(context, connector);
  if (!watching && !webhook.claimed) skip('neither watch nor webhook is claimed');
  const notes: string[] = [];
  const problems: string[] = [];
  let checked = 0;
  if (state !== undefined) {
    if (state.error !== undefined) {
      failWith({ expected: 'watch(emit) resolves to an unsubscribe function', actual: state.error, fix: 'subscribe (start polling or open the host\'s stream) and resolve to a function that stops it' });
    }
    const wrote = context.phase === 'install' && context.lastWriteAt > 0;
    if (wrote) {
      const prefix = `${context.scratchPrefix}/`;
      const touched = (): boolean => state.events.some((event) => event.type === 'rescan' || (typeof event.path === 'string' && event.path.startsWith(prefix)));
      const arrived = await waitFor(touched, context.lastWriteAt, context.options.eventWaitMs ?? DEFAULT_EVENT_WAIT_MS);
      if (!arrived) {
        problems.push(`no event for the trial's writes under ${prefix} arrived within ${context.options.eventWaitMs ?? DEFAULT_EVENT_WAIT_MS} ms of the last one`);
      }
    }
    const dropped = logs.filter((record) => record.message.startsWith(DROPPED)).map((record) => `the sandbox dropped an event: ${record.message.slice(DROPPED.length)}`);
    problems.push(...dropped);
    for (const event of state.events) {
      const problem = eventProblem(event);
      if (problem !== undefined) problems.push(problem);
    }
    checked += state.events.length + dropped.length;
    try {
      await state.unsubscribe?.();
    } catch (error) {
      problems.push(`unsubscribing failed with ${describeError(error)}`);
    }
    if (state.events.length + dropped.length === 0 && !wrote) notes.push('watch subscribed and unsubscribed, but nothing changed on the host during the trial');
    else notes.push(`watch: ${state.events.length} event(s)`);
  }
  if (webhook.claimed) {
    for (const event of webhook.events ?? []) {
      const problem = eventProblem(event);
      if (problem !== undefined) problems.push(`webhook: ${problem}`);
    }
    checked += webhook.events?.length ?? 0;
    notes.push(webhook.note);
  }
  if (problems.length > 0) {
    failWith({
      expected: watching && context.phase === 'install' ? 'watch emits well-formed events for the trial\'s writes: a type, a path and, for move, a from' : 'every parsed event has a type, a path and, for move, a from',
      actual: listProblems(problems),
      fix: EVENT_FIX,
    });
  }
  if (checked === 0) skip(`${notes.join('; ')}; no event could be checked${context.phase === 'submit' ? ' (the install phase\'s writes produce events)' : ''}`);
  return notes.join('; ');
}
