/**
 * Checks of the read side: the scratch tree the later checks use, list (entries, paging,
 * cursors), read (content, ranges, binary), stat, walk and scanContent. Each runs against the
 * data target: the scratch tree when one was created, else the fixture's directory, else the root.
 */
import { isInlineBinaryMime, parseSourceUri } from '../../contracts/index.js';
import type { ConnectorEntry, ConnectorReadResult } from '../../contracts/index.js';
import { describeValue, ensure, fail, fieldMismatches, listProblems, skip } from '../checks.js';
import { PNG_1X1 } from '../samples.js';
import {
  MARKER,
  canonicalUri,
  childUri,
  collect,
  dataTarget,
  decodeBase64,
  decodeText,
  describeSetDifference,
  ensureWellFormed,
  expectCode,
  listTree,
  parentUri,
  requireKnownFile,
  sameBytes,
  setsEqual,
  toBytes,
  usable,
} from './context.js';
import type { ComplianceCheck, ComplianceContext, ScratchObject } from './context.js';


interface ScratchSpec {
  readonly path: readonly string[];
  readonly content: Uint8Array | string;
  readonly mime?: string;
}

/** Names include a space and non-ASCII text, so canonical percent-encoding is exercised. */
const SCRATCH_SPECS: readonly ScratchSpec[] = [
  { path: ['alpha.txt'], content: 'alpha: plain text, then ünïcode\n' },
  { path: ['beta file.txt'], content: 'beta\n' },
  { path: ['gamma.md'], content: '# gamma\n' },
  { path: ['image.png'], content: PNG_1X1, mime: 'image/png' },
  { path: ['sub', 'delta.txt'], content: 'delta\n' },
];

const scratchSetup: ComplianceCheck = {
  id: 'scratch.setup',
  name: 'write creates objects (and missing parent directories) under the scratch directory',
  capability: 'write',
  async run(context) {
    const write = usable(context, 'write');
    const scratch = context.subject.scratch;
    if (scratch === undefined) skip('write: no scratch directory given');
    let scratchSource: string | undefined;
    try {
      scratchSource = parseSourceUri(scratch).source;
    } catch {
      scratchSource = undefined;
    }
    if (scratchSource !== context.source) {
      fail(`scratch is a directory URI on source "${context.source}"`, `scratch ${describeValue(scratch)}`, 'pass e.g. `${port.source}://tmp`');
    }
    const runDir = childUri(scratch, `${MARKER}-${context.token}`);
    const objects: ScratchObject[] = [];
    for (const spec of SCRATCH_SPECS) {
      const uri = spec.path.reduce((directory, segment) => childUri(directory, segment), runDir);
      const entry = await write(uri, spec.content, { createOnly: true, ...(spec.mime === undefined ? {} : { mime: spec.mime }) });
      ensure(entry?.uri === uri && entry.type === 'file', {
        expected: `write returns the entry as written: uri ${describeValue(uri)}, type file`,
        actual: describeValue(entry),
      });
      objects.push({ uri, name: spec.path.join('/'), bytes: toBytes(spec.content), ...(spec.mime === undefined ? {} : { mime: spec.mime }) });
    }
    const children = new Map(SCRATCH_SPECS.map((spec) => [spec.path[0] as string, spec.path.length > 1 ? ('directory' as const) : ('file' as const)]));
    const byName = (name: string): ScratchObject => objects.find((object) => object.name === name) as ScratchObject;
    context.scratchTree = { runDir, objects, children, textFile: byName('alpha.txt'), binaryFile: byName('image.png') };
    return `created ${objects.length} objects under ${runDir}`;
  },
};

