/**
 * The forms of an Entry's fields and of its dimension values, as docs/connectors/authoring.md
 * settles them: what check 3 holds every listed entry to. Each problem names the reference
 * section that explains the rule.
 */
import type { Dimension, Entry } from '@inseam/connector';
import { describeValue } from '@neuralis/package-system/testing';
import { HOST_PATH, parsePath } from '../../address/path.js';
import { entryProblem } from '../../catalog/index.js';
import { parseTimestamp } from '../../scope/index.js';
import { DOC_SECTIONS, type DocSection } from '../docs.js';

export interface FormProblem {
  readonly section: DocSection;
  readonly text: string;
}

/** `extra` as JSON: at most this many characters and this many levels deep. */
const MAX_EXTRA_JSON = 16 * 1024;
const MAX_EXTRA_DEPTH = 8;

/** The raw value a dimension's `from` names on an entry (own properties only; `extra.a.b` is nested). */
export function rawValue(entry: Entry, from: Dimension['from']): unknown {
  if (from === 'path' || from === 'size' || from === 'mtime' || from === 'mime') return entry[from];
  let value: unknown = entry.extra;
  for (const key of from.split('.').slice(1)) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** True when `value` is an RFC 3339 date-time in UTC (`T` and `Z` uppercase, any fraction). */
function isUtcTimestamp(value: unknown): value is string {
  return typeof value === 'string' && parseTimestamp(value, true) !== undefined;
}

/** True when `value` is a canonical path (as Entry.path is spelled); '' is the root. */
export function isCanonicalPath(value: string): boolean {
  try {
    return parsePath(value, HOST_PATH).path === value;
  } catch {
    return false;
  }
}

/**
 * Why a dimension's value on an entry breaks the rules, or undefined. `null` on an `extra.*`
 * dimension that does not order the window means "this object has none" and is accepted.
 */
export function dimensionProblem(entry: Entry, dimension: Dimension): FormProblem | undefined {
  const value = rawValue(entry, dimension.from);
  if (value === undefined) {
    const dotted = dimension.from.startsWith('extra.') && dimension.from.split('.').length > 2 && entry.extra !== undefined && Object.hasOwn(entry.extra, dimension.from.slice(6));
    return dotted
      ? { section: DOC_SECTIONS.dimensionFrom, text: `is missing (extra has a key literally named ${JSON.stringify(dimension.from.slice(6))}, but from "${dimension.from}" reads the nested field)` }
      : { section: DOC_SECTIONS.dimensionPresence, text: 'is missing' };
  }
  if (value === null) {
    if (dimension.from.startsWith('extra.') && dimension.ordering !== true) return undefined;
    return { section: DOC_SECTIONS.dimensionPresence, text: `is null${dimension.ordering === true ? ' on the ordering dimension, which every entry must carry' : `, which only an extra.* dimension may be`}` };
  }
  const shown = describeValue(value);
  const values = (problem: string | undefined, section: DocSection = DOC_SECTIONS.dimensionValues): FormProblem | undefined => (problem === undefined ? undefined : { section, text: problem });
  switch (dimension.type) {
    case 'string':
      return values(typeof value === 'string' ? undefined : `${shown} is not a string`);
    case 'path':
      if (typeof value !== 'string') return values(`${shown} is not a string`);
      return values(isCanonicalPath(value) ? undefined : `${shown} is not a canonical path (spelled as Entry.path is: percent-encoded per segment)`);
    case 'enum':
      return values(typeof value === 'string' && (dimension.values ?? []).includes(value) ? undefined : `${shown} is not one of ${(dimension.values ?? []).map((item) => JSON.stringify(item)).join(', ')}`, DOC_SECTIONS.dimensionEnums);
    case 'bytes':
      return values(Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : `${shown} is not a non-negative whole number of bytes`);
    case 'integer':
      return values(Number.isSafeInteger(value) ? undefined : `${shown} is not a whole number`);
    case 'datetime':
      return values(isUtcTimestamp(value) ? undefined : `${shown} is not an RFC 3339 date-time in UTC such as "2024-05-01T08:00:00Z"`);
    case 'boolean':
      return values(typeof value === 'boolean' ? undefined : `${shown} is not true or false`);
  }
}

const HASH = /^([a-z0-9][a-z0-9-]*):(\S+)$/;
const HEX_LENGTHS: Readonly<Record<string, number>> = { sha256: 64, sha1: 40, md5: 32 };
const IDENTITY = /^[a-z][a-z0-9+.-]*:\S+$/;
const ROLE = /^[a-z][a-z0-9-]*$/;

/** The algorithm and digest of a nativeHash the trial can verify (sha256, sha1, md5), else undefined. */
export function verifiableHash(nativeHash: string): { algorithm: 'sha256' | 'sha1' | 'md5'; hex: string } | undefined {
  const match = HASH.exec(nativeHash);
  if (match === null || HEX_LENGTHS[match[1]!] === undefined) return undefined;
  return { algorithm: match[1] as 'sha256' | 'sha1' | 'md5', hex: match[2]!.toLowerCase() };
}

function jsonProblem(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${String(value)} is not a JSON number`;
  if (depth >= MAX_EXTRA_DEPTH && typeof value === 'object') return `it nests deeper than ${MAX_EXTRA_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const item of Object.values(value)) {
      const problem = jsonProblem(item, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  return `a ${typeof value === 'object' ? (value).constructor?.name ?? 'object' : typeof value} is not JSON data`;
}

/** Why an entry's own fields break their documented forms ([] when they do not). */
export function entryFormProblems(entry: Entry): FormProblem[] {
  const problems: FormProblem[] = [];
  const stored = entryProblem(entry);
  if (stored !== undefined) problems.push({ section: DOC_SECTIONS.entryFields, text: stored });
  if (entry.mtime !== undefined && !isUtcTimestamp(entry.mtime)) {
    problems.push({ section: DOC_SECTIONS.entryFields, text: `mtime ${describeValue(entry.mtime)} is not an RFC 3339 date-time in UTC such as "2024-05-01T08:00:00Z"` });
  }
  if (entry.etag === '') problems.push({ section: DOC_SECTIONS.writingEtags, text: 'etag is empty (leave it out when the host has none)' });
  if (entry.nativeHash !== undefined) {
    const match = HASH.exec(entry.nativeHash);
    const expectedLength = match === null ? undefined : HEX_LENGTHS[match[1]!];
    if (match === null) problems.push({ section: DOC_SECTIONS.identityNativeHash, text: `nativeHash ${describeValue(entry.nativeHash)} is not "<algorithm>:<digest>" with a lowercase algorithm` });
    else if (expectedLength !== undefined && !new RegExp(`^[0-9a-fA-F]{${expectedLength}}$`).test(match[2]!)) {
      problems.push({ section: DOC_SECTIONS.identityNativeHash, text: `nativeHash ${describeValue(entry.nativeHash)} is not ${expectedLength} hex digits of ${match[1]}` });
    }
  }
  if (entry.extra !== undefined) {
    const problem = jsonProblem(entry.extra, 0);
    if (problem !== undefined) problems.push({ section: DOC_SECTIONS.entryExtra, text: `extra: ${problem}` });
    else {
      const length = JSON.stringify(entry.extra).length;
      if (length > MAX_EXTRA_JSON) problems.push({ section: DOC_SECTIONS.entryExtra, text: `extra is ${length} characters as JSON, over ${MAX_EXTRA_JSON}` });
    }
  }
  if (entry.envelope !== undefined) {
    entry.envelope.parties.forEach((party, index) => {
      if (!IDENTITY.test(party.identity) || (party.identity.startsWith('mailto:') && !party.identity.includes('@'))) {
        problems.push({ section: DOC_SECTIONS.envelopes, text: `envelope.parties[${index}].identity ${describeValue(party.identity)} is not "scheme:value" (mailto:a@example.com, tel:+49…, or <kind>:<user id>)` });
      }
      if (!ROLE.test(party.role)) problems.push({ section: DOC_SECTIONS.envelopes, text: `envelope.parties[${index}].role ${describeValue(party.role)} is not a lowercase token such as "from", "to", "reporter"` });
    });
  }
  return problems;
}
