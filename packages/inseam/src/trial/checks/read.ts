/**
 * Check 5: a spread sample of listed objects reads as bytes — the smallest, the largest within the
 * read budget, and a few picked at random across the pages check 2 followed (seeded, so a run can
 * be repeated; the seed is in the detail). Each must stream as many bytes as its listed size, hash
 * to its nativeHash when that names sha256, sha1 or md5, and `stat` must describe the same bytes
 * (their size, the listed etag and nativeHash). Then ranges of the smallest — `[start, end)`,
 * clipped at the end, empty from the end on — and one of the largest.
 */
import { createHash } from 'node:crypto';
import type { Entry } from '@inseam/connector';
import { describeBytesDifference, describeValue, skip } from '@neuralis/package-system/testing';
import { call, claims, readStream, requireConnector, requireEntries, type TrialContext } from '../context.js';
import { DOC_SECTIONS, ensureAt } from '../docs.js';
import { verifiableHash } from './entry-forms.js';

/** The largest object the check reads whole: larger ones are left out of the sample. */
export const READ_BUDGET = 1024 * 1024;
/** Objects picked at random beside the smallest and the largest. */
const RANDOM_PICKS = 3;
/** The most bytes a range is checked over. */
const RANGE_CAP = 64 * 1024;

export type ReadReason = 'smallest' | 'largest' | 'random';

export interface ReadPick {
  readonly entry: Entry;
  readonly reason: ReadReason;
}

/** mulberry32: a small seeded generator, so the same seed picks the same objects. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sized(entry: Entry): entry is Entry & { size: number } {
  return typeof entry.size === 'number' && Number.isFinite(entry.size) && entry.size >= 0;
}

/**
 * The objects check 5 reads: the smallest with bytes (else the first listed), the largest whose
 * listed size is within `budget`, and `randomPicks` more chosen with `seed`, one from each equal
 * slice of the listing (so they fall across its pages). An object listed larger than the budget
 * is never picked; one without a size may be picked at random.
 */
export function pickReadSample(entries: readonly Entry[], seed: number, budget = READ_BUDGET, randomPicks = RANDOM_PICKS): ReadPick[] {
  if (entries.length === 0) return [];
  const withBytes = entries.filter((entry) => sized(entry) && entry.size > 0 && entry.size <= budget);
  const smallest = withBytes.length === 0 ? entries[0]! : withBytes.reduce((best, entry) => (entry.size! < best.size! ? entry : best));
  const picks: ReadPick[] = [{ entry: smallest, reason: 'smallest' }];
  const largest = withBytes.reduce<Entry | undefined>((best, entry) => (best === undefined || entry.size! > best.size! ? entry : best), undefined);
  if (largest !== undefined && largest !== smallest) picks.push({ entry: largest, reason: 'largest' });
  const rest = entries.filter((entry) => entry !== smallest && entry !== largest && (!sized(entry) || entry.size <= budget));
  const random = generator(seed);
  const slices = Math.min(randomPicks, rest.length);
  for (let slice = 0; slice < slices; slice += 1) {
    const from = Math.floor((slice * rest.length) / slices);
    const to = Math.floor(((slice + 1) * rest.length) / slices);
    picks.push({ entry: rest[from + Math.floor(random() * (to - from))]!, reason: 'random' });
  }
  return picks;
}

const WHY: Readonly<Record<ReadReason, string>> = {
  smallest: 'the smallest listed object',
  largest: `the largest listed object within the ${READ_BUDGET / (1024 * 1024)} MiB read budget`,
  random: 'picked at random',
};

interface ReadResult {
  readonly pick: ReadPick;
  readonly bytes: Uint8Array;
  /** The object has more bytes than were read (it has no listed size and passed the budget). */
  readonly truncated: boolean;
}

