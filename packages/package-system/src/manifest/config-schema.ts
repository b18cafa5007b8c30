/**
 * Checks a source connector's `configSchema`: plain JSON, draft-07, accepted by Ajv in strict mode,
 * and closed. Closed means the top level is `type: "object"` with `additionalProperties: false`
 * (the spec's rule), and every nested object schema that describes accepted values states
 * `additionalProperties` as `false` or a non-empty schema (a typed map) — an omitted, `true` or `{}`
 * value would let a typo'd nested key through silently, the same failure the top-level rule exists
 * to prevent. Conditions (`not`, `if`, `contains`, `propertyNames`) accept nothing themselves and
 * are exempt.
 *
 * This is stricter than the reference platform's hand-rolled subset, which ignores unknown
 * keywords: here an unknown keyword is an error, so a misspelt `minLenght` cannot pass as no
 * constraint at all.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import type { ManifestIssue } from '../contracts/errors.js';
import { DRAFT_07_META_SCHEMA_IDS, createStrictAjv, pointerToPath } from './ajv.js';
import { IssueCollector, at, named } from './issues.js';
import { checkJsonValue, cloneJson, deepFreeze, has, isPlainObject, own, type JsonObject } from './json.js';

/** Every draft-07 keyword; Ajv strict mode refuses anything else. */
export const DRAFT_07_KEYWORDS = [
  '$schema', '$id', '$ref', '$comment', 'title', 'description', 'default', 'readOnly', 'writeOnly', 'examples',
  'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding',
  'additionalItems', 'items', 'maxItems', 'minItems', 'uniqueItems', 'contains',
  'maxProperties', 'minProperties', 'required', 'additionalProperties', 'definitions', 'properties',
  'patternProperties', 'dependencies', 'propertyNames', 'const', 'enum', 'type',
  'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not',
] as const;

const KEYWORDS: ReadonlySet<string> = new Set(DRAFT_07_KEYWORDS);
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'definitions'] as const;
const SINGLE_SCHEMA_KEYWORDS = ['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'if', 'then', 'else', 'not'] as const;
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'] as const;

export const CONFIG_SCHEMA_ACCEPTED =
  'a closed draft-07 JSON Schema: { "type": "object", "additionalProperties": false, "properties": { … }, "required"?: [ … ] }';

const COMPILE_ACCEPTED =
  'a schema Ajv compiles in strict draft-07 mode: "type" declared wherever a type-specific keyword appears, ' +
  'every "required" name declared in "properties", no "format" (no format vocabulary is installed; use "pattern"), ' +
  'no "default" at the schema root (Ajv cannot apply it there), and "$ref" only to "definitions" inside the schema';

/** The result of checking one schema; `validate` is present only when there are no issues. */
export interface ConfigSchemaAnalysis {
  readonly issues: readonly ManifestIssue[];
  readonly validate?: ValidateFunction;
}

const MAX_CACHED_SCHEMAS = 256;
/** Keyed by the schema's JSON text, so a schema mutated after compilation never reuses a stale validator. */
const compiled = new Map<string, ValidateFunction>();

/**
 * Schemas that passed every check here before, kept by the caller across processes (the platform
 * keeps one in its data directory): a process that loads the same packages at every start then
 * skips the meta-schema check and the strict compile — most of a start's manifest checking — for
 * schemas it has seen pass. A key names the exact schema text and the exact checker (this module's
 * and the Ajv setup's source, and Ajv's version), so a changed schema or a changed rule is checked
 * again; an entry is only ever added for a schema that passed.
 */
export interface CheckedSchemaRecord {
  has(key: string): boolean;
  add(key: string): void;
}

let checkerFingerprint: string | undefined;
/** Made at the first recorded check: the digest of what decides whether a schema passes. */
function checker(): string {
  if (checkerFingerprint === undefined) {
    const require = createRequire(import.meta.url);
    const ajvVersion = (require('ajv/package.json') as { version: string }).version;
    const hash = createHash('sha256').update(`ajv ${ajvVersion}\n`);
    for (const module of ['./config-schema', './ajv']) hash.update(readFileSync(new URL(`${module}${extensionOf(import.meta.url)}`, import.meta.url)));
    checkerFingerprint = hash.digest('hex');
  }
  return checkerFingerprint;
}

/** `.ts` when run from sources (tests), `.js` when built. */
function extensionOf(url: string): string {
  return url.endsWith('.ts') ? '.ts' : '.js';
}

/** The record key of a schema's JSON text under this checker. */
function checkedSchemaKey(schemaJson: string): string {
  return createHash('sha256').update(checker()).update('\n').update(schemaJson).digest('hex');
}

/**
 * Every issue with `schema` as a connector config schema, with paths under `path`
 * (default `configSchema`). Never throws; an empty list means compileConfigValidator accepts it.
 * With a `record`, a schema whose key it holds passes without being checked again, and one that
 * passes now is added to it.
 */
export function validateConfigSchema(schema: unknown, path = 'configSchema', record?: CheckedSchemaRecord): ManifestIssue[] {
  const json = isPlainObject(schema) ? recordableJson(schema) : undefined;
  if (json !== undefined && recordedThisProcess.has(json)) return [];
  const key = json === undefined || record === undefined ? undefined : checkedSchemaKey(json);
  if (key !== undefined && record?.has(key) === true) {
    recordedThisProcess.add(json as string);
    return [];
  }
  const issues = [...analyseConfigSchema(schema, path).issues];
  if (issues.length === 0 && key !== undefined) record?.add(key);
  return issues;
}

/** The JSON text of a plain JSON object; undefined for anything JSON.stringify would not round-trip (checked in full instead). */
function recordableJson(schema: JsonObject): string | undefined {
  const issues = new IssueCollector();
  checkJsonValue(schema, '', issues);
  return issues.size === 0 ? JSON.stringify(schema) : undefined;
}

/** Schema texts a record vouched for in this process: compiling one for configs skips the checks it already passed. */
const recordedThisProcess = new Set<string>();

/** Checks and (when clean) compiles `schema`, reusing a cached validator for the same JSON. */
export function analyseConfigSchema(schema: unknown, path = 'configSchema'): ConfigSchemaAnalysis {
  const issues = new IssueCollector();
  checkJsonValue(schema, path, issues);
  if (issues.size > 0) return { issues: issues.list() };
  if (!isPlainObject(schema)) {
    issues.add(path, 'The config schema is not an object.', CONFIG_SCHEMA_ACCEPTED);
    return { issues: issues.list() };
  }

  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached !== undefined) return { issues: [], validate: cached };

  if (!recordedThisProcess.has(key)) {
    checkRootIsClosed(schema, path, issues);
    walkSchema(schema, path, 'root', issues);
    checkMetaSchema(schema, path, issues);
    if (issues.size > 0) return { issues: issues.list() };
  }

  const validate = compileStrict(schema, path, issues);
  if (validate === undefined) return { issues: issues.list() };
  if (compiled.size >= MAX_CACHED_SCHEMAS) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, validate);
  return { issues: [], validate };
}