const listEntries: ComplianceCheck = {
  id: 'list.entries',
  name: 'list returns the direct children of a directory, well formed, in a stable order',
  capability: 'list',
  async run(context) {
    const list = usable(context, 'list');
    const target = dataTarget(context);
    const page = await list(target.dir);
    ensure(Array.isArray(page?.entries), { expected: 'list resolves to { entries: [...] , cursor? }', actual: describeValue(page) });
    ensureWellFormed(page.entries, () => target.dir, context.source, `list(${target.dir})`);
    const again = await list(target.dir);
    const order = (entries: readonly ConnectorEntry[]): string => entries.map((entry) => entry.uri).join('\n');
    ensure(order(again.entries) === order(page.entries), {
      expected: 'two listings of an unchanged directory return the same entries in the same order',
      actual: `first ${describeValue(page.entries.map((entry) => entry.name))}, then ${describeValue(again.entries.map((entry) => entry.name))}`,
    });
    if (target.tree !== undefined) {
      const tree = target.tree;
      const listed = new Map(page.entries.map((entry) => [entry.name, entry]));
      const wrong = [...tree.children].filter(([name, type]) => listed.get(name)?.type !== type).map(([name, type]) => `${name} (${type})`);
      const extra = [...listed.keys()].filter((name) => !tree.children.has(name));
      ensure(wrong.length === 0 && extra.length === 0, {
        expected: `the scratch directory lists exactly ${[...tree.children].map(([name, type]) => `${name} (${type})`).join(', ')}`,
        actual: `${wrong.length > 0 ? `missing or mistyped ${wrong.join(', ')}` : ''}${extra.length > 0 ? ` unexpected ${extra.join(', ')}` : ''}`.trim(),
      });
      const badSizes = tree.objects
        .filter((object) => listed.get(object.name)?.size !== undefined && listed.get(object.name)?.size !== object.bytes.byteLength)
        .map((object) => `${object.name}: ${listed.get(object.name)?.size} instead of ${object.bytes.byteLength}`);
      ensure(badSizes.length === 0, { expected: 'listed sizes equal the bytes written', actual: badSizes.join('; ') });
    } else if (target.file !== undefined) {
      const fixture = canonicalUri(target.file.uri);
      let found = page.entries.some((entry) => entry.uri === fixture);
      let cursor = page.cursor;
      for (let pages = 0; !found && cursor !== undefined && pages < 50; pages += 1) {
        const next = await list(target.dir, { cursor });
        found = next.entries.some((entry) => entry.uri === fixture);
        cursor = next.cursor;
      }
      ensure(found, { expected: `the fixture ${fixture} appears in the listing of its directory`, actual: 'it was not listed' });
    }
    return `${page.entries.length} entries in ${target.dir}${page.cursor === undefined ? '' : ' (first page)'}`;
  },
};

const MAX_PAGES = 10;

const listPaging: ComplianceCheck = {
  id: 'list.paging',
  name: 'list pages honour limit and a cursor round-trips: the pages concatenate to the unpaged listing',
  capability: 'list',
  async run(context) {
    const list = usable(context, 'list');
    const { dir } = dataTarget(context);
    const full = await list(dir);
    if (full.entries.length < 2) skip(`list: ${dir} holds fewer than 2 entries, so paging cannot be exercised`);
    const limit = full.entries.length >= 3 ? 2 : 1;
    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(dir, cursor === undefined ? { limit } : { limit, cursor });
      pages += 1;
      ensure(page.entries.length <= limit, {
        expected: `a page holds at most limit = ${limit} entries`,
        actual: `page ${pages} holds ${page.entries.length}`,
      });
      paged.push(...page.entries.map((entry) => entry.uri));
      ensure(page.cursor === undefined || (typeof page.cursor === 'string' && page.cursor !== ''), {
        expected: 'cursor is absent or a non-empty string',
        actual: describeValue(page.cursor),
      });
      cursor = page.cursor;
    } while (cursor !== undefined && pages < MAX_PAGES);
    const expected = full.entries.slice(0, paged.length).map((entry) => entry.uri);
    const divergence = paged.findIndex((uri, index) => uri !== expected[index]);
    ensure(divergence < 0, {
      expected: `pages of ${limit} concatenate to the unpaged listing, in order`,
      actual: `entry ${divergence + 1} of the pages is ${describeValue(paged[divergence])} where the unpaged listing has ${describeValue(expected[divergence])} (after ${pages} pages: ${describeValue(paged)})`,
      fix: 'return a cursor that resumes after the last entry of the page, and start the next page from it',
    });
    if (cursor === undefined && full.cursor === undefined) {
      ensure(paged.length === full.entries.length, {
        expected: `the pages end after all ${full.entries.length} entries`,
        actual: `the last page (no cursor) came after ${paged.length} entries`,
      });
    }
    return `${paged.length} entries in ${pages} pages of at most ${limit}`;
  },
};