/** Check 5. */
export async function checkRead(context: TrialContext): Promise<string> {
  const entries = requireEntries(context);
  const { connector, description } = requireConnector(context);
  const seed = context.seed;
  const picks = pickReadSample(entries, seed);
  const results: ReadResult[] = [];
  const hashed = new Map<string, number>();
  for (const pick of picks) {
    const { entry } = pick;
    const path = JSON.stringify(entry.path);
    const which = `${WHY[pick.reason]}; read sample seed ${seed}`;
    // One byte beyond the listed size shows a stream that runs on; an object with no size within
    // the budget (the first listed, when none has one) is read only as far as the budget.
    const known = sized(entry) && entry.size <= READ_BUDGET;
    const whole = await readStream(await call(`read(${path})`, () => connector.read(entry.path)), known ? entry.size + 1 : READ_BUDGET, `read(${path})`);
    if (known) {
      ensureAt(DOC_SECTIONS.readingBytes, !whole.truncated && whole.bytes.byteLength === entry.size, {
        expected: `read(${path}) (${which}) streams the object's ${entry.size} bytes (its listed size)`,
        actual: whole.truncated ? `it streamed more than ${entry.size} bytes` : `it streamed ${whole.bytes.byteLength} bytes`,
        fix: 'list as size the number of bytes read() streams, and stream the object\'s stored bytes, undecoded, for every object (not only small ones); if the host transforms them, list the size of what read() returns',
      });
    }
    const truncated = !known && whole.truncated;
    const hash = entry.nativeHash === undefined ? undefined : verifiableHash(entry.nativeHash);
    if (hash !== undefined && !truncated) {
      const digest = createHash(hash.algorithm).update(whole.bytes).digest('hex');
      ensureAt(DOC_SECTIONS.identityNativeHash, digest === hash.hex, {
        expected: `the ${hash.algorithm} of the bytes read(${path}) (${which}) streams is its nativeHash ${describeValue(entry.nativeHash)}`,
        actual: `they hash to ${hash.algorithm}:${digest}`,
        fix: 'report the host\'s hash of the bytes read() returns, or another algorithm name (such as "etag-md5") when it is the hash of something else',
      });
      hashed.set(hash.algorithm, (hashed.get(hash.algorithm) ?? 0) + 1);
    }
    if (claims(description, 'stat')) await expectStat(context, pick, whole.bytes.byteLength, truncated, which);
    results.push({ pick, bytes: whole.bytes, truncated });
  }
  const notes = [`read ${describeSample(results, entries.length, context.pages ?? 1)} (seed ${seed}), each as many bytes as listed`];
  for (const [algorithm, count] of hashed) notes.push(`nativeHash ${algorithm} verified on ${count} of ${results.length}`);
  if (claims(description, 'stat')) notes.push('stat describes the same bytes');
  notes.push(...(await checkRanges(context, results)));
  return notes.join('; ');
}

function describeSample(results: readonly ReadResult[], listed: number, pages: number): string {
  const named = (reason: ReadReason): string[] => results.filter((result) => result.pick.reason === reason).map((result) => `${JSON.stringify(result.pick.entry.path)} (${result.bytes.byteLength} bytes)`);
  const parts = [`smallest ${named('smallest').join('')}`];
  const largest = named('largest');
  if (largest.length > 0) parts.push(`largest ${largest.join('')}`);
  const random = named('random');
  if (random.length > 0) parts.push(`${random.length} at random of ${listed} over ${pages} page${pages === 1 ? '' : 's'}`);
  return parts.join(', ');
}

