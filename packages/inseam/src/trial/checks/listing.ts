/**
 * Checks 2 (list, cursors, newest), 3 (dimensions on every entry), 4 (stat matches the listing)
 * and 6 (canonical paths). Check 2 keeps what it listed for the others.
 */
import type { Description, Dimension, Entry, HostListPage } from '@inseam/connector';
import { describeValue, ensure, fail, fieldMismatches, listProblems, skip } from '@neuralis/package-system/testing';
import { HOST_PATH, parsePath } from '../../address/path.js';
import { parseTimestamp } from '../../scope/values.js';
import { call, claims, errorCode, requireConnector, requireEntries, sampleEntries, type TrialContext } from '../context.js';

/** Pages check 2 follows at most, and entries it keeps at most, so a huge host stays fast. */
const MAX_PAGES = 20;
const MAX_ENTRIES = 2000;
/** Entries checks 4 and 6 stat. */
const SAMPLE_SIZE = 5;

const LIST_FIX = 'return { entries: [...], cursor? } from list(); a cursor is a non-empty string that resumes after the page';

function paths(page: HostListPage): string[] {
  return page.entries.map((entry) => entry.path);
}

function ensurePage(page: unknown, doing: string): asserts page is HostListPage {
  ensure(typeof page === 'object' && page !== null && Array.isArray((page as HostListPage).entries), {
    expected: `${doing} resolves to { entries: [...], cursor? }`,
    actual: describeValue(page),
    fix: LIST_FIX,
  });
  const cursor = (page as HostListPage).cursor;
  ensure(cursor === undefined || (typeof cursor === 'string' && cursor !== ''), {
    expected: 'the cursor is absent (last page) or a non-empty string',
    actual: `cursor ${describeValue(cursor)}`,
    fix: LIST_FIX,
  });
}

/** Check 2. */
export async function checkList(context: TrialContext): Promise<string> {
  const { connector, description } = requireConnector(context);
  const first = await call('list({})', () => connector.list({}));
  ensurePage(first, 'list({})');
  // Kept as it grows, so checks 3–6 still have what was listed when a later page fails.
  const entries: Entry[] = [...first.entries];
  context.entries = entries;
  context.pages = 1;
  const seen = new Map(first.entries.map((entry) => [entry.path, 1]));
  const notes: string[] = [];
  let pages = 1;
  let cursor = first.cursor;
  let replayed = false;
  while (cursor !== undefined && pages < MAX_PAGES && entries.length < MAX_ENTRIES) {
    const current = cursor;
    const page = await call(`list({ cursor }) with the cursor of page ${pages}`, () => connector.list({ cursor: current }));
    ensurePage(page, `list({ cursor }) with the cursor of page ${pages}`);
    pages += 1;
    if (!replayed) {
      replayed = true;
      const again = await call('list({ cursor }) with the same cursor again', () => connector.list({ cursor: current }));
      ensurePage(again, 'list({ cursor }) with the same cursor again');
      ensure(paths(again).join('\n') === paths(page).join('\n'), {
        expected: 'a cursor round-trips: listing with the same cursor twice gives the same page',
        actual: `first ${describeValue(paths(page).slice(0, 5))}, then ${describeValue(paths(again).slice(0, 5))}`,
        fix: 'encode where the page ends into the cursor itself (an offset, a last key, the host\'s page token) rather than keeping state between calls; the crawler resumes from stored cursors after a restart',
      });
    }
    const repeated = page.entries.filter((entry) => seen.has(entry.path)).map((entry) => entry.path);
    ensure(repeated.length === 0, {
      expected: 'each page continues where the previous one ended: no entry is listed twice',
      actual: `page ${pages} repeats ${describeValue(repeated.slice(0, 5))}${repeated.length > 5 ? ` and ${repeated.length - 5} more` : ''}`,
      fix: 'start the next page after the last entry of the cursor\'s page (pass the host\'s page token or your offset on)',
    });
    for (const entry of page.entries) seen.set(entry.path, 1);
    entries.push(...page.entries);
    context.pages = pages;
    cursor = page.cursor;
  }
  const duplicates = first.entries.filter((entry, index) => first.entries.findIndex((other) => other.path === entry.path) !== index);
  ensure(duplicates.length === 0, {
    expected: 'a page lists each object once',
    actual: `${describeValue(duplicates[0]?.path)} is listed twice on the first page`,
  });
  ensure(entries.length > 0, {
    expected: 'list() returns entries',
    actual: `no entries in ${pages} page${pages === 1 ? '' : 's'}`,
    fix: 'trial against a host (or config) that holds a few objects; if it does, check how list() maps the host\'s answer to entries',
  });
  if (pages === 1 && first.cursor === undefined) notes.push('the listing fits one page, so no cursor was issued');
  else notes.push(`the cursor round-trips; ${pages} pages without repeats${cursor === undefined ? '' : ` (stopped after ${pages})`}`);
  notes.push(await checkNewest(context, description));
  return `${entries.length} entries; ${notes.join('; ')}`;
}

