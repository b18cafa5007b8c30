/**
 * Checks 2 (list: pages, cursors, since, prefix, newest), 3 (dimensions and entry forms on every
 * entry), 4 (stat matches the listing) and 6 (canonical paths). Check 2 keeps what it listed for
 * the others. Each failure names the section of docs/connectors/authoring.md that explains it.
 */
import type { Description, Entry, HostListOptions, HostListPage } from '@inseam/connector';
import { describeValue, fieldMismatches, listProblems, skip } from '@neuralis/package-system/testing';
import { HOST_PATH, parsePath } from '../../address/path.js';
import { MAX_ENTRY_PATH_LENGTH } from '../../catalog/index.js';
import { Ordering } from '../../crawl/ordering.js';
import { parseTimestamp } from '../../scope/index.js';
import { call, claims, errorCode, requireConnector, requireEntries, sampleEntries, type TrialContext } from '../context.js';
import { DOC_SECTIONS, ensureAt, failAt } from '../docs.js';
import { dimensionProblem, entryFormProblems, rawValue, type FormProblem } from './entry-forms.js';

/** Pages check 2 follows at most, and entries it keeps at most, so a huge host stays fast. */
const MAX_PAGES = 20;
const MAX_ENTRIES = 2000;
/** Entries checks 4 and 6 stat. */
const SAMPLE_SIZE = 5;
/** The longest cursor a connector may issue (it is stored per host and carried in URLs). */
const MAX_CURSOR_LENGTH = 4096;

const LIST_FIX = 'return { entries: [...], cursor? } from list(); a cursor is a non-empty string that resumes after the page';

function paths(page: HostListPage): string[] {
  return page.entries.map((entry) => entry.path);
}

function ensurePage(page: unknown, doing: string, given?: string): asserts page is HostListPage {
  ensureAt(DOC_SECTIONS.listingPages, typeof page === 'object' && page !== null && Array.isArray((page as HostListPage).entries), {
    expected: `${doing} resolves to { entries: [...], cursor? }`,
    actual: describeValue(page),
    fix: LIST_FIX,
  });
  const cursor = (page as HostListPage).cursor;
  ensureAt(DOC_SECTIONS.listingCursors, cursor === undefined || (typeof cursor === 'string' && cursor !== '' && cursor.length <= MAX_CURSOR_LENGTH), {
    expected: `the cursor is absent (last page) or a non-empty string of at most ${MAX_CURSOR_LENGTH} characters`,
    actual: typeof cursor === 'string' && cursor.length > MAX_CURSOR_LENGTH ? `a cursor of ${cursor.length} characters` : `cursor ${describeValue(cursor)}`,
    fix: 'encode only where the page ends (an offset, the last key, the host\'s page token) — not the listing itself',
  });
  ensureAt(DOC_SECTIONS.listingCursors, given === undefined || cursor !== given, {
    expected: `${doing} answers a cursor that moves on (a listing that hands back the cursor it was given never ends)`,
    actual: 'it returned the cursor it was given',
    fix: 'return the cursor of the page after this one, or none on the last page',
  });
}

/** Every page of one listing, up to the trial's bounds; `complete` is false when it stopped early. */
async function listAll(context: TrialContext, options: HostListOptions, label: string, enough?: (entries: readonly Entry[]) => boolean): Promise<{ entries: Entry[]; complete: boolean }> {
  const { connector } = requireConnector(context);
  const entries: Entry[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const current = cursor;
    const doing = `${label}${current === undefined ? '' : ' with the cursor of its last page'}`;
    const page = await call(doing, () => connector.list(current === undefined ? options : { ...options, cursor: current }));
    ensurePage(page, doing, current);
    entries.push(...page.entries);
    cursor = page.cursor;
    pages += 1;
  } while (cursor !== undefined && pages < MAX_PAGES && entries.length < MAX_ENTRIES && !(enough?.(entries) ?? false));
  return { entries, complete: cursor === undefined };
}

