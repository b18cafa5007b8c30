/**
 * Scope validation against a connector's declared dimensions (docs/scope.md is the reference).
 *
 * Every problem is collected and thrown together as one `ScopeValidationError` (`scope_invalid`)
 * whose `issues` carry the JSON path of each (`window.last`, `rules[2].exclude.any[0].value`),
 * a message naming the dimension, operator or value at fault, and what would be accepted.
 * Unknown keys are problems too: a misspelt `exlude` would otherwise crawl what it meant to skip.
 *
 * Bounds that keep evaluation cheap: predicates nest at most 32 deep, a scope holds at most
 * 10,000 predicates and 1,000 rules, an `in` list at most 10,000 values, a string value at most
 * 4,096 characters.
 */
import { ScopeValidationError, type ManifestIssue } from '@neuralis/package-system/contracts';
import { orderingDimension, type Description, type Dimension, type Scope } from '@inseam/connector';
import { parseDuration } from './duration.js';
import { compileGlob } from './glob.js';
import { OPS_BY_TYPE, SCOPE_OPS, compare, expectedValue, shown, toComparable, valueProblem, type ScopeOp } from './values.js';

export const MAX_PREDICATE_DEPTH = 32;
export const MAX_PREDICATES = 10_000;
export const MAX_RULES = 1_000;
export const MAX_IN_VALUES = 10_000;

type Json = Record<string, unknown>;

/**
 * Validates `scope` against `description`'s dimensions and returns a deep-frozen copy. Throws
 * `ScopeValidationError` (`scope_invalid`) listing every problem; `description_invalid` when the
 * description has no ordering dimension.
 */
export function validateScope(scope: unknown, description: Description): Scope {
  const issues = scopeIssues(scope, description, '');
  if (issues.length > 0) throw ScopeValidationError.fromIssues(issues);
  return deepFreeze(JSON.parse(JSON.stringify(scope)) as Scope);
}

/**
 * Validates a connector's `defaultScope` (the trial's check 7); issue paths start with
 * `defaultScope`. Returns undefined when the description declares none.
 */
export function validateDefaultScope(description: Description): Scope | undefined {
  if (description.defaultScope === undefined) return undefined;
  const issues = scopeIssues(description.defaultScope, description, 'defaultScope');
  if (issues.length > 0) throw ScopeValidationError.fromIssues(issues);
  return deepFreeze(JSON.parse(JSON.stringify(description.defaultScope)) as Scope);
}

/** Every problem with `scope`, paths prefixed with `prefix` ('' for none). */
export function scopeIssues(scope: unknown, description: Description, prefix: string): ManifestIssue[] {
  return new ScopeChecker(description, prefix).check(scope);
}

class ScopeChecker {
  private readonly issues: ManifestIssue[] = [];
  private predicates = 0;
  private readonly ordering: string;
  private readonly declared: string;

  constructor(
    private readonly description: Description,
    private readonly prefix: string,
  ) {
    this.ordering = orderingDimension(description);
    this.declared = Object.keys(description.dimensions).join(', ');
  }

  check(scope: unknown): ManifestIssue[] {
    if (!isObject(scope)) {
      this.issue('', `The scope is ${shown(scope)}, not an object.`, 'an object { window?, rules?, limits? }');
      return this.issues;
    }
    this.unknownKeys(scope, ['window', 'rules', 'limits'], '');
    if (scope['window'] !== undefined) this.window(scope['window']);
    if (scope['rules'] !== undefined) this.rules(scope['rules']);
    if (scope['limits'] !== undefined) this.limits(scope['limits']);
    return this.issues;
  }