/** The instant an entry was last changed, for the newest-first rule: the datetime ordering dimension, else mtime. */
function timeReader(description: Description): { label: string; read: (entry: Entry) => number | undefined } {
  const ordering = Object.entries(description.dimensions).find(([, dimension]) => dimension.ordering === true);
  if (ordering !== undefined && ordering[1].type === 'datetime') {
    const [name, dimension] = ordering;
    return { label: `${name} (${dimension.from})`, read: (entry) => timeOf(rawValue(entry, dimension.from)) };
  }
  return { label: 'mtime', read: (entry) => timeOf(entry.mtime) };
}

function timeOf(value: unknown): number | undefined {
  return typeof value === 'string' ? parseTimestamp(value, false) : undefined;
}

async function checkNewest(context: TrialContext, description: Description): Promise<string> {
  const { connector } = requireConnector(context);
  let page: HostListPage;
  try {
    page = await connector.list({ order: 'newest' });
  } catch (error) {
    if (errorCode(error) === 'unsupported') return 'order "newest": the host cannot (the connector answers unsupported), so not checked';
    return fail(
      'list({ order: "newest" }) lists newest first, or fails with code "unsupported" when the host cannot',
      `it failed with ${describeValue(error instanceof Error ? `${errorCode(error) ?? error.name}: ${error.message}` : error)}`,
      'throw an error whose code is "unsupported" (naming the argument order) when the host cannot list newest first',
    );
  }
  ensurePage(page, 'list({ order: "newest" })');
  let entries = [...page.entries];
  if (page.cursor !== undefined) {
    const cursor = page.cursor;
    const next = await call('list({ order: "newest", cursor })', () => connector.list({ order: 'newest', cursor }));
    ensurePage(next, 'list({ order: "newest", cursor })');
    entries = entries.concat(next.entries);
  }
  const time = timeReader(description);
  const timed = entries.map((entry) => ({ path: entry.path, at: time.read(entry) }));
  const known = timed.filter((item): item is { path: string; at: number } => item.at !== undefined);
  if (known.length < 2) return `order "newest" accepted; its entries carry too few ${time.label} values to verify the order`;
  for (let index = 1; index < known.length; index += 1) {
    const before = known[index - 1]!;
    const item = known[index]!;
    ensure(item.at <= before.at, {
      expected: `list({ order: "newest" }) lists newest first: each entry's ${time.label} is at or before the previous one's`,
      actual: `${describeValue(item.path)} (${new Date(item.at).toISOString()}) comes after ${describeValue(before.path)} (${new Date(before.at).toISOString()})`,
      fix: 'sort newest first across pages (ask the host for that order), or throw an error with code "unsupported" for order when the host cannot',
    });
  }
  return `newest first verified over ${known.length} entries`;
}

