/**
 * Source configs checked against their kind's configSchema. Compiled validators are cached by the
 * schema's JSON text (see config-schema.ts), so compiling the same schema per source is cheap.
 */
import type { ErrorObject } from 'ajv';
import { InvalidConfigError, ManifestValidationError } from '../contracts/errors.js';
import { pointerToPath } from './ajv.js';
import { analyseConfigSchema, validateConfigSchema } from './config-schema.js';
import { IssueCollector, at } from './issues.js';
import { checkJsonValue, cloneJson, deepFreeze, has, isPlainObject, own } from './json.js';

/** Validates one config; returns a frozen copy with schema defaults filled in. */
export type ConfigValidator = (config: unknown) => Readonly<Record<string, unknown>>;

/**
 * Compiles `schema` (a connector's configSchema) into a config validator.
 *
 * Throws `ManifestValidationError` (`manifest_invalid`, issues under `configSchema`) when the schema
 * itself breaks a rule of validateConfigSchema. The returned validator throws `InvalidConfigError`
 * (`invalid_config`) when the config is not a JSON object or does not match; its message names
 * every bad field and what the field accepts, `details.fields` lists the field paths and
 * `details.expected` the matching descriptions. Config values (possibly secrets) never appear in
 * the message. The caller's object is never mutated.
 */
export function compileConfigValidator(schema: unknown): ConfigValidator {
  const analysis = analyseConfigSchema(schema);
  const validate = analysis.validate;
  if (validate === undefined) throw new ManifestValidationError(analysis.issues);
  return (config: unknown) => {
    if (!isPlainObject(config)) {
      throw configError([{ field: ROOT_FIELD, problem: 'is not a JSON object', expected: describeSchema(schema) }]);
    }
    const jsonIssues = new IssueCollector();
    checkJsonValue(config, '', jsonIssues);
    if (jsonIssues.size > 0) {
      throw configError(jsonIssues.list().map((issue) => ({ field: issue.path || ROOT_FIELD, problem: 'is not a JSON value', expected: issue.expected })));
    }
    const copy = cloneJson(config);
    if (validate(copy) !== true) throw configError(describeErrors(validate.errors ?? [], copy));
    return deepFreeze(copy);
  };
}

/**
 * compileConfigValidator's validator, with the schema checked now and compiled at the first config
 * it validates: a registry of kinds a process may never use does not compile their schemas. Throws
 * now what compileConfigValidator would.
 */
export function lazyConfigValidator(schema: unknown): ConfigValidator {
  const issues = validateConfigSchema(schema);
  if (issues.length > 0) throw new ManifestValidationError(issues);
  let compiled: ConfigValidator | undefined;
  return (config: unknown) => (compiled ??= compileConfigValidator(schema))(config);
}

const ROOT_FIELD = '(config)';

interface FieldProblem {
  readonly field: string;
  readonly problem: string;
  readonly expected: string;
}

function configError(problems: readonly FieldProblem[]): InvalidConfigError {
  const unique = problems.filter((problem, index) => problems.findIndex((other) => other.field === problem.field && other.problem === problem.problem) === index);
  const text = unique.map((problem) => `field "${problem.field}" ${problem.problem} (expected ${problem.expected})`).join('; ');
  return new InvalidConfigError(`Invalid source config: ${text}.`, {
    details: {
      fields: [...new Set(unique.map((problem) => problem.field))],
      expected: unique.map((problem) => `${problem.field}: ${problem.expected}`),
    },
  });
}

/**
 * A failed anyOf/oneOf reports each failed branch and then itself; only the aggregate is kept, as
 * its description lists every alternative. A failed `if`/`then` is reported by the `then` errors.
 */