/** Check 2. */
export async function checkList(context: TrialContext): Promise<string> {
  const { connector, description } = requireConnector(context);
  const counted = requestCounter(context);
  const first = await call('list({})', () => connector.list({}));
  const cost: ListingCost = { measured: context.egress !== undefined, firstPage: counted(), whole: 0, pages: 1 };
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
    counted();
    const page = await call(`list({ cursor }) with the cursor of page ${pages}`, () => connector.list({ cursor: current }));
    cost.whole += counted();
    ensurePage(page, `list({ cursor }) with the cursor of page ${pages}`, current);
    pages += 1;
    if (!replayed) {
      replayed = true;
      const again = await call('list({ cursor }) with the same cursor again', () => connector.list({ cursor: current }));
      ensurePage(again, 'list({ cursor }) with the same cursor again', current);
      ensureAt(DOC_SECTIONS.listingCursors, paths(again).join('\n') === paths(page).join('\n'), {
        expected: 'a cursor round-trips: listing with the same cursor twice gives the same page',
        actual: `first ${describeValue(paths(page).slice(0, 5))}, then ${describeValue(paths(again).slice(0, 5))}`,
        fix: 'encode where the page ends into the cursor itself (an offset, a last key, the host\'s page token) rather than keeping state between calls; the crawler resumes from stored cursors after a restart',
      });
    }
    const repeated = page.entries.filter((entry) => seen.has(entry.path)).map((entry) => entry.path);
    ensureAt(DOC_SECTIONS.listingCursors, repeated.length === 0, {
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
  ensureAt(DOC_SECTIONS.listingPages, duplicates.length === 0, {
    expected: 'a page lists each object once',
    actual: `${describeValue(duplicates[0]?.path)} is listed twice on the first page`,
  });
  ensureAt(DOC_SECTIONS.listingPages, entries.length > 0, {
    expected: 'list() returns entries',
    actual: `no entries in ${pages} page${pages === 1 ? '' : 's'}`,
    fix: 'trial against a host (or config) that holds a few objects; if it does, check how list() maps the host\'s answer to entries',
  });
  const complete = cursor === undefined;
  cost.whole += cost.firstPage;
  cost.pages = pages;
  if (pages === 1 && first.cursor === undefined) notes.push('the listing fits one page, so no cursor was issued');
  else notes.push(`the cursor round-trips; ${pages} pages without repeats${complete ? '' : ` (stopped after ${pages})`}`);
  notes.push(await checkPrefix(context, entries, complete));
  notes.push(await checkSince(context, description, entries));
  notes.push(await checkNewest(context, description, cost));
  return `${entries.length} entries; ${notes.join('; ')}`;
}

/** A prefix of `segment` that ends on a whole character (never inside a %XX escape), shorter than it. */
function partialPrefix(segment: string): string | undefined {
  const first = segment.startsWith('%') ? segment.slice(0, 3) : segment.slice(0, 1);
  return first.length < segment.length ? first : undefined;
}

/** `prefix` is a plain string prefix of the canonical path: a folder (`a/`) and a partial name (`a`). */
async function checkPrefix(context: TrialContext, entries: readonly Entry[], complete: boolean): Promise<string> {
  const nested = entries.find((entry) => entry.path.includes('/'));
  const folder = nested === undefined ? undefined : `${nested.path.slice(0, nested.path.indexOf('/'))}/`;
  const partial = partialPrefix((nested ?? entries[0])!.path.split('/')[0]!);
  const prefixes = [folder, partial].filter((prefix): prefix is string => prefix !== undefined);
  if (prefixes.length === 0) return 'prefix: no listed path has a folder or a name long enough to cut, so not checked';
  for (const prefix of prefixes) {
    const under = await listAll(context, { prefix }, `list({ prefix: ${JSON.stringify(prefix)} })`);
    const outside = under.entries.filter((entry) => !entry.path.startsWith(prefix)).map((entry) => entry.path);
    ensureAt(DOC_SECTIONS.listingPrefix, outside.length === 0, {
      expected: `list({ prefix: ${JSON.stringify(prefix)} }) lists only paths that start with ${JSON.stringify(prefix)} (a plain string prefix of the canonical path)`,
      actual: `it listed ${describeValue(outside.slice(0, 5))}`,
      fix: 'filter by the canonical path\'s string prefix (entry.path.startsWith(prefix)), or pass the prefix to the host when its filter means the same',
    });
    if (!complete || !under.complete) continue;
    const found = new Set(under.entries.map((entry) => entry.path));
    const missing = entries.filter((entry) => entry.path.startsWith(prefix) && !found.has(entry.path)).map((entry) => entry.path);
    ensureAt(DOC_SECTIONS.listingPrefix, missing.length === 0, {
      expected: `list({ prefix: ${JSON.stringify(prefix)} }) lists every object whose path starts with it${prefix.endsWith('/') ? ', at any depth' : ' (a partial name matches too)'}`,
      actual: `it leaves out ${describeValue(missing.slice(0, 5))}`,
      fix: 'treat prefix as a string prefix, not a folder to list one level of: descend into every folder it can match',
    });
  }
  return `prefix ${prefixes.map((prefix) => JSON.stringify(prefix)).join(' and ')} filtered as string prefixes`;
}

/** How to keep entries at or after `since`, for the ordering dimension's type. */
const SINCE_FIX: Readonly<Record<string, string>> = {
  datetime: 'keep entries whose value is >= since (not >), comparing instants (Date.parse), not strings',
  integer: 'keep entries whose value is >= Number(since) (not >): since is the integer in decimal, as the crawler\'s watermark gives it, and a host\'s update sequence filter must include the value itself',
  bytes: 'keep entries whose value is >= Number(since) (not >): since is the number in decimal',
  enum: 'keep entries whose value is since or comes after it in the declared values (not only later ones)',
  text: 'keep entries whose value is >= since in code point order (not >), or pass since to the host when its filter means the same',
};

/**
 * `since` is inclusive: listing with the newest ordering value among the listed entries must list
 * every entry that has it, whatever the ordering dimension's type — the crawler passes `since` on
 * every incremental sync (crawl/ordering.ts: its watermark stepped back).
 */
async function checkSince(context: TrialContext, description: Description, entries: readonly Entry[]): Promise<string> {
  const ordering = new Ordering(description);
  const valued = entries.flatMap((entry) => {
    const value = ordering.comparable(entry);
    return value === undefined ? [] : [{ path: entry.path, value }];
  });
  if (valued.length === 0) return 'since: no listed entry has an ordering value, so not checked';
  const newest = valued.reduce((best, item) => (ordering.compare(item.value, best.value) > 0 ? item : best));
  const since = ordering.format(newest.value);
  const wanted = new Set(valued.filter((item) => ordering.compare(item.value, newest.value) === 0).map((item) => item.path));
  const listed = await listAll(context, { since }, `list({ since: ${JSON.stringify(since)} })`, (found) => [...wanted].every((path) => found.some((entry) => entry.path === path)));
  const found = new Set(listed.entries.map((entry) => entry.path));
  const missing = [...wanted].filter((path) => !found.has(path));
  ensureAt(DOC_SECTIONS.listingSince, missing.length === 0, {
    expected: `list({ since: ${JSON.stringify(since)} }) lists every entry whose ${ordering.name} (${article(ordering.type)}, the ordering dimension) is at or after it (since is inclusive; the crawler passes it on every incremental sync)`,
    actual: `${listed.entries.length === 0 ? 'it lists nothing, so it leaves out' : 'it leaves out'} ${describeValue(missing.slice(0, 5))}, whose ${ordering.name} is exactly ${since}`,
    fix: `${SINCE_FIX[ordering.type] ?? SINCE_FIX['text']!}; older entries may be listed too (a host that cannot filter may ignore since)`,
  });
  return `since ${since} lists the newest entr${wanted.size === 1 ? 'y' : 'ies'} (inclusive)`;
}

/** What check 2's walk of `list({})` cost, in requests through the gate. */
interface ListingCost {
  /** False for an in-process connector: it sends nothing through the gate. */
  readonly measured: boolean;
  /** Requests of the first page. */
  readonly firstPage: number;
  /** Requests of every page followed (the repeated cursor not counted). */
  whole: number;
  pages: number;
}

/**
 * Counts the requests the connector sends through the gate: each call answers how many went out
 * since the last one (0 for an in-process connector). Nothing else sends while check 2 runs (the
 * watch subscription opens after it), so a count is exactly what the calls between cost.
 */
function requestCounter(context: TrialContext): () => number {
  const egress = context.egress;
  if (egress === undefined) return () => 0;
  let last = egress.requestsSent();
  return () => {
    const now = egress.requestsSent();
    const sent = now - last;
    last = now;
    return sent;
  };
}

/**
 * A first page of newest-first that cost as many requests as the whole of `list({})` (when that
 * took more than one page and more requests than its first page) fetched the whole listing to
 * answer: it was sorted in memory, or every cursor was followed before answering.
 */
function ensureStreamed(cost: ListingCost, sent: number): string {
  if (!cost.measured || cost.pages < 2 || cost.whole <= cost.firstPage) return '';
  ensureAt(DOC_SECTIONS.listingOrder, sent < cost.whole, {
    expected: `the first page of list({ order: "newest" }) costs fewer requests than the whole listing (list({}) took ${cost.whole} over ${cost.pages} pages, its first page ${cost.firstPage}): a page is answered from the host's own newest-first order, not from the whole listing`,
    actual: `it sent ${sent} request${sent === 1 ? '' : 's'} for its first page, at least as many as the whole listing: it fetched everything (every page, or every cursor followed) before answering`,
    fix: 'pass order to the host (its sort parameter, e.g. ?sort=-modified) and answer its page as it comes; when the host cannot sort newest first, throw an error with code "unsupported" for order — never fetch a whole listing to sort it in memory',
  });
  return `; its first page took ${sent} request${sent === 1 ? '' : 's'} (the whole listing ${cost.whole})`;
}

/** `order: "newest"`: descending along the ordering dimension, across pages, its first page streamed. */
async function checkNewest(context: TrialContext, description: Description, cost: ListingCost): Promise<string> {
  const { connector } = requireConnector(context);
  const counted = requestCounter(context);
  let page: HostListPage;
  let sent: number;
  try {
    page = await connector.list({ order: 'newest' });
    sent = counted();
  } catch (error) {
    if (errorCode(error) === 'unsupported') return 'order "newest": the host cannot (the connector answers unsupported), so not checked';
    return failAt(
      DOC_SECTIONS.listingOrder,
      'list({ order: "newest" }) lists newest first, or fails with code "unsupported" when the host cannot',
      `it failed with ${describeValue(error instanceof Error ? `${errorCode(error) ?? error.name}: ${error.message}` : error)}`,
      'throw an error whose code is "unsupported" (naming the argument order) when the host cannot list newest first',
    );
  }
  ensurePage(page, 'list({ order: "newest" })');
  const streamed = ensureStreamed(cost, sent);
  let entries = [...page.entries];
  if (page.cursor !== undefined) {
    const cursor = page.cursor;
    const next = await call('list({ order: "newest", cursor })', () => connector.list({ order: 'newest', cursor }));
    ensurePage(next, 'list({ order: "newest", cursor })', cursor);
    entries = entries.concat(next.entries);
  }
  const ordering = new Ordering(description);
  const known = entries.flatMap((entry) => {
    const value = ordering.comparable(entry);
    return value === undefined ? [] : [{ path: entry.path, value }];
  });
  if (known.length < 2) return `order "newest" accepted; its entries carry too few ${ordering.name} values to verify the order${streamed}`;
  for (let index = 1; index < known.length; index += 1) {
    const before = known[index - 1]!;
    const item = known[index]!;
    ensureAt(DOC_SECTIONS.listingOrder, ordering.compare(item.value, before.value) <= 0, {
      expected: `list({ order: "newest" }) lists in descending ${ordering.name} (the ordering dimension): each entry's value is at or before the previous one's`,
      actual: `${describeValue(item.path)} (${ordering.format(item.value)}) comes after ${describeValue(before.path)} (${ordering.format(before.value)})`,
      fix: 'sort newest first across pages (ask the host for that order), or throw an error with code "unsupported" for order when the host cannot; never sort a whole listing in memory',
    });
  }
  context.newestVerified = true;
  return `newest first verified over ${known.length} entries${streamed}`;
}

function article(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}

/** Check 3: every declared dimension on every entry, then the forms of every entry's fields. */
export function checkDimensions(context: TrialContext): string {
  const entries = requireEntries(context);
  const { description } = requireConnector(context);
  const problems: FormProblem[] = [];
  const broken = new Set<string>();
  for (const [name, dimension] of Object.entries(description.dimensions)) {
    for (const entry of entries) {
      const problem = dimensionProblem(entry, dimension);
      if (problem === undefined) continue;
      broken.add(name);
      problems.push({ section: problem.section, text: `${describeValue(entry.path)}: ${name} (${dimension.from}) ${problem.text}` });
    }
  }
  const names = Object.keys(description.dimensions);
  ensureAt(problems[0]?.section ?? DOC_SECTIONS.dimensionValues, problems.length === 0, () => ({
    expected: `every listed entry carries ${names.map((name) => `${name} (${description.dimensions[name]!.type} from ${description.dimensions[name]!.from})`).join(', ')}`,
    actual: listProblems(problems.map((problem) => problem.text)),
    fix: [...broken]
      .map((name) => {
        const dimension = description.dimensions[name]!;
        const open = dimension.type === 'enum' ? ' (a host whose set of values can grow needs type "string")' : '';
        const optional = dimension.from.startsWith('extra.') && dimension.ordering !== true ? ' (null where an object has none)' : '';
        return `set ${dimension.from} on every entry as ${article(dimension.type)}${dimension.type === 'enum' ? ' from its values' : ''}${optional}${open}, or drop ${name} from dimensions`;
      })
      .join('; '),
  }));
  const forms = entries.flatMap((entry) => entryFormProblems(entry).map((problem) => ({ section: problem.section, text: `${describeValue(entry.path)}: ${problem.text}` })));
  ensureAt(forms[0]?.section ?? DOC_SECTIONS.entryFields, forms.length === 0, () => ({
    expected: 'every listed entry\'s fields have their documented forms (mtime in UTC, nativeHash "<algorithm>:<digest>", extra plain JSON, envelope identities "scheme:value", text fields within 4,096 characters)',
    actual: listProblems(forms.map((problem) => problem.text)),
    fix: 'build every Entry in one function: new Date(x).toISOString() for times, JSON values in extra, "mailto:"/"<kind>:" identities',
  }));
  return `${names.length} dimension${names.length === 1 ? '' : 's'} present and typed on all ${entries.length} entries; their fields well formed`;
}

const COMPARED_FIELDS = ['size', 'mtime', 'etag', 'mime', 'nativeId', 'nativeHash', 'envelope'] as const;

function timeOf(value: unknown): number | undefined {
  return typeof value === 'string' ? parseTimestamp(value, false) : undefined;
}

/** mtimes compare as instants; one that is not a timestamp (check 3 says so) only as the same text. */
function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (field === 'mtime' && typeof a === 'string' && typeof b === 'string' && a !== b) return timeOf(a) !== undefined && timeOf(a) === timeOf(b);
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
  ensureAt(DOC_SECTIONS.entryFields, problems.length === 0, () => ({
    expected: 'stat(path) reports every field the listing reports for that object, with the same value',
    actual: listProblems(problems),
    fix: 'build list and stat entries with one function from the same host fields; a field only one of them can know belongs in neither, or in both',
  }));
  return `${sample.length} listed entr${sample.length === 1 ? 'y matches' : 'ies match'} their stat`;
}

/** Why `path` is not in canonical form, or undefined. */
function canonicalProblem(path: string): string | undefined {
  if (typeof path !== 'string' || path === '') return `${describeValue(path)} is not a non-empty path`;
  if (path.length > MAX_ENTRY_PATH_LENGTH) return `a path of ${path.length} characters is longer than ${MAX_ENTRY_PATH_LENGTH}`;
  try {
    const canonical = parsePath(path, HOST_PATH).path;
    return canonical === path ? undefined : `${describeValue(path)} is not canonical; it is spelled ${describeValue(canonical)}`;
  } catch (error) {
    return `${describeValue(path)} is not a path: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Paths that name an object and, with a `/` after them, a folder of other objects. */
function objectsThatAreFolders(entries: readonly Entry[]): string[] {
  const sorted = entries.map((entry) => entry.path).sort();
  const found: string[] = [];
  for (let index = 0; index + 1 < sorted.length; index += 1) {
    const path = sorted[index]!;
    // Everything under `path/` sorts right after `path`, apart from names that continue it with a character below "/".
    for (let next = index + 1; next < sorted.length && sorted[next]!.startsWith(path); next += 1) {
      if (sorted[next]!.startsWith(`${path}/`)) {
        found.push(`${describeValue(path)} is an object and the folder of ${describeValue(sorted[next])}`);
        break;
      }
    }
  }
  return found;
}

/** Check 6. */
export async function checkCanonical(context: TrialContext): Promise<string> {
  const entries = requireEntries(context);
  const { connector, description } = requireConnector(context);
  const problems = entries.map((entry) => canonicalProblem(entry.path)).filter((problem): problem is string => problem !== undefined);
  ensureAt(DOC_SECTIONS.identityPaths, problems.length === 0, () => ({
    expected: 'every listed path is canonical: "/"-separated segments, each percent-encoded (only A–Z a–z 0–9 - . _ ~ literal, uppercase escapes), no empty, "." or ".." segment, no leading or trailing "/", at most 4,096 characters',
    actual: listProblems(problems),
    fix: 'build each path as segments.map(encodeURIComponent-then-escape !\'()*).join("/"), from the host\'s names exactly (no Unicode normalisation), or use the host\'s stable native id as the path',
  }));
  const folders = objectsThatAreFolders(entries);
  ensureAt(DOC_SECTIONS.identitySubObjects, folders.length === 0, () => ({
    expected: 'a path names an object or a folder, never both',
    actual: listProblems(folders),
    fix: 'give an object with sub-objects a folder of its own: "T-12/ticket.md" beside "T-12/attachments/a.png", not "T-12" and "T-12/a.png"',
  }));
  const sample = sampleEntries(entries, SAMPLE_SIZE);
  const withStat = claims(description, 'stat');
  if (withStat) {
    for (const listed of sample) {
      const described = await call(`stat(${JSON.stringify(listed.path)})`, () => connector.stat(listed.path));
      ensureAt(DOC_SECTIONS.identityPaths, described !== null && described.path === listed.path, {
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
    ensurePage(page, 'list() again', current);
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
  ensureAt(DOC_SECTIONS.identityPaths, missing.length === 0, () => ({
    expected: 'listing again gives the same path for the same object',
    actual: listProblems(missing),
    fix: 'derive the path from something stable (the host\'s name or id), never from the time, the page or the listing order',
  }));
  return `${entries.length} paths canonical; ${sample.length} ${withStat ? 'listed, stat and listed again' : 'listed again (stat is not claimed)'} under the same path`;
}