const listBadCursor: ComplianceCheck = {
  id: 'list.bad-cursor',
  name: 'an unknown or stale cursor is invalid_argument',
  capability: 'list',
  async run(context) {
    const list = usable(context, 'list');
    const { dir } = dataTarget(context);
    await expectCode(() => list(dir, { cursor: `${MARKER}-not-a-cursor` }), 'invalid_argument', 'list with a cursor this listing never issued');
    return 'unknown cursor refused';
  },
};

function ensureReadShape(result: ConnectorReadResult, size: number, doing: string): void {
  ensure(typeof result?.text === 'string' && typeof result.mime === 'string' && result.mime.includes('/'), {
    expected: `${doing} resolves to { text, mime, size, ... }`,
    actual: describeValue(result),
  });
  ensure(result.size === size, { expected: `size ${size} (the whole object)`, actual: `size ${describeValue(result.size)}` });
  ensure(result.etag === undefined || (typeof result.etag === 'string' && result.etag !== ''), {
    expected: 'etag absent or a non-empty string',
    actual: describeValue(result.etag),
  });
}

/** Checks the binary-read rule on one result; returns what was observed. */
function ensureBinaryRule(result: ConnectorReadResult, content: Uint8Array): string {
  const hasBytes = result.bytes !== undefined;
  const hasOmitted = result.omitted !== undefined;
  ensure(hasBytes !== hasOmitted, {
    expected: `a ${result.mime} read carries either base64 bytes (within the inline cap) or omitted (over it)`,
    actual: hasBytes ? 'both bytes and omitted' : 'neither bytes nor omitted',
    fix: 'set bytes when the size fits the per-MIME inline cap; otherwise leave bytes unset, set omitted and put a short marker in text',
  });
  if (hasBytes) {
    const decoded = typeof result.bytes === 'string' ? decodeBase64(result.bytes) : undefined;
    ensure(decoded !== undefined && sameBytes(decoded, content), {
      expected: `bytes is the base64 of the ${content.byteLength} bytes stored`,
      actual: decoded === undefined ? `bytes ${describeValue(result.bytes)} is not base64` : `it decodes to ${decoded.byteLength} different bytes`,
    });
    return `${result.mime}: ${content.byteLength} bytes inline`;
  }
  const omitted = result.omitted;
  ensure(omitted?.reason === 'over_inline_cap' && typeof omitted.cap === 'number' && omitted.cap < content.byteLength && result.text.trim() !== '', {
    expected: `omitted { reason: "over_inline_cap", cap < ${content.byteLength} } and a marker in text`,
    actual: `omitted ${describeValue(omitted)}, text ${describeValue(result.text)}`,
  });
  return `${result.mime}: over the ${omitted.cap}-byte cap, marker ${describeValue(result.text)}`;
}

const readContent: ComplianceCheck = {
  id: 'read.content',
  name: 'read returns the object: text decoded for text types, size of the whole object',
  capability: 'read',
  async run(context) {
    const read = usable(context, 'read');
    const file = requireKnownFile(context);
    const result = await read(file.uri);
    ensureReadShape(result, file.bytes.byteLength, `read(${file.uri})`);
    if (isInlineBinaryMime(result.mime)) return ensureBinaryRule(result, file.bytes);
    ensure(result.text === decodeText(file.bytes), {
      expected: `text ${describeValue(decodeText(file.bytes))}`,
      actual: `text ${describeValue(result.text)}`,
    });
    ensure(result.bytes === undefined, {
      expected: `no bytes for ${result.mime} (bytes is for image/*, video/* and application/pdf)`,
      actual: `bytes ${describeValue(result.bytes)}`,
    });
    return `${file.bytes.byteLength} bytes of ${result.mime}`;
  },
};

function rangeContent(result: ConnectorReadResult): Uint8Array | undefined {
  if (result.bytes !== undefined) return decodeBase64(result.bytes);
  return isInlineBinaryMime(result.mime) ? undefined : toBytes(result.text);
}