function describeErrors(errors: readonly ErrorObject[], config: unknown): FieldProblem[] {
  return errors
    .filter((error) => error.keyword !== 'if' && !/\/(?:anyOf|oneOf)\//.test(error.schemaPath))
    .map((error) => describeError(error, config));
}

function describeError(error: ErrorObject, config: unknown): FieldProblem {
  const base = pointerToPath('', error.instancePath, config);
  const parent: unknown = error.parentSchema;
  const properties = isPlainObject(parent) ? own(parent, 'properties') : undefined;
  switch (error.keyword) {
    case 'required':
    case 'dependencies': {
      const missing = String((error.params as { missingProperty?: string }).missingProperty ?? '');
      const field = at(base, missing);
      const schema = isPlainObject(properties) ? own(properties, missing) : undefined;
      return { field, problem: 'is required', expected: describeSchema(schema) };
    }
    case 'additionalProperties': {
      const extra = String((error.params as { additionalProperty?: string }).additionalProperty ?? '');
      const field = at(base, extra);
      const declared = isPlainObject(properties) ? Object.keys(properties) : [];
      return {
        field,
        problem: 'is not a declared config field',
        expected: declared.length === 0 ? 'no extra fields' : `only the declared fields ${declared.join(', ')}`,
      };
    }
    case 'pattern': {
      const known = KNOWN_PATTERNS[String((error.params as { pattern?: unknown }).pattern)];
      return { field: base || ROOT_FIELD, problem: known === undefined ? 'is not in the form the field takes' : `must be ${known.noun}`, expected: describeSchema(parent) };
    }
    default:
      return { field: base || ROOT_FIELD, problem: error.message ?? 'is not valid', expected: describeSchema(parent) };
  }
}

/**
 * The patterns config schemas use most, in words: a message says what a value must be, never the
 * regular expression (which reads as noise to a person). Any other pattern is described by the
 * field's own description, else as a form the kind defines.
 */
const KNOWN_PATTERNS: Readonly<Record<string, { readonly noun: string; readonly form: string }>> = {
  '^/': { noun: 'an absolute path', form: 'starting with /' },
  '^https?://': { noun: 'an http or https URL', form: 'starting with http:// or https://' },
  '^[0-9a-f]{32}$': { noun: '32 hexadecimal digits', form: 'of 32 lowercase hexadecimal digits' },
  '^\\d+$': { noun: 'digits only', form: 'of digits only' },
};

function patternForm(schema: Record<string, unknown>): string {
  const known = KNOWN_PATTERNS[String(own(schema, 'pattern'))];
  if (known !== undefined) return known.form;
  const description = own(schema, 'description');
  return typeof description === 'string' && description !== '' ? `in the form described as: ${description.replace(/\.$/, '')}` : 'in the form the kind defines';
}

/**
 * A short description of what a schema accepts, for `expected`; built from the schema only, never
 * the data, and never showing a pattern's regular expression.
 */
export function describeSchema(schema: unknown): string {
  if (schema === undefined || schema === true) return 'any value';
  if (schema === false) return 'no value (the field must be absent)';
  if (!isPlainObject(schema)) return 'a value matching the schema';
  if (has(schema, 'const')) return `exactly ${JSON.stringify(own(schema, 'const'))}`;
  const allowed = own(schema, 'enum');
  if (Array.isArray(allowed)) return `one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  const type = own(schema, 'type');
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((item): item is string => typeof item === 'string') : [];
  if (types.length === 0) {
    const alternatives = own(schema, 'anyOf') ?? own(schema, 'oneOf');
    if (Array.isArray(alternatives)) return alternatives.map((alternative) => describeSchema(alternative)).join(' or ');
    return 'a value matching the schema';
  }
  return types.map((name) => describeType(name, schema)).join(' or ');
}

function describeType(type: string, schema: Record<string, unknown>): string {
  const constraints: string[] = [];
  const add = (keyword: string, phrase: (value: unknown) => string): void => {
    if (has(schema, keyword)) constraints.push(phrase(own(schema, keyword)));
  };
  let noun: string;
  switch (type) {
    case 'string':
      noun = 'a string';
      add('minLength', (n) => `at least ${String(n)} character${n === 1 ? '' : 's'} long`);
      add('maxLength', (n) => `at most ${String(n)} character${n === 1 ? '' : 's'} long`);
      add('pattern', () => patternForm(schema));
      break;
    case 'number':
    case 'integer':
      noun = type === 'number' ? 'a number' : 'an integer';
      add('minimum', (n) => `>= ${String(n)}`);
      add('exclusiveMinimum', (n) => `> ${String(n)}`);
      add('maximum', (n) => `<= ${String(n)}`);
      add('exclusiveMaximum', (n) => `< ${String(n)}`);
      add('multipleOf', (n) => `a multiple of ${String(n)}`);
      break;
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array': {
      noun = 'a list';
      const items = own(schema, 'items');
      if (isPlainObject(items)) noun = `a list of ${describeSchema(items)}`;
      add('minItems', (n) => `with at least ${String(n)} item${n === 1 ? '' : 's'}`);
      add('maxItems', (n) => `with at most ${String(n)} item${n === 1 ? '' : 's'}`);
      break;
    }
    case 'object': {
      noun = 'an object';
      const properties = own(schema, 'properties');
      if (isPlainObject(properties) && Object.keys(properties).length > 0) constraints.push(`with fields ${Object.keys(properties).join(', ')}`);
      const required = own(schema, 'required');
      if (Array.isArray(required) && required.length > 0) constraints.push(`requiring ${required.join(', ')}`);
      break;
    }
    default:
      return `a ${type}`;
  }
  return constraints.length === 0 ? noun : `${noun} ${constraints.join(', ')}`;
}
