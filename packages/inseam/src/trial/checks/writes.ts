/**
 * Check 10: on the scratch prefix, once per declared MIME type, create an object, read back what
 * was written, see that write() answered what stat() answers, replace it with ifMatch (and see a
 * stale ifMatch refused), replace it without ifMatch, delete it, and see a second delete answer
 * `not_found`. Runs in the install phase only; everything it creates is removed (see
 * `cleanUpScratch`). A host that declares `writes.replace: false` is not asked to replace: the
 * check passes on the other steps and its detail says the replace steps were left out and why
 * (REPLACE_NOT_DECLARED).
 *
 * "Read back what was written" is byte for byte unless the host declares
 * `writes.roundTrip: "normalised"`; then JSON must parse to the same value, text must still carry
 * the sample's marker phrases (after unfolding lines), and other types are compared as bytes.
 * Either way the size write() or stat() reports is the size read() streams.
 */
import type { Description, Entry, Writes } from '@inseam/connector';
import {
  SAMPLE_BODIES,
  describeBytesDifference,
  describeValue,
  expectErrorCode,
  fieldMismatches,
  sampleBodyFor,
  skip,
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
import { DOC_SECTIONS, ensureAt, inSection } from '../docs.js';
import type { TrialWriteSample } from '../types.js';

/** What a declared MIME type is exercised with; `sample` is absent when there is none. */
export interface WriteSample {
  readonly declared: string;
  readonly sample?: TrialWriteSample;
}

/**
 * Phrases of the built-in samples that a host re-serialising them must keep (body, replacement),
 * for `roundTrip: "normalised"`. JSON is compared as parsed values instead; other types as bytes.
 */
const BUILT_IN_MARKERS: Readonly<Record<string, readonly [string, string]>> = {
  'text/plain': ['plain text, ünïcode ✓', 'sample, replaced ✓'],
  'text/markdown': ['A *sample* note — ✓', 'Replaced.'],
  'text/html': ['sample ✓', 'replaced'],
  'text/csv': ['ümlaut,2', 'replaced,3'],
  'text/calendar': ['inseam trial sample', 'inseam trial sample, replaced'],
  'message/rfc822': ['inseam trial sample', 'inseam trial sample, replaced'],
};

function builtIn(mime: string): TrialWriteSample | undefined {
  const sample = sampleBodyFor(mime);
  if (sample === undefined) return undefined;
  const markers = BUILT_IN_MARKERS[sample.mime];
  return markers === undefined ? sample : { ...sample, markers };
}

/**
 * One sample per declared type: a given sample of that exact type first, else the built-in one;
 * `*` → text/plain and application/octet-stream; `type/*` → the first sample of that type.
 */
export function writeSamples(mimes: Writes['mimes'], given: readonly TrialWriteSample[] = []): WriteSample[] {
  const declared = mimes === '*' ? ['text/plain', 'application/octet-stream'] : [...mimes];
  const samples: WriteSample[] = [];
  const used = new Set<string>();
  for (const mime of declared) {
    const essence = mimeEssence(mime);
    const wildcard = essence.endsWith('/*') ? essence.slice(0, -1) : undefined;
    const sample =
      wildcard === undefined
        ? (given.find((item) => mimeEssence(item.mime) === essence) ?? builtIn(essence))
        : (given.find((item) => mimeEssence(item.mime).startsWith(wildcard)) ?? builtIn(SAMPLE_BODIES.find((item) => item.mime.startsWith(wildcard))?.mime ?? ''));
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

function isJsonMime(mime: string): boolean {
  const essence = mimeEssence(mime);
  return essence === 'application/json' || essence.endsWith('+json');
}

/** Text as a re-serialising host may leave it: LF line ends, folded lines joined, runs of blanks as one space. */
function unfolded(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\n[ \t]/g, '').replace(/\s+/g, ' ');
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  if (typeof a === 'object' && a !== null) {
    if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  }
  return a === b;
}

/**
 * How `got` differs from what was written, '' when it matches. `which` picks the body or the
 * replacement (its marker).
 */
export function contentDifference(sample: TrialWriteSample, which: 'body' | 'replacement', got: Uint8Array, roundTrip: Writes['roundTrip']): string {
  const written = which === 'body' ? sample.body : sample.replacement;
  if (roundTrip !== 'normalised') return describeBytesDifference(written, got);
  if (isJsonMime(sample.mime)) {
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(got)) as unknown;
    } catch {
      return `it is not JSON: ${describeValue(new TextDecoder().decode(got.subarray(0, 60)))}`;
    }
    return sameJson(JSON.parse(new TextDecoder().decode(written)), value) ? '' : `it parses to ${describeValue(value)}, not the value written`;
  }
  if (sample.markers !== undefined) {
    const marker = sample.markers[which === 'body' ? 0 : 1];
    const text = unfolded(new TextDecoder().decode(got));
    return text.includes(unfolded(marker)) ? '' : `the text no longer contains ${describeValue(marker)}`;
  }
  return describeBytesDifference(written, got);
}