const readRange: ComplianceCheck = {
  id: 'read.range',
  name: 'read with a range returns that range; past the end is empty; a negative offset is invalid_argument',
  capability: 'read',
  async run(context) {
    const read = usable(context, 'read');
    const file = requireKnownFile(context);
    const size = file.bytes.byteLength;
    if (size < 4) skip('read: the known file is shorter than 4 bytes, too short for a range');
    const result = await read(file.uri, { range: { offset: 1, length: 3 } });
    ensureReadShape(result, size, 'a ranged read');
    ensure(result.range?.offset === 1 && result.range.length === 3, {
      expected: 'range { offset: 1, length: 3 } reported back',
      actual: `range ${describeValue(result.range)}`,
    });
    const expected = file.bytes.subarray(1, 4);
    const actual = rangeContent(result);
    ensure(actual === undefined || sameBytes(actual, isInlineBinaryMime(result.mime) ? expected : toBytes(decodeText(expected))), {
      expected: `bytes 1–3: ${describeValue(decodeText(expected))}`,
      actual: `${describeValue(result.bytes ?? result.text)}`,
    });
    const past = await read(file.uri, { range: { offset: size + 10 } });
    ensure(past.range?.length === 0 && (past.bytes ?? (isInlineBinaryMime(past.mime) ? '' : past.text)) === '', {
      expected: 'a range past the end returns an empty result with range.length 0',
      actual: `range ${describeValue(past.range)}, text ${describeValue(past.text)}, bytes ${describeValue(past.bytes)}`,
    });
    await expectCode(() => read(file.uri, { range: { offset: -1 } }), 'invalid_argument', 'read with a negative range offset');
    return 'bytes 1–3 returned; past-the-end empty; negative offset refused';
  },
};

const readBinary: ComplianceCheck = {
  id: 'read.binary',
  name: 'binary reads (image/*, video/*, application/pdf) carry base64 bytes within the inline cap, or omitted and a marker over it',
  capability: 'read',
  async run(context) {
    const read = usable(context, 'read');
    const target = dataTarget(context);
    if (target.tree !== undefined) {
      const png = target.tree.binaryFile;
      const result = await read(png.uri);
      ensureReadShape(result, png.bytes.byteLength, `read(${png.uri})`);
      ensure(isInlineBinaryMime(result.mime), {
        expected: 'mime image/png for a .png written with mime image/png',
        actual: `mime ${describeValue(result.mime)}`,
      });
      return ensureBinaryRule(result, png.bytes);
    }
    const fixture = context.subject.fixture;
    if (fixture === undefined || typeof fixture.content === 'string') {
      skip('read: no binary object: give a scratch directory (with write declared) or an image, video or PDF fixture');
    }
    const result = await read(fixture.uri);
    if (!isInlineBinaryMime(result.mime)) skip(`read: the fixture is ${result.mime}, not image/*, video/* or application/pdf`);
    ensureReadShape(result, fixture.content.byteLength, `read(${fixture.uri})`);
    return ensureBinaryRule(result, fixture.content);
  },
};

const ENTRY_FIELDS = ['uri', 'name', 'type', 'size', 'mtime', 'etag', 'mime'] as const;

const statMatchesList: ComplianceCheck = {
  id: 'stat.matches-list',
  name: 'stat of a listed entry matches the listing; stat of a missing object is not_found',
  capability: 'stat',
  async run(context) {
    const stat = usable(context, 'stat');
    const list = usable(context, 'list');
    const { dir } = dataTarget(context);
    const sample = (await list(dir)).entries.slice(0, 25);
    const mismatches: string[] = [];
    for (const listed of sample) {
      const described = await stat(listed.uri);
      mismatches.push(...fieldMismatches(listed, described, ENTRY_FIELDS, 'the listing').map((mismatch) => `${listed.name}: ${mismatch}`));
    }
    ensure(mismatches.length === 0, {
      expected: 'stat reports every field the listing reports, with the same value',
      actual: listProblems(mismatches),
    });
    const directory = await stat(dir);
    ensure(directory?.type === 'directory' && directory.uri === canonicalUri(dir), {
      expected: `stat(${dir}) describes a directory at ${canonicalUri(dir)}`,
      actual: describeValue(directory),
    });
    await expectCode(() => stat(childUri(dir, `${MARKER}-missing-${context.token}`)), 'not_found', 'stat of a missing object');
    return `${sample.length} entries match their listing`;
  },
};

