/**
 * Check 10: on the scratch prefix, once per declared MIME type, create an object, read back the
 * same bytes, replace it with ifMatch (and see a stale ifMatch refused), and delete it. Runs in
 * the install phase only; everything it creates is removed (see `cleanUpScratch`). A host that
 * declares `writes.replace: false` is not asked to replace: the check passes on the other steps
 * and its detail says the replace step was left out and why (REPLACE_NOT_DECLARED).
 */
import type { Description, Entry, Writes } from '@inseam/connector';
import {
  SAMPLE_BODIES,
  describeBytesDifference,
  describeValue,
  ensure,
  expectErrorCode,
  sampleBodyFor,
  skip,
  type SampleBody,
} from '@neuralis/package-system/testing';
import {
  AFTER_INSTALL,
  bodyStream,
  call,
  claims,
  errorCode,
  mimeEssence,
  readStream,
  requireConnector,
  scratchPath,
  trialWrite,
  type TrialContext,
} from '../context.js';

/** What a declared MIME type is exercised with; `sample` is absent when there is none built in. */
export interface WriteSample {
  readonly declared: string;
  readonly sample?: SampleBody;
}

/** One sample per declared type: `*` → text/plain and application/octet-stream; `type/*` → the first built-in of that type. */
export function writeSamples(mimes: Writes['mimes']): WriteSample[] {
  const declared = mimes === '*' ? ['text/plain', 'application/octet-stream'] : [...mimes];
  const samples: WriteSample[] = [];
  const used = new Set<string>();
  for (const mime of declared) {
    const essence = mimeEssence(mime);
    const sample = essence.endsWith('/*') ? SAMPLE_BODIES.find((item) => item.mime.startsWith(essence.slice(0, -1))) : sampleBodyFor(essence);
    if (sample !== undefined && used.has(sample.mime)) continue;
    if (sample !== undefined) used.add(sample.mime);
    samples.push(sample === undefined ? { declared: mime } : { declared: mime, sample });
  }
  return samples;
}

/** The connector's writes, or the reason check 9 or 10 cannot write. */
export function requireWrites(context: TrialContext): { description: Description; writes: Writes } {
  const { description } = requireConnector(context);
  const writes = description.writes;
  if (writes === undefined) skip('writes is not declared (a read-only connector)');
  if (context.phase !== 'install' || context.scratchPrefix === undefined) skip(AFTER_INSTALL);
  if (!writes.create) skip('writes.create is false, so the trial cannot make a scratch object');
  return { description, writes };
}

/** Reads `path` back and requires exactly `bytes`. */
export async function expectContent(context: TrialContext, path: string, bytes: Uint8Array, after: string): Promise<void> {
  const { connector } = requireConnector(context);
  const doing = `read(${JSON.stringify(path)}) ${after}`;
  const got = await readStream(await call(doing, () => connector.read(path)), bytes.byteLength + 1024, doing);
  const difference = describeBytesDifference(bytes, got.bytes);
  ensure(difference === '', {
    expected: `${doing} streams the ${bytes.byteLength} bytes written`,
    actual: difference,
    fix: 'send the body\'s bytes unchanged (no text decoding, no newline or charset conversion) and read the stored bytes back the same way',
  });
}

/** Creates `path` from `sample.body`; returns the entry write() answered. */
export async function createScratch(context: TrialContext, path: string, sample: SampleBody): Promise<Entry> {
  const { connector } = requireConnector(context);
  context.created.add(path);
  const entry = await call(`write(${JSON.stringify(path)}) creating a ${sample.mime} object`, () =>
    trialWrite(context, () => connector.write!(path, bodyStream(sample.body))),
  );
  ensure(typeof entry === 'object' && entry !== null && entry.path === path, {
    expected: `write(${JSON.stringify(path)}) resolves to the written object's Entry, with that path`,
    actual: describeValue(entry),
    fix: 'return the Entry of the object as written (from the host\'s answer, or stat after the write)',
  });
  return entry;
}

/** The object's etag, from the entry write() answered or from stat. */
async function etagOf(context: TrialContext, entry: Entry): Promise<string | undefined> {
  const { connector, description } = requireConnector(context);
  if (typeof entry.etag === 'string' && entry.etag !== '') return entry.etag;
  if (!claims(description, 'stat')) return undefined;
  return (await call(`stat(${JSON.stringify(entry.path)})`, () => connector.stat(entry.path)))?.etag;
}

