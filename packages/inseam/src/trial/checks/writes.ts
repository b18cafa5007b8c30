/**
 * Check 10: on the scratch prefix, once per declared MIME type (and once per sample the connector
 * declares in `writes.samples`, at the path it gives), create an object, read back what was
 * written, see that write() answered what stat() answers, replace it with ifMatch (and see a
 * stale ifMatch refused, changing nothing), replace it without ifMatch, delete it, see it gone
 * from stat and from list, see a second delete answer `not_found`, and see a write whose ifMatch
 * names the deleted version refused without creating anything. Runs in the install phase only;
 * everything it creates is removed (see `cleanUpScratch`), and whatever still lists under the
 * trial's scratch names afterwards is a leftover (`findLeftovers`), which fails check 10. A host
 * that declares `writes.replace: false` is not asked to replace: the check passes on the other
 * steps and its detail says the replace steps were left out and why (REPLACE_NOT_DECLARED). A
 * delete-only host deletes an object the `plant` option put under the scratch prefix.
 *
 * "Read back what was written" is byte for byte unless the host declares
 * `writes.roundTrip: "normalised"`; then JSON must parse to the same value, text must still carry
 * the sample's marker phrases (after unfolding lines), and other types are compared as bytes.
 * Either way the size write() or stat() reports is the size read() streams.
 */
import type { Connector, Description, Entry, WriteSampleDeclaration, Writes } from '@inseam/connector';
import {
  SAMPLE_BODIES,
  describeBytesDifference,
  describeError,
  describeValue,
  expectErrorCode,
  fieldMismatches,
  listProblems,
  sampleBodyFor,
  skip,
} from '@neuralis/package-system/testing';
import {
  AFTER_INSTALL,
  TRIAL_MARKER,
  bodyStream,
  call,
  claims,
  errorCode,
  mimeEssence,
  readStream,
  requireConnector,
  trialWrite,
  type TrialContext,
} from '../context.js';
import { DOC_SECTIONS, ensureAt, failAt, inSection, type DocSection } from '../docs.js';
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