/** Reads `path` back and requires the sample's body or replacement (see contentDifference); returns the bytes. */
export async function expectContent(context: TrialContext, path: string, sample: TrialWriteSample, which: 'body' | 'replacement', after: string): Promise<Uint8Array> {
  const { connector, description } = requireConnector(context);
  const roundTrip = description.writes?.roundTrip;
  const written = which === 'body' ? sample.body : sample.replacement;
  const doing = `read(${JSON.stringify(path)}) ${after}`;
  const got = await readStream(await call(doing, () => connector.read(path)), Math.max(written.byteLength * 4, written.byteLength + 64 * 1024), doing);
  const difference = contentDifference(sample, which, got.bytes, roundTrip);
  const normalised = roundTrip === 'normalised';
  ensureAt(DOC_SECTIONS.writingNormalising, difference === '', {
    expected: normalised
      ? `${doing} gives back the content written (${isJsonMime(sample.mime) ? 'the same JSON value' : sample.markers === undefined ? 'the same bytes: this type has no content comparison' : `text still carrying ${JSON.stringify(sample.markers[which === 'body' ? 0 : 1])}`}), as the host stores it`
      : `${doing} streams the ${written.byteLength} bytes written`,
    actual: difference,
    fix: normalised
      ? 'send the body as written and read the host\'s stored form back unchanged; a host that drops content cannot declare this type'
      : 'send the body\'s bytes unchanged (no text decoding, no newline or charset conversion) and read the stored bytes back the same way; a host that re-serialises what it stores declares writes.roundTrip: "normalised"',
  });
  return got.bytes;
}

/** Creates `path` from `sample.body`; returns the entry write() answered. */
export async function createScratch(context: TrialContext, path: string, sample: TrialWriteSample): Promise<Entry> {
  const { connector } = requireConnector(context);
  context.created.add(path);
  const entry = await inSection(DOC_SECTIONS.writingCreateReplace, () =>
    call(`write(${JSON.stringify(path)}) creating a ${sample.mime} object`, () => trialWrite(context, () => connector.write!(path, bodyStream(sample.body)))),
  );
  ensureAt(DOC_SECTIONS.writingResult, typeof entry === 'object' && entry !== null && entry.path === path, {
    expected: `write(${JSON.stringify(path)}) resolves to the written object's Entry, with that path`,
    actual: describeValue(entry),
    fix: 'return the Entry of the object as written (from the host\'s answer, or stat after the write)',
  });
  return entry;
}

const RESULT_FIELDS = ['size', 'mtime', 'etag', 'mime', 'nativeId', 'nativeHash'] as const;