function checkRootIsClosed(schema: JsonObject, path: string, issues: IssueCollector): void {
  if (own(schema, 'type') !== 'object') {
    issues.add(at(path, 'type'), 'The top level of a config schema must describe an object.', '"object" (a single type, not a list)');
  }
  if (own(schema, 'additionalProperties') !== false) {
    issues.add(
      at(path, 'additionalProperties'),
      'The config schema is not closed: without "additionalProperties": false an unknown or typo\'d config key is accepted silently.',
      'false',
    );
  }
}

function isObjectSchema(schema: JsonObject): boolean {
  const type = own(schema, 'type');
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || has(schema, 'properties') || has(schema, 'patternProperties');
}

/**
 * Schema position: the root (closed by checkRootIsClosed), a schema describing accepted values
 * (nested objects must be closed), or a condition (`not`, `if`, `contains`, `propertyNames`), where
 * an open object schema accepts nothing extra and so is not required to be closed.
 */
type Position = 'root' | 'value' | 'condition';

const CONDITION_KEYWORDS: ReadonlySet<string> = new Set(['not', 'if', 'contains', 'propertyNames']);

function walkSchema(node: unknown, path: string, position: Position, issues: IssueCollector): void {
  if (!isPlainObject(node)) return; // booleans are valid schemas; other shapes are reported by the meta-schema check
  const child: Position = position === 'condition' ? 'condition' : 'value';
  for (const key of Object.keys(node)) {
    if (!KEYWORDS.has(key)) {
      issues.add(at(path, key), `Unknown JSON Schema keyword${named(key)}; strict mode refuses it rather than ignoring it.`, `a draft-07 keyword (${DRAFT_07_KEYWORDS.join(', ')})`);
    }
  }
  if (has(node, '$schema') && !(DRAFT_07_META_SCHEMA_IDS as readonly unknown[]).includes(own(node, '$schema'))) {
    issues.add(at(path, '$schema'), 'Only draft-07 schemas are accepted.', `"${DRAFT_07_META_SCHEMA_IDS[0]}", or no "$schema"`);
  }
  if (position === 'value' && isObjectSchema(node)) checkNestedIsClosed(node, path, issues);
  checkPatterns(node, path, issues);

  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = own(node, keyword);
    if (isPlainObject(map)) for (const name of Object.keys(map)) walkSchema(map[name], at(at(path, keyword), name), child, issues);
  }
  const dependencies = own(node, 'dependencies');
  if (isPlainObject(dependencies)) {
    for (const name of Object.keys(dependencies)) walkSchema(dependencies[name], at(at(path, 'dependencies'), name), child, issues);
  }
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) {
    walkSchema(own(node, keyword), at(path, keyword), CONDITION_KEYWORDS.has(keyword) ? 'condition' : child, issues);
  }
  const items = own(node, 'items');
  if (Array.isArray(items)) items.forEach((item, index) => walkSchema(item, at(at(path, 'items'), index), child, issues));
  else walkSchema(items, at(path, 'items'), child, issues);
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = own(node, keyword);
    if (Array.isArray(list)) list.forEach((item, index) => walkSchema(item, at(at(path, keyword), index), child, issues));
  }
}