/** Fails unless `entries` come depth first: each entry's parent is the walk root or an open ancestor. */
function ensureDepthFirst(entries: readonly ConnectorEntry[], dir: string): void {
  const stack = [canonicalUri(dir)];
  for (const entry of entries) {
    const parent = parentUri(entry.uri);
    while (stack.length > 0 && stack.at(-1) !== parent) stack.pop();
    ensure(stack.length > 0, {
      expected: 'walk yields depth first: a directory, then everything below it, before its next sibling',
      actual: `${describeValue(entry.uri)} came after its parent's subtree had been left`,
    });
    if (entry.type === 'directory') stack.push(entry.uri);
  }
}

const WALK_CAP = 500;

const walkTree: ComplianceCheck = {
  id: 'walk.tree',
  name: 'walk yields every entry below the directory (not the directory itself), depth first; maxDepth 1 yields the direct children',
  capability: 'walk',
  async run(context) {
    const walk = usable(context, 'walk');
    const { dir } = dataTarget(context);
    const reference = await listTree(context, dir, WALK_CAP);
    const walked = await collect(walk(dir), WALK_CAP);
    ensureWellFormed(walked.items, (entry) => parentUri(entry.uri), context.source, `walk(${dir})`);
    ensureDepthFirst(walked.items, dir);
    const key = (entry: ConnectorEntry): string => `${entry.uri} (${entry.type})`;
    if (reference.complete && walked.complete) {
      const expected = new Set(reference.entries.map(key));
      const actual = new Set(walked.items.map(key));
      ensure(setsEqual(expected, actual), {
        expected: `walk yields the ${expected.size} entries that listing each directory finds`,
        actual: describeSetDifference(expected, actual),
      });
    }
    const direct = await usable(context, 'list')(dir);
    const shallow = await collect(walk(dir, { maxDepth: 1 }), WALK_CAP);
    const directKeys = new Set(direct.entries.map(key));
    const shallowKeys = new Set(shallow.items.map(key));
    ensure(!shallow.complete || direct.cursor !== undefined || setsEqual(directKeys, shallowKeys), {
      expected: 'walk with maxDepth 1 yields exactly the direct children',
      actual: describeSetDifference(directKeys, shallowKeys),
    });
    return `${walked.items.length} entries${walked.complete ? '' : ` (first ${WALK_CAP})`}`;
  },
};

const scanContentText: ComplianceCheck = {
  id: 'scanContent.text',
  name: 'scanContent yields the text of every file below; binary and oversized files come with skipped, never content',
  capability: 'scanContent',
  async run(context) {
    const scanContent = usable(context, 'scanContent');
    const target = dataTarget(context);
    const reference = await listTree(context, target.dir, WALK_CAP);
    const scanned = await collect(scanContent(target.dir), WALK_CAP);
    const problems: string[] = [];
    const prefix = canonicalUri(target.dir).endsWith('://') ? canonicalUri(target.dir) : `${canonicalUri(target.dir)}/`;
    for (const chunk of scanned.items) {
      const uri = chunk?.entry?.uri;
      if (chunk?.entry?.type !== 'file' || typeof uri !== 'string' || !uri.startsWith(prefix)) problems.push(`${describeValue(uri)} is not a file below ${target.dir}`);
      if ((chunk.text === undefined) === (chunk.skipped === undefined)) problems.push(`${describeValue(uri)} has ${chunk.text === undefined ? 'neither text nor skipped' : 'both text and skipped'}`);
      if (chunk.skipped !== undefined && !['too_large', 'binary', 'unreadable'].includes(chunk.skipped)) problems.push(`${describeValue(uri)} has skipped ${describeValue(chunk.skipped)}`);
    }
    ensure(problems.length === 0, { expected: 'each chunk is a file below the directory with either text or skipped', actual: problems.slice(0, 5).join('; ') });
    if (reference.complete && scanned.complete) {
      const expected = new Set(reference.entries.filter((entry) => entry.type === 'file').map((entry) => entry.uri));
      const actual = new Set(scanned.items.map((chunk) => chunk.entry.uri));
      ensure(setsEqual(expected, actual) && actual.size === scanned.items.length, {
        expected: `one chunk for each of the ${expected.size} files below ${target.dir}`,
        actual: describeSetDifference(expected, actual) || `${scanned.items.length} chunks for ${actual.size} files`,
      });
    }
    const byUri = new Map(scanned.items.map((chunk) => [chunk.entry.uri, chunk]));
    const known = target.tree?.objects ?? (target.file === undefined ? [] : [{ uri: canonicalUri(target.file.uri), bytes: target.file.bytes, mime: undefined }]);
    for (const object of known) {
      const chunk = byUri.get(object.uri);
      if (chunk === undefined) continue;
      if (object.mime !== undefined && isInlineBinaryMime(object.mime)) {
        ensure(chunk.text === undefined && chunk.skipped !== undefined, {
          expected: `${object.uri} (${object.mime}) is yielded with skipped, never content`,
          actual: `text ${describeValue(chunk.text)}, skipped ${describeValue(chunk.skipped)}`,
        });
      } else if (chunk.text !== undefined) {
        ensure(chunk.text === decodeText(object.bytes), {
          expected: `${object.uri} has text ${describeValue(decodeText(object.bytes))}`,
          actual: `text ${describeValue(chunk.text)}`,
        });
      }
    }
    const tiny = await collect(scanContent(target.dir, { maxBytesPerObject: 1 }), WALK_CAP);
    const leaked = tiny.items.filter((chunk) => chunk.text !== undefined && toBytes(chunk.text).byteLength > 1).map((chunk) => chunk.entry.uri);
    ensure(leaked.length === 0, {
      expected: 'with maxBytesPerObject 1, larger files come with skipped "too_large", not content',
      actual: `content for ${leaked.slice(0, 5).map(describeValue).join(', ')}`,
    });
    return `${scanned.items.length} chunks${scanned.complete ? '' : ` (first ${WALK_CAP})`}`;
  },
};