  private window(value: unknown): void {
    if (!isObject(value)) {
      this.issue('window', `window is ${shown(value)}, not an object.`, '{ from?, to?, last?, outside? }');
      return;
    }
    this.unknownKeys(value, ['from', 'to', 'last', 'outside'], 'window');
    const name = this.ordering;
    const dimension = this.description.dimensions[name]!;
    const along = `the window runs along the ordering dimension "${name}" (${dimension.type})`;
    const bounds: Partial<Record<'from' | 'to', unknown>> = {};
    for (const key of ['from', 'to'] as const) {
      const bound = value[key];
      if (bound === undefined) continue;
      const problem = valueProblem(bound, dimension);
      if (problem === undefined) bounds[key] = bound;
      else this.issue(`window.${key}`, `${capital(problem)}; ${along}.`, expectedValue(dimension));
    }
    if (bounds.from !== undefined && bounds.to !== undefined && this.windowOrder(bounds.from, bounds.to, dimension) >= 0) {
      this.issue('window.to', `window.to (${shown(bounds.to)}) is not after window.from (${shown(bounds.from)}), so the window is empty.`, 'a to later than from (from is inclusive, to exclusive)');
    }
    const last = value['last'];
    if (last !== undefined) {
      if (value['from'] !== undefined || value['to'] !== undefined) {
        this.issue('window.last', 'last cannot be combined with from or to: last is a window of its own.', 'either last, or from and/or to');
      }
      if (typeof last === 'string') {
        if (dimension.type !== 'datetime') {
          this.issue('window.last', `last is the duration ${shown(last)}, but ${along}, which has no durations.`, 'a count of entries (a positive integer)');
        } else {
          const duration = parseDuration(last);
          if ('problem' in duration) this.issue('window.last', `${capital(duration.problem)}.`, 'an ISO 8601 duration such as "P30D", or a count of entries');
        }
      } else if (!(Number.isSafeInteger(last) && (last as number) > 0)) {
        const expected = dimension.type === 'datetime' ? 'an ISO 8601 duration such as "P30D", or a positive count of entries' : 'a positive count of entries';
        this.issue('window.last', `last is ${shown(last)}.`, expected);
      }
    }
    const outside = value['outside'];
    if (outside !== undefined && outside !== 'index' && outside !== 'skip') {
      this.issue('window.outside', `outside is ${shown(outside)}.`, '"index" (keep metadata of entries outside the window) or "skip" (leave them out)');
    }
  }

  private windowOrder(from: unknown, to: unknown, dimension: Dimension): number {
    if (dimension.type === 'enum') return dimension.values!.indexOf(from as string) - dimension.values!.indexOf(to as string);
    return compare(toComparable(from, dimension), toComparable(to, dimension));
  }

  private rules(value: unknown): void {
    if (!Array.isArray(value)) {
      this.issue('rules', `rules is ${shown(value)}, not an array.`, 'an ordered array of { include: predicate } or { exclude: predicate }');
      return;
    }
    if (value.length > MAX_RULES) {
      this.issue('rules', `rules has ${value.length} rules.`, `at most ${MAX_RULES} rules`);
      return;
    }
    value.forEach((rule, index) => {
      const path = `rules[${index}]`;
      if (!isObject(rule)) {
        this.issue(path, `A rule is ${shown(rule)}, not an object.`, '{ include: predicate } or { exclude: predicate }');
        return;
      }
      const keys = Object.keys(rule);
      const action = keys.filter((key) => key === 'include' || key === 'exclude');
      if (action.length !== 1) {
        this.issue(path, action.length === 0 ? 'The rule has neither include nor exclude.' : 'The rule has both include and exclude.', 'exactly one of include or exclude');
      }
      this.unknownKeys(rule, ['include', 'exclude'], path);
      for (const key of action) this.predicate(rule[key], `${path}.${key}`, 1);
    });
  }

  private predicate(value: unknown, path: string, depth: number): void {
    const forms = '{ dim, op, value }, { all: [...] }, { any: [...] } or { not: predicate }';
    if (++this.predicates > MAX_PREDICATES) {
      if (this.predicates === MAX_PREDICATES + 1) this.issue(path, `The scope has more than ${MAX_PREDICATES} predicates.`, `at most ${MAX_PREDICATES} predicates`);
      return;
    }
    if (depth > MAX_PREDICATE_DEPTH) {
      this.issue(path, `Predicates nest more than ${MAX_PREDICATE_DEPTH} deep.`, `at most ${MAX_PREDICATE_DEPTH} levels of all/any/not`);
      return;
    }
    if (!isObject(value)) {
      this.issue(path, `The predicate is ${shown(value)}, not an object.`, forms);
      return;
    }
    const keys = Object.keys(value);
    const combinator = keys.filter((key) => key === 'all' || key === 'any' || key === 'not');
    if (combinator.length === 0) {
      this.comparison(value, path);
      return;
    }
    if (combinator.length > 1 || keys.length > 1) {
      this.issue(path, `The predicate mixes ${keys.map((key) => `"${key}"`).join(', ')}.`, `exactly one of ${forms}`);
      return;
    }
    const key = combinator[0] as 'all' | 'any' | 'not';
    const inner = value[key];
    if (key === 'not') {
      this.predicate(inner, `${path}.not`, depth + 1);
    } else if (!Array.isArray(inner)) {
      this.issue(`${path}.${key}`, `${key} is ${shown(inner)}, not an array.`, `an array of predicates (${key === 'all' ? 'all: [] matches everything' : 'any: [] matches nothing'})`);
    } else {
      inner.forEach((item, index) => this.predicate(item, `${path}.${key}[${index}]`, depth + 1));
    }
  }