function checkNestedIsClosed(node: JsonObject, path: string, issues: IssueCollector): void {
  const additional = own(node, 'additionalProperties');
  const closed = additional === false || (isPlainObject(additional) && Object.keys(additional).length > 0);
  if (!closed) {
    issues.add(
      at(path, 'additionalProperties'),
      'A nested object schema is open: an unknown or typo\'d key inside it would be accepted silently.',
      'false, or a non-empty schema that every extra value must match (a typed map)',
    );
  }
}

function checkPatterns(node: JsonObject, path: string, issues: IssueCollector): void {
  const pattern = own(node, 'pattern');
  if (typeof pattern === 'string' && !isUnicodeRegExp(pattern)) {
    issues.add(at(path, 'pattern'), 'The pattern is not a valid regular expression.', 'a regular expression valid with the "u" flag');
  }
  const patternProperties = own(node, 'patternProperties');
  if (isPlainObject(patternProperties)) {
    for (const name of Object.keys(patternProperties)) {
      if (!isUnicodeRegExp(name)) {
        issues.add(at(at(path, 'patternProperties'), name), 'The property pattern is not a valid regular expression.', 'a regular expression valid with the "u" flag');
      }
    }
  }
}

function isUnicodeRegExp(source: string): boolean {
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}

// Made at the first check, not at import: a process that never checks a schema does not build it.
let metaAjvInstance: ReturnType<typeof createStrictAjv> | undefined;
function metaAjv(): ReturnType<typeof createStrictAjv> {
  metaAjvInstance ??= createStrictAjv();
  return metaAjvInstance;
}

const META_EXPECTED: Readonly<Record<string, string>> = {
  type: 'a JSON type name ("array", "boolean", "integer", "null", "number", "object", "string") or a list of them',
  required: 'an array of unique property names',
  enum: 'an array of allowed values',
  properties: 'an object whose values are schemas',
  patternProperties: 'an object whose values are schemas',
  definitions: 'an object whose values are schemas',
  dependencies: 'an object whose values are schemas or arrays of property names',
  minLength: 'a non-negative integer',
  maxLength: 'a non-negative integer',
  minItems: 'a non-negative integer',
  maxItems: 'a non-negative integer',
  minProperties: 'a non-negative integer',
  maxProperties: 'a non-negative integer',
  minimum: 'a number',
  maximum: 'a number',
  exclusiveMinimum: 'a number',
  exclusiveMaximum: 'a number',
  multipleOf: 'a number greater than 0',
  pattern: 'a regular expression string',
  format: 'a string',
  allOf: 'a non-empty array of schemas',
  anyOf: 'a non-empty array of schemas',
  oneOf: 'a non-empty array of schemas',
  uniqueItems: 'true or false',
  readOnly: 'true or false',
  writeOnly: 'true or false',
  title: 'a string',
  description: 'a string',
  $comment: 'a string',
  $id: 'a URI reference string',
  $ref: 'a URI reference string',
};

/** One issue per offending location, however many meta-schema branches failed there. */
function checkMetaSchema(schema: JsonObject, path: string, issues: IssueCollector): void {
  if (has(schema, '$schema') && !(DRAFT_07_META_SCHEMA_IDS as readonly unknown[]).includes(own(schema, '$schema'))) return;
  const ajv = metaAjv();
  if (ajv.validateSchema(schema) === true) return;
  const byLocation = new Map<string, string[]>();
  for (const error of ajv.errors ?? []) {
    const messages = byLocation.get(error.instancePath) ?? [];
    if (error.message !== undefined && !messages.includes(error.message)) messages.push(error.message);
    byLocation.set(error.instancePath, messages);
  }
  for (const [pointer, messages] of byLocation) {
    const keyword = pointer.split('/').filter((segment) => segment !== '' && !/^\d+$/.test(segment)).pop() ?? '';
    issues.add(
      pointerToPath(path, pointer, schema),
      `Not valid draft-07 JSON Schema: ${messages.join('; ')}.`,
      META_EXPECTED[keyword] ?? 'a value draft-07 allows for this keyword',
    );
  }
}

const STRICT_LOCATION = /"#((?:\/[^"]*)?)"/;

/**
 * Compiles a frozen copy in a fresh Ajv, so one package's `$id` can never collide with another's.
 * Only a schema checkMetaSchema passed gets here, so the fresh Ajv does not check it against the
 * meta-schema again (strict mode still runs).
 */
function compileStrict(schema: JsonObject, path: string, issues: IssueCollector): ValidateFunction | undefined {
  try {
    return createStrictAjv({ validateSchema: false }).compile(deepFreeze(cloneJson(schema)));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const pointer = STRICT_LOCATION.exec(message)?.[1] ?? '';
    issues.add(pointerToPath(path, pointer, schema), `Ajv strict mode refused the schema: ${message}.`, COMPILE_ACCEPTED);
    return undefined;
  }
}