/** `stat` of a read object describes what was read: its size, and the listed etag and nativeHash. */
async function expectStat(context: TrialContext, pick: ReadPick, length: number, truncated: boolean, which: string): Promise<void> {
  const { connector } = requireConnector(context);
  const { entry } = pick;
  const doing = `stat(${JSON.stringify(entry.path)})`;
  const described = await call(doing, () => connector.stat(entry.path));
  const problems: string[] = [];
  if (described === null) problems.push('it is null for an object read() just streamed');
  else {
    if (!truncated && described.size !== undefined && described.size !== length) problems.push(`its size is ${describeValue(described.size)} where read() streamed ${length} bytes`);
    if (entry.etag !== undefined && described.etag !== entry.etag) problems.push(`its etag is ${describeValue(described.etag)} where the listing has ${describeValue(entry.etag)}`);
    if (entry.nativeHash !== undefined && described.nativeHash !== entry.nativeHash) problems.push(`its nativeHash is ${describeValue(described.nativeHash)} where the listing has ${describeValue(entry.nativeHash)}`);
  }
  ensureAt(DOC_SECTIONS.entryFields, problems.length === 0, {
    expected: `${doing} (${which}) describes the bytes read() streamed: their size, the listed etag and nativeHash`,
    actual: problems.join('; '),
    fix: 'build list, stat and write entries with one function from the same host fields, and take size, etag and nativeHash from the object read() streams',
  });
}

/** Ranges of the smallest object (the middle third, past the end, at the end), then one of the largest. */
async function checkRanges(context: TrialContext, results: readonly ReadResult[]): Promise<string[]> {
  const smallest = results.find((result) => result.pick.reason === 'smallest')!;
  const path = smallest.pick.entry.path;
  const bytes = smallest.bytes.subarray(0, RANGE_CAP);
  if (bytes.byteLength === 0) skip(`read(${JSON.stringify(path)}) streamed no bytes and no listed object is larger, so a range cannot be checked`);
  const length = bytes.byteLength;
  const start = Math.floor(length / 3);
  const end = Math.max(start + 1, Math.floor((2 * length) / 3));
  await expectRange(context, path, [start, end], bytes.subarray(start, end));
  const notes = [`range [${start}, ${end}) of ${JSON.stringify(path)} exact`];
  if (!smallest.truncated && smallest.bytes.byteLength <= RANGE_CAP) {
    // A range running past the end is clipped to the object; one starting at the end is empty (HostReadOptions).
    await expectRange(context, path, [length - 1, length + 16], bytes.subarray(length - 1));
    await expectRange(context, path, [length, length + 16], new Uint8Array(0));
    notes.push(`[${length - 1}, ${length + 16}) clipped to the last byte`, `[${length}, ${length + 16}) empty`);
  }
  const largest = results.find((result) => result.pick.reason === 'largest');
  if (largest !== undefined && largest.bytes.byteLength > 1) {
    const whole = largest.bytes;
    const from = Math.floor(whole.byteLength / 2);
    const to = Math.min(whole.byteLength, from + RANGE_CAP);
    await expectRange(context, largest.pick.entry.path, [from, to], whole.subarray(from, to));
    notes.push(`range [${from}, ${to}) of ${JSON.stringify(largest.pick.entry.path)} exact`);
  }
  return notes;
}

async function expectRange(context: TrialContext, path: string, range: [number, number], expected: Uint8Array): Promise<void> {
  const { connector } = requireConnector(context);
  const doing = `read(${JSON.stringify(path)}, { range: [${range[0]}, ${range[1]}] })`;
  const got = await readStream(await call(doing, () => connector.read(path, { range })), RANGE_CAP + 1, doing);
  const difference = describeBytesDifference(expected, got.bytes);
  const what = expected.byteLength === 0 ? 'no bytes (the range starts at the end)' : `exactly the ${expected.byteLength === 1 ? 'byte' : `${expected.byteLength} bytes`} at offset ${range[0]}${expected.byteLength === 1 ? '' : ` to ${range[0] + expected.byteLength - 1}`}`;
  ensureAt(DOC_SECTIONS.readingRanges, difference === '', {
    expected: `${doing} streams ${what} (a range is [start, end), end exclusive, clipped to the object)`,
    actual: got.bytes.byteLength === 0 ? 'no bytes' : `${difference}; got ${describeValue(new TextDecoder().decode(got.bytes.subarray(0, 40)))}`,
    fix: 'send Range: bytes=start-(end-1) (HTTP ranges are inclusive), answer an empty stream when start is at or past the end (HTTP 416), and stream only the answer\'s body; if the host ignores Range (a 200 answer), skip start bytes and stop after end - start',
  });
}
