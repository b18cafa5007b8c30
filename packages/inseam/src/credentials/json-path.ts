/**
 * The JSON paths an exchange uses to pick values out of its response. A deliberately small
 * subset of JSONPath: `$` (the whole document) followed by any number of
 *   `.name`      a member whose name is an identifier (`[A-Za-z_$][A-Za-z0-9_$-]*`),
 *   `["name"]`   a member with any other name (no escapes; `'` quotes work too),
 *   `[3]`        an array element, from 0.
 * No wildcards, filters, slices or recursive descent: a path names exactly one value or none.
 * Only own members are followed, so `$.__proto__` is just a missing member.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';

export type JsonPathSegment = string | number;

const SEGMENT = /^(?:\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d{1,9})\]|\["([^"]*)"\]|\['([^']*)'\])/;

/** Parses `path`. Throws `invalid_config` naming `where` when it is not in the subset above. */
export function parseJsonPath(path: string, where: string): JsonPathSegment[] {
  if (!path.startsWith('$')) throw badPath(where);
  const segments: JsonPathSegment[] = [];
  let rest = path.slice(1);
  while (rest !== '') {
    const match = SEGMENT.exec(rest);
    if (match === null) throw badPath(where);
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(match[3] ?? match[4] ?? '');
    rest = rest.slice(match[0].length);
  }
  return segments;
}

/** The value `segments` name in `document`, or undefined when any step is missing. */
export function selectJsonPath(document: unknown, segments: readonly JsonPathSegment[]): unknown {
  let current: unknown = document;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) return undefined;
      current = current[segment];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

function badPath(where: string): InvalidConfigError {
  return new InvalidConfigError(`${where} is not a supported JSON path; write $ followed by .name, ["name"] or [index] steps, e.g. $.data.token.`, {
    details: { reason: 'json_path' },
  });
}