/** write()'s Entry is what stat() answers now, for every field write() reports; its size is what read() streamed. */
async function expectResultMatchesStat(context: TrialContext, written: Entry, readBack: Uint8Array, step: string): Promise<void> {
  const { connector, description } = requireConnector(context);
  const problems: string[] = [];
  if (written.size !== undefined && written.size !== readBack.byteLength) problems.push(`size ${written.size} where read() streamed ${readBack.byteLength} bytes`);
  if (claims(description, 'stat')) {
    const described = await call(`stat(${JSON.stringify(written.path)}) after ${step}`, () => connector.stat(written.path));
    if (described === null) problems.push('stat answers null');
    else {
      const same = (field: string, a: unknown, b: unknown): boolean =>
        field === 'mtime' && typeof a === 'string' && typeof b === 'string' ? Date.parse(a) === Date.parse(b) : JSON.stringify(a) === JSON.stringify(b);
      problems.push(...fieldMismatches(written, described, RESULT_FIELDS, 'write()', same).map((mismatch) => `stat reports ${mismatch}`));
    }
  }
  ensureAt(DOC_SECTIONS.writingResult, problems.length === 0, {
    expected: `the Entry write() answers after ${step} is the object as stored: what stat() answers now, with the size read() streams`,
    actual: problems.join('; '),
    fix: 'build write()\'s Entry from the host\'s answer to the write (or stat the object after writing), with the same function list and stat use',
  });
}

/** The object's etag, from the entry write() answered or from stat. */
async function etagOf(context: TrialContext, entry: Entry): Promise<string | undefined> {
  const { connector, description } = requireConnector(context);
  if (typeof entry.etag === 'string' && entry.etag !== '') return entry.etag;
  if (!claims(description, 'stat')) return undefined;
  return (await call(`stat(${JSON.stringify(entry.path)})`, () => connector.stat(entry.path)))?.etag;
}

/** Deletes `path`, requires it gone, and requires a second delete to answer `not_found`. */
export async function deleteScratch(context: TrialContext, path: string): Promise<void> {
  const { connector, description } = requireConnector(context);
  await inSection(DOC_SECTIONS.writingDelete, () => call(`delete(${JSON.stringify(path)})`, () => trialWrite(context, () => connector.delete!(path))));
  context.created.delete(path);
  if (claims(description, 'stat')) {
    const after = await call(`stat(${JSON.stringify(path)}) after delete`, () => connector.stat(path));
    ensureAt(DOC_SECTIONS.writingDelete, after === null, {
      expected: `after delete(${JSON.stringify(path)}), stat of it is null`,
      actual: `stat reports ${describeValue(after)}`,
      fix: 'delete the object on the host (check the answer\'s status), and answer null from stat() when the host has no object there',
    });
  } else {
    await inSection(DOC_SECTIONS.writingDelete, () =>
      expectErrorCode(() => connector.read(path), 'not_found', {
        doing: `read(${JSON.stringify(path)}) after delete`,
        fix: 'throw an error with code "not_found" when the host has no object at the path',
      }),
    );
  }
  await inSection(DOC_SECTIONS.writingDelete, () =>
    expectErrorCode(() => trialWrite(context, () => connector.delete!(path)), 'not_found', {
      doing: `delete(${JSON.stringify(path)}) of an object already deleted`,
      fix: 'answer a delete of a missing object with an error whose code is "not_found" (HTTP 404 → not_found), so a caller can tell it from a failure',
    }),
  );
}