  private comparison(value: Json, path: string): void {
    this.unknownKeys(value, ['dim', 'op', 'value'], path);
    const { dim, op } = value;
    let dimension: Dimension | undefined;
    if (typeof dim !== 'string' || !Object.hasOwn(this.description.dimensions, dim)) {
      const message = dim === undefined ? 'dim is missing.' : `The dimension ${shown(dim)} is not declared by connector kind "${this.description.kind}".`;
      this.issue(`${path}.dim`, message, `one of the declared dimensions: ${this.declared}`);
    } else {
      dimension = this.description.dimensions[dim]!;
    }
    if (typeof op !== 'string' || !(SCOPE_OPS as readonly string[]).includes(op)) {
      this.issue(`${path}.op`, op === undefined ? 'op is missing.' : `The operator ${shown(op)} is unknown.`, `one of ${SCOPE_OPS.join(', ')}`);
      return;
    }
    if (!Object.hasOwn(value, 'value')) {
      this.issue(`${path}.value`, 'value is missing.', dimension === undefined ? 'a value' : this.expectedFor(op as ScopeOp, dimension));
      return;
    }
    if (dimension === undefined) return;
    const allowed = OPS_BY_TYPE[dimension.type];
    if (!allowed.includes(op as ScopeOp)) {
      this.issue(`${path}.op`, `The operator "${op}" does not apply to dimension "${dim as string}" (${dimension.type}).`, `one of ${allowed.join(', ')} for a ${dimension.type} dimension`);
      return;
    }
    this.operand(value['value'], op as ScopeOp, dim as string, dimension, `${path}.value`);
  }

  private operand(value: unknown, op: ScopeOp, name: string, dimension: Dimension, path: string): void {
    const about = `for dimension "${name}" (${dimension.type})`;
    if (op === 'in') {
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES) {
        this.issue(path, `The value of "in" ${about} is ${Array.isArray(value) ? `an array of ${value.length}` : shown(value)}.`, `a non-empty array (at most ${MAX_IN_VALUES}) of ${expectedValue(dimension)}`);
        return;
      }
      value.forEach((item, index) => {
        const problem = valueProblem(item, dimension);
        if (problem !== undefined) this.issue(`${path}[${index}]`, `${capital(problem)} ${about}.`, expectedValue(dimension));
      });
      return;
    }
    const problem = valueProblem(value, dimension);
    if (problem !== undefined) {
      this.issue(path, `${capital(problem)} ${about}.`, this.expectedFor(op, dimension));
      return;
    }
    if (op === 'glob') {
      const glob = compileGlob(value as string, dimension.type === 'path' ? 'path' : 'text');
      if ('problem' in glob) this.issue(path, `The glob ${shown(value)} ${about} is not valid: ${glob.problem}.`, 'a glob such as "docs/**", "**/*.md" or "*.[ch]" (see docs/scope.md)');
    }
  }

  private expectedFor(op: ScopeOp, dimension: Dimension): string {
    if (op === 'in') return `a non-empty array of ${expectedValue(dimension)}`;
    if (op === 'glob') return 'a glob string';
    return expectedValue(dimension);
  }

  private limits(value: unknown): void {
    if (!isObject(value)) {
      this.issue('limits', `limits is ${shown(value)}, not an object.`, '{ maxEntries?, maxBytes?, maxEntryBytes? }');
      return;
    }
    this.unknownKeys(value, ['maxEntries', 'maxBytes', 'maxEntryBytes'], 'limits');
    const maxEntries = value['maxEntries'];
    if (maxEntries !== undefined && !(Number.isSafeInteger(maxEntries) && (maxEntries as number) > 0)) {
      this.issue('limits.maxEntries', `maxEntries is ${shown(maxEntries)}.`, 'a positive integer');
    }
    for (const key of ['maxBytes', 'maxEntryBytes'] as const) {
      const limit = value[key];
      if (limit !== undefined && !(Number.isSafeInteger(limit) && (limit as number) >= 0)) {
        this.issue(`limits.${key}`, `${key} is ${shown(limit)}.`, 'a non-negative integer number of bytes');
      }
    }
  }

  private unknownKeys(value: Json, allowed: readonly string[], path: string): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.issue(path === '' ? key : `${path}${member(key)}`, `${JSON.stringify(key)} is not a field here.`, `only ${allowed.join(', ')}`);
    }
  }

  private issue(path: string, message: string, expected: string): void {
    const full = this.prefix === '' ? path || '$' : path === '' ? this.prefix : `${this.prefix}.${path}`;
    this.issues.push({ path: full, message, expected });
  }
}

function isObject(value: unknown): value is Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function member(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
