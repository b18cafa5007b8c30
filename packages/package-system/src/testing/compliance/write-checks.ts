/**
 * Checks of the write side, all inside the run's scratch directory: write (create, replace,
 * ifMatch, createOnly), delete, and the final cleanup.
 */
import { describeValue, ensure, skip } from '../checks.js';
import { MARKER, childUri, expectCode, requireScratch, throwFix, usable } from './context.js';
import type { ComplianceCheck, ComplianceContext } from './context.js';

async function readText(context: ComplianceContext, uri: string): Promise<string> {
  return (await usable(context, 'read')(uri)).text;
}

/** Whether `name` is listed in `directory` (used where a read must not be relied on). */
async function isListed(context: ComplianceContext, directory: string, name: string): Promise<boolean> {
  return (await usable(context, 'list')(directory)).entries.some((entry) => entry.name === name);
}

const createReplace: ComplianceCheck = {
  id: 'write.create-replace',
  name: 'write creates and replaces objects (string or bytes), creates missing parents, returns the entry with a new etag; a directory address is is_a_directory',
  capability: 'write',
  async run(context) {
    const write = usable(context, 'write');
    const { runDir, children } = requireScratch(context, 'write');
    const folder = childUri(runDir, 'w');
    const uri = childUri(folder, 'created.txt');
    const first = await write(uri, 'first version\n');
    ensure(first?.uri === uri && first.type === 'file' && typeof first.etag === 'string' && first.etag !== '', {
      expected: `the entry as written: uri ${describeValue(uri)}, type file, a non-empty etag`,
      actual: describeValue(first),
    });
    ensure(first.size === undefined || first.size === 14, { expected: 'size 14', actual: `size ${describeValue(first.size)}` });
    const afterFirst = await readText(context, uri);
    ensure(afterFirst === 'first version\n', { expected: 'read returns "first version\\n"', actual: describeValue(afterFirst) });
    const second = await write(uri, new TextEncoder().encode('second\n'));
    const afterSecond = await readText(context, uri);
    ensure(afterSecond === 'second\n', { expected: 'after a replace with bytes, read returns "second\\n"', actual: describeValue(afterSecond) });
    ensure(second?.etag !== first.etag, {
      expected: 'a new etag after the content changed',
      actual: `etag ${describeValue(second?.etag)} both times`,
    });
    const deep = childUri(childUri(childUri(folder, 'deep'), 'er'), 'x.txt');
    await write(deep, 'x');
    ensure(await isListed(context, childUri(folder, 'deep'), 'er'), {
      expected: 'writing below missing directories creates them',
      actual: `${childUri(folder, 'deep')} does not list "er"`,
    });
    const directory = [...children].find(([, type]) => type === 'directory')?.[0] as string;
    await expectCode(() => write(childUri(runDir, directory), 'x'), 'is_a_directory', 'write to a directory address');
    return 'created, replaced (string then bytes), parents created, directory refused';
  },
};

const ifMatch: ComplianceCheck = {
  id: 'write.if-match',
  name: 'write with a stale ifMatch (or on a missing object) is precondition_failed and writes nothing',
  capability: 'write',
  async run(context) {
    const write = usable(context, 'write');
    const { runDir } = requireScratch(context, 'write');
    const folder = childUri(runDir, 'w');
    const uri = childUri(folder, 'cas.txt');
    const v1 = await write(uri, 'v1');
    const v2 = await write(uri, 'v2', { ifMatch: v1.etag as string });
    ensure(typeof v2?.etag === 'string' && v2.etag !== v1.etag, {
      expected: 'write with the current etag as ifMatch succeeds with a new etag',
      actual: describeValue(v2),
    });
    await expectCode(() => write(uri, 'v3', { ifMatch: v1.etag as string }), 'precondition_failed', 'write with a stale ifMatch', throwFix('precondition_failed', 'when ifMatch differs from the current etag, before writing anything'));
    const kept = await readText(context, uri);
    ensure(kept === 'v2', { expected: 'the refused write changed nothing: read returns "v2"', actual: describeValue(kept) });
    const missingName = `${MARKER}-cas-missing.txt`;
    await expectCode(() => write(childUri(folder, missingName), 'v1', { ifMatch: v1.etag as string }), 'precondition_failed', 'write with ifMatch to a missing object');
    ensure(!(await isListed(context, folder, missingName)), {
      expected: 'the refused write created nothing',
      actual: `${missingName} is listed`,
    });
    return 'current etag accepted; stale etag and missing object refused; nothing written';
  },
};