/** A connector's declared sample as the trial writes it; its extension is the path's. */
export function declaredSample(declaration: WriteSampleDeclaration): TrialWriteSample {
  const last = declaration.path.slice(declaration.path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
  return {
    mime: declaration.mime,
    extension: dot < 0 ? '' : last.slice(dot + 1),
    body: encode(declaration.body),
    replacement: encode(declaration.replacement),
    path: declaration.path,
    ...(declaration.markers === undefined ? {} : { markers: declaration.markers }),
  };
}

function covers(declared: string, mime: string): boolean {
  const essence = mimeEssence(declared);
  return essence.endsWith('/*') ? mime.startsWith(essence.slice(0, -1)) : essence === mime;
}

/**
 * The samples check 10 writes: every sample the connector declares (`writes.samples`: a host's
 * fixed shape must be used), then one per declared type no declared sample covers — a given
 * sample of that exact type first, else the built-in one; `*` → text/plain and
 * application/octet-stream; `type/*` → the first sample of that type.
 */
export function writeSamples(mimes: Writes['mimes'], given: readonly TrialWriteSample[] = [], declarations: readonly WriteSampleDeclaration[] = []): WriteSample[] {
  const samples: WriteSample[] = declarations.map((declaration) => ({ declared: declaration.mime, sample: declaredSample(declaration) }));
  const declared = mimes === '*' ? ['text/plain', 'application/octet-stream'] : [...mimes];
  const used = new Set<string>(declarations.map((declaration) => declaration.mime));
  for (const mime of declared) {
    if (declarations.some((declaration) => covers(mime, declaration.mime))) continue;
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

/** The connector's writes in the install phase, or the reason check 9 or 10 cannot write. */
function requireDeclaredWrites(context: TrialContext): { description: Description; writes: Writes } {
  const { description } = requireConnector(context);
  const writes = description.writes;
  if (writes === undefined) skip('writes is not declared (a read-only connector)');
  if (context.phase !== 'install' || context.scratchPrefix === undefined) skip(AFTER_INSTALL);
  return { description, writes };
}

/** The connector's writes, or the reason check 9 or 10 cannot write. */
export function requireWrites(context: TrialContext): { description: Description; writes: Writes } {
  const declared = requireDeclaredWrites(context);
  if (!declared.writes.create) skip('writes.create is false, so the trial cannot make a scratch object');
  return declared;
}

/** The trial's unique name for the `index`th object: `inseam-trial-<token>-<index>`. */
function trialName(context: TrialContext, index: string): string {
  return `${TRIAL_MARKER}-${context.token}-${index}`;
}

/**
 * Where `sample` goes for the object named `index`: `<prefix>/<sample.path>` with `{name}` the
 * trial's unique name, or `<prefix>/inseam-trial-<token>-<index>.<extension>`.
 */
export function samplePath(context: TrialContext, sample: TrialWriteSample, index: string): string {
  if (context.scratchPrefix === undefined) skip(AFTER_INSTALL);
  const template = sample.path ?? `{name}.${sample.extension}`;
  return `${context.scratchPrefix}/${template.replace('{name}', trialName(context, index))}`;
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

/** How many pages the trial follows to see whether a path is still listed. */
const MAX_CHECK_PAGES = 50;

/**
 * Every path list() gives under `prefix` (at most MAX_CHECK_PAGES pages). Paths outside it are
 * dropped: a list() that ignores prefix is check 2's failure, not a leftover.
 */
export async function listedUnder(connector: Connector, prefix: string): Promise<string[]> {
  const paths: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_CHECK_PAGES; page += 1) {
    const listed = await connector.list(cursor === undefined ? { prefix } : { prefix, cursor });
    paths.push(...listed.entries.map((entry) => entry.path).filter((path) => path.startsWith(prefix)));
    if (listed.cursor === undefined || listed.cursor === cursor) break;
    cursor = listed.cursor;
  }
  return paths;
}

/** `path` has no object: stat answers null (or read `not_found` without stat), and list does not give it. */
async function expectGone(context: TrialContext, path: string, after: string, fix: string, section: DocSection = DOC_SECTIONS.writingDelete): Promise<void> {
  const { connector, description } = requireConnector(context);
  if (claims(description, 'stat')) {
    const entry = await call(`stat(${JSON.stringify(path)}) ${after}`, () => connector.stat(path));
    ensureAt(section, entry === null, {
      expected: `${after}, stat(${JSON.stringify(path)}) is null`,
      actual: `stat reports ${describeValue(entry)}`,
      fix,
    });
  } else {
    await inSection(section, () =>
      expectErrorCode(() => connector.read(path), 'not_found', {
        doing: `read(${JSON.stringify(path)}) ${after}`,
        fix: 'throw an error with code "not_found" when the host has no object at the path',
      }),
    );
  }
  const listed = await call(`list({ prefix: ${JSON.stringify(path)} }) ${after}`, () => listedUnder(connector, path));
  ensureAt(section, !listed.includes(path), {
    expected: `${after}, list({ prefix: ${JSON.stringify(path)} }) does not give ${JSON.stringify(path)}`,
    actual: 'list still gives it',
    fix,
  });
}

const DELETE_FIX = 'delete the object on the host (check the answer\'s status, and never answer success without asking the host), and answer stat() and list() from the host, not from what the connector remembers';

/**
 * Deletes `path`, requires it gone from stat and list, and requires a second delete to answer
 * `not_found`.
 */
export async function deleteScratch(context: TrialContext, path: string): Promise<void> {
  const { connector } = requireConnector(context);
  await inSection(DOC_SECTIONS.writingDelete, () => call(`delete(${JSON.stringify(path)})`, () => trialWrite(context, () => connector.delete!(path))));
  await expectGone(context, path, 'after delete', DELETE_FIX);
  context.created.delete(path);
  await inSection(DOC_SECTIONS.writingDelete, () =>
    expectErrorCode(() => trialWrite(context, () => connector.delete!(path)), 'not_found', {
      doing: `delete(${JSON.stringify(path)}) of an object already deleted`,
      fix: 'answer a delete of a missing object with an error whose code is "not_found" (HTTP 404 → not_found), so a caller can tell it from a failure',
    }),
  );
}

const IF_MATCH_FIX = 'send ifMatch on every write, exactly as the etag was reported, as the host\'s If-Match (or its revision check), and turn its refusal (HTTP 412, or a revision conflict) into an error with code "precondition_failed"; never drop ifMatch, and never retry without it';

async function requireEtag(context: TrialContext, entry: Entry): Promise<string> {
  const etag = await etagOf(context, entry);
  ensureAt(DOC_SECTIONS.writingEtags, etag !== undefined, {
    expected: 'the created object reports an etag, so a write can name its version with ifMatch',
    actual: 'write() and stat() report no etag',
    fix: 'report the host\'s version tag (its ETag header, a revision or version number) as etag',
  });
  return etag;
}

/**
 * A write whose ifMatch names a version the object at `path` does not have (`etag`: of a version
 * since deleted, or of another object) fails with `precondition_failed` — or, from a host that
 * declares `replace: false`, `unsupported` — and creates nothing.
 */
async function staleIfMatchOnMissing(context: TrialContext, path: string, sample: TrialWriteSample, etag: string, replace: boolean): Promise<void> {
  const { connector } = requireConnector(context);
  const codes = replace ? ['precondition_failed'] : ['precondition_failed', 'unsupported'];
  const doing = `a write with ifMatch ${describeValue(etag)} to ${JSON.stringify(path)}, where no object has that version`;
  const expected = `${doing} fails with code ${codes.map((code) => `"${code}"`).join(' or ')}`;
  const fix = replace ? IF_MATCH_FIX : `${IF_MATCH_FIX}; a host that cannot check versions throws "unsupported" for any write with ifMatch`;
  context.created.add(path);
  let outcome: string;
  try {
    outcome = `it succeeded with ${describeValue(await trialWrite(context, () => connector.write!(path, bodyStream(sample.body), { ifMatch: etag })))}`;
  } catch (error) {
    const code = errorCode(error);
    outcome = code !== undefined && codes.includes(code) ? '' : `it threw ${describeError(error)}`;
  }
  if (outcome !== '') failAt(DOC_SECTIONS.writingEtags, expected, outcome, fix);
  await expectGone(context, path, 'after a refused write with a stale ifMatch', fix, DOC_SECTIONS.writingEtags);
  context.created.delete(path);
}

async function replaceSteps(context: TrialContext, path: string, sample: TrialWriteSample, created: Entry): Promise<string[]> {
  const { connector } = requireConnector(context);
  const etag = await requireEtag(context, created);
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
      fix: IF_MATCH_FIX,
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
  const path = samplePath(context, sample, String(index));
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
  // A version of this object: once it is deleted, an ifMatch naming it is stale. A host that
  // neither replaces nor reports etags gives a caller nothing to put in ifMatch.
  const etag = writes.replace ? await requireEtag(context, created) : await etagOf(context, created);
  if (writes.delete) {
    await deleteScratch(context, path);
    steps.push('deleted (stat and list agree)', 'a second delete is not_found');
  }
  if (etag !== undefined) {
    // Without delete the object stays; a path that never had one shows ifMatch is honoured.
    await staleIfMatchOnMissing(context, writes.delete ? path : samplePath(context, sample, `${index}-never`), sample, etag, writes.replace);
    steps.push(`a stale ifMatch is ${writes.replace ? 'precondition_failed' : 'refused'} and creates nothing`);
  }
  return `${sample.mime}${sample.path === undefined ? '' : ` at ${sample.path}`}: ${steps.join(', ')}`;
}

/** Why check 10 leaves out the replace steps for a host that declares `writes.replace: false`. */
export const REPLACE_NOT_DECLARED = 'replace with ifMatch not exercised: writes.replace is false (the host does not claim to replace safely)';

/**
 * A delete-only host: `plant` puts an object under the scratch prefix by the host's own means;
 * the trial finds it by listing the prefix before and after, deletes it, and sees it gone.
 */
async function exerciseDeleteOnly(context: TrialContext): Promise<string> {
  const { connector } = requireConnector(context);
  const plant = context.options.plant;
  if (plant === undefined) {
    skip('a delete-only host: the trial needs an object to delete, put under the scratch prefix by the host\'s own means (the plant option; a mail catcher: send it a message)');
  }
  const prefix = `${context.scratchPrefix!}/`;
  const before = new Set(await call(`list({ prefix: ${JSON.stringify(prefix)} })`, () => listedUnder(connector, prefix)));
  await call('putting an object under the scratch prefix by the host\'s own means (plant)', () => plant());
  context.lastWriteAt = Date.now();
  const planted = (await call(`list({ prefix: ${JSON.stringify(prefix)} }) after plant`, () => listedUnder(connector, prefix))).filter((path) => !before.has(path));
  ensureAt(DOC_SECTIONS.writingDeleteOnly, planted.length > 0, {
    expected: `the object plant() put on the host lists under ${JSON.stringify(prefix)}`,
    actual: 'list gives nothing new under the prefix',
    fix: 'list every object the host has under the prefix, including ones that arrived after the connector started',
  });
  for (const path of planted) context.created.add(path);
  const path = planted[0]!;
  await deleteScratch(context, path);
  return `delete-only: the planted ${path} deleted (stat and list agree), a second delete is not_found`;
}

/** Check 10. */
export async function checkWrites(context: TrialContext): Promise<string> {
  const declared = requireDeclaredWrites(context);
  if (!declared.writes.create && !declared.writes.replace) return exerciseDeleteOnly(context);
  const { writes } = requireWrites(context);
  const samples = writeSamples(writes.mimes, context.options.samples ?? [], writes.samples ?? []);
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
 * declared, or it failed); never throws.
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

/**
 * What the trial left on the host: `left` (what cleanUpScratch could not remove), every path the
 * connector still lists under the trial's scratch names (an object write() made beside the one
 * asked for, a delete that did nothing), and any of `cleaned` (what cleanUpScratch deleted, a
 * planted object among them) still listed. Never throws: a listing that fails adds nothing.
 */
export async function findLeftovers(context: TrialContext, left: readonly string[], cleaned: readonly string[]): Promise<string[]> {
  const connector = context.connector;
  const found = new Set(left);
  if (connector === undefined || context.scratchPrefix === undefined || context.phase !== 'install' || context.description?.writes === undefined) return [...found];
  const named = `${context.scratchPrefix}/${TRIAL_MARKER}-${context.token}`;
  try {
    for (const path of await listedUnder(connector, named)) found.add(path);
    for (const path of cleaned.filter((item) => !item.startsWith(named))) {
      if ((await listedUnder(connector, path)).includes(path)) found.add(path);
    }
  } catch {
    // The listing checks (2–6) report a list() that fails.
  }
  return [...found].sort();
}

/** Check 10's failure when the trial left something on the host. */
export function leftoversFailure(leftovers: readonly string[]): string {
  return failAt(
    DOC_SECTIONS.writingLeftovers,
    'nothing the trial wrote is left on the host once it has deleted what it created',
    `still on the host: ${listProblems(leftovers.map((path) => JSON.stringify(path)), 5)}`,
    'make write() store exactly the one object at the path it is given (no side files, backups or folder markers), and delete() remove it and whatever write() made for it; remove these by hand',
  );
}
