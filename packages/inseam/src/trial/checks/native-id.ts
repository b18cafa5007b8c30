/**
 * Check 9: a reported nativeId survives a rename, or the rename shows as a move event. The
 * Connector interface has no rename, so the trial creates a scratch object, has it renamed by the
 * host's own means (`TrialOptions.rename`: a person in the host's app, or a test talking to the
 * host directly), and then looks at stat and the watch events.
 *
 * In either phase, two listed entries sharing one nativeId fail at once: an id the host reuses
 * must not be reported.
 */
import type { Entry } from '@inseam/connector';
import { describeValue, ensure, skip } from '@neuralis/package-system/testing';
import { AFTER_INSTALL, call, claims, requireConnector, requireEntries, waitFor, type TrialContext } from '../context.js';
import { DOC_SECTIONS, failAt } from '../docs.js';
import { createScratch, requireWrites, samplePath, writeSamples } from './writes.js';

const DEFAULT_EVENT_WAIT_MS = 3000;

function duplicateIds(entries: readonly Entry[]): string[] {
  const byId = new Map<string, string[]>();
  for (const entry of entries) {
    if (entry.nativeId === undefined) continue;
    byId.set(entry.nativeId, [...(byId.get(entry.nativeId) ?? []), entry.path]);
  }
  return [...byId].filter(([, paths]) => paths.length > 1).map(([id, paths]) => `nativeId ${describeValue(id)} on ${paths.slice(0, 3).map((path) => describeValue(path)).join(' and ')}`);
}

/** Check 9. */
export async function checkNativeId(context: TrialContext): Promise<string> {
  const entries = requireEntries(context);
  const reporting = entries.filter((entry) => entry.nativeId !== undefined);
  if (reporting.length === 0) skip('no listed entry reports a nativeId');
  const duplicates = duplicateIds(entries);
  ensure(duplicates.length === 0, {
    expected: 'a nativeId names one object: no two listed entries share one',
    actual: duplicates.slice(0, 3).join('; '),
    fix: 'report nativeId only when the host never reuses it for another object; otherwise leave it out',
  });
  if (context.phase !== 'install') skip(AFTER_INSTALL);
  const { writes } = requireWrites(context);
  const rename = context.options.rename;
  if (rename === undefined) {
    skip('renaming a scratch object needs the host\'s own means (the Connector has no rename): run the install phase in a terminal, where the trial asks a person to rename it, or from code with the rename option');
  }
  const { connector, description } = requireConnector(context);
  const sample = writeSamples(writes.mimes, context.options.samples ?? [], writes.samples ?? []).find((item) => item.sample !== undefined)?.sample;
  if (sample === undefined) skip('no declared type has a built-in sample, so no scratch object can be made');
  const from = samplePath(context, sample, 'rename-a');
  const to = samplePath(context, sample, 'rename-b');
  const created = await createScratch(context, from, sample);
  let nativeId = created.nativeId;
  if (nativeId === undefined && claims(description, 'stat')) nativeId = (await call(`stat(${JSON.stringify(from)})`, () => connector.stat(from)))?.nativeId;
  ensure(nativeId !== undefined, {
    expected: 'the scratch object reports a nativeId, as the listed entries do',
    actual: 'neither write() nor stat() reports one',
    fix: 'report nativeId on every entry of an object the host gives a stable id, including the Entry write() returns',
  });
  await call(`renaming ${JSON.stringify(from)} to ${JSON.stringify(to)} on the host`, async () => rename(from, to));
  context.lastWriteAt = Date.now();
  context.created.delete(from);
  context.created.add(to);
  let after: Entry | null = null;
  if (claims(description, 'stat')) {
    after = await call(`stat(${JSON.stringify(to)}) after the rename`, () => connector.stat(to));
    if (after?.nativeId === nativeId) return `nativeId ${describeValue(nativeId)} kept across the rename of ${from} to ${to}`;
  }
  const events = context.watch?.events ?? [];
  const moved = (): boolean => events.some((event) => event.type === 'move' && event.from === from && event.path === to);
  const wait = context.options.eventWaitMs ?? DEFAULT_EVENT_WAIT_MS;
  if (context.watch !== undefined && context.watch.error === undefined && (await waitFor(moved, context.lastWriteAt, wait))) {
    return `the rename of ${from} to ${to} was emitted as a move event`;
  }
  const seen = after === null ? (claims(description, 'stat') ? 'stat of the new path is null' : 'stat is not claimed') : `stat of the new path reports nativeId ${describeValue(after.nativeId)}`;
  return failAt(
    DOC_SECTIONS.identityNativeId,
    `after renaming ${JSON.stringify(from)} (nativeId ${describeValue(nativeId)}) to ${JSON.stringify(to)}, the object keeps its nativeId, or watch emits a move from the old path to the new`,
    `${seen}; ${context.watch === undefined ? 'watch is not claimed' : `no move event in ${wait} ms`}`,
    'report as nativeId the host\'s own id for the object (one a rename keeps), not one derived from its name or path; or, without such an id, emit { type: "move", from, path } from watch',
  );
}