const createOnly: ComplianceCheck = {
  id: 'write.create-only',
  name: 'write with createOnly onto an existing object is already_exists and writes nothing',
  capability: 'write',
  async run(context) {
    const write = usable(context, 'write');
    const { runDir } = requireScratch(context, 'write');
    const uri = childUri(childUri(runDir, 'w'), 'once.txt');
    await write(uri, 'original', { createOnly: true });
    await expectCode(() => write(uri, 'replacement', { createOnly: true }), 'already_exists', 'write with createOnly onto an existing object');
    const kept = await readText(context, uri);
    ensure(kept === 'original', { expected: 'the refused write changed nothing: read returns "original"', actual: describeValue(kept) });
    return 'created once; second createOnly refused';
  },
};

const deleteRemoves: ComplianceCheck = {
  id: 'delete.removes',
  name: 'delete removes an object (then stat/read are not_found); missing is not_found; a non-empty directory needs recursive',
  capability: 'delete',
  async run(context) {
    const remove = usable(context, 'delete');
    if (!context.declared.has('write') || typeof context.port.write !== 'function') skip('delete: needs write to create objects it may delete');
    const write = usable(context, 'write');
    const { runDir } = requireScratch(context, 'delete');
    const folder = childUri(runDir, 'd');
    const doomed = childUri(folder, 'doomed.txt');
    const keep = childUri(folder, 'keep.txt');
    await write(doomed, 'doomed');
    await write(keep, 'keep');
    await remove(doomed);
    if (context.declared.has('stat') && typeof context.port.stat === 'function') {
      const stat = usable(context, 'stat');
      await expectCode(() => stat(doomed), 'not_found', 'stat after delete');
    }
    await expectCode(() => usable(context, 'read')(doomed), 'not_found', 'read after delete');
    const listed = (await usable(context, 'list')(folder)).entries.map((entry) => entry.name);
    ensure(!listed.includes('doomed.txt') && listed.includes('keep.txt'), {
      expected: 'the listing no longer shows the deleted object and still shows its sibling',
      actual: `lists ${describeValue(listed)}`,
    });
    await expectCode(() => remove(doomed), 'not_found', 'delete of a missing object');
    await expectCode(() => remove(folder), 'precondition_failed', 'delete of a non-empty directory without recursive');
    ensure((await readText(context, keep)) === 'keep', { expected: 'the refused delete removed nothing', actual: `${keep} changed` });
    await remove(folder, { recursive: true });
    await expectCode(() => usable(context, 'read')(keep), 'not_found', 'read below a recursively deleted directory');
    return 'deleted a file and a directory tree; refusals as specified';
  },
};

const cleanup: ComplianceCheck = {
  id: 'scratch.cleanup',
  name: 'delete with recursive removes the run directory; afterwards it is not_found',
  capability: 'delete',
  async run(context) {
    const tree = context.scratchTree;
    if (tree === undefined) skip('no scratch objects were created');
    if (!context.declared.has('delete') || typeof context.port.delete !== 'function') {
      skip(`delete: not declared; the scratch objects under ${tree.runDir} remain`);
    }
    await usable(context, 'delete')(tree.runDir, { recursive: true });
    await expectCode(() => usable(context, 'list')(tree.runDir), 'not_found', 'list of the deleted run directory');
    return `removed ${tree.runDir}`;
  },
};

export const WRITE_CHECKS: readonly ComplianceCheck[] = [createReplace, ifMatch, createOnly, deleteRemoves];

export const CLEANUP_CHECKS: readonly ComplianceCheck[] = [cleanup];