async function replaceSteps(context: TrialContext, path: string, sample: TrialWriteSample, created: Entry): Promise<string[]> {
  const { connector } = requireConnector(context);
  const etag = await etagOf(context, created);
  ensureAt(DOC_SECTIONS.writingEtags, etag !== undefined, {
    expected: 'the created object reports an etag, so it can be replaced with ifMatch',
    actual: 'write() and stat() report no etag',
    fix: 'report the host\'s version tag (its ETag header, a revision or version number) as etag',
  });
  const replaced = await inSection(DOC_SECTIONS.writingCreateReplace, () =>
    call(`write(${JSON.stringify(path)}, { ifMatch }) replacing it`, () => trialWrite(context, () => connector.write!(path, bodyStream(sample.replacement), { ifMatch: etag }))),
  );
  const readBack = await expectContent(context, path, sample, 'replacement', 'after replace');
  await expectResultMatchesStat(context, replaced, readBack, 'a replace');
  const newEtag = await etagOf(context, replaced);
  ensureAt(DOC_SECTIONS.writingEtags, newEtag !== etag, {
    expected: 'replacing the bytes gives the object a new etag',
    actual: `the etag is still ${describeValue(etag)}`,
    fix: 'report the etag the host gave the new version (the write answer\'s ETag), not the old one',
  });
  await inSection(DOC_SECTIONS.writingEtags, () =>
    expectErrorCode(() => trialWrite(context, () => connector.write!(path, bodyStream(sample.body), { ifMatch: etag })), 'precondition_failed', {
      doing: 'a replace with the old (stale) etag as ifMatch',
      fix: 'send ifMatch exactly as the etag was reported, as the host\'s If-Match (or its revision check), and turn its refusal (HTTP 412) into an error with code "precondition_failed"',
    }),
  );
  await expectContent(context, path, sample, 'replacement', 'after a refused replace');
  await inSection(DOC_SECTIONS.writingCreateReplace, () =>
    call(`write(${JSON.stringify(path)}) without ifMatch over the existing object`, () => trialWrite(context, () => connector.write!(path, bodyStream(sample.body)))),
  );
  await expectContent(context, path, sample, 'body', 'after a write without ifMatch');
  return ['replaced with ifMatch', 'stale ifMatch refused', 'replaced without ifMatch'];
}

async function exerciseSample(context: TrialContext, writes: Writes, sample: TrialWriteSample, index: number): Promise<string> {
  const path = scratchPath(context, `${index}.${sample.extension}`);
  const created = await createScratch(context, path, sample);
  const readBack = await expectContent(context, path, sample, 'body', 'after create');
  await expectResultMatchesStat(context, created, readBack, 'a create');
  if (writes.mimes !== '*' && created.mime !== undefined) {
    ensureAt(DOC_SECTIONS.writingSamples, mimeEssence(created.mime) === sample.mime, {
      expected: `an object written as ${sample.mime} (name *.${sample.extension}) reports mime ${sample.mime}`,
      actual: `mime ${describeValue(created.mime)}`,
      fix: `map the .${sample.extension} extension to ${sample.mime} (or send the type the host needs and report what it stored)`,
    });
  }
  const steps = ['created', writes.roundTrip === 'normalised' ? 'read back as normalised content' : 'read back', 'write() matches stat()'];
  if (writes.replace) steps.push(...(await replaceSteps(context, path, sample, created)));
  if (writes.delete) {
    await deleteScratch(context, path);
    steps.push('deleted', 'a second delete is not_found');
  }
  return `${sample.mime}: ${steps.join(', ')}`;
}

/** Why check 10 leaves out the replace steps for a host that declares `writes.replace: false`. */
export const REPLACE_NOT_DECLARED = 'replace with ifMatch not exercised: writes.replace is false (the host does not claim to replace safely)';

/** Check 10. */
export async function checkWrites(context: TrialContext): Promise<string> {
  const { writes } = requireWrites(context);
  const samples = writeSamples(writes.mimes, context.options.samples ?? []);
  const exercised: string[] = [];
  const unexercised: string[] = [];
  let index = 0;
  for (const { declared, sample } of samples) {
    if (sample === undefined) {
      unexercised.push(`${declared} (no sample: give one in the config file's "samples")`);
      continue;
    }
    if (writes.maxBytes !== undefined && Math.max(sample.body.byteLength, sample.replacement.byteLength) > writes.maxBytes) {
      unexercised.push(`${declared} (the sample is over maxBytes ${writes.maxBytes})`);
      continue;
    }
    index += 1;
    exercised.push(await exerciseSample(context, writes, sample, index));
  }
  if (exercised.length === 0) skip(`no declared type has a sample: ${unexercised.join(', ')}`);
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
