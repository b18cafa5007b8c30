/**
 * Dimension filters written as text (`inseam search --where mime=text/markdown`), read into
 * scope-grammar predicates (docs/scope.md), and typed per host.
 *
 *   dim=value   eq        dim!=value  ne
 *   dim>value   gt        dim>=value  gte
 *   dim<value   lt        dim<=value  lte
 *   dim^=value  prefix    dim~=value  glob
 *
 * Values are text until a host's dimension types are known: for an `integer` or `bytes`
 * dimension a whole number becomes a number, for `boolean` `true`/`false` become booleans, and
 * for `datetime` a bare date `2024-05-01` becomes `2024-05-01T00:00:00Z`. Anything else stays
 * text, and the scope validation refuses a wrong type, naming it.
 */
import type { Description, DimensionType, ScopePredicate } from '@inseam/connector';
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import { OPS_BY_TYPE } from '../scope/index.js';

type WhereOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'prefix' | 'glob';

/** The written operators and the scope operator each is, longest symbol first (the order parseWhere tries them). */
export const WHERE_OPERATORS: readonly (readonly [string, WhereOp])[] = [
  ['!=', 'ne'],
  ['>=', 'gte'],
  ['<=', 'lte'],
  ['^=', 'prefix'],
  ['~=', 'glob'],
  ['=', 'eq'],
  ['>', 'gt'],
  ['<', 'lt'],
];

const OPERATORS = WHERE_OPERATORS;

const OPERATOR_START = /[=!<>^~]/;

/** One `dim<op>value` filter as a predicate with a text value. Throws `invalid_argument` naming the filter. */
export function parseWhere(text: string): ScopePredicate {
  const start = typeof text === 'string' ? text.search(OPERATOR_START) : -1;
  const dim = start > 0 ? text.slice(0, start).trim() : '';
  const rest = start > 0 ? text.slice(start) : '';
  const operator = OPERATORS.find(([symbol]) => rest.startsWith(symbol));
  if (dim === '' || operator === undefined) {
    throw new InvalidArgumentError(
      `The filter ${JSON.stringify(text)} is not "dimension<operator>value"; operators are =, !=, >, >=, <, <=, ^= (prefix) and ~= (glob), e.g. mime=text/markdown.`,
      { details: { argument: 'where' } },
    );
  }
  return { dim, op: operator[1], value: rest.slice(operator[0].length) };
}

/** `predicate` with text values read by `description`'s dimension types (see the module comment). */
export function typeWhere(predicate: ScopePredicate, description: Description): ScopePredicate {
  if ('all' in predicate) return { all: predicate.all.map((item) => typeWhere(item, description)) };
  if ('any' in predicate) return { any: predicate.any.map((item) => typeWhere(item, description)) };
  if ('not' in predicate) return { not: typeWhere(predicate.not, description) };
  const dimension = description.dimensions[predicate.dim];
  if (dimension === undefined) return predicate;
  const typed = (value: unknown): unknown => {
    if (typeof value !== 'string') return value;
    switch (dimension.type) {
      case 'integer':
      case 'bytes':
        return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
      case 'boolean':
        return value === 'true' ? true : value === 'false' ? false : value;
      case 'datetime':
        return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
      default:
        return value;
    }
  };
  return { ...predicate, value: Array.isArray(predicate.value) ? predicate.value.map(typed) : typed(predicate.value) };
}

/** The dimensions of some hosts, for describing what their filters can say. */
export interface WhereDimensions {
  readonly host: string;
  readonly dimensions: Description['dimensions'];
}

/**
 * What `dim<op>value` filters can filter on over these hosts, for a tool's description or a
 * command's help: each dimension with its type and the written operators its type takes (from
 * the operator table above and the scope's operators per type), and the hosts that declare it
 * when not all of them do.
 */
export function describeWhere(hosts: readonly WhereDimensions[]): string {
  const byKey = new Map<string, { readonly name: string; readonly type: DimensionType; readonly values: readonly string[] | undefined; readonly hosts: string[] }>();
  for (const host of hosts) {
    for (const [name, dimension] of Object.entries(host.dimensions)) {
      const key = `${name}\u0000${dimension.type}`;
      const group = byKey.get(key) ?? { name, type: dimension.type, values: dimension.values, hosts: [] };
      group.hosts.push(host.host);
      byKey.set(key, group);
    }
  }
  const operators = WHERE_OPERATORS.map(([symbol, op]) => `${symbol} (${op})`).join(', ');
  if (byKey.size === 0) return `where filters are dim<op>value with operators ${operators}; none of these hosts declares a dimension to filter on.`;
  const dimensions = [...byKey.values()].map((group) => {
    const allowed = WHERE_OPERATORS.filter(([, op]) => OPS_BY_TYPE[group.type].includes(op)).map(([symbol]) => symbol);
    const values = group.values === undefined ? '' : ` of ${group.values.join('|')}`;
    const where = group.hosts.length === hosts.length ? '' : ` on ${group.hosts.join(', ')}`;
    return `${group.name} (${group.type}${values}: ${allowed.join(' ')})${where}`;
  });
  return `where filters are dim<op>value, all of which must hold; operators ${operators}. Dimensions: ${dimensions.join('; ')}. A date alone (2024-05-01) stands for its midnight UTC.`;
}
