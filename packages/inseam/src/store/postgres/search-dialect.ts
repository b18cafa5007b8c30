/**
 * search-scope.ts's SQL for PostgreSQL: numbered parameters after the statement's own, text
 * compared `COLLATE "C"` (code point order, whatever the database's locale), `extra` read as
 * jsonb, globs as regular expressions (`~`, whose matcher does not backtrack), and timestamps
 * parsed by an expression that answers NULL — never an error — for text scope/values.ts's
 * parser refuses.
 */
import { postgresGlob, type SqlDialect, type ValueType } from '../search-scope.js';

/** RFC 3339 as scope/values.ts reads it: date, `T`, time, an optional fraction, `Z` or an offset. */
const RFC3339 = String.raw`^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$`;

/**
 * Epoch milliseconds of a text expression. Days from the civil date by Howard Hinnant's
 * algorithm (any year 0000–9999, no date type and so no out-of-range error); a day past its
 * month's end, an hour over 23, a minute over 59, a second over 60 or a bad offset is NULL, as in
 * parseTimestamp; a 60th second rolls into the next minute, as Date does.
 */
function timestampSql(expression: string): string {
  return `(SELECT CASE
      WHEN p.y IS NULL THEN NULL
      WHEN p.mo BETWEEN 1 AND 12
       AND p.d BETWEEN 1 AND (CASE WHEN p.mo IN (4, 6, 9, 11) THEN 30 WHEN p.mo = 2 THEN (CASE WHEN (p.y % 4 = 0 AND p.y % 100 <> 0) OR p.y % 400 = 0 THEN 29 ELSE 28 END) ELSE 31 END)
       AND p.h <= 23 AND p.mi <= 59 AND p.s <= 60 AND p.zh <= 23 AND p.zm <= 59
      THEN (p.era * 146097 + (p.yy - p.era * 400) * 365 + (p.yy - p.era * 400) / 4 - (p.yy - p.era * 400) / 100 + (153 * ((p.mo + 9) % 12) + 2) / 5 + p.d - 1 - 719468) * 86400000
           + p.h * 3600000 + p.mi * 60000 + p.s * 1000 + p.fr - p.zsign * (p.zh * 60 + p.zm) * 60000
    END
    FROM (SELECT q.*, floor(q.yy / 400.0)::bigint AS era
          FROM (SELECT r.m[1]::bigint AS y, r.m[2]::bigint AS mo, r.m[3]::bigint AS d, r.m[4]::bigint AS h, r.m[5]::bigint AS mi, r.m[6]::bigint AS s,
                       coalesce(rpad(substr(r.m[7], 1, 3), 3, '0')::bigint, 0) AS fr,
                       CASE WHEN r.m[9] = '-' THEN -1 ELSE 1 END AS zsign, coalesce(r.m[10]::bigint, 0) AS zh, coalesce(r.m[11]::bigint, 0) AS zm,
                       r.m[1]::bigint - (CASE WHEN r.m[2]::bigint <= 2 THEN 1 ELSE 0 END) AS yy
                FROM (SELECT regexp_match(${expression}, '${RFC3339}') AS m) r) q) p)`;
}

/** A dialect binding its parameters as `$<first>`, `$<first + 1>`, … into `params`. */
export function postgresDialect(params: unknown[], first: number): SqlDialect {
  const param = (value: unknown): string => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  return {
    param,
    ordered: (expression) => `(${expression}) COLLATE "C"`,
    extra(keys: readonly string[], type: ValueType): string {
      const json = `(e.extra::jsonb #> ${param([...keys])}::text[])`;
      switch (type) {
        case 'text':
        case 'datetime':
          return `(CASE WHEN jsonb_typeof(${json}) = 'string' THEN ${json} #>> '{}' END)`;
        case 'number':
          return `(CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json} #>> '{}')::numeric END)`;
        case 'boolean':
          return `(CASE WHEN jsonb_typeof(${json}) = 'boolean' THEN (${json} #>> '{}')::boolean END)`;
      }
    },
    timestamp: timestampSql,
    glob(expression, pattern, mode) {
      const source = postgresGlob(pattern, mode);
      return source === null ? 'false' : `(${expression}) ~ ${param(source)}`;
    },
    literal: (value) => value,
    true: 'true',
    false: 'false',
  };
}
