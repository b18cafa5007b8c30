/**
 * Check 5: a small listed object reads as bytes (as many as its listed size, hashing to its
 * nativeHash when that names sha256, sha1 or md5), and a range reads as exactly that range:
 * `[start, end)`, clipped at the end, empty from the end on.
 */
import { createHash } from 'node:crypto';
import type { Entry } from '@inseam/connector';
import { describeBytesDifference, describeValue, skip } from '@neuralis/package-system/testing';
import { call, readStream, requireConnector, requireEntries, type TrialContext } from '../context.js';
import { DOC_SECTIONS, ensureAt } from '../docs.js';
import { verifiableHash } from './entry-forms.js';

/** Objects up to this size count as small; a larger one is read only this far. */
const SMALL = 64 * 1024;

/** The smallest listed object with bytes (size known and > 0); else the first listed entry. */
function pickSample(entries: readonly Entry[]): Entry {
  const sized = entries.filter((entry) => typeof entry.size === 'number' && entry.size > 0);
  if (sized.length === 0) return entries[0]!;
  return sized.reduce((smallest, entry) => ((entry.size ?? 0) < (smallest.size ?? 0) ? entry : smallest));
}

/** Check 5. */
export async function checkRead(context: TrialContext): Promise<string> {
  const entries = requireEntries(context);
  const { connector } = requireConnector(context);
  const sample = pickSample(entries);
  const path = JSON.stringify(sample.path);
  const whole = await readStream(await call(`read(${path})`, () => connector.read(sample.path)), SMALL, `read(${path})`);
  if (!whole.truncated && sample.size !== undefined) {
    ensureAt(DOC_SECTIONS.readingBytes, whole.bytes.byteLength === sample.size, {
      expected: `read(${path}) streams the object's ${sample.size} bytes (its listed size)`,
      actual: `it streamed ${whole.bytes.byteLength} bytes`,
      fix: 'stream the object\'s stored bytes, undecoded; if the host transforms them, list the size of what read() returns',
    });
  }
  const notes: string[] = [];
  const hash = sample.nativeHash === undefined ? undefined : verifiableHash(sample.nativeHash);
  if (hash !== undefined && !whole.truncated) {
    const digest = createHash(hash.algorithm).update(whole.bytes).digest('hex');
    ensureAt(DOC_SECTIONS.identityNativeHash, digest === hash.hex, {
      expected: `the ${hash.algorithm} of the bytes read(${path}) streams is its nativeHash ${describeValue(sample.nativeHash)}`,
      actual: `they hash to ${hash.algorithm}:${digest}`,
      fix: 'report the host\'s hash of the bytes read() returns, or another algorithm name (such as "etag-md5") when it is the hash of something else',
    });
    notes.push(`nativeHash ${hash.algorithm} verified`);
  }
  const bytes = whole.bytes;
  if (bytes.byteLength === 0) skip(`read(${path}) streamed no bytes and no listed object is larger, so a range cannot be checked`);
  const length = bytes.byteLength;
  const start = Math.floor(length / 3);
  const end = Math.max(start + 1, Math.floor((2 * length) / 3));
  await expectRange(context, sample.path, [start, end], bytes.subarray(start, end));
  const summary = [`${whole.truncated ? `the first ${length}` : length} bytes of ${path} streamed`, `range [${start}, ${end}) exact`, ...notes];
  if (whole.truncated) return summary.join('; ');
  // A range running past the end is clipped to the object; one starting at the end is empty (HostReadOptions).
  await expectRange(context, sample.path, [length - 1, length + 16], bytes.subarray(length - 1));
  await expectRange(context, sample.path, [length, length + 16], new Uint8Array(0));
  return [...summary, `[${length - 1}, ${length + 16}) clipped to the last byte`, `[${length}, ${length + 16}) empty`].join('; ');
}

async function expectRange(context: TrialContext, path: string, range: [number, number], expected: Uint8Array): Promise<void> {
  const { connector } = requireConnector(context);
  const doing = `read(${JSON.stringify(path)}, { range: [${range[0]}, ${range[1]}] })`;
  const got = await readStream(await call(doing, () => connector.read(path, { range })), SMALL + 1, doing);
  const difference = describeBytesDifference(expected, got.bytes);
  const what = expected.byteLength === 0 ? 'no bytes (the range starts at the end)' : `exactly the ${expected.byteLength === 1 ? 'byte' : `${expected.byteLength} bytes`} at offset ${range[0]}${expected.byteLength === 1 ? '' : ` to ${range[0] + expected.byteLength - 1}`}`;
  ensureAt(DOC_SECTIONS.readingRanges, difference === '', {
    expected: `${doing} streams ${what} (a range is [start, end), end exclusive, clipped to the object)`,
    actual: got.bytes.byteLength === 0 ? 'no bytes' : `${difference}; got ${describeValue(new TextDecoder().decode(got.bytes.subarray(0, 40)))}`,
    fix: 'send Range: bytes=start-(end-1) (HTTP ranges are inclusive), answer an empty stream when start is at or past the end (HTTP 416), and stream only the answer\'s body; if the host ignores Range (a 200 answer), skip start bytes and stop after end - start',
  });
}