/** The raw value a dimension's `from` names on an entry (own properties only). */
export function rawValue(entry: Entry, from: Dimension['from']): unknown {
  if (from === 'path' || from === 'size' || from === 'mtime' || from === 'mime') return entry[from];
  let value: unknown = entry.extra;
  for (const key of from.split('.').slice(1)) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Why `value` is not of the dimension's declared type, or undefined. */
function typeProblem(value: unknown, dimension: Dimension): string | undefined {
  if (value === undefined || value === null) return 'is missing';
  const shown = describeValue(value);
  switch (dimension.type) {
    case 'string':
    case 'path':
      return typeof value === 'string' ? undefined : `${shown} is not a string`;
    case 'enum':
      return typeof value === 'string' && (dimension.values ?? []).includes(value) ? undefined : `${shown} is not one of ${(dimension.values ?? []).map((item) => JSON.stringify(item)).join(', ')}`;
    case 'bytes':
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : `${shown} is not a non-negative whole number of bytes`;
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : `${shown} is not a whole number`;
    case 'datetime':
      return typeof value === 'string' && parseTimestamp(value, false) !== undefined ? undefined : `${shown} is not an RFC 3339 timestamp`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${shown} is not true or false`;
  }
}

function article(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}

/** Check 3. */
export function checkDimensions(context: TrialContext): string {
  const entries = requireEntries(context);
  const { description } = requireConnector(context);
  const problems: string[] = [];
  const broken = new Set<string>();
  for (const [name, dimension] of Object.entries(description.dimensions)) {
    for (const entry of entries) {
      const problem = typeProblem(rawValue(entry, dimension.from), dimension);
      if (problem === undefined) continue;
      broken.add(name);
      problems.push(`${describeValue(entry.path)}: ${name} (${dimension.from}) ${problem}`);
    }
  }
  const names = Object.keys(description.dimensions);
  ensure(problems.length === 0, () => ({
    expected: `every listed entry carries ${names.map((name) => `${name} (${description.dimensions[name]!.type} from ${description.dimensions[name]!.from})`).join(', ')}`,
    actual: listProblems(problems),
    fix: [...broken].map((name) => `set ${description.dimensions[name]!.from} on every entry as ${article(description.dimensions[name]!.type)}${description.dimensions[name]!.type === 'enum' ? ' from its values' : ''}, or drop ${name} from dimensions`).join('; '),
  }));
  return `${names.length} dimension${names.length === 1 ? '' : 's'} present and typed on all ${entries.length} entries`;
}

const COMPARED_FIELDS = ['size', 'mtime', 'etag', 'mime', 'nativeId', 'nativeHash'] as const;

function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (field === 'mtime' && typeof a === 'string' && typeof b === 'string') return timeOf(a) !== undefined && timeOf(a) === timeOf(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Check 4. Paths are check 6's: a listed entry is looked up by its path, and its other fields compared. */
export async function checkStat(context: TrialContext): Promise<string> {
  const entries = requireEntries(context);
  const { connector, description } = requireConnector(context);
  if (!claims(description, 'stat')) skip('stat is not claimed');
  const extraDimensions = Object.entries(description.dimensions).filter(([, dimension]) => dimension.from.startsWith('extra.'));
  const problems: string[] = [];
  const sample = sampleEntries(entries, SAMPLE_SIZE);
  for (const listed of sample) {
    const described = await call(`stat(${JSON.stringify(listed.path)})`, () => connector.stat(listed.path));
    if (described === null) {
      problems.push(`stat(${describeValue(listed.path)}) is null for a listed entry`);
      continue;
    }
    const mismatches = fieldMismatches(listed, described, COMPARED_FIELDS, 'the listing', sameValue);
    for (const [name, dimension] of extraDimensions) {
      const want = rawValue(listed, dimension.from);
      const got = rawValue(described, dimension.from);
      if (want !== undefined && !sameValue(name, want, got)) mismatches.push(`${dimension.from} ${describeValue(got)} where the listing has ${describeValue(want)}`);
    }
    problems.push(...mismatches.map((mismatch) => `${describeValue(listed.path)}: ${mismatch}`));
  }
  ensure(problems.length === 0, () => ({
    expected: 'stat(path) reports every field the listing reports for that object, with the same value',
    actual: listProblems(problems),
    fix: 'build list and stat entries with one function from the same host fields; a field only one of them can know belongs in neither, or in both',
  }));
  return `${sample.length} listed entr${sample.length === 1 ? 'y matches' : 'ies match'} their stat`;
}

/** Why `path` is not in canonical form, or undefined. */
function canonicalProblem(path: string): string | undefined {
  if (typeof path !== 'string' || path === '') return `${describeValue(path)} is not a non-empty path`;
  try {
    const canonical = parsePath(path, HOST_PATH).path;
    return canonical === path ? undefined : `${describeValue(path)} is not canonical; it is spelled ${describeValue(canonical)}`;
  } catch (error) {
    return `${describeValue(path)} is not a path: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Check 6. */
export async function checkCanonical(context: TrialContext): Promise<string> {
  const entries = requireEntries(context);
  const { connector, description } = requireConnector(context);
  const problems = entries.map((entry) => canonicalProblem(entry.path)).filter((problem): problem is string => problem !== undefined);
  ensure(problems.length === 0, () => ({
    expected: 'every listed path is canonical: "/"-separated segments, each percent-encoded (only A–Z a–z 0–9 - . _ ~ literal, uppercase escapes), no empty, "." or ".." segment, no leading or trailing "/"',
    actual: listProblems(problems),
    fix: 'build each path as segments.map(encodeURIComponent-then-escape !\'()*).join("/"), from the host\'s names (or use the host\'s stable native id as the path)',
  }));
  const sample = sampleEntries(entries, SAMPLE_SIZE);
  const withStat = claims(description, 'stat');
  if (withStat) {
    for (const listed of sample) {
      const described = await call(`stat(${JSON.stringify(listed.path)})`, () => connector.stat(listed.path));
      ensure(described !== null && described.path === listed.path, {
        expected: `stat(${JSON.stringify(listed.path)}) describes the object under the same path`,
        actual: described === null ? 'stat returned null' : `stat reports path ${describeValue(described.path)}`,
        fix: 'return the path exactly as list() spells it (one canonical form; encode in one place)',
      });
    }
  }
  const relisted = new Map<string, Entry>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    const current = cursor;
    const page = await call('list() again', () => connector.list(current === undefined ? {} : { cursor: current }));
    ensurePage(page, 'list() again');
    for (const entry of page.entries) relisted.set(entry.path, entry);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined && pages < (context.pages ?? 1) && sample.some((entry) => !relisted.has(entry.path)));
  const byNativeId = new Map([...relisted.values()].filter((entry) => entry.nativeId !== undefined).map((entry) => [entry.nativeId, entry.path]));
  const missing = sample
    .filter((entry) => !relisted.has(entry.path))
    .map((entry) => {
      const now = entry.nativeId === undefined ? undefined : byNativeId.get(entry.nativeId);
      return now === undefined ? `${describeValue(entry.path)} is not listed again` : `${describeValue(entry.path)} is listed again as ${describeValue(now)}`;
    });
  ensure(missing.length === 0, () => ({
    expected: 'listing again gives the same path for the same object',
    actual: listProblems(missing),
    fix: 'derive the path from something stable (the host\'s name or id), never from the time, the page or the listing order',
  }));
  return `${entries.length} paths canonical; ${sample.length} ${withStat ? 'listed, stat and listed again' : 'listed again (stat is not claimed)'} under the same path`;
}