/** Deletes `path` and requires it gone. */
export async function deleteScratch(context: TrialContext, path: string): Promise<void> {
  const { connector, description } = requireConnector(context);
  await call(`delete(${JSON.stringify(path)})`, () => trialWrite(context, () => connector.delete!(path)));
  context.created.delete(path);
  if (claims(description, 'stat')) {
    const after = await call(`stat(${JSON.stringify(path)}) after delete`, () => connector.stat(path));
    ensure(after === null, {
      expected: `after delete(${JSON.stringify(path)}), stat of it is null`,
      actual: `stat reports ${describeValue(after)}`,
      fix: 'delete the object on the host (check the answer\'s status), and answer null from stat() when the host has no object there',
    });
    return;
  }
  await expectErrorCode(() => connector.read(path), 'not_found', {
    doing: `read(${JSON.stringify(path)}) after delete`,
    fix: 'throw an error with code "not_found" when the host has no object at the path',
  });
}

async function exerciseSample(context: TrialContext, writes: Writes, sample: SampleBody, index: number): Promise<string> {
  const { connector } = requireConnector(context);
  const path = scratchPath(context, `${index}.${sample.extension}`);
  const created = await createScratch(context, path, sample);
  await expectContent(context, path, sample.body, 'after create');
  if (writes.mimes !== '*' && created.mime !== undefined) {
    ensure(mimeEssence(created.mime) === sample.mime, {
      expected: `an object written as ${sample.mime} (name *.${sample.extension}) reports mime ${sample.mime}`,
      actual: `mime ${describeValue(created.mime)}`,
      fix: `map the .${sample.extension} extension to ${sample.mime} (or send the type the host needs and report what it stored)`,
    });
  }
  const steps = ['created', 'read back'];
  if (writes.replace) {
    const etag = await etagOf(context, created);
    ensure(etag !== undefined, {
      expected: 'the created object reports an etag, so it can be replaced with ifMatch',
      actual: 'write() and stat() report no etag',
      fix: 'report the host\'s version tag (its ETag header, a revision or version number) as etag',
    });
    const replaced = await call(`write(${JSON.stringify(path)}, { ifMatch }) replacing it`, () =>
      trialWrite(context, () => connector.write!(path, bodyStream(sample.replacement), { ifMatch: etag })),
    );
    await expectContent(context, path, sample.replacement, 'after replace');
    const newEtag = await etagOf(context, replaced);
    ensure(newEtag !== etag, {
      expected: 'replacing the bytes gives the object a new etag',
      actual: `the etag is still ${describeValue(etag)}`,
      fix: 'report the etag the host gave the new version (the write answer\'s ETag), not the old one',
    });
    await expectErrorCode(() => trialWrite(context, () => connector.write!(path, bodyStream(sample.body), { ifMatch: etag })), 'precondition_failed', {
      doing: 'a replace with the old (stale) etag as ifMatch',
      fix: 'send ifMatch as the host\'s If-Match (or its revision check) and turn its refusal (HTTP 412) into an error with code "precondition_failed"',
    });
    await expectContent(context, path, sample.replacement, 'after a refused replace');
    steps.push('replaced with ifMatch', 'stale ifMatch refused');
  }
  if (writes.delete) {
    await deleteScratch(context, path);
    steps.push('deleted');
  }
  return `${sample.mime}: ${steps.join(', ')}`;
}

/** Why check 10 leaves out the replace step for a host that declares `writes.replace: false`. */
export const REPLACE_NOT_DECLARED = 'replace with ifMatch not exercised: writes.replace is false (the host does not claim to replace safely)';

/** Check 10. */
export async function checkWrites(context: TrialContext): Promise<string> {
  const { writes } = requireWrites(context);
  const samples = writeSamples(writes.mimes);
  const exercised: string[] = [];
  const unexercised: string[] = [];
  let index = 0;
  for (const { declared, sample } of samples) {
    if (sample === undefined) {
      unexercised.push(`${declared} (no built-in sample)`);
      continue;
    }
    if (writes.maxBytes !== undefined && Math.max(sample.body.byteLength, sample.replacement.byteLength) > writes.maxBytes) {
      unexercised.push(`${declared} (the sample is over maxBytes ${writes.maxBytes})`);
      continue;
    }
    index += 1;
    exercised.push(await exerciseSample(context, writes, sample, index));
  }
  if (exercised.length === 0) skip(`no declared type has a built-in sample: ${unexercised.join(', ')}`);
  const notes = [...(unexercised.length === 0 ? [] : [`not exercised: ${unexercised.join(', ')}`]), ...(writes.replace ? [] : [REPLACE_NOT_DECLARED])];
  return [...exercised, ...notes].join('; ');
}

/**
 * Removes what the trial created and did not delete. Returns what was left behind (delete not
 * declared, or it failed), for the report; never throws.
 */
export async function cleanUpScratch(context: TrialContext): Promise<string[]> {
  const connector = context.connector;
  const left: string[] = [];
  for (const path of [...context.created]) {
    if (connector?.delete === undefined || context.description?.writes?.delete !== true) {
      left.push(path);
      continue;
    }
    try {
      await trialWrite(context, () => connector.delete!(path));
      context.created.delete(path);
    } catch (error) {
      if (errorCode(error) === 'not_found') context.created.delete(path);
      else left.push(path);
    }
  }
  return left;
}