const notFound: ComplianceCheck = {
  id: 'errors.not-found',
  name: 'read or list of a missing object is not_found',
  capability: 'read',
  async run(context) {
    const read = usable(context, 'read');
    const list = usable(context, 'list');
    const missing = childUri(dataTarget(context).dir, `${MARKER}-missing-${context.token}`);
    await expectCode(() => read(missing), 'not_found', 'read of a missing object');
    await expectCode(() => list(missing), 'not_found', 'list of a missing directory');
    return `${missing} is not_found`;
  },
};

const notADirectory: ComplianceCheck = {
  id: 'errors.not-a-directory',
  name: 'list of a file is not_a_directory',
  capability: 'list',
  async run(context) {
    const list = usable(context, 'list');
    const file = requireKnownFile(context);
    await expectCode(() => list(file.uri), 'not_a_directory', 'list of a file');
    return `list(${file.uri}) refused`;
  },
};

const isADirectory: ComplianceCheck = {
  id: 'errors.is-a-directory',
  name: 'read of a directory is is_a_directory',
  capability: 'read',
  async run(context) {
    const read = usable(context, 'read');
    const { dir } = dataTarget(context);
    await expectCode(() => read(dir), 'is_a_directory', 'read of a directory');
    return `read(${dir}) refused`;
  },
};

const invalidUri: ComplianceCheck = {
  id: 'errors.invalid-uri',
  name: 'a URI with another scheme, a ".." segment or no "://" is invalid_uri',
  capability: 'read',
  async run(context: ComplianceContext) {
    const read = usable(context, 'read');
    const list = usable(context, 'list');
    const cases: [string, () => Promise<unknown>][] = [
      [`read of another source's URI`, () => read(`${context.source}-other://${MARKER}.txt`)],
      ['read with a ".." segment', () => read(`${context.root}${MARKER}/../${MARKER}.txt`)],
      ['read with a percent-encoded ".." segment', () => read(`${context.root}${MARKER}/%2E%2E/${MARKER}.txt`)],
      ['list with a ".." segment', () => list(`${context.root}${MARKER}/..`)],
      ['read of a string that is not a URI', () => read(`${MARKER}.txt`)],
    ];
    for (const [doing, action] of cases) {
      await expectCode(action, 'invalid_uri', doing, 'parse every URI with parseSourceUri(uri, this.source) from @neuralis/package-system/contracts before touching anything');
    }
    return `${cases.length} bad URIs refused`;
  },
};

export const DATA_CHECKS: readonly ComplianceCheck[] = [
  scratchSetup,
  listEntries,
  listPaging,
  listBadCursor,
  readContent,
  readRange,
  readBinary,
  statMatchesList,
  walkTree,
  scanContentText,
];

export const ERROR_CHECKS: readonly ComplianceCheck[] = [notFound, notADirectory, isADirectory, invalidUri];
